// Package sanctionstest loads the real list files and matching benchmarks
// of the shared data set (../shared/data beside the repository) for the
// matching engine's tests and benchmarks. It reads just the fields matching
// uses (names, aliases, kind, countries, dates of birth, identifiers, IMO);
// it is not the ingest path: the list parsers of graph/sanctions/ingest are.
package sanctionstest

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/csv"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/tradecompliance/compliance/graph/sanctions"
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

// All returns every entry of every list, in list order.
func (l Lists) All() []sanctions.Entry {
	var out []sanctions.Entry
	for _, id := range []string{sanctions.ListUSSDN, sanctions.ListUSCons, sanctions.ListUN, sanctions.ListEU,
		sanctions.ListUKHMT, sanctions.ListCA, sanctions.ListAUDFAT, sanctions.ListCHSECO} {
		out = append(out, l[id]...)
	}
	return out
}

// LoadAll reads every list of the shared data set in dir: OFAC SDN and
// non-SDN legacy CSV, the UN XML, and the EU, UK, Canada, Australia and
// Switzerland JSON-lines transcriptions. It returns the first error met.
func LoadAll(dir string) (Lists, error) {
	cn, err := LoadCountryNames(dir)
	if err != nil {
		return nil, err
	}
	l := Lists{}
	steps := []struct {
		id string
		f  func() ([]sanctions.Entry, error)
	}{
		{sanctions.ListUSSDN, func() ([]sanctions.Entry, error) {
			return loadOFAC(dir, sanctions.ListUSSDN, "sdn.csv", "alt.csv", "add.csv", cn)
		}},
		{sanctions.ListUSCons, func() ([]sanctions.Entry, error) {
			return loadOFAC(dir, sanctions.ListUSCons, "cons_prim.csv", "cons_alt.csv", "cons_add.csv", cn)
		}},
		{sanctions.ListUN, func() ([]sanctions.Entry, error) { return loadUN(dir, cn) }},
		{sanctions.ListEU, func() ([]sanctions.Entry, error) { return loadEU(dir) }},
		{sanctions.ListUKHMT, func() ([]sanctions.Entry, error) { return loadUK(dir, cn) }},
		{sanctions.ListCA, func() ([]sanctions.Entry, error) { return loadCA(dir) }},
		{sanctions.ListAUDFAT, func() ([]sanctions.Entry, error) { return loadAU(dir, cn) }},
		{sanctions.ListCHSECO, func() ([]sanctions.Entry, error) { return loadCH(dir) }},
	}
	for _, s := range steps {
		es, err := s.f()
		if err != nil {
			return nil, fmt.Errorf("sanctionstest: %s: %w", s.id, err)
		}
		l[s.id] = es
	}
	return l, nil
}

// CountryNames maps a normalized country name to its ISO alpha-2 code.
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

// --- OFAC legacy CSV ---

var (
	reDOB      = regexp.MustCompile(`DOB ([^;]+)`)
	reNat      = regexp.MustCompile(`(?:nationality|citizen) ([^;.(]+)`)
	reWeakAKA  = regexp.MustCompile(`a\.k\.a\. '([^']+)'`)
	reIMO      = regexp.MustCompile(`IMO (\d{7})`)
	rePassport = regexp.MustCompile(`(Passport|National ID No\.|Cedula No\.|Tax ID No\.|SWIFT/BIC) ([A-Za-z0-9/-]+)`)
	reYear     = regexp.MustCompile(`\b(1[89]\d\d|20[0-2]\d)\b`)
	reDayMonY  = regexp.MustCompile(`^(\d{1,2}) ([A-Z][a-z]{2}) (\d{4})`)
	reMonY     = regexp.MustCompile(`^([A-Z][a-z]{2}) (\d{4})`)
)

func latin1(b []byte) string {
	r := make([]rune, 0, len(b))
	for _, c := range b {
		if c == 0x1A {
			continue
		}
		r = append(r, rune(c))
	}
	return string(r)
}

func readLegacyCSV(path string) ([][]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	r := csv.NewReader(strings.NewReader(latin1(b)))
	r.FieldsPerRecord = -1
	r.LazyQuotes = true
	rows, err := r.ReadAll()
	if err != nil {
		return nil, err
	}
	for _, row := range rows {
		for i := range row {
			row[i] = strings.TrimSpace(row[i])
			if row[i] == "-0-" {
				row[i] = ""
			}
		}
	}
	return rows, nil
}

// ofacDates reads the "DOB ..." remarks: "21 Jan 1971", "Jan 1960",
// "1962", "circa 1970", "1955 to 1960".
func ofacDates(remarks string) []string {
	var out []string
	for _, m := range reDOB.FindAllStringSubmatch(remarks, -1) {
		v := strings.TrimPrefix(strings.TrimSpace(m[1]), "circa ")
		if dm := reDayMonY.FindStringSubmatch(v); dm != nil && !strings.Contains(v, " to ") {
			if t, err := time.Parse("2 Jan 2006", dm[0]); err == nil {
				out = append(out, t.Format("2006-01-02"))
				continue
			}
		}
		if dm := reMonY.FindStringSubmatch(v); dm != nil && !strings.Contains(v, " to ") {
			if t, err := time.Parse("Jan 2006", dm[0]); err == nil {
				out = append(out, t.Format("2006-01"))
				continue
			}
		}
		ys := reYear.FindAllString(v, -1)
		if len(ys) == 2 && strings.Contains(v, " to ") {
			a, _ := strconv.Atoi(ys[0])
			b, _ := strconv.Atoi(ys[1])
			for y := a; y <= b && y-a < 12; y++ {
				out = append(out, strconv.Itoa(y))
			}
			continue
		}
		out = append(out, ys...)
	}
	return out
}

func loadOFAC(dir, list, prim, alt, add string, cn CountryNames) ([]sanctions.Entry, error) {
	rows, err := readLegacyCSV(filepath.Join(dir, "ofac", prim))
	if err != nil {
		return nil, err
	}
	var out []sanctions.Entry
	byID := map[string]int{}
	for _, r := range rows {
		if len(r) < 12 || r[0] == "" || r[1] == "" {
			continue
		}
		e := sanctions.Entry{List: list, SourceID: r[0], Name: r[1], Remarks: r[11]}
		switch strings.ToLower(r[2]) {
		case "individual":
			e.Kind = sanctions.Person
		case "vessel":
			e.Kind = sanctions.Vessel
		case "aircraft":
			e.Kind = sanctions.Aircraft
		default:
			e.Kind = sanctions.Entity
		}
		if r[3] != "" {
			e.Programs = strings.Fields(strings.NewReplacer("[", " ", "]", " ").Replace(r[3]))
		}
		e.DatesOfBirth = ofacDates(e.Remarks)
		for _, m := range reNat.FindAllStringSubmatch(e.Remarks, -1) {
			if c := cn.Code(m[1]); c != "" {
				e.Countries = appendNew(e.Countries, c)
			}
		}
		for _, m := range reWeakAKA.FindAllStringSubmatch(e.Remarks, -1) {
			e.Aliases = append(e.Aliases, sanctions.Alias{Name: m[1], Weak: true})
		}
		if m := reIMO.FindStringSubmatch(e.Remarks); m != nil {
			e.IMO = m[1]
		}
		for _, m := range rePassport.FindAllStringSubmatch(e.Remarks, -1) {
			e.Identifiers = append(e.Identifiers, sanctions.Identifier{Type: m[1], Value: m[2]})
		}
		if e.Kind == sanctions.Vessel && r[9] != "" {
			if c := cn.Code(r[9]); c != "" {
				e.Countries = appendNew(e.Countries, c)
			}
		}
		byID[r[0]] = len(out)
		out = append(out, e)
	}
	if rows, err = readLegacyCSV(filepath.Join(dir, "ofac", alt)); err != nil {
		return nil, err
	}
	for _, r := range rows {
		if len(r) < 4 {
			continue
		}
		if i, ok := byID[r[0]]; ok && r[3] != "" {
			out[i].Aliases = append(out[i].Aliases, sanctions.Alias{Name: r[3]})
		}
	}
	if rows, err = readLegacyCSV(filepath.Join(dir, "ofac", add)); err != nil {
		return nil, err
	}
	for _, r := range rows {
		if len(r) < 5 {
			continue
		}
		if i, ok := byID[r[0]]; ok && r[4] != "" {
			if c := cn.Code(r[4]); c != "" {
				out[i].Countries = appendNew(out[i].Countries, c)
			}
		}
	}
	return out, nil
}

func appendNew(s []string, v string) []string {
	for _, x := range s {
		if x == v {
			return s
		}
	}
	return append(s, v)
}

// --- UN XML ---

type unValue struct {
	Values []string `xml:"VALUE"`
}

type unAlias struct {
	Quality string `xml:"QUALITY"`
	Name    string `xml:"ALIAS_NAME"`
}

type unDOB struct {
	Type     string `xml:"TYPE_OF_DATE"`
	Date     string `xml:"DATE"`
	Year     string `xml:"YEAR"`
	FromYear string `xml:"FROM_YEAR"`
	ToYear   string `xml:"TO_YEAR"`
}

type unDoc struct {
	Type   string `xml:"TYPE_OF_DOCUMENT"`
	Number string `xml:"NUMBER"`
}

type unAddress struct {
	Country string `xml:"COUNTRY"`
}

type unRecord struct {
	Ref         string      `xml:"REFERENCE_NUMBER"`
	Original    string      `xml:"NAME_ORIGINAL_SCRIPT"`
	Nationality unValue     `xml:"NATIONALITY"`
	IndAliases  []unAlias   `xml:"INDIVIDUAL_ALIAS"`
	EntAliases  []unAlias   `xml:"ENTITY_ALIAS"`
	DOBs        []unDOB     `xml:"INDIVIDUAL_DATE_OF_BIRTH"`
	Docs        []unDoc     `xml:"INDIVIDUAL_DOCUMENT"`
	IndAddress  []unAddress `xml:"INDIVIDUAL_ADDRESS"`
	EntAddress  []unAddress `xml:"ENTITY_ADDRESS"`
	ListType    string      `xml:"UN_LIST_TYPE"`
}

type unList struct {
	Individuals []struct {
		unRecord
		F1 string `xml:"FIRST_NAME"`
		F2 string `xml:"SECOND_NAME"`
		F3 string `xml:"THIRD_NAME"`
		F4 string `xml:"FOURTH_NAME"`
	} `xml:"INDIVIDUALS>INDIVIDUAL"`
	Entities []struct {
		unRecord
		F1 string `xml:"FIRST_NAME"`
	} `xml:"ENTITIES>ENTITY"`
}

func loadUN(dir string, cn CountryNames) ([]sanctions.Entry, error) {
	b, err := os.ReadFile(filepath.Join(dir, "un", "un_consolidated.xml"))
	if err != nil {
		return nil, err
	}
	var doc unList
	if err := xml.Unmarshal(b, &doc); err != nil {
		return nil, err
	}
	var out []sanctions.Entry
	common := func(e *sanctions.Entry, r *unRecord, aliases []unAlias, addrs []unAddress) {
		e.List, e.SourceID = sanctions.ListUN, r.Ref
		if r.ListType != "" {
			e.Programs = []string{r.ListType}
		}
		for _, a := range aliases {
			if n := strings.TrimSpace(a.Name); n != "" {
				e.Aliases = append(e.Aliases, sanctions.Alias{Name: n, Weak: strings.EqualFold(a.Quality, "Low")})
			}
		}
		if o := strings.TrimSpace(r.Original); o != "" {
			e.Aliases = append(e.Aliases, sanctions.Alias{Name: o})
		}
		for _, v := range r.Nationality.Values {
			if c := cn.Code(v); c != "" {
				e.Countries = appendNew(e.Countries, c)
			}
		}
		for _, a := range addrs {
			if c := cn.Code(a.Country); c != "" {
				e.Countries = appendNew(e.Countries, c)
			}
		}
	}
	for i := range doc.Individuals {
		r := &doc.Individuals[i]
		e := sanctions.Entry{Kind: sanctions.Person, Name: joinNonEmpty(r.F1, r.F2, r.F3, r.F4)}
		common(&e, &r.unRecord, r.IndAliases, r.IndAddress)
		for _, d := range r.DOBs {
			switch {
			case d.Date != "":
				e.DatesOfBirth = append(e.DatesOfBirth, d.Date[:min(10, len(d.Date))])
			case d.Year != "":
				e.DatesOfBirth = append(e.DatesOfBirth, d.Year)
			case d.FromYear != "" && d.ToYear != "":
				a, _ := strconv.Atoi(d.FromYear)
				b, _ := strconv.Atoi(d.ToYear)
				for y := a; y <= b && y-a < 12; y++ {
					e.DatesOfBirth = append(e.DatesOfBirth, strconv.Itoa(y))
				}
			}
		}
		for _, d := range r.Docs {
			if d.Number != "" {
				e.Identifiers = append(e.Identifiers, sanctions.Identifier{Type: d.Type, Value: d.Number})
			}
		}
		out = append(out, e)
	}
	for i := range doc.Entities {
		r := &doc.Entities[i]
		e := sanctions.Entry{Kind: sanctions.Entity, Name: strings.TrimSpace(r.F1)}
		common(&e, &r.unRecord, r.EntAliases, r.EntAddress)
		out = append(out, e)
	}
	return out, nil
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

// --- JSON lines (Ammitto transcriptions) ---

func eachJSONL(path string, f func(line []byte) error) error {
	fh, err := os.Open(path)
	if err != nil {
		return err
	}
	defer fh.Close()
	zr, err := gzip.NewReader(fh)
	if err != nil {
		return err
	}
	br := bufio.NewReaderSize(zr, 1<<20)
	for {
		line, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			if ferr := f(line); ferr != nil {
				return ferr
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

func loadEU(dir string) ([]sanctions.Entry, error) {
	var out []sanctions.Entry
	err := eachJSONL(filepath.Join(dir, "eu", "eu_fsf_ammitto_2026-03-15.jsonl.gz"), func(line []byte) error {
		var r struct {
			Ref       string `json:"eu_reference_number"`
			LogicalID string `json:"logical_id"`
			Subject   struct {
				Code string `json:"code"`
			} `json:"subject_type"`
			Names []struct {
				Whole  string `json:"whole_name"`
				Lang   string `json:"name_language"`
				Strong *bool  `json:"strong"`
			} `json:"name_aliases"`
			Births []struct {
				Birthdate string `json:"birthdate"`
				Year      int    `json:"year"`
			} `json:"birthdates"`
			Citizenships []struct {
				ISO2 string `json:"country_iso2_code"`
			} `json:"citizenships"`
			IDs []struct {
				Type   string `json:"identification_type_code"`
				Number string `json:"number"`
				ISO2   string `json:"country_iso2_code"`
			} `json:"identifications"`
			VesselName string `json:"vessel_name"`
			IMO        string `json:"imo_number"`
		}
		if err := json.Unmarshal(line, &r); err != nil {
			return err
		}
		if r.VesselName != "" {
			out = append(out, sanctions.Entry{List: sanctions.ListEU, SourceID: "vessel-" + r.IMO, Kind: sanctions.Vessel, Name: r.VesselName, IMO: r.IMO})
			return nil
		}
		e := sanctions.Entry{List: sanctions.ListEU, SourceID: r.LogicalID, Kind: sanctions.Entity}
		if r.Subject.Code == "person" {
			e.Kind = sanctions.Person
		}
		// The primary name is the first English (or language-less) one; the
		// other language versions (SV, CS, RU, AR, ...) are aliases.
		primary := -1
		for i, n := range r.Names {
			if strings.TrimSpace(n.Whole) != "" && (n.Lang == "" || n.Lang == "EN") {
				primary = i
				break
			}
		}
		for i, n := range r.Names {
			if strings.TrimSpace(n.Whole) == "" {
				continue
			}
			if primary < 0 || i == primary {
				primary = i
				e.Name = n.Whole
				continue
			}
			e.Aliases = append(e.Aliases, sanctions.Alias{Name: n.Whole, Weak: n.Strong != nil && !*n.Strong})
		}
		for _, b := range r.Births {
			switch {
			case len(b.Birthdate) >= 10:
				e.DatesOfBirth = append(e.DatesOfBirth, b.Birthdate[:10])
			case b.Year > 0:
				e.DatesOfBirth = append(e.DatesOfBirth, strconv.Itoa(b.Year))
			}
		}
		for _, c := range r.Citizenships {
			if c.ISO2 != "" && c.ISO2 != "00" {
				e.Countries = appendNew(e.Countries, c.ISO2)
			}
		}
		for _, id := range r.IDs {
			if id.Number != "" {
				e.Identifiers = append(e.Identifiers, sanctions.Identifier{Type: id.Type, Value: id.Number, Country: id.ISO2})
			}
		}
		if e.Name != "" {
			out = append(out, e)
		}
		return nil
	})
	return out, err
}

func loadUK(dir string, cn CountryNames) ([]sanctions.Entry, error) {
	var out []sanctions.Entry
	err := eachJSONL(filepath.Join(dir, "uk", "uk_sanctions_list_ammitto_2026-08-22.jsonl.gz"), func(line []byte) error {
		var r struct {
			ID       string `json:"unique_id"`
			Kind     string `json:"individual_entity_ship"`
			NonLatin struct {
				Names []struct {
					Name string `json:"name_non_latin_script"`
				} `json:"names"`
			} `json:"non_latin_names"`
			Addresses struct {
				Addresses []struct {
					Country string `json:"address_country"`
				} `json:"addresses"`
			} `json:"addresses"`
			Other string `json:"other_information"`
		}
		if err := json.Unmarshal(line, &r); err != nil {
			return err
		}
		var raw struct {
			Names struct {
				Names []map[string]string `json:"names"`
			} `json:"names"`
		}
		if err := json.Unmarshal(line, &raw); err != nil {
			return err
		}
		e := sanctions.Entry{List: sanctions.ListUKHMT, SourceID: r.ID}
		switch r.Kind {
		case "Individual":
			e.Kind = sanctions.Person
		case "Ship":
			e.Kind = sanctions.Vessel
		default:
			e.Kind = sanctions.Entity
		}
		for _, n := range raw.Names.Names {
			full := joinNonEmpty(n["name1"], n["name2"], n["name3"], n["name4"], n["name5"], n["name6"])
			if full == "" {
				continue
			}
			typ := strings.ToLower(n["name_type"])
			if e.Name == "" && strings.HasPrefix(typ, "primary name") && !strings.Contains(typ, "variation") {
				e.Name = full
				continue
			}
			e.Aliases = append(e.Aliases, sanctions.Alias{Name: full, Weak: strings.HasPrefix(n["alias_strength"], "Low")})
		}
		if e.Name == "" && len(e.Aliases) > 0 {
			e.Name, e.Aliases = e.Aliases[0].Name, e.Aliases[1:]
		}
		for _, n := range r.NonLatin.Names {
			if s := strings.TrimSpace(n.Name); s != "" {
				e.Aliases = append(e.Aliases, sanctions.Alias{Name: s})
			}
		}
		for _, a := range r.Addresses.Addresses {
			if c := cn.Code(a.Country); c != "" {
				e.Countries = appendNew(e.Countries, c)
			}
		}
		if m := reIMO.FindStringSubmatch(r.Other); m != nil {
			e.IMO = m[1]
		}
		if e.Name != "" {
			out = append(out, e)
		}
		return nil
	})
	return out, err
}

func loadCA(dir string) ([]sanctions.Entry, error) {
	var out []sanctions.Entry
	err := eachJSONL(filepath.Join(dir, "ca", "ca_sema_ammitto_2026-08-22.jsonl.gz"), func(line []byte) error {
		var r struct {
			Country string `json:"country"`
			Last    string `json:"last_name"`
			Given   string `json:"given_name"`
			Entity  string `json:"entity_or_ship"`
			DOB     string `json:"date_of_birth_or_ship_build_date"`
			Item    string `json:"item"`
			Source  string `json:"_source_file"`
		}
		if err := json.Unmarshal(line, &r); err != nil {
			return err
		}
		id := strings.TrimSuffix(filepath.Base(r.Source), ".yaml")
		e := sanctions.Entry{List: sanctions.ListCA, SourceID: id, Programs: []string{strings.TrimSpace(r.Country)}}
		if name := strings.TrimSpace(r.Entity); name != "" {
			e.Kind, e.Name = sanctions.Entity, name
		} else {
			e.Kind, e.Name = sanctions.Person, joinNonEmpty(r.Given, r.Last)
			if d := strings.TrimSpace(r.DOB); len(d) >= 4 {
				e.DatesOfBirth = []string{d}
			}
		}
		if e.Name != "" {
			out = append(out, e)
		}
		return nil
	})
	return out, err
}

var reAUDate = regexp.MustCompile(`^(\d{1,2})/(\d{1,2})/(\d{4})$`)

func loadAU(dir string, cn CountryNames) ([]sanctions.Entry, error) {
	var out []sanctions.Entry
	err := eachJSONL(filepath.Join(dir, "au", "au_dfat_ammitto_2026-08-22.jsonl.gz"), func(line []byte) error {
		var r struct {
			Ref   string `json:"reference"`
			Type  string `json:"entity_type"`
			Names []struct {
				Text     string `json:"text"`
				Type     string `json:"name_type"`
				Strength string `json:"alias_strength"`
			} `json:"names"`
			DOBs []struct {
				Raw   string `json:"raw_value"`
				Year  int    `json:"year"`
				Month int    `json:"month"`
				Day   int    `json:"day"`
			} `json:"dates_of_birth"`
			Citizenships []string `json:"citizenships"`
			IMO          string   `json:"imo_number"`
		}
		if err := json.Unmarshal(line, &r); err != nil {
			return err
		}
		e := sanctions.Entry{List: sanctions.ListAUDFAT, SourceID: r.Ref, IMO: r.IMO}
		switch r.Type {
		case "person":
			e.Kind = sanctions.Person
		case "vessel":
			e.Kind = sanctions.Vessel
		default:
			e.Kind = sanctions.Entity
		}
		for _, n := range r.Names {
			t := strings.TrimSpace(n.Text)
			if t == "" {
				continue
			}
			if e.Name == "" && n.Type == "Primary Name" {
				e.Name = t
				continue
			}
			e.Aliases = append(e.Aliases, sanctions.Alias{Name: t, Weak: n.Strength == "Weak"})
		}
		if e.Name == "" && len(e.Aliases) > 0 {
			e.Name, e.Aliases = e.Aliases[0].Name, e.Aliases[1:]
		}
		for _, d := range r.DOBs {
			switch {
			case d.Year > 0 && d.Month > 0 && d.Day > 0:
				e.DatesOfBirth = append(e.DatesOfBirth, fmt.Sprintf("%04d-%02d-%02d", d.Year, d.Month, d.Day))
			case d.Year > 0 && d.Month > 0:
				e.DatesOfBirth = append(e.DatesOfBirth, fmt.Sprintf("%04d-%02d", d.Year, d.Month))
			default:
				if m := reAUDate.FindStringSubmatch(strings.TrimSpace(d.Raw)); m != nil {
					dd, _ := strconv.Atoi(m[1])
					mm, _ := strconv.Atoi(m[2])
					e.DatesOfBirth = append(e.DatesOfBirth, fmt.Sprintf("%s-%02d-%02d", m[3], mm, dd))
				} else if d.Year > 0 {
					e.DatesOfBirth = append(e.DatesOfBirth, strconv.Itoa(d.Year))
				}
			}
		}
		for _, c := range r.Citizenships {
			if code := cn.Code(c); code != "" {
				e.Countries = appendNew(e.Countries, code)
			}
		}
		if e.Name != "" {
			out = append(out, e)
		}
		return nil
	})
	return out, err
}

func loadCH(dir string) ([]sanctions.Entry, error) {
	type identity struct {
		Names []struct {
			Type    string `json:"name_type"`
			Quality string `json:"quality"`
			Parts   []struct {
				Order int    `json:"order"`
				Type  string `json:"name_part_type"`
				Value string `json:"value"`
			} `json:"name_parts"`
		} `json:"names"`
		DMY *struct {
			Day, Month, Year int
		} `json:"day_month_year"`
	}
	var out []sanctions.Entry
	err := eachJSONL(filepath.Join(dir, "ch", "ch_seco_ammitto_2026-03-15.jsonl.gz"), func(line []byte) error {
		var r struct {
			SSID       string `json:"ssid"`
			Individual *struct {
				Identity identity `json:"identity"`
			} `json:"individual"`
			Entity *struct {
				Identity identity `json:"identity"`
			} `json:"entity"`
		}
		if err := json.Unmarshal(line, &r); err != nil {
			return err
		}
		e := sanctions.Entry{List: sanctions.ListCHSECO, SourceID: r.SSID}
		var id *identity
		switch {
		case r.Individual != nil:
			e.Kind, id = sanctions.Person, &r.Individual.Identity
		case r.Entity != nil:
			e.Kind, id = sanctions.Entity, &r.Entity.Identity
		default:
			return nil // ID-only object targets
		}
		for _, n := range id.Names {
			var parts []string
			for _, p := range n.Parts {
				if p.Type == "title" {
					continue
				}
				parts = append(parts, p.Value)
			}
			full := joinNonEmpty(parts...)
			if full == "" {
				continue
			}
			if e.Name == "" && n.Type == "primary-name" {
				e.Name = full
				continue
			}
			e.Aliases = append(e.Aliases, sanctions.Alias{Name: full, Weak: n.Quality == "low"})
		}
		if e.Name == "" && len(e.Aliases) > 0 {
			e.Name, e.Aliases = e.Aliases[0].Name, e.Aliases[1:]
		}
		if d := id.DMY; d != nil && d.Year > 0 && e.Kind == sanctions.Person {
			switch {
			case d.Month > 0 && d.Day > 0:
				e.DatesOfBirth = []string{fmt.Sprintf("%04d-%02d-%02d", d.Year, d.Month, d.Day)}
			case d.Month > 0:
				e.DatesOfBirth = []string{fmt.Sprintf("%04d-%02d", d.Year, d.Month)}
			default:
				e.DatesOfBirth = []string{strconv.Itoa(d.Year)}
			}
		}
		if e.Name != "" {
			out = append(out, e)
		}
		return nil
	})
	return out, err
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
