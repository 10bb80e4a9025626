package cluster

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tradecompliance/compliance/graph"
)

func TestNormalize(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"punctuation and case", "Acme Oil & Gas, Ltd.", "acmeoilgasltd"},
		{"already normal", "ACMEOILGASLTD", "acmeoilgasltd"},
		{"digits kept", "Petro 24/7 FZE", "petro247fze"},
		{"unicode letters kept and folded", "Ölhandel Straße GmbH", "ölhandelstraßegmbh"},
		{"cyrillic", "ООО Нефть-Трейд", "ооонефтьтрейд"},
		{"greek final sigma folds", "ΟΔΥΣΣΕΥΣ", "οδυσσευσ"},
		{"spaces tabs and symbols", " \t-_*()[]{}  ", ""},
		{"emoji dropped", "Gulf 🛢 Petro", "gulfpetro"},
		{"decomposed accents (NFD) as precomposed", "Socie\u0301te\u0301 Pe\u0301trolie\u0300re", "sociétépétrolière"},
		{"precomposed accents (NFC)", "Société Pétrolière", "sociétépétrolière"},
		{"hangul jamo compose", "\u1112\u1161\u11AB-\u1100\u116E\u11A8", "한국"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Normalize(tt.in); got != tt.want {
				t.Errorf("Normalize(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestCheckKey(t *testing.T) {
	tests := []struct {
		name, in, want string
		invalid        bool
	}{
		{"two letters", "ab", "ab", false},
		{"two letters among punctuation", "-a.b-", "ab", false},
		{"one letter", "a", "", true},
		{"punctuation only", "&&& ... ---", "", true},
		{"empty", "", "", true},
		{"one unicode letter", "ß", "", true},
		{"two unicode letters", "Øy", "øy", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := CheckKey(tt.in)
			if tt.invalid {
				var ge *graph.Error
				if !errors.As(err, &ge) || ge.Code != graph.CodeInvalid || ge.Field != "entity" {
					t.Fatalf("CheckKey(%q) error = %v, want invalid naming entity", tt.in, err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("CheckKey(%q) = %q, %v, want %q", tt.in, got, err, tt.want)
			}
		})
	}
}

func testRecords() []Record {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	return []Record{
		{ID: "1", Slug: "demo-gulf-petro", EntityName: "Demo Gulf Petro Ltd", Aliases: []string{"DGP Trading"}, Severity: Suspected, Country: "AE", AddedAt: at},
		{ID: "2", Slug: "demo-gulf-petro-uk", EntityName: "Demo Gulf Petro Ltd", Severity: Confirmed, Country: "GB", AddedAt: at},
		{ID: "3", Slug: "example-bitumen", EntityName: "Example Bitumen Co", Aliases: []string{"Example Bitumen Company"}, Severity: Likely, AddedAt: at},
		{ID: "4", Slug: "dgp", EntityName: "DGP", Severity: Likely, Country: "AE", AddedAt: at},
	}
}

func TestIndexCheck(t *testing.T) {
	idx := NewIndex(7, testRecords())
	tests := []struct {
		name, entity, country string
		wantSlugs             []string
		wantHighest           Severity
	}{
		{"exact name, two records, confirmed first", "Demo Gulf Petro Ltd", "", []string{"demo-gulf-petro-uk", "demo-gulf-petro"}, Confirmed},
		{"normalized name", "DEMO-GULF-PETRO, LTD.", "", []string{"demo-gulf-petro-uk", "demo-gulf-petro"}, Confirmed},
		{"country restricts", "demo gulf petro ltd", "AE", []string{"demo-gulf-petro"}, Suspected},
		{"country by name", "demo gulf petro ltd", "United Kingdom", []string{"demo-gulf-petro-uk"}, Confirmed},
		{"country lower-case code", "demo gulf petro ltd", "gb", []string{"demo-gulf-petro-uk"}, Confirmed},
		{"alias matches", "dgp trading", "", []string{"demo-gulf-petro"}, Suspected},
		{"substring of a name never matches", "Demo Gulf Petro", "", nil, ""},
		{"superstring never matches", "Demo Gulf Petro Ltd Holdings", "", nil, ""},
		{"substring of an alias never matches", "Example Bitumen", "", nil, ""},
		{"short name is exact only", "DGP", "", []string{"dgp"}, Likely},
		{"country without records", "Demo Gulf Petro Ltd", "FR", nil, ""},
		{"record without country is not ruled out by a country", "Example Bitumen Co", "AE", []string{"example-bitumen"}, Likely},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := idx.Check(context.Background(), tt.entity, tt.country)
			if err != nil {
				t.Fatalf("Check(%q, %q) = %v", tt.entity, tt.country, err)
			}
			var slugs []string
			for _, m := range res.Matches {
				slugs = append(slugs, m.Slug)
			}
			if !slices.Equal(slugs, tt.wantSlugs) || res.HighestSeverity != tt.wantHighest || res.Matched != (len(tt.wantSlugs) > 0) {
				t.Errorf("Check(%q, %q) = %v %v %q, want %v %q", tt.entity, tt.country, res.Matched, slugs, res.HighestSeverity, tt.wantSlugs, tt.wantHighest)
			}
			unknown := false
			for _, m := range res.Matches {
				unknown = unknown || tt.country != "" && m.Country == ""
			}
			if res.CountryUnknown != unknown || slices.Contains(res.Caveats(), CaveatCountryUnknown) != unknown {
				t.Errorf("Check(%q, %q): CountryUnknown %v, caveats %q; want the country caveat exactly when a record without country matched a country (%v)",
					tt.entity, tt.country, res.CountryUnknown, res.Caveats(), unknown)
			}
		})
	}
}

func TestIndexCheckInvalid(t *testing.T) {
	idx := NewIndex(1, testRecords())
	tests := []struct{ name, entity, country, field string }{
		{"punctuation only", "!!", "", "entity"},
		{"one character", "x", "", "entity"},
		{"unknown country", "Demo Gulf Petro Ltd", "Atlantis", "country"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := idx.Check(context.Background(), tt.entity, tt.country)
			var ge *graph.Error
			if !errors.As(err, &ge) || ge.Code != graph.CodeInvalid || ge.Field != tt.field {
				t.Errorf("Check(%q, %q) error = %v, want invalid naming %s", tt.entity, tt.country, err, tt.field)
			}
		})
	}
}

// memSource is a Source over a slice, counting loads.
type memSource struct {
	version int64
	recs    []Record
	loads   int
	fail    error
}

func (m *memSource) RegistryVersion(context.Context) (int64, error) { return m.version, m.fail }
func (m *memSource) AllRecords(context.Context) ([]Record, int64, error) {
	m.loads++
	return slices.Clone(m.recs), m.version, m.fail
}

func TestRegistryRefresh(t *testing.T) {
	ctx := context.Background()
	src := &memSource{version: 1, recs: testRecords()[:1]}
	reg := &Registry{Source: src}
	res, err := reg.Check(ctx, "Demo Gulf Petro Ltd", "")
	if err != nil || len(res.Matches) != 1 {
		t.Fatalf("first Check = %+v, %v; want one match", res, err)
	}
	if reloaded, err := reg.Refresh(ctx); reloaded || err != nil {
		t.Errorf("Refresh at the same version = %v, %v; want no reload", reloaded, err)
	}
	src.version, src.recs = 2, testRecords()
	if reloaded, err := reg.Refresh(ctx); !reloaded || err != nil {
		t.Errorf("Refresh after a change = %v, %v; want a reload", reloaded, err)
	}
	res, _ = reg.Check(ctx, "Demo Gulf Petro Ltd", "")
	if len(res.Matches) != 2 || reg.Version() != 2 || src.loads != 2 {
		t.Errorf("after refresh: %d matches, version %d, %d loads; want 2, 2, 2", len(res.Matches), reg.Version(), src.loads)
	}
	src.fail = errors.New("down")
	if _, err := reg.Refresh(ctx); graph.ErrorCode(err) != graph.CodeUnavailable {
		t.Errorf("Refresh with the store down = %v, want unavailable", err)
	}
	if res, err := reg.Check(ctx, "Demo Gulf Petro Ltd", ""); err != nil || len(res.Matches) != 2 {
		t.Errorf("Check with the store down = %v, %v; want the loaded index", res, err)
	}
}

func TestParseImport(t *testing.T) {
	csvText := "slug,entity_name,aliases,severity,country,group,added_at,source,sanctions_source,protected\n" +
		",Demo Gulf Petro Ltd,DGP Trading|  Gulf Petro Demo ,suspected,AE,demo-ring,2026-01-02,DEMO DATA,,\n" +
		"demo-two,Demo Two SA,,CONFIRMED,france,,2026-01-02T03:04:05+01:00,,us_sdn,true\n"
	jsonl := `{"entity_name":"Demo Gulf Petro Ltd","aliases":["DGP Trading","Gulf Petro Demo"],"severity":"suspected","country":"AE","group":"demo-ring","added_at":"2026-01-02","source":"DEMO DATA"}
# a comment

{"slug":"demo-two","entity_name":"Demo Two SA","severity":"CONFIRMED","country":"france","added_at":"2026-01-02T03:04:05+01:00","sanctions_source":"us_sdn","protected":true}
`
	want := []Record{
		{Slug: "demo-gulf-petro-ltd", EntityName: "Demo Gulf Petro Ltd", Aliases: []string{"DGP Trading", "Gulf Petro Demo"}, Severity: Suspected,
			Country: "AE", Group: "demo-ring", AddedAt: time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC), Source: "DEMO DATA"},
		{Slug: "demo-two", EntityName: "Demo Two SA", Aliases: []string{}, Severity: Confirmed, Country: "FR",
			AddedAt: time.Date(2026, 1, 2, 2, 4, 5, 0, time.UTC), SanctionsSource: "us_sdn", Protected: true},
	}
	for _, c := range []struct{ name, file, text string }{{"csv", "x.csv", csvText}, {"jsonl", "x.jsonl", jsonl}, {"sniffed jsonl", "x.txt", jsonl}} {
		t.Run(c.name, func(t *testing.T) {
			got, err := ParseImport(c.file, strings.NewReader(c.text))
			if err != nil {
				t.Fatalf("ParseImport = %v", err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("ParseImport =\n%+v\nwant\n%+v", got, want)
			}
		})
	}
}

// TestParseImportAliases checks that aliases are deduplicated by
// normalized key, the first spelling kept, as the registry stores them.
func TestParseImportAliases(t *testing.T) {
	tests := []struct {
		name    string
		aliases string
		want    []string
	}{
		{"distinct", "Acme Trading|Acme Holdings", []string{"Acme Trading", "Acme Holdings"}},
		{"exact repeat", "Acme Ltd|Acme Ltd", []string{"Acme Ltd"}},
		{"case and punctuation", "Acme Ltd|ACME LTD.", []string{"Acme Ltd"}},
		{"spacing", "Acme  Ltd|Acme-Ltd|Acme Trading", []string{"Acme  Ltd", "Acme Trading"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			recs, err := ParseImport("x.csv", strings.NewReader("entity_name,aliases,severity\nAcme Co,"+tt.aliases+",likely\n"))
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(recs[0].Aliases, tt.want) {
				t.Errorf("aliases = %q, want %q", recs[0].Aliases, tt.want)
			}
		})
	}
}

func TestParseImportErrors(t *testing.T) {
	tests := []struct {
		name, file, text string
		line             int
		field            string
	}{
		{"bad severity", "a.jsonl", `{"entity_name":"Demo A","severity":"high"}`, 1, "severity"},
		{"missing name", "a.jsonl", "\n" + `{"severity":"likely"}`, 2, "entity_name"},
		{"punctuation name", "a.jsonl", `{"entity_name":"--","severity":"likely"}`, 1, "entity_name"},
		{"unknown field", "a.jsonl", `{"entity_name":"Demo A","severity":"likely","adress":"x"}`, 1, ""},
		{"bad country", "a.csv", "entity_name,severity,country\nDemo A,likely,Atlantis\n", 2, "country"},
		{"bad slug", "a.csv", "slug,entity_name,severity\nNot A Slug,Demo A,likely\n", 2, "slug"},
		{"bad group", "a.csv", "group,entity_name,severity\nRing!,Demo A,likely\n", 2, "group"},
		{"reserved slug", "a.csv", "slug,entity_name,severity\nsubmissions,Demo A,likely\n", 2, "slug"},
		{"reserved group", "a.csv", "group,entity_name,severity\nsubmissions,Demo A,likely\n", 2, "group"},
		{"bad date", "a.csv", "entity_name,severity,added_at\nDemo A,likely,yesterday\n", 2, "added_at"},
		{"bad sanctions list", "a.csv", "entity_name,severity,sanctions_source\nDemo A,likely,ofac\n", 2, "sanctions_source"},
		{"duplicate slug", "a.csv", "entity_name,severity\nDemo A,likely\nDemo A,confirmed\n", 3, "slug"},
		{"unknown column", "a.csv", "entity_name,severity,colour\n", 1, ""},
		{"missing severity column", "a.csv", "entity_name\nDemo A\n", 1, ""},
		{"field count", "a.csv", "entity_name,severity\nDemo A,likely,extra\n", 2, ""},
		{"bad protected", "a.csv", "entity_name,severity,protected\nDemo A,likely,maybe\n", 2, "protected"},
		// NUL cannot be stored in PostgreSQL text: named here, not left to
		// fail the import's transaction without a line.
		{"NUL in a name", "a.jsonl", `{"entity_name":"Demo\u0000A","severity":"likely"}`, 1, "entity_name"},
		{"NUL in an alias", "a.jsonl", `{"entity_name":"Demo A","aliases":["Al\u0000ias"],"severity":"likely"}`, 1, "aliases"},
		{"NUL in a source", "a.csv", "entity_name,severity,source\nDemo A,likely,a\x00b\n", 2, "source"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseImport(tt.file, strings.NewReader(tt.text))
			var ie *ImportError
			if !errors.As(err, &ie) || ie.File != tt.file || ie.Line != tt.line || ie.Field != tt.field {
				t.Errorf("ParseImport(%q) error = %#v, want file %s line %d field %q", tt.text, err, tt.file, tt.line, tt.field)
			}
		})
	}
}

func TestSlugify(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Demo Gulf Petro Ltd.", "demo-gulf-petro-ltd"},
		{"Société Générale d'Énergie", "societe-generale-d-energie"},
		{"  --A&B--  ", "a-b"},
		{"ООО Нефть", "entity-"},
		{"Submissions", "submissions-entity"},
	}
	for _, tt := range tests {
		got := Slugify(tt.in)
		if !strings.HasPrefix(got, tt.want) || !ValidSlug(got) || (tt.want != "entity-" && got != tt.want) {
			t.Errorf("Slugify(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestRecordKeys(t *testing.T) {
	tests := []struct {
		name string
		r    Record
		want []string
	}{
		{"duplicates and one-letter aliases dropped", Record{EntityName: "Demo A Ltd", Aliases: []string{"DEMO A LTD.", "x", "Demo-A"}}, []string{"demoaltd", "demoa"}},
		// A key the check cannot be asked for (under two letters or digits,
		// counted as characters, not bytes) is not indexed.
		{"one CJK character dropped, two kept", Record{EntityName: "東京石油", Aliases: []string{"東", "東京"}}, []string{"東京石油", "東京"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.r.Keys(); !slices.Equal(got, tt.want) {
				t.Errorf("Keys() = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestParseSince(t *testing.T) {
	tests := []struct {
		name, in string
		want     time.Time
		invalid  bool
	}{
		{"RFC 3339 UTC", "2026-10-01T10:00:00Z", time.Date(2026, 10, 1, 10, 0, 0, 0, time.UTC), false},
		{"RFC 3339 with offset", "2026-10-01T12:00:00+02:00", time.Date(2026, 10, 1, 10, 0, 0, 0, time.UTC), false},
		{"ISO 8601 without offset is UTC", "2026-10-01T10:00:00", time.Date(2026, 10, 1, 10, 0, 0, 0, time.UTC), false},
		{"fractional seconds without offset", "2026-10-01T10:00:00.5", time.Date(2026, 10, 1, 10, 0, 0, 5e8, time.UTC), false},
		{"date", "2026-10-01", time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC), false},
		{"words", "last week", time.Time{}, true},
		{"day out of range", "2026-02-30T00:00:00", time.Time{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseSince(tt.in)
			if tt.invalid {
				if graph.ErrorCode(err) != graph.CodeInvalid {
					t.Fatalf("ParseSince(%q) error = %v, want invalid", tt.in, err)
				}
				return
			}
			if err != nil || !got.Equal(tt.want) || got.Location() != time.UTC {
				t.Errorf("ParseSince(%q) = %v, %v; want %v UTC", tt.in, got, err, tt.want)
			}
		})
	}
}
