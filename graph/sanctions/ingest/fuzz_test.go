package ingest

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/tradecompliance/compliance/graph"
	"github.com/tradecompliance/compliance/graph/sanctions"
)

// Fuzz targets for every parser of outside input. Each must return entries
// or an invalid error for any input, never panic. Seeds: the hand-written
// fixtures, cuts of them, and (when ../shared/data is present) the first
// kilobytes of the real files, read at test time.
//
//	go test ./graph/sanctions/ingest -run '^$' -fuzz FuzzParseUNXML -fuzztime 1m

// realHead returns the first n bytes of a shared data file, decompressed,
// or nil when the file is absent.
func realHead(name string, n int) []byte {
	dir := os.Getenv("COMPLIANCE_SHARED_DATA")
	if dir == "" {
		wd, _ := os.Getwd()
		dir = filepath.Join(wd, "..", "..", "..", "..", "shared", "data")
	}
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		return nil
	}
	if b, err = decompress(File{Name: name, Data: b}); err != nil {
		return nil
	}
	if len(b) > n {
		b = b[:n]
	}
	return b
}

func addSeeds(f *testing.F, fixtures []string, real ...string) {
	for _, s := range fixtures {
		f.Add([]byte(s))
		f.Add([]byte(s[:len(s)/2]))
		f.Add([]byte(s[:len(s)*9/10]))
	}
	for _, r := range real {
		if b := realHead(r, 16<<10); b != nil {
			f.Add(b)
		}
	}
}

// checkResult fails the fuzz run on an error outside the vocabulary or an
// entry without a name or source id.
func checkResult(t *testing.T, res Result, err error) {
	t.Helper()
	if err != nil {
		if graph.ErrorCode(err) != graph.CodeInvalid {
			t.Fatalf("error %v has code %s, want invalid", err, graph.ErrorCode(err))
		}
		return
	}
	for _, e := range res.Entries {
		if e.Name == "" || e.SourceID == "" {
			t.Fatalf("entry %+v has no name or source id", e)
		}
	}
}

func FuzzParseOFACCSV(f *testing.F) {
	addSeeds(f, []string{fixtureSDN, fixtureADD, fixtureALT, fixtureComments}, "ofac/sdn.csv", "ofac/cons_prim.csv")
	f.Fuzz(func(t *testing.T, data []byte) {
		// The same bytes as each file of the set, so side files are fuzzed too.
		res, err := ParseOFACCSV(sanctions.ListUSSDN, OFACFiles{Primary: bytes.NewReader([]byte(fixtureSDN)),
			Addresses: bytes.NewReader(data), Aliases: bytes.NewReader(data), Comments: bytes.NewReader(data)})
		checkResult(t, res, err)
		res, err = ParseOFACCSV(sanctions.ListUSSDN, OFACFiles{Primary: bytes.NewReader(data)})
		checkResult(t, res, err)
	})
}

func FuzzParseOFACXML(f *testing.F) {
	addSeeds(f, []string{fixtureSDNXML}, "format_samples/ofac_sdn_xml_sample_2020-04.xml")
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := ParseOFACXML(sanctions.ListUSSDN, bytes.NewReader(data))
		checkResult(t, res, err)
	})
}

func FuzzParseUNXML(f *testing.F) {
	addSeeds(f, []string{fixtureUNXML}, "un/un_consolidated.xml")
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := ParseUNXML(bytes.NewReader(data))
		checkResult(t, res, err)
	})
}

func FuzzParseEUXML(f *testing.F) {
	addSeeds(f, []string{fixtureEUXML}, "format_samples/eu_fsf_sample_2020-04.xml")
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := ParseEUXML(bytes.NewReader(data))
		checkResult(t, res, err)
	})
}

func FuzzParseUKCSV(f *testing.F) {
	addSeeds(f, []string{fixtureUKCSV}, "format_samples/uk_hmt_conlist_sample_2020-04.csv")
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := ParseUKCSV(bytes.NewReader(data))
		checkResult(t, res, err)
	})
}

func FuzzParseCAXML(f *testing.F) {
	addSeeds(f, []string{fixtureCAXML}, "ca/sema-lmes_2020-04.xml")
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := ParseCAXML(bytes.NewReader(data))
		checkResult(t, res, err)
	})
}

func FuzzParseAUXLSX(f *testing.F) {
	f.Add(makeXLSX(f, fixtureAURows))
	f.Add(makeXLSX(f, fixtureAURows[:3]))
	f.Add([]byte("PK\x03\x04"))
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := ParseAUXLSX(bytes.NewReader(data))
		checkResult(t, res, err)
	})
}

// FuzzReadSheet fuzzes the worksheet and shared-strings XML of a workbook,
// which zip checksums would otherwise keep the fuzzer from reaching.
func FuzzReadSheet(f *testing.F) {
	f.Add([]byte(`<worksheet><sheetData><row r="1"><c r="A1" t="s"><v>0</v></c><c r="C1"><v>41988</v></c><c t="inlineStr"><is><t>x</t></is></c></row></sheetData></worksheet>`),
		[]byte(`<sst><si><t>Reference</t></si><si><r><t>a</t></r><r><t>b</t></r></si></sst>`))
	f.Fuzz(func(t *testing.T, sheet, sst []byte) {
		shared, err := readSharedStrings(sst)
		if err != nil {
			return
		}
		_, err = readSheet(sheet, shared)
		if err != nil && graph.ErrorCode(err) != graph.CodeInvalid {
			t.Fatalf("readSheet error %v has code %s, want invalid", err, graph.ErrorCode(err))
		}
	})
}

func FuzzParseCHXML(f *testing.F) {
	fixture, err := os.ReadFile("testdata/seco_fixture.xml")
	if err != nil {
		f.Fatal(err)
	}
	addSeeds(f, []string{string(fixture)})
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := ParseCHXML(bytes.NewReader(data))
		checkResult(t, res, err)
	})
}

func FuzzParseJSONL(f *testing.F) {
	addSeeds(f, []string{fixtureJSONL})
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := ParseJSONL(sanctions.ListUN, bytes.NewReader(data))
		checkResult(t, res, err)
	})
}

func FuzzParseAmmitto(f *testing.F) {
	lists := []string{sanctions.ListEU, sanctions.ListUKHMT, sanctions.ListCA, sanctions.ListAUDFAT, sanctions.ListCHSECO}
	for i, s := range []string{fixtureAmmittoEU, fixtureAmmittoUK, fixtureAmmittoCA, fixtureAmmittoAU, fixtureAmmittoCH} {
		f.Add(uint8(i), []byte(s))
		f.Add(uint8(i), []byte(s[:len(s)/2]))
	}
	for i, name := range []string{"eu/eu_fsf_ammitto_2026-03-15.jsonl.gz", "uk/uk_sanctions_list_ammitto_2026-08-22.jsonl.gz",
		"ca/ca_sema_ammitto_2026-08-22.jsonl.gz", "au/au_dfat_ammitto_2026-08-22.jsonl.gz", "ch/ch_seco_ammitto_2026-03-15.jsonl.gz"} {
		if b := realHead(name, 16<<10); b != nil {
			f.Add(uint8(i), b)
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		res, err := ParseAmmitto(lists[int(which)%len(lists)], bytes.NewReader(data))
		checkResult(t, res, err)
	})
}

// FuzzParse fuzzes format detection and the whole path, gzip included.
func FuzzParse(f *testing.F) {
	for i, s := range []string{fixtureSDN, fixtureSDNXML, fixtureUNXML, fixtureEUXML, fixtureUKCSV, fixtureCAXML, fixtureJSONL, fixtureAmmittoEU} {
		f.Add(uint8(i), []byte(s))
	}
	f.Add(uint8(2), gz(f, fixtureUNXML))
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		list := graph.SanctionsLists[int(which)%len(graph.SanctionsLists)].ID
		p, err := Parse(list, []File{{Name: "input", Data: data}})
		if err != nil {
			if graph.ErrorCode(err) != graph.CodeInvalid {
				t.Fatalf("Parse error %v has code %s, want invalid", err, graph.ErrorCode(err))
			}
			return
		}
		if len(p.Entries) == 0 || p.SHA256 == "" {
			t.Fatalf("Parse(%s) = %d entries, sha256 %q: want entries and a digest", list, len(p.Entries), p.SHA256)
		}
	})
}

func FuzzExtractDates(f *testing.F) {
	for _, s := range []string{"10 Dec 1948", "a) Approximately 1955- 1958 b) 14/10/1974", "00/09/1962", "Between 1968 and 1973", "June 5, 1950"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, d := range extractDates(s) {
			if !validPartialDate(d) {
				t.Fatalf("extractDates(%q) gave %q, not YYYY[-MM[-DD]]", s, d)
			}
		}
	})
}

func FuzzCountryCodes(f *testing.F) {
	for _, s := range []string{"Russian and Ukrainian", "Region: Gaza", "Congo, Democratic Republic of the", "a) Iran b) Iraq"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, c := range CountryCodes(s) {
			if _, ok := ISOCode(c); !ok {
				t.Fatalf("CountryCodes(%q) gave %q, not a code", s, c)
			}
		}
	})
}
