// Package ingest parses the official sanctions list files, each in its
// published format, into sanctions.Entry values. It does no I/O beyond the
// readers it is given: the command line and the sync job fetch the files,
// and the relational adapter stores the snapshots.
//
// Formats (Snapshot.Format), by list:
//
//	us_sdn, us_cons  ofac_csv   OFAC legacy CSV set: sdn.csv (or cons_prim.csv), add.csv, alt.csv,
//	                            sdn_comments.csv; no header, "-0-" = empty, Latin-1, trailing 0x1A
//	us_sdn, us_cons  ofac_xml   OFAC sdnList XML (sdn.xml, consolidated.xml)
//	un               un_xml     UN Security Council consolidated XML (CONSOLIDATED_LIST)
//	eu               eu_xml     EU Financial Sanctions Files XML (export/sanctionEntity)
//	uk_hmt           uk_csv     UK OFSI ConList.csv ("Last Updated" line, header, one row per name)
//	ca               ca_xml     Canada SEMA sema-lmes.xml (data-set/record)
//	au_dfat          au_xlsx    Australia DFAT regulation8_consolidated.xlsx (first sheet)
//	ch_seco          ch_xml     Swiss SECO XML (swiss-sanctions-list/target)
//	any              jsonl      the normalized format: one sanctions.Entry as JSON per line
//	eu, uk_hmt, ca,  ammitto_jsonl  the Ammitto project's per-record transcriptions of the
//	au_dfat, ch_seco                current official files, one JSON record per line
//
// Any file may be gzip-compressed; it is decompressed transparently.
//
// # The normalized JSON-lines format
//
// One JSON object per line, each a sanctions.Entry: "list" (required; the
// list id the file is ingested as), "source_id" (required, unique in the
// file), "name" (required), "kind" (person, entity, vessel, aircraft,
// unknown; default unknown), "aliases" ([{"name", "weak"}]), "programs",
// "countries" (ISO 3166-1 alpha-2), "dates_of_birth" (YYYY, YYYY-MM or
// YYYY-MM-DD), "identifiers" ([{"type", "value", "country"}]), "imo" (7
// digits), "addresses", "remarks", "linked_to" (names, verbatim), "listed"
// (RFC 3339). Unknown fields are ignored. An optional first line
// {"_snapshot": {"published": "RFC 3339 time"}} states the publication date.
// Blank lines are skipped. A bad line rejects the whole file, naming the
// line.
//
// # The Ammitto transcriptions
//
// The EU, UK, CA, AU and CH data in ../shared/data are the Ammitto project's
// transcriptions of the official files (one YAML record per official record,
// concatenated to JSON lines). ParseAmmitto maps them field by field; see
// ammitto.go for the mapping of each list. Their publication date is the
// latest date the records state (a lower bound of the real one).
package ingest

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/xml"
	"errors"
	"io"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/tradecompliance/compliance/graph"
	"github.com/tradecompliance/compliance/graph/sanctions"
)

// Format names, as stored in Snapshot.Format.
const (
	FormatOFACCSV  = "ofac_csv"
	FormatOFACXML  = "ofac_xml"
	FormatUNXML    = "un_xml"
	FormatEUXML    = "eu_xml"
	FormatUKCSV    = "uk_csv"
	FormatCAXML    = "ca_xml"
	FormatAUXLSX   = "au_xlsx"
	FormatCHXML    = "ch_xml"
	FormatJSONL    = "jsonl"
	FormatAmmittoJ = "ammitto_jsonl"
)

// MaxFileBytes bounds one input file, after decompression.
const MaxFileBytes = 512 << 20

// Result is what a parser returns.
type Result struct {
	Entries []sanctions.Entry
	// Published is the publication date the file states, else zero.
	Published time.Time
	// Orphans counts, per side file of an OFAC CSV set ("add", "alt",
	// "comments"), the distinct ent_num values it refers to that the
	// primary file lacks. Those rows are ignored.
	Orphans map[string]int `json:"orphans,omitempty"`
	// Records counts the source records read: rows of a CSV or sheet,
	// entry elements of an XML file, lines of a JSON-lines file (the
	// primary file of an OFAC set).
	Records int `json:"records"`
	// Skipped counts source records that carry no name (SECO targets
	// transcribed with their ids only) or are de-listed.
	Skipped int `json:"skipped,omitempty"`
}

// File is one input file: its name (a path or URL; its base name helps to
// tell the files of a set apart) and its bytes as read.
type File struct {
	Name string
	Data []byte
}

// Parsed is a parsed snapshot, ready to store, with the parser's counts.
type Parsed struct {
	sanctions.Snapshot
	Records int            `json:"records"`
	Orphans map[string]int `json:"orphans,omitempty"`
	Skipped int            `json:"skipped,omitempty"`
}

// KnownList reports whether id is one of the 8 covered lists.
func KnownList(id string) bool {
	return slices.ContainsFunc(graph.SanctionsLists, func(l graph.SanctionsList) bool { return l.ID == id })
}

// Parse detects the format of the files of one list and parses them fully
// into a snapshot: list, source (the file names), format, publication date,
// SHA-256 of the input bytes (every file, in order) and entries. It rejects
// a file it cannot read with an invalid error naming the file, and a set
// that yields no entry; it never stores anything, so a bad file cannot
// replace the live snapshot.
func Parse(list string, files []File) (p *Parsed, err error) {
	if !KnownList(list) {
		return nil, graph.Invalid("list", "unknown list %q; the lists are %s", list, listIDs())
	}
	if len(files) == 0 {
		return nil, graph.Invalid("file", "no file given")
	}
	defer func() {
		if r := recover(); r != nil { // a parser bug must not take the process down
			p, err = nil, graph.Invalid("file", "file could not be parsed (%v)", r)
		}
	}()
	h := sha256.New()
	plain := make([]File, len(files))
	var names []string
	for i, f := range files {
		h.Write(f.Data)
		data, err := decompress(f)
		if err != nil {
			return nil, err
		}
		plain[i] = File{Name: f.Name, Data: data}
		names = append(names, f.Name)
	}
	format, err := detect(list, plain)
	if err != nil {
		return nil, err
	}
	var res Result
	switch format {
	case FormatOFACCSV:
		set, err := classifyOFAC(plain)
		if err != nil {
			return nil, err
		}
		res, err = ParseOFACCSV(list, set)
		if err != nil {
			return nil, err
		}
	default:
		if len(plain) != 1 {
			return nil, graph.Invalid("file", "format %s takes one file, got %d", format, len(plain))
		}
		f := plain[0]
		r := bytes.NewReader(f.Data)
		switch format {
		case FormatOFACXML:
			res, err = ParseOFACXML(list, r)
		case FormatUNXML:
			res, err = ParseUNXML(r)
		case FormatEUXML:
			res, err = ParseEUXML(r)
		case FormatUKCSV:
			res, err = ParseUKCSV(r)
		case FormatCAXML:
			res, err = ParseCAXML(r)
		case FormatAUXLSX:
			res, err = ParseAUXLSX(r)
		case FormatCHXML:
			res, err = ParseCHXML(r)
		case FormatJSONL:
			res, err = ParseJSONL(list, r)
		case FormatAmmittoJ:
			res, err = ParseAmmitto(list, r)
		}
		if err != nil {
			return nil, fileError(f.Name, err)
		}
	}
	if len(res.Entries) == 0 {
		return nil, graph.Invalid("file", "%s: no entries found", strings.Join(baseNames(names), ", "))
	}
	res.Entries = mergeDuplicates(res.Entries)
	for i := range res.Entries {
		res.Entries[i].List = list
	}
	return &Parsed{
		Snapshot: sanctions.Snapshot{
			List:      list,
			Source:    strings.Join(names, ", "),
			Format:    format,
			Published: res.Published,
			SHA256:    hex.EncodeToString(h.Sum(nil)),
			Entries:   res.Entries,
		},
		Records: res.Records,
		Orphans: res.Orphans,
		Skipped: res.Skipped,
	}, nil
}

// fileError prefixes err's message with the file's base name, keeping its
// code.
func fileError(name string, err error) error {
	base := baseName(name)
	var ge *graph.Error
	if errors.As(err, &ge) {
		c := *ge
		c.Field = "file"
		c.Message = base + ": " + ge.Message
		return &c
	}
	return graph.Invalid("file", "%s: %v", base, err)
}

// prefixErr adds prefix to err's message, keeping its code.
func prefixErr(prefix string, err error) error {
	var ge *graph.Error
	if errors.As(err, &ge) {
		c := *ge
		c.Message = prefix + ": " + ge.Message
		return &c
	}
	return graph.Invalid("file", "%s: %v", prefix, err)
}

func listIDs() string {
	ids := make([]string, len(graph.SanctionsLists))
	for i, l := range graph.SanctionsLists {
		ids[i] = l.ID
	}
	return strings.Join(ids, ", ")
}

func baseName(name string) string {
	if i := strings.IndexAny(name, "?#"); i >= 0 && strings.Contains(name, "://") {
		name = name[:i]
	}
	return path.Base(strings.ReplaceAll(name, `\`, "/"))
}

func baseNames(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = baseName(n)
	}
	return out
}

// decompress returns the file's bytes, gunzipped when they are gzip, and
// refuses files larger than MaxFileBytes.
func decompress(f File) ([]byte, error) {
	if len(f.Data) > MaxFileBytes {
		return nil, graph.Invalid("file", "%s: larger than %d MiB", baseName(f.Name), MaxFileBytes>>20)
	}
	if len(f.Data) < 2 || f.Data[0] != 0x1f || f.Data[1] != 0x8b {
		return f.Data, nil
	}
	zr, err := gzip.NewReader(bytes.NewReader(f.Data))
	if err != nil {
		return nil, graph.Invalid("file", "%s: bad gzip data: %v", baseName(f.Name), err)
	}
	out, err := io.ReadAll(io.LimitReader(zr, MaxFileBytes+1))
	if err != nil {
		return nil, graph.Invalid("file", "%s: bad gzip data: %v", baseName(f.Name), err)
	}
	if len(out) > MaxFileBytes {
		return nil, graph.Invalid("file", "%s: larger than %d MiB uncompressed", baseName(f.Name), MaxFileBytes>>20)
	}
	return out, nil
}

// formatsOf are the formats each list is published in.
var formatsOf = map[string][]string{
	sanctions.ListUSSDN:  {FormatOFACCSV, FormatOFACXML, FormatJSONL},
	sanctions.ListUSCons: {FormatOFACCSV, FormatOFACXML, FormatJSONL},
	sanctions.ListUN:     {FormatUNXML, FormatJSONL},
	sanctions.ListEU:     {FormatEUXML, FormatJSONL, FormatAmmittoJ},
	sanctions.ListUKHMT:  {FormatUKCSV, FormatJSONL, FormatAmmittoJ},
	sanctions.ListCA:     {FormatCAXML, FormatJSONL, FormatAmmittoJ},
	sanctions.ListAUDFAT: {FormatAUXLSX, FormatJSONL, FormatAmmittoJ},
	sanctions.ListCHSECO: {FormatCHXML, FormatJSONL, FormatAmmittoJ},
}

// Sniff tells the format of one (decompressed) file from its content: the
// root element of XML, the zip signature of xlsx, the first JSON line, the
// first CSV record. It returns "" when it cannot tell.
func Sniff(data []byte) string {
	data = trimBOM(data)
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	switch {
	case bytes.HasPrefix(data, []byte("PK\x03\x04")):
		return FormatAUXLSX
	case bytes.HasPrefix(trimmed, []byte("<")):
		switch xmlRoot(trimmed) {
		case "sdnList":
			return FormatOFACXML
		case "CONSOLIDATED_LIST":
			return FormatUNXML
		case "export":
			return FormatEUXML
		case "data-set":
			return FormatCAXML
		case "swiss-sanctions-list":
			return FormatCHXML
		}
		return ""
	case bytes.HasPrefix(trimmed, []byte("{")):
		line, _, _ := bytes.Cut(trimmed, []byte("\n"))
		if bytes.Contains(line, []byte(`"list"`)) || bytes.Contains(line, []byte(`"_snapshot"`)) {
			return FormatJSONL
		}
		return FormatAmmittoJ
	case bytes.HasPrefix(trimmed, []byte("Last Updated")) || bytes.HasPrefix(trimmed, []byte("Name 6")):
		return FormatUKCSV
	case len(trimmed) > 0 && trimmed[0] >= '0' && trimmed[0] <= '9':
		return FormatOFACCSV
	}
	return ""
}

// xmlRoot returns the local name of the first element of an XML document.
func xmlRoot(data []byte) string {
	d := xml.NewDecoder(bytes.NewReader(data))
	d.Strict = false
	for range 64 {
		tok, err := d.RawToken()
		if err != nil {
			return ""
		}
		if se, ok := tok.(xml.StartElement); ok {
			return se.Name.Local
		}
	}
	return ""
}

// detect returns the one format of the files, checking it is a format of
// the list.
func detect(list string, files []File) (string, error) {
	format := ""
	for _, f := range files {
		got := Sniff(f.Data)
		if got == "" {
			return "", graph.Invalid("file", "%s: not a recognised sanctions list format (expected %s for list %s)",
				baseName(f.Name), strings.Join(formatsOf[list], ", "), list)
		}
		if format != "" && got != format {
			return "", graph.Invalid("file", "%s: format %s differs from the other files' %s; give one list's files in one format",
				baseName(f.Name), got, format)
		}
		format = got
	}
	if !slices.Contains(formatsOf[list], format) {
		return "", graph.Invalid("file", "%s: format %s is not a format of list %s (expected %s)",
			strings.Join(baseNames(fileNames(files)), ", "), format, list, strings.Join(formatsOf[list], ", "))
	}
	return format, nil
}

func fileNames(files []File) []string {
	out := make([]string, len(files))
	for i, f := range files {
		out[i] = f.Name
	}
	return out
}

// classifyOFAC tells the files of an OFAC CSV set apart, by their base
// names (sdn.csv or cons_prim.csv, add.csv, alt.csv, sdn_comments.csv and
// their cons_ and upper-case variants) or, failing that, by the number of
// fields of their first record (12, 6, 5 and 2).
func classifyOFAC(files []File) (OFACFiles, error) {
	var set OFACFiles
	assign := func(slot *io.Reader, slotName string, f File) error {
		if *slot != nil {
			return graph.Invalid("file", "%s: a second %s file in one OFAC CSV set", baseName(f.Name), slotName)
		}
		*slot = bytes.NewReader(f.Data)
		return nil
	}
	for _, f := range files {
		base := strings.ToLower(baseName(f.Name))
		base = strings.TrimSuffix(strings.TrimSuffix(base, ".gz"), ".csv")
		kind := ""
		switch {
		case strings.Contains(base, "comments"):
			kind = "comments"
		case strings.HasSuffix(base, "add") || strings.Contains(base, "_add"):
			kind = "add"
		case strings.HasSuffix(base, "alt") || strings.Contains(base, "_alt"):
			kind = "alt"
		case base == "sdn" || strings.Contains(base, "prim"):
			kind = "primary"
		default:
			switch ofacFieldCount(f.Data) {
			case 12:
				kind = "primary"
			case 6:
				kind = "add"
			case 5:
				kind = "alt"
			case 2:
				kind = "comments"
			}
		}
		var err error
		switch kind {
		case "primary":
			err = assign(&set.Primary, "primary (sdn.csv)", f)
		case "add":
			err = assign(&set.Addresses, "address (add.csv)", f)
		case "alt":
			err = assign(&set.Aliases, "alias (alt.csv)", f)
		case "comments":
			err = assign(&set.Comments, "comments (sdn_comments.csv)", f)
		default:
			err = graph.Invalid("file", "%s: not a file of an OFAC CSV set (sdn.csv, add.csv, alt.csv, sdn_comments.csv)", baseName(f.Name))
		}
		if err != nil {
			return set, err
		}
	}
	if set.Primary == nil {
		return set, graph.Invalid("file", "the OFAC CSV set has no primary file (sdn.csv or cons_prim.csv)")
	}
	return set, nil
}

// mergeDuplicates merges entries that share a source id (an official file
// that states one designation twice) into the first of them.
func mergeDuplicates(entries []sanctions.Entry) []sanctions.Entry {
	at := make(map[string]int, len(entries))
	out := entries[:0]
	for _, e := range entries {
		i, dup := at[e.SourceID]
		if !dup {
			at[e.SourceID] = len(out)
			out = append(out, e)
			continue
		}
		m := &out[i]
		m.Aliases = append(m.Aliases, sanctions.Alias{Name: e.Name})
		m.Aliases = append(m.Aliases, e.Aliases...)
		m.Programs = append(m.Programs, e.Programs...)
		m.Countries = append(m.Countries, e.Countries...)
		m.DatesOfBirth = append(m.DatesOfBirth, e.DatesOfBirth...)
		m.Identifiers = append(m.Identifiers, e.Identifiers...)
		m.Addresses = append(m.Addresses, e.Addresses...)
		m.LinkedTo = append(m.LinkedTo, e.LinkedTo...)
		if m.IMO == "" {
			m.IMO = e.IMO
		}
		if !strings.Contains(m.Remarks, e.Remarks) {
			m.Remarks = joinNonEmpty(" ", m.Remarks, e.Remarks)
		}
		finish(m)
	}
	return out
}
