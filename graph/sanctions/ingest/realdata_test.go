package ingest

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/tradecompliance/compliance/graph/sanctions"
)

// sharedDir returns the shared data set: $COMPLIANCE_SHARED_DATA, else
// ../shared/data beside the repository root. It skips the test when
// neither exists.
func sharedDir(t testing.TB) string {
	t.Helper()
	if d := os.Getenv("COMPLIANCE_SHARED_DATA"); d != "" {
		return d
	}
	wd, _ := os.Getwd()
	for d := wd; filepath.Dir(d) != d; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			dir := filepath.Join(d, "..", "shared", "data")
			if _, err := os.Stat(filepath.Join(dir, "README.md")); err != nil {
				t.Skipf("real list files not found at %s (set COMPLIANCE_SHARED_DATA): skipping", dir)
			}
			return dir
		}
	}
	t.Skip("repository root not found: skipping the real-data test")
	return ""
}

func readShared(t testing.TB, names ...string) []File {
	t.Helper()
	dir := sharedDir(t)
	var files []File
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			t.Skipf("%s not readable (%v): skipping", n, err)
		}
		files = append(files, File{Name: n, Data: b})
	}
	return files
}

// TestRealFiles parses every list file of ../shared/data and checks the
// counts its README states and some entries known to be on the lists.
func TestRealFiles(t *testing.T) {
	tests := []struct {
		name      string
		list      string
		files     []string
		format    string
		records   int // as the README counts them
		entries   int
		kinds     map[sanctions.Kind]int
		published string // YYYY-MM-DD, "" when the file states none
		orphans   map[string]int
		skipped   int
		check     func(t *testing.T, m map[string]sanctions.Entry)
	}{
		{
			name: "OFAC SDN CSV set", list: sanctions.ListUSSDN, format: FormatOFACCSV,
			files:   []string{"ofac/sdn.csv", "ofac/add.csv", "ofac/alt.csv", "ofac/sdn_comments.csv"},
			records: 14965, entries: 14965,
			kinds: map[sanctions.Kind]int{sanctions.Person: 6854, sanctions.Entity: 6884, sanctions.Vessel: 851, sanctions.Aircraft: 376},
			// add.csv and alt.csv are from December 2025, sdn.csv from May 2024 (README).
			orphans: map[string]int{"add": 4253, "alt": 1567, "comments": 6},
			check: func(t *testing.T, m map[string]sanctions.Entry) {
				e := m["306"]
				wantEntry(t, e, "BANCO NACIONAL DE CUBA", sanctions.Entity)
				wantAlias(t, e, "NATIONAL BANK OF CUBA", false)
				wantAlias(t, e, "BNC", true)
				wantStrings(t, e, "countries", e.Countries, "CH", "ES", "JP", "PA")
				e = m["2686"]
				wantEntry(t, e, "NASRALLAH, Hasan", sanctions.Person)
				wantStrings(t, e, "dates_of_birth", e.DatesOfBirth, "1960-08-31", "1953-08-31", "1955-08-31", "1958-08-31")
				wantStrings(t, e, "linked_to", e.LinkedTo, "HIZBALLAH")
				wantStrings(t, e, "programs", e.Programs, "SDGT", "SYRIA")
				wantIdentifier(t, e, "Passport", "042833", "LB")
				e = m["4632"]
				wantStrings(t, e, "linked_to", e.LinkedTo, "ISLAMIC REVOLUTIONARY GUARD CORPS (IRGC)-QODS FORCE", "HIZBALLAH")
				e = m["4243"]
				wantEntry(t, e, "EBANO", sanctions.Vessel)
				if e.IMO != "7406784" {
					t.Errorf("sdn.csv EBANO IMO = %q, want 7406784", e.IMO)
				}
				wantAlias(t, e, "SAND SWAN", true)
				wantStrings(t, e, "countries", e.Countries, "PA")
				e = m["15431"]
				wantEntry(t, e, "EP-GOM", sanctions.Aircraft)
				wantStrings(t, e, "linked_to", e.LinkedTo, "POUYA AIR")
				wantEntry(t, m["7916"], "COMITE' DE BIENFAISANCE ET DE SECOURS AUX PALESTINIENS", sanctions.Entity)
				wantStrings(t, m["7916"], "linked_to", m["7916"].LinkedTo, "HAMAS")
			},
		},
		{
			name: "OFAC Consolidated (non-SDN) CSV set", list: sanctions.ListUSCons, format: FormatOFACCSV,
			files:   []string{"ofac/cons_prim.csv", "ofac/cons_add.csv", "ofac/cons_alt.csv", "ofac/cons_comments.csv"},
			records: 442, entries: 442,
			check: func(t *testing.T, m map[string]sanctions.Entry) {
				e := m["9639"]
				wantEntry(t, e, "HANIYA, Ismail Abdul Salah", sanctions.Person)
				wantAlias(t, e, "HANIYYA, Ismaeel", false)
				wantStrings(t, e, "dates_of_birth", e.DatesOfBirth, "1962")
			},
		},
		{
			name: "OFAC SDN XML sample", list: sanctions.ListUSSDN, format: FormatOFACXML,
			files: []string{"format_samples/ofac_sdn_xml_sample_2020-04.xml"}, records: 8, entries: 8, published: "2020-04-22",
			check: func(t *testing.T, m map[string]sanctions.Entry) {
				e := m["10689"]
				wantEntry(t, e, "SAEED, Muhammad", sanctions.Person)
				wantAlias(t, e, "HAFIZ SAHIB", true)
				wantAlias(t, e, "SAEED, Hafiz Muhammad", false)
				wantStrings(t, e, "dates_of_birth", e.DatesOfBirth, "1950-06-05")
				wantStrings(t, e, "countries", e.Countries, "PK")
				wantIdentifier(t, e, "Passport", "BE5978421", "PK")
			},
		},
		{
			name: "UN consolidated XML", list: sanctions.ListUN, format: FormatUNXML,
			files: []string{"un/un_consolidated.xml"}, records: 1003, entries: 1003, published: "2026-02-27",
			kinds: map[sanctions.Kind]int{sanctions.Person: 730, sanctions.Entity: 273},
			check: func(t *testing.T, m map[string]sanctions.Entry) {
				e := m["CDi.001"]
				wantEntry(t, e, "ERIC BADEGE", sanctions.Person)
				wantStrings(t, e, "dates_of_birth", e.DatesOfBirth, "1971")
				wantStrings(t, e, "countries", e.Countries, "CD")
				if want := time.Date(2012, 12, 31, 0, 0, 0, 0, time.UTC); !e.Listed.Equal(want) {
					t.Errorf("UN CDi.001 listed = %v, want %v", e.Listed, want)
				}
				e = m["QDi.251"] // "Associated with Abdelmalek Droukdel (QDi.232 ...)"
				wantStrings(t, e, "linked_to", e.LinkedTo, "ABDELMALEK DROUKDEL")
				e = m["QDe.014"]
				wantStrings(t, e, "linked_to", e.LinkedTo, "ABDELMALEK DROUKDEL")
				wantAlias(t, m["QDi.232"], "عبد المالك دروكدال", false)
			},
		},
		{
			name: "EU FSF XML sample", list: sanctions.ListEU, format: FormatEUXML,
			// Seven sanctionEntity elements, one of them stated twice (logicalId 5468): six entries.
			files: []string{"format_samples/eu_fsf_sample_2020-04.xml"}, records: 7, entries: 6, published: "2020-04-15",
			check: func(t *testing.T, m map[string]sanctions.Entry) {
				e := m["5295"]
				wantEntry(t, e, "Abid Hammadou", sanctions.Person)
				wantAlias(t, e, "Abdelhamid Abou Zeid", false)
				wantStrings(t, e, "dates_of_birth", e.DatesOfBirth, "1965-12-12", "1958")
				wantStrings(t, e, "countries", e.Countries, "DZ")
				wantIdentifier(t, e, "EU Reference Number", "EU.2026.82", "")
			},
		},
		{
			name: "EU (Ammitto transcription)", list: sanctions.ListEU, format: FormatAmmittoJ,
			files: []string{"eu/eu_fsf_ammitto_2026-03-15.jsonl.gz"}, records: 6457, entries: 6457, published: "2025-12-19",
			kinds: map[sanctions.Kind]int{sanctions.Person: 4341, sanctions.Entity: 1519, sanctions.Vessel: 597},
			check: func(t *testing.T, m map[string]sanctions.Entry) {
				e := m["1069"]
				wantEntry(t, e, "Yassin Syawal", sanctions.Person)
				wantAlias(t, e, "Abu Seta", false)
				wantStrings(t, e, "dates_of_birth", e.DatesOfBirth, "1962-09-03")
				// The English name, not the Swedish version stated first.
				e = m["154240"]
				wantEntry(t, e, "Evgeniy Evgenievich PODDUBNYY", sanctions.Person)
				wantAlias(t, e, "Jevgenij Jevgenjevitj PODDUBNYJ", false)
				wantAlias(t, e, "Евгений Евгеньевич ПОДДУБНЫЙ", false)
				e = m["IMO 1021570"]
				wantEntry(t, e, "Ocean 28", sanctions.Vessel)
				if e.IMO != "1021570" {
					t.Errorf("EU vessel Ocean 28 IMO = %q, want 1021570", e.IMO)
				}
			},
		},
		{
			name: "UK ConList CSV sample", list: sanctions.ListUKHMT, format: FormatUKCSV,
			files: []string{"format_samples/uk_hmt_conlist_sample_2020-04.csv"}, records: 23, entries: 6, published: "2020-04-27",
			check: func(t *testing.T, m map[string]sanctions.Entry) {
				e := m["9053"]
				wantEntry(t, e, "Mohsen HOJATI", sanctions.Person)
				wantAlias(t, e, "محسن حجتی", false)
				wantStrings(t, e, "dates_of_birth", e.DatesOfBirth, "1955-09-28")
				wantIdentifier(t, e, "UN Reference Number", "IRi.018", "")
				e = m["13063"]
				wantEntry(t, e, "Kateryna Yuriyivna HUBARIEVA", sanctions.Person)
				wantStrings(t, e, "dates_of_birth", e.DatesOfBirth, "1983-07-05", "1983", "1984-04")
				wantStrings(t, e, "countries", e.Countries)
			},
		},
		{
			name: "UK Sanctions List (Ammitto transcription)", list: sanctions.ListUKHMT, format: FormatAmmittoJ,
			files: []string{"uk/uk_sanctions_list_ammitto_2026-08-22.jsonl.gz"}, records: 6349, entries: 6349, published: "2026-08-20",
			kinds: map[sanctions.Kind]int{sanctions.Person: 4036, sanctions.Entity: 1647, sanctions.Vessel: 666},
			check: func(t *testing.T, m map[string]sanctions.Entry) {
				e := m["AFG0001"]
				wantEntry(t, e, "HAJI KHAIRULLAH HAJI SATTAR MONEY EXCHANGE", sanctions.Entity)
				wantAlias(t, e, "Haji Alim Hawala", false)
				wantStrings(t, e, "countries", e.Countries, "AF", "AE")
				e = m["RUS3716"]
				wantEntry(t, e, "TORVIAN", sanctions.Vessel)
				if e.IMO != "9470131" {
					t.Errorf("UK RUS3716 IMO = %q, want 9470131", e.IMO)
				}
				if e := m["RUS2187"]; e.Name != "BODHI" || e.IMO != "9144782" {
					t.Errorf("UK RUS2187 = %q IMO %q, want BODHI IMO 9144782 (from the statement of reasons)", e.Name, e.IMO)
				}
			},
		},
		{
			name: "Canada SEMA XML (2020)", list: sanctions.ListCA, format: FormatCAXML,
			files: []string{"ca/sema-lmes_2020-04.xml"}, records: 1369, entries: 1369,
			kinds: map[sanctions.Kind]int{sanctions.Person: 985, sanctions.Entity: 384},
			check: func(t *testing.T, m map[string]sanctions.Entry) {
				e := m["Burma / Birmanie; Schedule 1; Item 1"]
				wantEntry(t, e, "Air Bagan", sanctions.Entity)
				wantAlias(t, e, "Air Bagan Holdings Pte. Ltd.", false)
				wantAlias(t, e, "Air Bagan Limited", false)
			},
		},
		{
			name: "Canada SEMA (Ammitto transcription)", list: sanctions.ListCA, format: FormatAmmittoJ,
			files: []string{"ca/ca_sema_ammitto_2026-08-22.jsonl.gz"}, records: 5690, entries: 5690, published: "2026-08-13",
			check: func(t *testing.T, m map[string]sanctions.Entry) {
				wantEntry(t, m["Belarus / Bélarus; Schedule 1, Part 1.1; Item 1"], "Inna Vladimirovna OLEKSINA", sanctions.Person)
				e := m["Iran; Schedule 1, Part 1; Item 235"]
				wantEntry(t, e, "Basamad Electronic Pouya Engineering Limited Liability Company", sanctions.Entity)
				wantAlias(t, e, "Dynamic Electronic Frequency Engineering Limited Liability Company", false)
				wantEntry(t, m["Russia / Russie; Schedule 1.1; Item 261"], "PRIMORYE", sanctions.Vessel)
			},
		},
		{
			name: "Australia DFAT xlsx", list: sanctions.ListAUDFAT, format: FormatAUXLSX,
			// The README counts 9,560 rows below the header; 7 of them are blank.
			files: []string{"au/dfat_regulation8_consolidated_2024-12.xlsx"}, records: 9553, entries: 3062, published: "2024-11-11",
			check: func(t *testing.T, m map[string]sanctions.Entry) {
				e := m["2"]
				wantEntry(t, e, "MOHAMMAD HASSAN AKHUND", sanctions.Person)
				wantAlias(t, e, "محمد حسن أخوند", false)
				wantStrings(t, e, "dates_of_birth", e.DatesOfBirth, "1955", "1958", "1945", "1950")
				wantStrings(t, e, "countries", e.Countries, "AF")
				wantAlias(t, m["2947"], "Korea Mirae Shipping Co. Ltd", false)
			},
		},
		{
			name: "Australia DFAT (Ammitto transcription)", list: sanctions.ListAUDFAT, format: FormatAmmittoJ,
			files: []string{"au/au_dfat_ammitto_2026-08-22.jsonl.gz"}, records: 3856, entries: 3856, published: "2026-08-21",
			kinds: map[sanctions.Kind]int{sanctions.Person: 2551, sanctions.Entity: 1042, sanctions.Vessel: 263},
			check: func(t *testing.T, m map[string]sanctions.Entry) {
				e := m["8227"]
				wantEntry(t, e, "ANDAMAN SKIES", sanctions.Vessel)
				if e.IMO != "9288693" {
					t.Errorf("AU 8227 IMO = %q, want 9288693", e.IMO)
				}
				wantAlias(t, m["8228"], "ASHER", false)
				e = m["100"]
				wantEntry(t, e, "Nazir Mohammad Abdul Basir", sanctions.Person)
				wantStrings(t, e, "dates_of_birth", e.DatesOfBirth, "1954")
			},
		},
		{
			name: "Swiss SECO (Ammitto transcription)", list: sanctions.ListCHSECO, format: FormatAmmittoJ,
			// 646 targets (ships and goods) are transcribed with their ids only.
			files: []string{"ch/ch_seco_ammitto_2026-03-15.jsonl.gz"}, records: 8254, entries: 7608, skipped: 646,
			kinds: map[sanctions.Kind]int{sanctions.Person: 4518, sanctions.Entity: 3090},
			check: func(t *testing.T, m map[string]sanctions.Entry) {
				e := m["100173"]
				wantEntry(t, e, "Aghazadeh Reza", sanctions.Person)
				wantStrings(t, e, "dates_of_birth", e.DatesOfBirth, "1949-03-14")
				wantAlias(t, m["100027"], "LLC ASK", false)
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Parse(tt.list, readShared(t, tt.files...))
			if err != nil {
				t.Fatalf("Parse(%s, %v) error = %v", tt.list, tt.files, err)
			}
			if p.Format != tt.format {
				t.Errorf("Parse(%v).Format = %s, want %s", tt.files, p.Format, tt.format)
			}
			if p.Records != tt.records || len(p.Entries) != tt.entries || p.Skipped != tt.skipped {
				t.Errorf("Parse(%v) = %d entries, %d skipped, from %d records; want %d, %d, from %d",
					tt.files, len(p.Entries), p.Skipped, p.Records, tt.entries, tt.skipped, tt.records)
			}
			if got := p.Published.Format("2006-01-02"); (tt.published == "" && !p.Published.IsZero()) || (tt.published != "" && got != tt.published) {
				t.Errorf("Parse(%v).Published = %v, want %q", tt.files, p.Published, tt.published)
			}
			if tt.orphans != nil && !equalMaps(p.Orphans, tt.orphans) {
				t.Errorf("Parse(%v).Orphans = %v, want %v", tt.files, p.Orphans, tt.orphans)
			}
			kinds := map[sanctions.Kind]int{}
			ids := map[string]bool{}
			for _, e := range p.Entries {
				kinds[e.Kind]++
				if e.Name == "" || e.SourceID == "" || e.List != tt.list {
					t.Fatalf("Parse(%v) entry %+v lacks a name, source id or list", tt.files, e)
				}
				if ids[e.SourceID] {
					t.Fatalf("Parse(%v) source id %s twice", tt.files, e.SourceID)
				}
				ids[e.SourceID] = true
				if e.IMO != "" && (e.Kind != sanctions.Vessel || !validIMO(e.IMO)) {
					t.Errorf("Parse(%v) entry %s (%s) IMO %q: want IMO numbers on vessels only, with a valid check digit", tt.files, e.SourceID, e.Kind, e.IMO)
				}
				for _, d := range e.DatesOfBirth {
					if !validPartialDate(d) {
						t.Errorf("Parse(%v) entry %s date of birth %q is not YYYY[-MM[-DD]]", tt.files, e.SourceID, d)
					}
				}
				for _, c := range e.Countries {
					if _, ok := ISOCode(c); !ok {
						t.Errorf("Parse(%v) entry %s country %q is not ISO alpha-2", tt.files, e.SourceID, c)
					}
				}
			}
			for k, n := range tt.kinds {
				if kinds[k] != n {
					t.Errorf("Parse(%v) has %d of kind %s, want %d (all: %v)", tt.files, kinds[k], k, n, kinds)
				}
			}
			if tt.check != nil {
				tt.check(t, byID(p.Entries))
			}
		})
	}
}

func equalMaps(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func wantEntry(t *testing.T, e sanctions.Entry, name string, kind sanctions.Kind) {
	t.Helper()
	if e.Name != name || e.Kind != kind {
		t.Errorf("entry %s = %q (%s), want %q (%s)", e.SourceID, e.Name, e.Kind, name, kind)
	}
}

func wantAlias(t *testing.T, e sanctions.Entry, name string, weak bool) {
	t.Helper()
	for _, a := range e.Aliases {
		if a.Name == name {
			if a.Weak != weak {
				t.Errorf("entry %s alias %q weak = %v, want %v", e.SourceID, name, a.Weak, weak)
			}
			return
		}
	}
	t.Errorf("entry %s (%q) aliases = %s, want %q among them", e.SourceID, e.Name, js(e.Aliases), name)
}

// wantStrings checks got holds every one of want (and is empty when want is).
func wantStrings(t *testing.T, e sanctions.Entry, field string, got []string, want ...string) {
	t.Helper()
	if len(want) == 0 && len(got) != 0 {
		t.Errorf("entry %s %s = %q, want none", e.SourceID, field, got)
	}
	for _, w := range want {
		if !slices.Contains(got, w) {
			t.Errorf("entry %s %s = %q, want %q among them", e.SourceID, field, got, w)
		}
	}
}

func wantIdentifier(t *testing.T, e sanctions.Entry, typ, value, country string) {
	t.Helper()
	want := sanctions.Identifier{Type: typ, Value: value, Country: country}
	if !slices.Contains(e.Identifiers, want) {
		t.Errorf("entry %s identifiers = %s, want %s among them", e.SourceID, js(e.Identifiers), js(want))
	}
}
