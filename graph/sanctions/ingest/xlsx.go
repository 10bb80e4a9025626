package ingest

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"path"
	"strings"

	"github.com/tradecompliance/compliance/graph"
)

// maxXLSXPart bounds one decompressed part of an xlsx file.
const maxXLSXPart = 256 << 20

// xlsxRow is one worksheet row: its 1-based number and its cells' text by
// 0-based column.
type xlsxRow struct {
	Num   int
	Cells []string
}

// readXLSX returns the rows of the first worksheet of an xlsx workbook
// (Office Open XML: a zip of XML parts), reading the workbook, its
// relationships, the shared strings and the sheet with encoding/xml.
// Numbers come back as written in the sheet ("41988" for a date cell).
func readXLSX(data []byte) ([]xlsxRow, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, graph.Invalid("file", "not an xlsx workbook: %v", err)
	}
	parts := map[string]*zip.File{}
	for _, f := range zr.File {
		parts[strings.TrimPrefix(f.Name, "/")] = f
	}
	sheet, err := firstSheetPath(parts)
	if err != nil {
		return nil, err
	}
	var shared []string
	if f := parts["xl/sharedStrings.xml"]; f != nil {
		b, err := readPart(f)
		if err != nil {
			return nil, err
		}
		if shared, err = readSharedStrings(b); err != nil {
			return nil, err
		}
	}
	f := parts[sheet]
	if f == nil {
		return nil, graph.Invalid("file", "xlsx has no worksheet %s", sheet)
	}
	b, err := readPart(f)
	if err != nil {
		return nil, err
	}
	return readSheet(b, shared)
}

func readPart(f *zip.File) ([]byte, error) {
	if f.UncompressedSize64 > maxXLSXPart {
		return nil, graph.Invalid("file", "xlsx part %s is larger than %d MiB", f.Name, maxXLSXPart>>20)
	}
	rc, err := f.Open()
	if err != nil {
		return nil, graph.Invalid("file", "xlsx part %s: %v", f.Name, err)
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, maxXLSXPart+1))
	if err != nil {
		return nil, graph.Invalid("file", "xlsx part %s: %v", f.Name, err)
	}
	if len(b) > maxXLSXPart {
		return nil, graph.Invalid("file", "xlsx part %s is larger than %d MiB", f.Name, maxXLSXPart>>20)
	}
	return b, nil
}

// firstSheetPath finds the part of the workbook's first sheet through
// xl/workbook.xml and its relationships, falling back to
// xl/worksheets/sheet1.xml.
func firstSheetPath(parts map[string]*zip.File) (string, error) {
	const fallback = "xl/worksheets/sheet1.xml"
	wb, rels := parts["xl/workbook.xml"], parts["xl/_rels/workbook.xml.rels"]
	if wb == nil {
		if parts[fallback] != nil {
			return fallback, nil
		}
		return "", graph.Invalid("file", "not an xlsx workbook: no xl/workbook.xml")
	}
	b, err := readPart(wb)
	if err != nil {
		return "", err
	}
	var w struct {
		Sheets []struct {
			RID string `xml:"http://schemas.openxmlformats.org/officeDocument/2006/relationships id,attr"`
		} `xml:"sheets>sheet"`
	}
	if err := xml.Unmarshal(b, &w); err != nil {
		return "", graph.Invalid("file", "xlsx workbook.xml: %v", err)
	}
	if len(w.Sheets) == 0 {
		return "", graph.Invalid("file", "xlsx workbook has no sheet")
	}
	if rels == nil {
		return fallback, nil
	}
	if b, err = readPart(rels); err != nil {
		return "", err
	}
	var rs struct {
		Rels []struct {
			ID     string `xml:"Id,attr"`
			Target string `xml:"Target,attr"`
		} `xml:"Relationship"`
	}
	if err := xml.Unmarshal(b, &rs); err != nil {
		return "", graph.Invalid("file", "xlsx workbook.xml.rels: %v", err)
	}
	for _, r := range rs.Rels {
		if r.ID == w.Sheets[0].RID {
			if strings.HasPrefix(r.Target, "/") {
				return strings.TrimPrefix(r.Target, "/"), nil
			}
			return path.Join("xl", r.Target), nil
		}
	}
	return fallback, nil
}

type xlsxText struct {
	T    string `xml:"t"`
	Runs []struct {
		T string `xml:"t"`
	} `xml:"r"`
}

func (t xlsxText) String() string {
	if len(t.Runs) == 0 {
		return t.T
	}
	var sb strings.Builder
	sb.WriteString(t.T)
	for _, r := range t.Runs {
		sb.WriteString(r.T)
	}
	return sb.String()
}

func readSharedStrings(b []byte) ([]string, error) {
	var out []string
	err := walkXML(bytes.NewReader(b), func(d *xml.Decoder, se xml.StartElement, depth int) (bool, error) {
		if depth == 0 {
			return true, nil
		}
		if se.Name.Local != "si" {
			return false, d.Skip()
		}
		var si xlsxText
		if err := d.DecodeElement(&si, &se); err != nil {
			return false, err
		}
		out = append(out, si.String())
		return false, nil
	})
	if err != nil {
		return nil, prefixErr("xlsx sharedStrings.xml", err)
	}
	return out, nil
}

func readSheet(b []byte, shared []string) ([]xlsxRow, error) {
	var rows []xlsxRow
	err := walkXML(bytes.NewReader(b), func(d *xml.Decoder, se xml.StartElement, depth int) (bool, error) {
		switch {
		case depth == 0 || (depth == 1 && se.Name.Local == "sheetData"):
			return true, nil
		case depth == 2 && se.Name.Local == "row":
			var row struct {
				R     int `xml:"r,attr"`
				Cells []struct {
					R  string   `xml:"r,attr"`
					T  string   `xml:"t,attr"`
					V  string   `xml:"v"`
					IS xlsxText `xml:"is"`
				} `xml:"c"`
			}
			if err := d.DecodeElement(&row, &se); err != nil {
				return false, err
			}
			out := xlsxRow{Num: row.R}
			if out.Num == 0 {
				out.Num = len(rows) + 1
			}
			col := -1
			for _, c := range row.Cells {
				if c.R != "" {
					n, ok := columnIndex(c.R)
					if !ok {
						return false, fmt.Errorf("row %d: bad cell reference %q", out.Num, c.R)
					}
					col = n
				} else {
					col++
				}
				if col > 1<<14 {
					return false, fmt.Errorf("row %d: column beyond XFD", out.Num)
				}
				var text string
				switch c.T {
				case "s":
					i := atoi(c.V)
					if strings.TrimSpace(c.V) == "" || i >= len(shared) {
						return false, fmt.Errorf("row %d: shared string %q out of range", out.Num, c.V)
					}
					text = shared[i]
				case "inlineStr":
					text = c.IS.String()
				default:
					text = c.V
				}
				for len(out.Cells) <= col {
					out.Cells = append(out.Cells, "")
				}
				out.Cells[col] = text
			}
			rows = append(rows, out)
			return false, nil
		}
		return false, d.Skip()
	})
	if err != nil {
		return nil, prefixErr("xlsx worksheet", err)
	}
	return rows, nil
}

// columnIndex returns the 0-based column of a cell reference such as "AB12".
func columnIndex(ref string) (int, bool) {
	n, i := 0, 0
	for ; i < len(ref) && ref[i] >= 'A' && ref[i] <= 'Z'; i++ {
		n = n*26 + int(ref[i]-'A'+1)
		if n > 1<<14 {
			return 0, false
		}
	}
	if i == 0 {
		return 0, false
	}
	return n - 1, true
}
