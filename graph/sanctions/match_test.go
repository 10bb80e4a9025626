package sanctions

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
)

// testEntries is a small made-up list in the shape of the real ones.
var testEntries = []Entry{
	{List: ListUSSDN, SourceID: "100", Kind: Person, Name: "PUTIN, Vladimir Vladimirovich",
		Aliases: []Alias{{Name: "Владимир Владимирович Путин"}}, Countries: []string{"RU"}, DatesOfBirth: []string{"1952-10-07"}},
	{List: ListUN, SourceID: "QDi.001", Kind: Person, Name: "ABDULHAI SALEK", DatesOfBirth: []string{"1965"}, Countries: []string{"AF"},
		Aliases: []Alias{{Name: "Abdul Hai Salik"}, {Name: "HAJI SALEK", Weak: true}}},
	{List: ListEU, SourceID: "200", Kind: Person, Name: "Mohammed Al-Tikriti", DatesOfBirth: []string{"1960-06-29"}, Countries: []string{"IQ"},
		Identifiers: []Identifier{{Type: "Passport", Value: "A1234567", Country: "IQ"}}},
	{List: ListUKHMT, SourceID: "RUS0001", Kind: Entity, Name: "Rosneft Oil Company PJSC", Aliases: []Alias{{Name: "ПАО НК Роснефть"}}, Countries: []string{"RU"}},
	{List: ListAUDFAT, SourceID: "8227", Kind: Vessel, Name: "ANDAMAN SKIES", IMO: "9288693"},
	{List: ListAUDFAT, SourceID: "8228", Kind: Vessel, Name: "OCEAN STAR", IMO: "IMO 9111111"},
	{List: ListCHSECO, SourceID: "300", Kind: Entity, Name: "Aviation Systems and Complexes LLC", Aliases: []Alias{{Name: "LLC ASK"}}},
	{List: ListUSSDN, SourceID: "400", Kind: Person, Name: "SMITH, John", DatesOfBirth: []string{"1970"}, Countries: []string{"IR"}},
	{List: ListUN, SourceID: "KPi.024", Kind: Person, Name: "KIM YONG CHOL", DatesOfBirth: []string{"1946"}},
	{List: ListEU, SourceID: "500", Kind: Person, Name: "Abd al-Rahman al-Qaduli"},
	{List: ListUKHMT, SourceID: "CYB0039", Kind: Person, Name: "Ivan Petrov", Aliases: []Alias{{Name: "Weldon"}}},
}

func testIndex() *Index { return NewIndex(testEntries) }

// top returns "list:source_id score" of the best match, or "none".
func top(ms []Match) string {
	if len(ms) == 0 {
		return "none"
	}
	return ms[0].Entry.List + ":" + ms[0].Entry.SourceID
}

func TestSearchFinds(t *testing.T) {
	ix := testIndex()
	tests := []struct {
		name string
		q    Query
		want string // list:source_id of the best match
	}{
		{"exact primary", Query{Name: "PUTIN, Vladimir Vladimirovich"}, "us_sdn:100"},
		{"token order and case", Query{Name: "vladimir vladimirovich putin"}, "us_sdn:100"},
		{"patronymic left out", Query{Name: "Vladimir Putin"}, "us_sdn:100"},
		{"cyrillic query", Query{Name: "Путин Владимир"}, "us_sdn:100"},
		{"alias", Query{Name: "Abdul Hai Salik"}, "un:QDi.001"},
		{"typo in every token", Query{Name: "Abdulhia Salekk"}, "un:QDi.001"},
		{"reordered with comma", Query{Name: "SALEK, ABDULHAI"}, "un:QDi.001"},
		{"name variant", Query{Name: "Muhammad al Tikriti"}, "eu:200"},
		{"arabic script query", Query{Name: "محمد التكريتي"}, "eu:200"},
		{"legal form differs", Query{Name: "Rosneft Oil Company"}, "uk_hmt:RUS0001"},
		{"legal form cyrillic", Query{Name: "Роснефть НК ООО"}, "uk_hmt:RUS0001"},
		{"entity alias with form", Query{Name: "ASK, LLC"}, "ch_seco:300"},
		{"abd al split differently", Query{Name: "Abdul Rahman Al Qaduli"}, "eu:500"},
		{"abd al joined", Query{Name: "Abdulrahman Qaduli"}, "eu:500"},
		{"vessel by IMO only", Query{IMO: "9288693"}, "au_dfat:8227"},
		{"vessel IMO with prefix, other name", Query{Name: "Some Other Ship", IMO: "IMO 9288693"}, "au_dfat:8227"},
		{"identifier only", Query{Identifiers: []string{"a123-4567"}}, "eu:200"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ms := ix.Search(tt.q)
			if got := top(ms); got != tt.want {
				t.Errorf("Search(%+v) = %s, want %s (all: %s)", tt.q, got, tt.want, describe(ms))
			}
		})
	}
}

func TestSearchRejects(t *testing.T) {
	ix := testIndex()
	tests := []struct {
		name string
		q    Query
	}{
		{"empty query", Query{}},
		{"punctuation only", Query{Name: "--;"}},
		{"unrelated name", Query{Name: "Jennifer McClellan"}},
		{"one shared first name", Query{Name: "Vladimir Nabokov"}},
		{"one-word alias inside a longer name", Query{Name: "Curt Weldon"}},
		{"dob far off", Query{Name: "John Smith", DOB: "1990-01-01", Country: "US"}},
		{"unknown IMO", Query{IMO: "1234567"}},
		{"IMO with wrong digit count", Query{IMO: "92886931"}},
		{"short identifier ignored", Query{Identifiers: []string{"A1"}}},
		{"han vs latin", Query{Name: "普京"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if ms := ix.Search(tt.q); len(ms) != 0 {
				t.Errorf("Search(%+v) = %s, want none", tt.q, describe(ms))
			}
		})
	}
}

func describe(ms []Match) string {
	var b []string
	for _, m := range ms {
		b = append(b, fmt.Sprintf("%s:%s %.3f %v", m.Entry.List, m.Entry.SourceID, m.Score, m.Explanation.Map()))
	}
	return "[" + strings.Join(b, "; ") + "]"
}

func feature(m Match, name string) (Feature, bool) {
	for _, f := range m.Explanation.Features {
		if f.Name == name {
			return f, true
		}
	}
	return Feature{}, false
}

func TestQualifiers(t *testing.T) {
	ix := testIndex()
	// "Jon" for John keeps the base under 1, so boosts show.
	base := ix.Search(Query{Name: "Jon Smith", Threshold: 0.3})
	if len(base) == 0 || base[0].Score >= 0.9 {
		t.Fatalf("Search(Jon Smith) = %s, want us_sdn:400 under 0.9", describe(base))
	}
	b := base[0].Score
	tests := []struct {
		name     string
		q        Query
		feat     string
		detail   string
		minDelta float64
		maxDelta float64
	}{
		{"dob year match", Query{DOB: "1970"}, "dob", "match 1970", 0.04, 0.04},
		{"dob full vs year", Query{DOB: "1970-05-02"}, "dob", "match 1970", 0.04, 0.04},
		{"dob off by one", Query{DOB: "1971"}, "dob", "close 1971 vs 1970", 0, 0},
		{"dob mismatch", Query{DOB: "1985"}, "dob", "mismatch 1985 vs 1970", -0.20, -0.20},
		{"country match", Query{Country: "ir"}, "country", "match IR", 0.03, 0.03},
		{"country mismatch", Query{Country: "RU"}, "country", "mismatch RU vs IR", -0.10, -0.10},
		{"kind mismatch", Query{Kind: Vessel}, "kind", "mismatch vessel vs person", -0.20, -0.20},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := tt.q
			q.Name, q.Threshold = "Jon Smith", 0.3
			ms := ix.Search(q)
			if len(ms) == 0 || ms[0].Entry.SourceID != "400" {
				t.Fatalf("Search(%+v) = %s, want us_sdn:400 first", q, describe(ms))
			}
			f, ok := feature(ms[0], tt.feat)
			if !ok {
				t.Fatalf("Search(%+v) features = %v, want a %s feature", q, ms[0].Explanation.Features, tt.feat)
			}
			if f.Detail != tt.detail {
				t.Errorf("Search(%+v) %s = %q, want %q", q, tt.feat, f.Detail, tt.detail)
			}
			d := ms[0].Score - b
			if d < tt.minDelta-0.001 || d > tt.maxDelta+0.001 {
				t.Errorf("Search(%+v) score = %.4f, want base %.4f %+.2f", q, ms[0].Score, b, tt.minDelta)
			}
		})
	}
}

func TestCompareDOB(t *testing.T) {
	d := func(s string) date { v, _ := parseDate(s); return v }
	tests := []struct {
		name   string
		q      string
		listed []string
		want   string
	}{
		{"exact", "1952-10-07", []string{"1952-10-07"}, "match 1952-10-07"},
		{"month", "1952-10", []string{"1952-10-07"}, "match 1952-10-07"},
		{"year only query", "1952", []string{"1952-10-07"}, "match 1952"},
		{"any of several", "1964", []string{"1963", "1964", "1965"}, "match 1964"},
		{"swapped day and month", "1952-07-10", []string{"1952-10-07"}, "match 1952-10-07"},
		{"other day", "1952-10-08", []string{"1952-10-07"}, "partial 1952-10-08 vs 1952-10-07"},
		{"close", "1953", []string{"1952-10-07"}, "close 1953 vs 1952-10-07"},
		{"mismatch", "1980", []string{"1952"}, "mismatch 1980 vs 1952"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var ls []date
			for _, l := range tt.listed {
				ls = append(ls, d(l))
			}
			f, ok := compareDOB(d(tt.q), ls)
			if !ok || f.Detail != tt.want {
				t.Errorf("compareDOB(%s, %v) = %q, want %q", tt.q, tt.listed, f.Detail, tt.want)
			}
		})
	}
	if _, ok := compareDOB(d("1952"), nil); ok {
		t.Errorf("compareDOB(1952, none) = ok, want no feature")
	}
}

func TestParseDate(t *testing.T) {
	tests := []struct {
		in   string
		want string
		ok   bool
	}{
		{"1972", "1972", true},
		{"1972-05", "1972-05", true},
		{"1972-05-09", "1972-05-09", true},
		{"1972-13-01", "1972", true},
		{" 1972-05-09T00:00:00Z", "1972-05-09", true},
		{"72", "", false},
		{"abcd", "", false},
		{"", "", false},
	}
	for _, tt := range tests {
		got, ok := parseDate(tt.in)
		if ok != tt.ok || (ok && got.String() != tt.want) {
			t.Errorf("parseDate(%q) = %v, %v, want %s, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestExplanation(t *testing.T) {
	ix := testIndex()
	ms := ix.Search(Query{Name: "Haji Salek", DOB: "1965", Country: "AF"})
	if len(ms) == 0 {
		t.Fatalf("Search(Haji Salek) = none, want un:QDi.001")
	}
	e := ms[0].Explanation
	checks := []struct {
		name, got, want string
	}{
		{"list", e.List, ListUN},
		{"source id", e.SourceID, "QDi.001"},
		{"matched name verbatim", e.MatchedName, "HAJI SALEK"},
		{"name type", e.NameType, "weak_alias"},
		{"first feature", e.Features[0].Name, "name_similarity"},
		{"tokens", e.Tokens, "haji=haji, salek=salek"},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("Explanation.%s = %q, want %q", c.name, c.got, c.want)
		}
	}
	if e.Score != ms[0].Score {
		t.Errorf("Explanation.Score = %v, want %v", e.Score, ms[0].Score)
	}
	m := e.Map()
	for k, want := range map[string]any{"dob": "match 1965", "country": "match AF", "weak_alias": "low-quality alias", "name_similarity": 1.0} {
		if m[k] != want {
			t.Errorf("Explanation.Map()[%q] = %v, want %v", k, m[k], want)
		}
	}
	// name similarity 1 + dob 0.04 + country 0.03 - weak 0.05, capped at 1
	if ms[0].Score != 1 {
		t.Errorf("Search(Haji Salek, 1965, AF) score = %v, want 1", ms[0].Score)
	}
}

func TestThresholdAndLimit(t *testing.T) {
	var es []Entry
	for i := range 30 {
		es = append(es, Entry{List: ListUN, SourceID: fmt.Sprint(i), Kind: Person, Name: fmt.Sprintf("Ali Hassan %c", 'a'+rune(i%26))})
	}
	ix := NewIndex(es)
	tests := []struct {
		name string
		q    Query
		want int
	}{
		{"default limit", Query{Name: "Ali Hassan", Threshold: 0.5}, DefaultLimit},
		{"explicit limit", Query{Name: "Ali Hassan", Threshold: 0.5, Limit: 3}, 3},
		{"all", Query{Name: "Ali Hassan", Threshold: 0.5, Limit: 100}, 30},
		{"high threshold", Query{Name: "Ali Hassan", Threshold: 0.99}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ms := ix.Search(tt.q)
			if len(ms) != tt.want {
				t.Errorf("len(Search(%+v)) = %d, want %d", tt.q, len(ms), tt.want)
			}
			for i := 1; i < len(ms); i++ {
				if ms[i].Score > ms[i-1].Score {
					t.Errorf("Search(%+v)[%d].Score = %v > [%d] %v, want best first", tt.q, i, ms[i].Score, i-1, ms[i-1].Score)
				}
			}
			for _, m := range ms {
				if m.Score < tt.q.Threshold {
					t.Errorf("Search(%+v) returned score %v below the threshold", tt.q, m.Score)
				}
			}
		})
	}
}

func TestIMOMismatch(t *testing.T) {
	ix := testIndex()
	ms := ix.Search(Query{Name: "Andaman Skies", IMO: "9999999", Threshold: 0.3})
	if len(ms) == 0 {
		t.Fatalf("Search(Andaman Skies, IMO 9999999) = none, want the vessel with an imo mismatch")
	}
	f, ok := feature(ms[0], "imo")
	if !ok || f.Delta != imoMissDelta || f.Detail != "mismatch 9999999 vs 9288693" {
		t.Errorf("Search(Andaman Skies, IMO 9999999) imo = %+v, want mismatch %v", f, imoMissDelta)
	}
	if ms := ix.Search(Query{Name: "Andaman Skies", IMO: "9999999"}); len(ms) != 0 {
		t.Errorf("Search(Andaman Skies, IMO 9999999) at the default threshold = %s, want none", describe(ms))
	}
}

func TestIndexSkipsEmptyNames(t *testing.T) {
	ix := NewIndex([]Entry{{List: ListUN, SourceID: "1", Name: "--"}, {List: ListUN, SourceID: "2", Name: "Ali", Aliases: []Alias{{Name: "ALI"}, {Name: ""}}}})
	if e, n := ix.Len(); e != 2 || n != 1 {
		t.Errorf("NewIndex(...).Len() = %d, %d, want 2, 1", e, n)
	}
}

func TestSearchConcurrent(t *testing.T) {
	ix := testIndex()
	want := top(ix.Search(Query{Name: "Vladimir Putin"}))
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for range 16 {
		wg.Go(func() {
			for range 50 {
				if got := top(ix.Search(Query{Name: "Vladimir Putin"})); got != want {
					errs <- got
				}
				ix.Search(Query{Name: "Abdulhia Salekk", DOB: "1965"})
			}
		})
	}
	wg.Wait()
	close(errs)
	for got := range errs {
		t.Errorf("concurrent Search(Vladimir Putin) = %s, want %s", got, want)
	}
}

func FuzzSearch(f *testing.F) {
	ix := testIndex()
	f.Add("Vladimir Putin", "1952", "RU", "")
	f.Add("محمد", "", "", "9288693")
	f.Add("\x00\xff", "19", "x", "IMO")
	f.Fuzz(func(t *testing.T, name, dob, country, imo string) {
		ms := ix.Search(Query{Name: name, DOB: dob, Country: country, IMO: imo, Threshold: 0.3})
		for _, m := range ms {
			if m.Score < 0.3 || m.Score > 1 {
				t.Errorf("Search(%q) score = %v, want within [0.3, 1]", name, m.Score)
			}
			if m.Explanation.List != m.Entry.List || m.Explanation.SourceID != m.Entry.SourceID {
				t.Errorf("Search(%q) explanation names %s:%s, want %s:%s", name, m.Explanation.List, m.Explanation.SourceID, m.Entry.List, m.Entry.SourceID)
			}
		}
	})
}

func TestQualityReport(t *testing.T) {
	ix := testIndex()
	sets := []QualitySet{
		{Name: "pos", Positive: true, Queries: []Query{{Name: "Vladimir Putin"}, {Name: "Abdulhia Salekk"}, {Name: "Nobody Known"}}},
		{Name: "expect", Positive: true, Queries: []Query{{Name: "Vladimir Putin"}}, Expect: [][]string{{"eu:999"}}},
		{Name: "neg", Queries: []Query{{Name: "Jennifer McClellan"}, {Name: "John Smith"}}},
		{Name: "empty"},
	}
	r := QualityReport(ix, sets, []float64{0.5, 0.9})
	if !slices.Equal(r.Thresholds, []float64{0.5, DefaultThreshold, 0.9}) {
		t.Errorf("QualityReport().Thresholds = %v, want [0.5 %v 0.9]", r.Thresholds, DefaultThreshold)
	}
	tests := []struct {
		set  string
		want float64
	}{
		{"pos", 2.0 / 3},
		{"expect", 0},
		{"neg", 0.5},
		{"empty", 0},
	}
	for _, tt := range tests {
		if got, ok := r.Rate(tt.set, DefaultThreshold); !ok || got != tt.want {
			t.Errorf("Rate(%s, %v) = %v, %v, want %v", tt.set, DefaultThreshold, got, ok, tt.want)
		}
	}
	if _, ok := r.Rate("missing", DefaultThreshold); ok {
		t.Errorf("Rate(missing) ok, want not found")
	}
	if got := len(r.AtDefault[0]); got != 1 || r.AtDefault[0][0].Query.Name != "Nobody Known" {
		t.Errorf("AtDefault[pos] = %+v, want the one missed query", r.AtDefault[0])
	}
	for _, want := range []string{"*0.80", "pos recall n=3", "neg FP n=2"} {
		if !strings.Contains(r.String(), want) {
			t.Errorf("QualityReport().String() = %q, want it to contain %q", r.String(), want)
		}
	}
	if !strings.Contains(r.MissesString(5), `"Nobody Known"`) {
		t.Errorf("MissesString() = %q, want the missed query", r.MissesString(5))
	}
}
