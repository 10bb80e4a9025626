package ingest

import (
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/tradecompliance/compliance/graph"
	"github.com/tradecompliance/compliance/graph/sanctions"
)

func date(s string) time.Time {
	t, err := time.Parse("2006-01-02", s)
	if err != nil {
		panic(err)
	}
	return t
}

func byID(entries []sanctions.Entry) map[string]sanctions.Entry {
	m := make(map[string]sanctions.Entry, len(entries))
	for _, e := range entries {
		m[e.SourceID] = e
	}
	return m
}

func js(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// checkEntries compares the entries of res with the wanted ones, by source
// id, in full.
func checkEntries(t *testing.T, parser string, got []sanctions.Entry, want []sanctions.Entry) {
	t.Helper()
	m := byID(got)
	for _, w := range want {
		g, ok := m[w.SourceID]
		if !ok {
			t.Errorf("%s: entry %s missing", parser, w.SourceID)
			continue
		}
		if !reflect.DeepEqual(g, w) {
			t.Errorf("%s: entry %s =\n  %s\nwant\n  %s", parser, w.SourceID, js(g), js(w))
		}
	}
}

func TestParseOFACCSV(t *testing.T) {
	res, err := ParseOFACCSV(sanctions.ListUSSDN, OFACFiles{
		Primary:   strings.NewReader(fixtureSDN),
		Addresses: strings.NewReader(fixtureADD),
		Aliases:   strings.NewReader(fixtureALT),
		Comments:  strings.NewReader(fixtureComments),
	})
	if err != nil {
		t.Fatalf("ParseOFACCSV(fixture) error = %v", err)
	}
	if len(res.Entries) != 6 || res.Records != 6 {
		t.Errorf("ParseOFACCSV(fixture) = %d entries from %d records, want 6 from 6", len(res.Entries), res.Records)
	}
	if want := map[string]int{"add": 1, "alt": 2, "comments": 1}; !reflect.DeepEqual(res.Orphans, want) {
		t.Errorf("ParseOFACCSV(fixture) orphans = %v, want %v", res.Orphans, want)
	}
	if !res.Published.IsZero() {
		t.Errorf("ParseOFACCSV(fixture) published = %v, want zero (the CSV states none)", res.Published)
	}
	l := sanctions.ListUSSDN
	checkEntries(t, "ParseOFACCSV", res.Entries, []sanctions.Entry{
		{List: l, SourceID: "100", Kind: sanctions.Entity, Name: "EXAMPLE SHIPPING CO., LTD.",
			Aliases:     []sanctions.Alias{{Name: "EXAMPLE SHIPPING COMPANY"}, {Name: "EXSHIP", Weak: true}},
			Programs:    []string{"IRAN", "SDGT"},
			Countries:   []string{"IR"},
			Identifiers: []sanctions.Identifier{{Type: "Registration Number", Value: "123456", Country: "IR"}},
			Addresses:   []string{"1 Example Street, Tehran, Iran"},
			Remarks:     "Registration Number 123456 (Iran); a.k.a. 'EXSHIP'; Linked To: EXAMPLE HOLDING CO. LTD..",
			LinkedTo:    []string{"EXAMPLE HOLDING CO. LTD."}},
		{List: l, SourceID: "101", Kind: sanctions.Person, Name: "DOE, John Example",
			Aliases:      []sanctions.Alias{{Name: "DOE, Johnny"}, {Name: "EXSHIP"}},
			Programs:     []string{"SDGT"},
			Countries:    []string{"EG", "JO"},
			DatesOfBirth: []string{"1948-12-10", "1950"},
			Identifiers:  []sanctions.Identifier{{Type: "Passport", Value: "A1234567", Country: "EG"}},
			Addresses:    []string{"Cairo, Egypt"},
			Remarks:      "DOB 10 Dec 1948; alt. DOB circa 1950; POB Cairo, Egypt; nationality Egypt; alt. citizen Jordan; Passport A1234567 (Egypt) expires 2030; Gender Male; Linked To: EXAMPLE SHIPPING CO., LTD..",
			LinkedTo:     []string{"EXAMPLE SHIPPING CO., LTD."}},
		{List: l, SourceID: "102", Kind: sanctions.Vessel, Name: "EXAMPLE STAR",
			Aliases:   []sanctions.Alias{{Name: "OLD STAR", Weak: true}},
			Programs:  []string{"IRAN"},
			Countries: []string{"PA"},
			Identifiers: []sanctions.Identifier{{Type: "Call Sign", Value: "9BXX1"},
				{Type: "Vessel Registration Identification", Value: "IMO 9999993"}},
			IMO:      "9999993",
			Remarks:  "Vessel Registration Identification IMO 9999993; f.k.a. 'OLD STAR'; Linked To: EXAMPLE SHIPPING CO., LTD..",
			LinkedTo: []string{"EXAMPLE SHIPPING CO., LTD."}},
		{List: l, SourceID: "103", Kind: sanctions.Aircraft, Name: "EP-XXX", Programs: []string{"SDGT"},
			Identifiers: []sanctions.Identifier{{Type: "Aircraft Manufacturer's Serial Number (MSN)", Value: "12345"}},
			Remarks:     "Aircraft Manufacturer's Serial Number (MSN) 12345; Linked To: EXAMPLE AIR.",
			LinkedTo:    []string{"EXAMPLE AIR"}},
		{List: l, SourceID: "105", Kind: sanctions.Entity, Name: "CAFÉ EXAMPLE", Programs: []string{"CUBA"}},
	})
	// The remarks overflow (sdn_comments.csv) is joined to the remarks.
	if e := byID(res.Entries)["104"]; len(e.Identifiers) != 2 || e.Identifiers[1].Value != "2222222222" ||
		!strings.Contains(e.Remarks, "26 Mar 2022; Tax ID No. 2222222222") {
		t.Errorf("ParseOFACCSV(fixture) entry 104 = %s, want both tax ids and the remarks joined across sdn_comments.csv", js(e))
	}
}

func TestParseOFACXML(t *testing.T) {
	res, err := ParseOFACXML(sanctions.ListUSSDN, strings.NewReader(fixtureSDNXML))
	if err != nil {
		t.Fatalf("ParseOFACXML(fixture) error = %v", err)
	}
	if want := date("2026-03-15"); !res.Published.Equal(want) {
		t.Errorf("ParseOFACXML(fixture) published = %v, want %v", res.Published, want)
	}
	l := sanctions.ListUSSDN
	checkEntries(t, "ParseOFACXML", res.Entries, []sanctions.Entry{
		{List: l, SourceID: "200", Kind: sanctions.Person, Name: "EXAMPLE, Jane",
			Aliases:      []sanctions.Alias{{Name: "EXAMPEL, Jane"}, {Name: "AUNTIE J", Weak: true}},
			Programs:     []string{"SDGT", "IRAN"},
			Countries:    []string{"PK"},
			DatesOfBirth: []string{"1950-06-05"},
			Identifiers:  []sanctions.Identifier{{Type: "Passport", Value: "X0000001", Country: "PK"}},
			Addresses:    []string{"Lahore, Pakistan"},
			Remarks:      "Linked To: EXAMPLE FRONT.",
			LinkedTo:     []string{"EXAMPLE FRONT"}},
		{List: l, SourceID: "201", Kind: sanctions.Vessel, Name: "EXAMPLE WAVE", Programs: []string{"IRAN"},
			Countries: []string{"PA"},
			Identifiers: []sanctions.Identifier{{Type: "Vessel Registration Identification", Value: "IMO 9999993"},
				{Type: "Call Sign", Value: "ABCD"}},
			IMO: "9999993"},
	})
}

func TestParseUNXML(t *testing.T) {
	res, err := ParseUNXML(strings.NewReader(fixtureUNXML))
	if err != nil {
		t.Fatalf("ParseUNXML(fixture) error = %v", err)
	}
	if want := time.Date(2026, 2, 1, 0, 0, 9, 554e6, time.UTC); !res.Published.Equal(want) {
		t.Errorf("ParseUNXML(fixture) published = %v, want %v", res.Published, want)
	}
	l := sanctions.ListUN
	checkEntries(t, "ParseUNXML", res.Entries, []sanctions.Entry{
		{List: l, SourceID: "QDi.900", Kind: sanctions.Person, Name: "JOHN EXAMPLE SMITH",
			Aliases:      []sanctions.Alias{{Name: "جون"}, {Name: "Johnny Example"}, {Name: "Abu Example", Weak: true}},
			Programs:     []string{"Al-Qaida"},
			Countries:    []string{"IR", "AF"},
			DatesOfBirth: []string{"1970-03-04", "1969", "1965", "1966", "1967"},
			Identifiers:  []sanctions.Identifier{{Type: "Passport", Value: "P000001", Country: "PK"}},
			Addresses:    []string{"Kabul, Afghanistan"},
			Remarks:      "Associated with Example Front (QDe.901). Leader as of 2015.",
			LinkedTo:     []string{"EXAMPLE FRONT"},
			Listed:       date("2010-01-02")},
		{List: l, SourceID: "QDe.901", Kind: sanctions.Entity, Name: "EXAMPLE FRONT",
			Aliases:     []sanctions.Alias{{Name: "The Front"}},
			Programs:    []string{"Al-Qaida"},
			Countries:   []string{"PK"},
			Identifiers: []sanctions.Identifier{{Type: "IMO", Value: "9999993"}},
			Addresses:   []string{"Karachi, Pakistan"},
			Remarks:     "Led by John Example Smith (QDi.900). Owns a ship, IMO number: 9999993.",
			LinkedTo:    []string{"JOHN EXAMPLE SMITH"},
			Listed:      date("2011-05-06")},
	})
}

func TestParseEUXML(t *testing.T) {
	res, err := ParseEUXML(strings.NewReader(fixtureEUXML))
	if err != nil {
		t.Fatalf("ParseEUXML(fixture) error = %v", err)
	}
	if want := time.Date(2026, 1, 15, 13, 29, 22, 497e6, time.UTC); !res.Published.Equal(want) {
		t.Errorf("ParseEUXML(fixture) published = %v, want %v", res.Published, want)
	}
	l := sanctions.ListEU
	checkEntries(t, "ParseEUXML", res.Entries, []sanctions.Entry{
		{List: l, SourceID: "9001", Kind: sanctions.Person, Name: "Ivan Primerov",
			Aliases:      []sanctions.Alias{{Name: "Иван Примеров"}, {Name: "Vanya", Weak: true}},
			Programs:     []string{"UKR"},
			Countries:    []string{"RU"},
			DatesOfBirth: []string{"1961-06-05", "1962"},
			Identifiers: []sanctions.Identifier{{Type: "EU Reference Number", Value: "EU.9.1"},
				{Type: "National passport", Value: "AB0000001", Country: "RU"}},
			Addresses: []string{"Ulitsa 1, Moscow, 101000, RUSSIAN FEDERATION"},
			Remarks:   "Made-up remark.",
			Listed:    date("2014-03-17")},
		{List: l, SourceID: "9002", Kind: sanctions.Entity, Name: "Example Trading Corporation",
			Programs:    []string{"PRK"},
			Countries:   []string{"KP"},
			Identifiers: []sanctions.Identifier{{Type: "EU Reference Number", Value: "EU.9.2"}},
			Addresses:   []string{"Pyongyang, KOREA, DEMOCRATIC PEOPLE'S REPUBLIC OF"}},
	})
}

// TestEUNames checks the choice of an EU entry's primary name: the FSF
// files state each name in several language versions, often the Swedish or
// Russian one first.
func TestEUNames(t *testing.T) {
	tests := []struct {
		name  string
		names []euName
		want  string
		alias []sanctions.Alias
	}{
		{"english after other versions", []euName{{"Jevgenij Jevgenjevitj PODDUBNYJ", "SV", false},
			{"Евгений Евгеньевич ПОДДУБНЫЙ", "RU", false}, {"Evgeniy Evgenievich PODDUBNYY", "EN", false}},
			"Evgeniy Evgenievich PODDUBNYY",
			[]sanctions.Alias{{Name: "Jevgenij Jevgenjevitj PODDUBNYJ"}, {Name: "Евгений Евгеньевич ПОДДУБНЫЙ"}}},
		{"no language counts as english", []euName{{"Иван Примеров", "RU", false}, {"Ivan Primerov", "", false}},
			"Ivan Primerov", []sanctions.Alias{{Name: "Иван Примеров"}}},
		{"strong before weak", []euName{{"Vanya", "EN", true}, {"Ivan Primerov", "EN", false}},
			"Ivan Primerov", []sanctions.Alias{{Name: "Vanya", Weak: true}}},
		{"first when none is english", []euName{{"", "EN", false}, {"Иван Примеров", "RU", false}, {"Ivan Primerov", "CS", false}},
			"Иван Примеров", []sanctions.Alias{{Name: "Ivan Primerov"}}},
		{"none", []euName{{"", "", false}}, "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, aliases := euNames(tt.names)
			if got != tt.want || js(aliases) != js(tt.alias) {
				t.Errorf("euNames() = %q, %s, want %q, %s", got, js(aliases), tt.want, js(tt.alias))
			}
		})
	}
}

func TestParseUKCSV(t *testing.T) {
	res, err := ParseUKCSV(strings.NewReader(fixtureUKCSV))
	if err != nil {
		t.Fatalf("ParseUKCSV(fixture) error = %v", err)
	}
	if want := date("2026-03-15"); !res.Published.Equal(want) {
		t.Errorf("ParseUKCSV(fixture) published = %v, want %v", res.Published, want)
	}
	if res.Records != 4 || len(res.Entries) != 3 {
		t.Errorf("ParseUKCSV(fixture) = %d entries from %d rows, want 3 from 4", len(res.Entries), res.Records)
	}
	l := sanctions.ListUKHMT
	checkEntries(t, "ParseUKCSV", res.Entries, []sanctions.Entry{
		{List: l, SourceID: "9001", Kind: sanctions.Person, Name: "John EXAMPLE",
			Aliases:      []sanctions.Alias{{Name: "جون"}, {Name: "Jon EXAMPEL", Weak: true}},
			Programs:     []string{"Iran (nuclear proliferation)"},
			Countries:    []string{"IR"},
			DatesOfBirth: []string{"1955-09-28", "1956-09"},
			Identifiers: []sanctions.Identifier{{Type: "Passport", Value: "P000001"},
				{Type: "UN Reference Number", Value: "IRi.900"}},
			Remarks:  "UN Ref IRi.900. Associated with Example Front (IRe.901).",
			LinkedTo: []string{"EXAMPLE FRONT"},
			Listed:   date("2007-03-24")},
		{List: l, SourceID: "9003", Kind: sanctions.Vessel, Name: "EXAMPLE STAR", Programs: []string{"Russia"},
			IMO: "9999993", Remarks: "IMO number: 9999993. Flag: Panama", Listed: date("2024-02-01")},
	})
}

func TestParseCAXML(t *testing.T) {
	res, err := ParseCAXML(strings.NewReader(fixtureCAXML))
	if err != nil {
		t.Fatalf("ParseCAXML(fixture) error = %v", err)
	}
	if want := date("2025-06-13"); !res.Published.Equal(want) {
		t.Errorf("ParseCAXML(fixture) published = %v, want %v (the latest DateOfListing)", res.Published, want)
	}
	l := sanctions.ListCA
	checkEntries(t, "ParseCAXML", res.Entries, []sanctions.Entry{
		{List: l, SourceID: "Burma / Birmanie; Schedule 1; Item 1", Kind: sanctions.Entity, Name: "Example Airways",
			Aliases:  []sanctions.Alias{{Name: "Example Airways Holdings Pte. Ltd."}, {Name: "Example Air Limited"}},
			Programs: []string{"Burma / Birmanie"}},
		{List: l, SourceID: "Russia / Russie; Schedule 1, Part 1; Item 2", Kind: sanctions.Person, Name: "Ivan Ivanovich PRIMEROV",
			Programs: []string{"Russia / Russie"}, DatesOfBirth: []string{"1961-06-05"}, Listed: date("2022-03-08")},
		{List: l, SourceID: "Russia / Russie; Schedule 1.1; Item 3", Kind: sanctions.Vessel, Name: "EXAMPLE STAR",
			Programs: []string{"Russia / Russie"}, Listed: date("2025-06-13")},
		{List: l, SourceID: "Iran; Schedule 1, Part 1; Item 4", Kind: sanctions.Entity, Name: "Example Engineering Company",
			Aliases:  []sanctions.Alias{{Name: "Sample Engineering Co"}, {Name: "Demo Engineering"}},
			Programs: []string{"Iran"}, Listed: date("2024-01-01")},
	})
}

func TestParseAUXLSX(t *testing.T) {
	data := makeXLSX(t, fixtureAURows)
	res, err := ParseAUXLSX(strings.NewReader(string(data)))
	if err != nil {
		t.Fatalf("ParseAUXLSX(fixture) error = %v", err)
	}
	if want := date("2024-11-11"); !res.Published.Equal(want) {
		t.Errorf("ParseAUXLSX(fixture) published = %v, want %v (the latest Control Date)", res.Published, want)
	}
	if res.Records != 7 || len(res.Entries) != 4 {
		t.Errorf("ParseAUXLSX(fixture) = %d entries from %d rows, want 4 from 7 (the blank row skipped)", len(res.Entries), res.Records)
	}
	l := sanctions.ListAUDFAT
	checkEntries(t, "ParseAUXLSX", res.Entries, []sanctions.Entry{
		{List: l, SourceID: "1", Kind: sanctions.Person, Name: "JOHN EXAMPLE",
			Aliases:      []sanctions.Alias{{Name: "جون"}, {Name: "Johnny Example"}},
			Programs:     []string{"1988 (Taliban)"},
			Countries:    []string{"AF"},
			DatesOfBirth: []string{"1960-02-01", "1955", "1956", "1957"},
			Remarks:      "Made-up information.",
			Listed:       date("2001-01-25")},
		{List: l, SourceID: "2", Kind: sanctions.Entity, Name: "EXAMPLE TRADING LLC",
			Aliases:     []sanctions.Alias{{Name: "Example Trading Company"}},
			Programs:    []string{"Autonomous (Iran)"},
			Countries:   []string{"AE", "IQ"},
			Identifiers: []sanctions.Identifier{{Type: "IMO", Value: "9999993"}},
			Addresses:   []string{"a) 1 Example Road, Dubai, United Arab Emirates b) 2 Example Street, Baghdad, Iraq"},
			Remarks:     "Owner of a ship, IMO 9999993.",
			Listed:      date("2012-03-03")},
		{List: l, SourceID: "3", Kind: sanctions.Person, Name: "PERSON WITH NUMERIC DOB",
			Programs: []string{"Autonomous (Russia)"}, Countries: []string{"RU", "UA"}, DatesOfBirth: []string{"1951-06-19"}},
		{List: l, SourceID: "4", Kind: sanctions.Person, Name: "PERSON WITH YEAR DOB",
			Programs: []string{"Autonomous (Russia)"}, DatesOfBirth: []string{"1969"}},
	})
}

func TestParseCHXML(t *testing.T) {
	f, err := os.Open("testdata/seco_fixture.xml")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	res, err := ParseCHXML(f)
	if err != nil {
		t.Fatalf("ParseCHXML(seco_fixture.xml) error = %v", err)
	}
	if want := date("2026-03-10"); !res.Published.Equal(want) {
		t.Errorf("ParseCHXML(seco_fixture.xml) published = %v, want %v", res.Published, want)
	}
	if res.Records != 4 || len(res.Entries) != 3 || res.Skipped != 1 {
		t.Errorf("ParseCHXML(seco_fixture.xml) = %d entries, %d skipped of %d targets, want 3, 1 (de-listed) of 4", len(res.Entries), res.Skipped, res.Records)
	}
	l := sanctions.ListCHSECO
	prog := []string{"Ordinance on measures (example)"}
	checkEntries(t, "ParseCHXML", res.Entries, []sanctions.Entry{
		{List: l, SourceID: "7001", Kind: sanctions.Person, Name: "Ivan Primerov",
			Aliases:      []sanctions.Alias{{Name: "Иван Примеров"}, {Name: "The Example", Weak: true}, {Name: "Ivan Obraztsov"}},
			Programs:     prog,
			Countries:    []string{"RU"},
			DatesOfBirth: []string{"1961-06-05"},
			Identifiers: []sanctions.Identifier{{Type: "UN Reference Number", Value: "QDi.999"},
				{Type: "passport", Value: "AB0000001", Country: "RU"}},
			Addresses: []string{"Ulitsa Primernaya 1, 123456, Testograd, Example Oblast, Russia"},
			Remarks:   "Made-up other information. Made-up justification for a fixture.",
			Listed:    date("2022-03-01")},
		{List: l, SourceID: "7100", Kind: sanctions.Entity, Name: "Example Trading LLC", Programs: prog,
			Countries: []string{"AE"}, Addresses: []string{"1 Fixture Street, Dubai, United Arab Emirates"},
			LinkedTo: []string{"Ivan Primerov"}, Listed: date("2023-01-11")},
		{List: l, SourceID: "7200", Kind: sanctions.Vessel, Name: "EXAMPLE STAR", Programs: prog, IMO: "9999993",
			Remarks: "IMO number: 9999993", LinkedTo: []string{"Example Trading LLC"}, Listed: date("2025-06-02")},
	})
}

func TestParseJSONL(t *testing.T) {
	res, err := ParseJSONL(sanctions.ListUN, strings.NewReader(fixtureJSONL))
	if err != nil {
		t.Fatalf("ParseJSONL(fixture) error = %v", err)
	}
	if want := date("2026-04-01"); !res.Published.Equal(want) {
		t.Errorf("ParseJSONL(fixture) published = %v, want %v", res.Published, want)
	}
	checkEntries(t, "ParseJSONL", res.Entries, []sanctions.Entry{
		{List: "un", SourceID: "X1", Kind: sanctions.Person, Name: "John Example",
			Aliases: []sanctions.Alias{{Name: "Johnny", Weak: true}}, Countries: []string{"IR"},
			DatesOfBirth: []string{"1970-03-04", "1969"}, LinkedTo: []string{"Example Front"}},
		{List: "un", SourceID: "X2", Kind: sanctions.Vessel, Name: "EXAMPLE STAR", IMO: "9999993"},
	})
}

func TestParseJSONLErrors(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"no list", `{"source_id": "1", "name": "A"}`, "line 1: list is required"},
		{"other list", `{"list": "eu", "source_id": "1", "name": "A"}`, `line 1: list "eu" is not the list being ingested (un)`},
		{"no source id", `{"list": "un", "name": "A"}`, "line 1: source_id is required"},
		{"no name", `{"list": "un", "source_id": "1"}`, "line 1: name is required"},
		{"bad kind", `{"list": "un", "source_id": "1", "name": "A", "kind": "ship"}`, `kind "ship" is not person`},
		{"bad country", `{"list": "un", "source_id": "1", "name": "A", "countries": ["Iran"]}`, `countries[0] "Iran" is not an ISO 3166-1 alpha-2 code`},
		{"bad date", `{"list": "un", "source_id": "1", "name": "A", "dates_of_birth": ["10/12/1948"]}`, `dates_of_birth[0] "10/12/1948" is not YYYY`},
		{"bad imo", `{"list": "un", "source_id": "1", "name": "A", "imo": "IMO 123"}`, `imo "IMO 123" is not a 7-digit number`},
		{"duplicate", "{\"list\": \"un\", \"source_id\": \"1\", \"name\": \"A\"}\n{\"list\": \"un\", \"source_id\": \"1\", \"name\": \"B\"}", `line 2: source_id "1" already on line 1`},
		{"not json", "{\"list\": \"un\", \"source_id\": \"1\", \"name\": \"A\"}\nnot json", "line 2: invalid character"},
		{"wrong type", `{"list": "un", "source_id": "1", "name": ["A"]}`, "line 1: json: cannot unmarshal array"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseJSONL(sanctions.ListUN, strings.NewReader(tt.in))
			if graph.ErrorCode(err) != graph.CodeInvalid || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("ParseJSONL(%q) error = %v, want invalid containing %q", tt.in, err, tt.want)
			}
		})
	}
}

func TestParseAmmitto(t *testing.T) {
	tests := []struct {
		list      string
		in        string
		published string
		skipped   int
		want      []sanctions.Entry
	}{
		{sanctions.ListEU, fixtureAmmittoEU, "2025-12-19", 0, []sanctions.Entry{
			{List: "eu", SourceID: "9001", Kind: sanctions.Person, Name: "Ivan Primerov",
				Aliases: []sanctions.Alias{{Name: "Vanya", Weak: true}}, Programs: []string{"UKR"}, Countries: []string{"RU"},
				DatesOfBirth: []string{"1961-06-05"},
				Identifiers: []sanctions.Identifier{{Type: "EU Reference Number", Value: "EU.9.1"},
					{Type: "passport", Value: "AB0000001", Country: "RU"}}},
			{List: "eu", SourceID: "IMO 9999993", Kind: sanctions.Vessel, Name: "EXAMPLE STAR", IMO: "9999993", Listed: date("2025-12-19")},
		}},
		{sanctions.ListUKHMT, fixtureAmmittoUK, "2026-08-06", 0, []sanctions.Entry{
			{List: "uk_hmt", SourceID: "AFG9001", Kind: sanctions.Entity, Name: "EXAMPLE EXCHANGE",
				Aliases: []sanctions.Alias{{Name: "Example Hawala", Weak: true}}, Programs: []string{"Afghanistan"},
				Countries: []string{"AF"},
				Identifiers: []sanctions.Identifier{{Type: "OFSI Group ID", Value: "9001"},
					{Type: "UN Reference Number", Value: "TAe.900"}},
				Addresses: []string{"Example Market, Afghanistan"}, Remarks: "Associated with John Example (TAi.901).",
				LinkedTo: []string{"JOHN EXAMPLE"}, Listed: date("2012-06-29")},
			{List: "uk_hmt", SourceID: "RUS9002", Kind: sanctions.Vessel, Name: "EXAMPLE STAR", Programs: []string{"Russia"},
				IMO: "9999993", Listed: date("2026-08-06")},
		}},
		{sanctions.ListCA, fixtureAmmittoCA, "2025-06-13", 0, []sanctions.Entry{
			{List: "ca", SourceID: "Belarus / Bélarus; Schedule 1, Part 1.1; Item 1", Kind: sanctions.Person,
				Name: "Ivan Ivanovich PRIMEROV", Programs: []string{"Belarus / Bélarus"}, DatesOfBirth: []string{"1961-06-05"},
				Listed: date("2022-03-08")},
			{List: "ca", SourceID: "Russia / Russie; Schedule 1.1; Item 2", Kind: sanctions.Vessel, Name: "EXAMPLE STAR",
				Programs: []string{"Russia / Russie"}, Listed: date("2025-06-13")},
		}},
		{sanctions.ListAUDFAT, fixtureAmmittoAU, "2026-08-21", 0, []sanctions.Entry{
			{List: "au_dfat", SourceID: "9001", Kind: sanctions.Person, Name: "John Example",
				Aliases: []sanctions.Alias{{Name: "Johnny", Weak: true}}, Programs: []string{"1988 (Taliban)"},
				Countries: []string{"AF"}, DatesOfBirth: []string{"1954"}, Listed: date("2001-02-23")},
			{List: "au_dfat", SourceID: "9002", Kind: sanctions.Vessel, Name: "EXAMPLE STAR",
				Aliases: []sanctions.Alias{{Name: "OLD STAR"}}, Programs: []string{"Autonomous (Vessels)"}, IMO: "9999993"},
		}},
		{sanctions.ListCHSECO, fixtureAmmittoCH, "", 1, []sanctions.Entry{
			{List: "ch_seco", SourceID: "9001", Kind: sanctions.Person, Name: "Primerov Ivan",
				Programs: []string{"sanctions set 901"}, DatesOfBirth: []string{"1961-06-05"}, Remarks: "Made up."},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.list, func(t *testing.T) {
			res, err := ParseAmmitto(tt.list, strings.NewReader(tt.in))
			if err != nil {
				t.Fatalf("ParseAmmitto(%s, fixture) error = %v", tt.list, err)
			}
			if got := res.Published.Format("2006-01-02"); tt.published != "" && got != tt.published {
				t.Errorf("ParseAmmitto(%s) published = %s, want %s", tt.list, got, tt.published)
			}
			if res.Skipped != tt.skipped {
				t.Errorf("ParseAmmitto(%s) skipped = %d, want %d", tt.list, res.Skipped, tt.skipped)
			}
			checkEntries(t, "ParseAmmitto("+tt.list+")", res.Entries, tt.want)
		})
	}
}

// TestParserErrors feeds each parser bad files: each is rejected with an
// invalid error that says what is wrong, never a panic.
func TestParserErrors(t *testing.T) {
	ofac := func(primary string) func() error {
		return func() error {
			_, err := ParseOFACCSV(sanctions.ListUSSDN, OFACFiles{Primary: strings.NewReader(primary)})
			return err
		}
	}
	tests := []struct {
		name  string
		parse func() error
		want  string
	}{
		{"ofac short record", ofac("100,\"A\",-0- \r\n"), "sdn.csv: line 1: expected 12 fields, got 3"},
		{"ofac bad ent_num", ofac(`X1,"A",-0- ,"P",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- `), `ent_num "X1" is not a number`},
		{"ofac no name", ofac(`1,-0- ,-0- ,"P",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- `), "ent_num 1 has no name"},
		{"ofac duplicate", ofac("1,\"A\",-0- ,\"P\",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- \n1,\"B\",-0- ,\"P\",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- "), "ent_num 1 appears twice"},
		{"ofac bad type", ofac(`1,"A","robot","P",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- `), `unknown SDN_Type "robot"`},
		{"ofac alt with wrong layout", func() error {
			_, err := ParseOFACCSV(sanctions.ListUSSDN, OFACFiles{Primary: strings.NewReader(fixtureSDN), Aliases: strings.NewReader(fixtureADD)})
			return err
		}, "alt.csv: line 1: expected 5 fields, got 6"},
		{"sdn xml wrong root", func() error {
			_, err := ParseOFACXML(sanctions.ListUSSDN, strings.NewReader(`<export/>`))
			return err
		}, "root element is <export>, not <sdnList>"},
		{"sdn xml bad date", func() error {
			_, err := ParseOFACXML(sanctions.ListUSSDN, strings.NewReader(`<sdnList><publshInformation><Publish_Date>22.04.2020</Publish_Date></publshInformation></sdnList>`))
			return err
		}, `Publish_Date "22.04.2020" is not MM/DD/YYYY`},
		{"un truncated", func() error {
			_, err := ParseUNXML(strings.NewReader(fixtureUNXML[:len(fixtureUNXML)/2]))
			return err
		}, "unexpected EOF"},
		{"un entry without name", func() error {
			_, err := ParseUNXML(strings.NewReader(`<CONSOLIDATED_LIST><INDIVIDUALS><INDIVIDUAL><REFERENCE_NUMBER>QDi.1</REFERENCE_NUMBER></INDIVIDUAL></INDIVIDUALS></CONSOLIDATED_LIST>`))
			return err
		}, "entry QDi.1 has no name"},
		{"eu not xml", func() error {
			_, err := ParseEUXML(strings.NewReader(`<export><sanctionEntity logicalId="1"><nameAlias wholeName="A"</sanctionEntity></export>`))
			return err
		}, "line 1:"},
		{"uk no header", func() error {
			_, err := ParseUKCSV(strings.NewReader("Last Updated,01/01/2020\nfoo,bar\n"))
			return err
		}, `no "name 6" column`},
		{"uk bad date", func() error {
			_, err := ParseUKCSV(strings.NewReader("Last Updated,2020-01-01\n"))
			return err
		}, `Last Updated "2020-01-01" is not DD/MM/YYYY`},
		{"uk missing group id", func() error {
			_, err := ParseUKCSV(strings.NewReader("Name 6,Group Type,Group ID\nA,Individual,\n"))
			return err
		}, "line 2: no Group ID"},
		{"ca record without item", func() error {
			_, err := ParseCAXML(strings.NewReader(`<data-set><record><Country>Iran</Country><Entity>A</Entity></record></data-set>`))
			return err
		}, "has no Item"},
		{"au not a zip", func() error {
			_, err := ParseAUXLSX(strings.NewReader("PK\x03\x04 not really"))
			return err
		}, "not an xlsx workbook"},
		{"au no header", func() error {
			_, err := ParseAUXLSX(strings.NewReader(string(makeXLSX(t, [][]string{{"a", "b"}, {"c", "d"}}))))
			return err
		}, "no header row with Reference"},
		{"au bad reference", func() error {
			_, err := ParseAUXLSX(strings.NewReader(string(makeXLSX(t, [][]string{fixtureAURows[0], {"x1", "A"}}))))
			return err
		}, `row 2: Reference "x1" does not start with a number`},
		{"ch wrong root", func() error {
			_, err := ParseCHXML(strings.NewReader(`<swiss-list/>`))
			return err
		}, "not <swiss-sanctions-list>"},
		{"ch target without subject", func() error {
			_, err := ParseCHXML(strings.NewReader(`<swiss-sanctions-list><target ssid="1"/></swiss-sanctions-list>`))
			return err
		}, "target 1 has no individual, entity or object"},
		{"ammitto not json", func() error {
			_, err := ParseAmmitto(sanctions.ListEU, strings.NewReader("<xml/>"))
			return err
		}, "line 1: not a JSON object"},
		{"ammitto wrong type", func() error {
			_, err := ParseAmmitto(sanctions.ListAUDFAT, strings.NewReader(`{"reference": {"a": 1}}`))
			return err
		}, "line 1: expected a string"},
		{"ammitto no name", func() error {
			_, err := ParseAmmitto(sanctions.ListUKHMT, strings.NewReader(`{"unique_id": "X1", "names": {"names": []}}`))
			return err
		}, "line 1: designation X1 has no name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.parse()
			if graph.ErrorCode(err) != graph.CodeInvalid || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("parse(%s) error = %v, want invalid containing %q", tt.name, err, tt.want)
			}
		})
	}
}
