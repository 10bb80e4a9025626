package ingest

import (
	"io"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/tradecompliance/compliance/graph"
	"github.com/tradecompliance/compliance/graph/sanctions"
)

// ParseAUXLSX parses the Australian DFAT consolidated list workbook
// (regulation8_consolidated.xlsx): one sheet, a header row (Reference, Name
// of Individual or Entity, Type, Name Type, Date of Birth, Place of Birth,
// Citizenship, Address, Additional Information, Listing Information,
// Committees, Control Date), then one row per name. The rows of one listing
// share the number their Reference starts with ("2", "2a", "34c1"), which
// is the source id. The "Primary Name" row gives the name; "aka", "Original
// Script" and "Formerly known as" rows are aliases. The publication date
// is the latest Control Date.
func ParseAUXLSX(r io.Reader) (Result, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxFileBytes+1))
	if err != nil {
		return Result{}, graph.Invalid("file", "%v", err)
	}
	rows, err := readXLSX(data)
	if err != nil {
		return Result{}, err
	}
	col := map[string]int{}
	start := -1
	for i, row := range rows {
		for j, c := range row.Cells {
			col[strings.ToLower(clean(c))] = j
		}
		_, ref := col["reference"]
		_, name := col["name of individual or entity"]
		if ref && name {
			start = i + 1
			break
		}
		clear(col)
		if i > 20 {
			break
		}
	}
	if start < 0 {
		return Result{}, graph.Invalid("file", "no header row with Reference and Name of Individual or Entity: not a DFAT consolidated list")
	}
	var res Result
	index := map[string]int{}
	primary := map[string]bool{}
	for _, row := range rows[start:] {
		get := func(name string) string {
			if i, ok := col[name]; ok && i < len(row.Cells) {
				return clean(row.Cells[i])
			}
			return ""
		}
		ref, name := get("reference"), get("name of individual or entity")
		if ref == "" && name == "" {
			continue
		}
		res.Records++
		base := reLeadingDigits.FindString(ref)
		if base == "" {
			return Result{}, graph.Invalid("file", "row %d: Reference %q does not start with a number", row.Num, ref)
		}
		i, ok := index[base]
		if !ok {
			i = len(res.Entries)
			index[base] = i
			res.Entries = append(res.Entries, sanctions.Entry{List: sanctions.ListAUDFAT, SourceID: base, Kind: auKind(get("type"))})
		}
		e := &res.Entries[i]
		if e.Kind == sanctions.Unknown {
			e.Kind = auKind(get("type"))
		}
		nameType := strings.ToLower(get("name type"))
		switch {
		case name == "":
		case strings.HasPrefix(nameType, "primary") && !primary[base]:
			if e.Name != "" {
				e.Aliases = append(e.Aliases, sanctions.Alias{Name: e.Name})
			}
			e.Name, primary[base] = name, true
		case e.Name == "":
			e.Name = name
		default:
			e.Aliases = append(e.Aliases, sanctions.Alias{Name: name, Weak: strings.Contains(nameType, "weak")})
		}
		e.DatesOfBirth = appendUnique(e.DatesOfBirth, excelDates(get("date of birth"))...)
		e.Countries = appendCountries(e.Countries, get("citizenship"))
		if addr := get("address"); addr != "" && !strings.EqualFold(addr, "na") {
			e.Addresses = appendUnique(e.Addresses, addr)
			e.Countries = appendUnique(e.Countries, addressCountries(addr)...)
		}
		if info := get("additional information"); info != "" && !strings.Contains(e.Remarks, info) {
			e.Remarks = joinNonEmpty(" ", e.Remarks, info)
		}
		if e.Listed.IsZero() {
			e.Listed = firstDate(get("listing information"))
		}
		e.Programs = appendUnique(e.Programs, get("committees"))
		for h, j := range col {
			if strings.Contains(h, "imo") && j < len(row.Cells) && e.IMO == "" {
				e.IMO = findIMO("IMO " + clean(row.Cells[j]))
			}
		}
		if t := excelDate(get("control date")); t.After(res.Published) {
			res.Published = t
		}
	}
	for i := range res.Entries {
		e := &res.Entries[i]
		if e.Name == "" {
			return Result{}, graph.Invalid("file", "Reference %s has no name", e.SourceID)
		}
		if imo := findIMO(e.Remarks); imo != "" && e.IMO == "" {
			if e.Kind == sanctions.Vessel {
				e.IMO = imo
			} else {
				e.Identifiers = append(e.Identifiers, sanctions.Identifier{Type: "IMO", Value: imo})
			}
		}
		finish(e)
	}
	return res, nil
}

var reLeadingDigits = regexp.MustCompile(`^\d+`)

func auKind(t string) sanctions.Kind {
	switch strings.ToLower(clean(t)) {
	case "individual", "person":
		return sanctions.Person
	case "entity", "organisation", "organization":
		return sanctions.Entity
	case "vessel", "ship":
		return sanctions.Vessel
	}
	return sanctions.Unknown
}

// excelDate reads a date cell: an Excel serial day number (days since
// 1899-12-30), or a written date. It returns the zero time otherwise.
func excelDate(s string) time.Time {
	s = strings.TrimSpace(s)
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		if f > 3000 && f < 80000 {
			return time.Date(1899, 12, 30, 0, 0, 0, 0, time.UTC).AddDate(0, 0, int(f))
		}
		return time.Time{}
	}
	return firstDate(s)
}

// excelDates reads a date-of-birth cell: an Excel serial day number, a
// year written as a number, or free text.
func excelDates(s string) []string {
	s = strings.TrimSpace(s)
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		switch {
		case f >= 1800 && f <= 2100:
			return []string{strconv.Itoa(int(f))}
		case f > 3000 && f < 80000:
			return []string{excelDate(s).Format("2006-01-02")}
		}
		return nil
	}
	return extractDates(s)
}

var reListMarker = regexp.MustCompile(`(?:^|\s)\(?[a-z]\)\s*`)

// addressCountries returns the countries that end the addresses of a
// free-text address cell ("a) ..., Dubai, United Arab Emirates b) ...,
// Baghdad, Iraq").
func addressCountries(addr string) []string {
	var out []string
	for _, part := range reListMarker.Split(addr, -1) {
		part = strings.Trim(part, " ;.,")
		if part == "" {
			continue
		}
		last := part
		if i := strings.LastIndex(part, ","); i >= 0 {
			last = part[i+1:]
		}
		if c, ok := CountryCode(strings.TrimSpace(last)); ok {
			out = appendUnique(out, c)
		}
	}
	return out
}
