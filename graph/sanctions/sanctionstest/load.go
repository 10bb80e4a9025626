// Package sanctionstest loads the real list files and matching benchmarks
// of the shared data set (../shared/data beside the repository) for the
// matching engine's tests and benchmarks. The lists are parsed by the
// production parsers (ingest.Parse), from the same files scripts/run
// ingests, so that the quality figures describe what production screens.
package sanctionstest

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/tradecompliance/compliance/graph/sanctions"
	"github.com/tradecompliance/compliance/graph/sanctions/ingest"
)

// ErrNoData is returned by Dir when the shared data set is not found.
var ErrNoData = errors.New("sanctionstest: shared data not found: set COMPLIANCE_SHARED_DATA or put it at ../shared/data beside the repository")

// Dir returns the shared data directory: $COMPLIANCE_SHARED_DATA, else
// ../shared/data relative to the repository root (the directory holding
// go.mod, found upwards from the working directory). It returns ErrNoData
// when neither holds the benchmarks.
func Dir() (string, error) {
	ok := func(d string) bool {
		_, err := os.Stat(filepath.Join(d, "benchmarks", "yente_positives_un_untreated.csv"))
		return err == nil
	}
	if d := os.Getenv("COMPLIANCE_SHARED_DATA"); d != "" {
		if ok(d) {
			return d, nil
		}
		return "", fmt.Errorf("%w (COMPLIANCE_SHARED_DATA=%s has no benchmarks/)", ErrNoData, d)
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", ErrNoData
	}
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			if c := filepath.Join(d, "..", "shared", "data"); ok(c) {
				return c, nil
			}
		}
		if filepath.Dir(d) == d {
			return "", ErrNoData
		}
	}
}

// Lists holds the entries of every list file, by list id.
type Lists map[string][]sanctions.Entry

// listOrder is the order of the lists in All and in reports.
var listOrder = []string{sanctions.ListUSSDN, sanctions.ListUSCons, sanctions.ListUN, sanctions.ListEU,
	sanctions.ListUKHMT, sanctions.ListCA, sanctions.ListAUDFAT, sanctions.ListCHSECO}

// All returns every entry of every list, in list order.
func (l Lists) All() []sanctions.Entry {
	var out []sanctions.Entry
	for _, id := range listOrder {
		out = append(out, l[id]...)
	}
	return out
}

// ListFiles are the files of each list in the shared data set, relative to
// its directory: the files scripts/run ingests (OFAC's legacy CSV sets, the
// UN XML, the Ammitto transcriptions of the EU, UK, Canadian, Australian
// and Swiss lists).
var ListFiles = map[string][]string{
	sanctions.ListUSSDN:  {"ofac/sdn.csv", "ofac/add.csv", "ofac/alt.csv", "ofac/sdn_comments.csv"},
	sanctions.ListUSCons: {"ofac/cons_prim.csv", "ofac/cons_add.csv", "ofac/cons_alt.csv", "ofac/cons_comments.csv"},
	sanctions.ListUN:     {"un/un_consolidated.xml"},
	sanctions.ListEU:     {"eu/eu_fsf_ammitto_2026-03-15.jsonl.gz"},
	sanctions.ListUKHMT:  {"uk/uk_sanctions_list_ammitto_2026-08-22.jsonl.gz"},
	sanctions.ListCA:     {"ca/ca_sema_ammitto_2026-08-22.jsonl.gz"},
	sanctions.ListAUDFAT: {"au/au_dfat_ammitto_2026-08-22.jsonl.gz"},
	sanctions.ListCHSECO: {"ch/ch_seco_ammitto_2026-03-15.jsonl.gz"},
}

// LoadAll parses every list of the shared data set in dir (ListFiles)
// with ingest.Parse, as the ingest command does. It returns the first
// error met.
func LoadAll(dir string) (Lists, error) {
	l := Lists{}
	for _, id := range listOrder {
		p, err := LoadList(dir, id)
		if err != nil {
			return nil, err
		}
		l[id] = p.Entries
	}
	return l, nil
}

// LoadList reads the files of one list (ListFiles) from dir and parses
// them with ingest.Parse.
func LoadList(dir, list string) (*ingest.Parsed, error) {
	names, ok := ListFiles[list]
	if !ok {
		return nil, fmt.Errorf("sanctionstest: no files known for list %q", list)
	}
	files := make([]ingest.File, 0, len(names))
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			return nil, fmt.Errorf("sanctionstest: %s: %w", list, err)
		}
		files = append(files, ingest.File{Name: n, Data: b})
	}
	p, err := ingest.Parse(list, files)
	if err != nil {
		return nil, fmt.Errorf("sanctionstest: %s: %w", list, err)
	}
	return p, nil
}

// CountryNames maps a normalized country name to its ISO alpha-2 code. The
// benchmark files give nationalities as names or codes; the queries carry
// codes.
type CountryNames map[string]string

// Code returns the ISO alpha-2 code of a country name or code, or "".
func (c CountryNames) Code(name string) string {
	name = strings.TrimSpace(name)
	if name == "" {
		return ""
	}
	if len(name) == 2 {
		return strings.ToUpper(name)
	}
	return c[sanctions.Normalize(name)]
}

// LoadCountryNames reads OpenSanctions' country-name table
// (iso3166/opensanctions_countrynames_data.yaml: "XX:" lines followed by
// "  - name" lines) and the ISO table's names.
func LoadCountryNames(dir string) (CountryNames, error) {
	f, err := os.Open(filepath.Join(dir, "iso3166", "opensanctions_countrynames_data.yaml"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	m := CountryNames{}
	code := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		if !strings.HasPrefix(line, " ") && strings.HasSuffix(line, ":") {
			code = strings.TrimSuffix(line, ":")
			if len(code) != 2 {
				code = "" // FAIL and historical codes
			}
			continue
		}
		t := strings.TrimSpace(line)
		if code == "" || !strings.HasPrefix(t, "- ") {
			continue
		}
		name := strings.Trim(strings.TrimSpace(t[2:]), `"'`)
		if k := sanctions.Normalize(name); k != "" {
			if _, dup := m[k]; !dup {
				m[k] = code
			}
		}
	}
	return m, sc.Err()
}

func joinNonEmpty(parts ...string) string {
	var keep []string
	for _, p := range parts {
		if p = strings.TrimSpace(p); p != "" {
			keep = append(keep, p)
		}
	}
	return strings.Join(keep, " ")
}

// --- benchmarks ---

// BenchSet is one of yente's matching benchmark files as queries.
type BenchSet struct {
	Name     string // short name: un_untreated, un_treated, neg_global, neg_us, us_congress
	File     string
	Positive bool // every query should match
	Queries  []sanctions.Query
}

// BenchmarkFiles are yente's benchmark files, in report order, with the
// short set names reports use.
var BenchmarkFiles = []struct {
	File     string
	Name     string
	Positive bool
}{
	{"yente_positives_un_untreated.csv", "un_untreated", true},
	{"yente_positives_un_treated.csv", "un_treated", true},
	{"yente_validation_negatives_global.csv", "neg_global", false},
	{"yente_validation_negatives_us.csv", "neg_us", false},
	{"yente_positives_us_congress_untreated.csv", "us_congress", false}, // common names, not sanctioned
}

// LoadBenchmarks reads yente's benchmark CSVs (full_name, date_of_birth,
// nationality as ISO code or country name) into queries with the
// qualifiers they give; every query has Kind person, as in yente's
// benchmark (the rows are people).
func LoadBenchmarks(dir string) ([]BenchSet, error) {
	cn, err := LoadCountryNames(dir)
	if err != nil {
		return nil, err
	}
	var out []BenchSet
	for _, bf := range BenchmarkFiles {
		f, err := os.Open(filepath.Join(dir, "benchmarks", bf.File))
		if err != nil {
			return nil, err
		}
		rows, err := csv.NewReader(f).ReadAll()
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", bf.File, err)
		}
		set := BenchSet{Name: bf.Name, File: bf.File, Positive: bf.Positive}
		col := map[string]int{}
		for i, h := range rows[0] {
			col[h] = i
		}
		get := func(r []string, k string) string {
			if i, ok := col[k]; ok && i < len(r) {
				return strings.TrimSpace(r[i])
			}
			return ""
		}
		for _, r := range rows[1:] {
			q := sanctions.Query{Name: get(r, "full_name"), DOB: get(r, "date_of_birth"), Kind: sanctions.Person}
			if q.Name == "" {
				q.Name = joinNonEmpty(get(r, "first_name"), get(r, "middle_name"), get(r, "last_name"))
			}
			q.Country = cn.Code(get(r, "nationality"))
			set.Queries = append(set.Queries, q)
		}
		out = append(out, set)
	}
	return out, nil
}
