package ingest

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/tradecompliance/compliance/graph"
	"github.com/tradecompliance/compliance/graph/sanctions"
)

func TestSniff(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"ofac csv", fixtureSDN, FormatOFACCSV},
		{"ofac xml", fixtureSDNXML, FormatOFACXML},
		{"un xml", fixtureUNXML, FormatUNXML},
		{"eu xml", fixtureEUXML, FormatEUXML},
		{"uk csv", fixtureUKCSV, FormatUKCSV},
		{"ca xml", fixtureCAXML, FormatCAXML},
		{"ch xml", `<?xml version="1.0"?><!-- c --><swiss-sanctions-list date="2026-01-01"/>`, FormatCHXML},
		{"xlsx", "PK\x03\x04rest", FormatAUXLSX},
		{"jsonl", fixtureJSONL, FormatJSONL},
		{"ammitto", fixtureAmmittoEU, FormatAmmittoJ},
		{"bom", "\xef\xbb\xbf" + fixtureUKCSV, FormatUKCSV},
		{"other xml", `<html/>`, ""},
		{"text", "hello", ""},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		if got := Sniff([]byte(tt.in)); got != tt.want {
			t.Errorf("Sniff(%s) = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestParse(t *testing.T) {
	files := []File{
		{Name: "/data/ALT.CSV", Data: []byte(fixtureALT)},
		{Name: "https://example.org/exports/SDN.CSV?x=1", Data: []byte(fixtureSDN)},
		{Name: "sdn_comments.csv", Data: []byte(fixtureComments)},
		{Name: "add.csv.gz", Data: gz(t, fixtureADD)},
	}
	p, err := Parse(sanctions.ListUSSDN, files)
	if err != nil {
		t.Fatalf("Parse(us_sdn, OFAC set) error = %v", err)
	}
	h := sha256.New()
	for _, f := range files {
		h.Write(f.Data)
	}
	if want := hex.EncodeToString(h.Sum(nil)); p.SHA256 != want {
		t.Errorf("Parse(us_sdn).SHA256 = %s, want %s (the input bytes, in order)", p.SHA256, want)
	}
	if p.Format != FormatOFACCSV || p.List != "us_sdn" || len(p.Entries) != 6 || p.Records != 6 {
		t.Errorf("Parse(us_sdn) = format %s, list %s, %d entries, %d records; want ofac_csv, us_sdn, 6, 6", p.Format, p.List, len(p.Entries), p.Records)
	}
	if want := "/data/ALT.CSV, https://example.org/exports/SDN.CSV?x=1, sdn_comments.csv, add.csv.gz"; p.Source != want {
		t.Errorf("Parse(us_sdn).Source = %q, want %q", p.Source, want)
	}
	if e := byID(p.Entries)["101"]; len(e.Addresses) != 1 {
		t.Errorf("Parse(us_sdn) entry 101 addresses = %q, want the gzipped add.csv read", e.Addresses)
	}
}

func TestParseOFACByFieldCount(t *testing.T) {
	p, err := Parse(sanctions.ListUSCons, []File{
		{Name: "one.txt", Data: []byte(fixtureSDN)},
		{Name: "two.txt", Data: []byte(fixtureALT)},
		{Name: "three.txt", Data: []byte(fixtureADD)},
	})
	if err != nil {
		t.Fatalf("Parse(us_cons, unnamed files) error = %v", err)
	}
	if e := byID(p.Entries)["101"]; e.List != "us_cons" || len(e.Addresses) != 1 || len(e.Aliases) != 2 {
		t.Errorf("Parse(us_cons, unnamed files) entry 101 = %s, want list us_cons with the alias and address files told apart by their fields", js(e))
	}
}

func TestParseFormatsOfLists(t *testing.T) {
	tests := []struct {
		list string
		name string
		data []byte
		want string
	}{
		{sanctions.ListUSCons, "consolidated.xml", []byte(fixtureSDNXML), FormatOFACXML},
		{sanctions.ListUN, "consolidated.xml", []byte(fixtureUNXML), FormatUNXML},
		{sanctions.ListUN, "un.jsonl", []byte(fixtureJSONL), FormatJSONL},
		{sanctions.ListEU, "x", []byte(fixtureEUXML), FormatEUXML},
		{sanctions.ListEU, "eu.jsonl.gz", gz(t, fixtureAmmittoEU), FormatAmmittoJ},
		{sanctions.ListUKHMT, "ConList.csv", []byte(fixtureUKCSV), FormatUKCSV},
		{sanctions.ListUKHMT, "uk.jsonl", []byte(fixtureAmmittoUK), FormatAmmittoJ},
		{sanctions.ListCA, "sema-lmes.xml", []byte(fixtureCAXML), FormatCAXML},
		{sanctions.ListCA, "ca.jsonl", []byte(fixtureAmmittoCA), FormatAmmittoJ},
		{sanctions.ListAUDFAT, "regulation8_consolidated.xlsx", makeXLSX(t, fixtureAURows), FormatAUXLSX},
		{sanctions.ListAUDFAT, "au.jsonl", []byte(fixtureAmmittoAU), FormatAmmittoJ},
		{sanctions.ListCHSECO, "ch.jsonl", []byte(fixtureAmmittoCH), FormatAmmittoJ},
	}
	for _, tt := range tests {
		t.Run(tt.list+"/"+tt.want, func(t *testing.T) {
			p, err := Parse(tt.list, []File{{Name: tt.name, Data: tt.data}})
			if err != nil {
				t.Fatalf("Parse(%s, %s) error = %v", tt.list, tt.name, err)
			}
			if p.Format != tt.want || len(p.Entries) == 0 {
				t.Errorf("Parse(%s, %s) = format %s with %d entries, want %s", tt.list, tt.name, p.Format, len(p.Entries), tt.want)
			}
			for _, e := range p.Entries {
				if e.List != tt.list {
					t.Fatalf("Parse(%s, %s) entry %s list = %s, want %s", tt.list, tt.name, e.SourceID, e.List, tt.list)
				}
			}
		})
	}
}

func TestParseRejects(t *testing.T) {
	tests := []struct {
		name  string
		list  string
		files []File
		field string
		want  string
	}{
		{"unknown list", "us_ofac", []File{{Name: "a", Data: []byte(fixtureSDN)}}, "list", `unknown list "us_ofac"`},
		{"no file", sanctions.ListUN, nil, "file", "no file given"},
		{"not a list format", sanctions.ListUN, []File{{Name: "page.html", Data: []byte("<html></html>")}}, "file",
			"page.html: not a recognised sanctions list format (expected un_xml, jsonl for list un)"},
		{"another list's format", sanctions.ListEU, []File{{Name: "consolidated.xml", Data: []byte(fixtureUNXML)}}, "file",
			"consolidated.xml: format un_xml is not a format of list eu"},
		{"mixed formats", sanctions.ListUSSDN, []File{{Name: "sdn.csv", Data: []byte(fixtureSDN)}, {Name: "sdn.xml", Data: []byte(fixtureSDNXML)}}, "file",
			"sdn.xml: format ofac_xml differs from the other files' ofac_csv"},
		{"two primary files", sanctions.ListUSSDN, []File{{Name: "sdn.csv", Data: []byte(fixtureSDN)}, {Name: "cons_prim.csv", Data: []byte(fixtureSDN)}}, "file",
			"cons_prim.csv: a second primary (sdn.csv) file"},
		{"set without primary", sanctions.ListUSSDN, []File{{Name: "alt.csv", Data: []byte(fixtureALT)}}, "file",
			"the OFAC CSV set has no primary file"},
		{"two files of a one-file format", sanctions.ListUN, []File{{Name: "a.xml", Data: []byte(fixtureUNXML)}, {Name: "b.xml", Data: []byte(fixtureUNXML)}}, "file",
			"format un_xml takes one file, got 2"},
		{"empty list", sanctions.ListUN, []File{{Name: "empty.xml", Data: []byte(`<CONSOLIDATED_LIST><INDIVIDUALS/></CONSOLIDATED_LIST>`)}}, "file",
			"empty.xml: no entries found"},
		{"bad gzip", sanctions.ListUN, []File{{Name: "un.xml.gz", Data: []byte("\x1f\x8bnot gzip")}}, "file", "un.xml.gz: bad gzip data"},
		{"parser error names the file", sanctions.ListUN, []File{{Name: "/tmp/un.xml", Data: []byte(fixtureUNXML[:300])}}, "file", "un.xml: line"},
		{"truncated ammitto line", sanctions.ListEU, []File{{Name: "eu.jsonl", Data: []byte(fixtureAmmittoEU[:100])}}, "file", "eu.jsonl: line 1:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(tt.list, tt.files)
			ge := graph.AsError(err)
			if ge == nil || ge.Code != graph.CodeInvalid || ge.Field != tt.field || !strings.Contains(ge.Message, tt.want) {
				t.Errorf("Parse(%s, %s) error = %v, want invalid %s containing %q", tt.list, tt.name, err, tt.field, tt.want)
			}
		})
	}
}

func TestParseMergesDuplicateRecords(t *testing.T) {
	doubled := strings.Replace(fixtureEUXML, "</export>", `<sanctionEntity logicalId="9002"><subjectType code="enterprise"/><nameAlias wholeName="Example Trading Corp." strong="true"/></sanctionEntity></export>`, 1)
	p, err := Parse(sanctions.ListEU, []File{{Name: "eu.xml", Data: []byte(doubled)}})
	if err != nil {
		t.Fatal(err)
	}
	e := byID(p.Entries)["9002"]
	if len(p.Entries) != 2 || p.Records != 3 || len(e.Aliases) != 1 || e.Aliases[0].Name != "Example Trading Corp." {
		t.Errorf("Parse(eu, a designation stated twice) = %d entries from %d records, 9002 = %s; want 2 from 3 with the second statement's name as an alias",
			len(p.Entries), p.Records, js(e))
	}
}
