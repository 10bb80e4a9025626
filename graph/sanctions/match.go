package sanctions

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Scoring.
//
// A Match's Score is in [0, 1]: the name similarity of the entry's best
// matching name (primary or alias), plus or minus what the query's
// qualifiers say, rounded to four decimals.
//
// Name similarity. Query and listed name are normalized (see Normalize)
// into tokens; tokens are aligned one to one, greedily by similarity (see
// tokenSim: weighted edit distance tuned for romanization variants and
// typos, name-variant groups, unwritten vowels of Arabic script), in any
// order. Two adjacent tokens of one side may align with one token of the
// other, three when the middle one is a particle (Abd al-Ghafur /
// Abdalghafur, Myongc-hin / Myong-chin, عبدالرحمن / Abdul Rahman); a
// one-letter query token (an initial) aligns with a token it starts at
// 0.75. Each token weighs its length, at most 12 (see tokenWeight:
// particles such as al, bin, de weigh 1, generic company words such as
// trading, oil, international about a third). With R the weighted share
// of the query the aligned pairs cover and P the share of the listed name,
// name similarity is (R+P)/2. A pair below 0.8 similarity covers less than
// its similarity (see pairCredit). Two given names differing only in a
// gendered final o/a (Antonio/Antonia) pair at 0.5, a different name
// rather than a typo, and a changed first letter costs 2 in the edit
// distance (Fallon/Tallon; see tokenSim). An unmatched listed patronymic
// (Ivanovich) weighs a third: queries often omit it. Two penalties follow
// the alignment: a listed name of one word against a query of several
// loses 0.15 (the alias "Green" is not "Al Green"); a listed name of
// fewer tokens than the query loses 0.06 for each query word it leaves
// unmatched, particles, initials and patronymics aside ("Lee, John" says
// nothing of the Erik in "Erik John Lee"). The explanation lists each
// penalty as a feature (one_word_name, unmatched_words), the
// name_similarity feature then holding the similarity before them, and
// marks gendered pairs in its tokens.
//
// Qualifiers (each only when both the query and the entry state it):
//
//	dob         full date equal +0.06; year and month +0.05; year +0.04;
//	            year off by one 0; same year, other month or day −0.05
//	            (day and month swapped counts as equal); every listed year
//	            more than one year away −0.20
//	country     any listed country equal +0.03; none equal −0.10
//	kind        different kinds (person vs vessel, ...) −0.20
//	identifier  a query identifier equals a listed one (letters and digits,
//	            at least 5): +0.20, and at least 0.90 when the name
//	            similarity is at least 0.5 or no name was given
//	imo         equal IMO numbers: score 1 whatever the name (vessels match
//	            by IMO exactly); different IMO numbers −0.30
//	weak alias  the best name is a low-quality alias −0.05
//
// DefaultThreshold is the score a match needs when a Query leaves
// Threshold at 0. It comes from QualityReport's sweep with every list of
// the shared data set loaded (TestQuality prints it): recall of yente's UN
// positives, untreated and treated (typos, reordering), is 1.0 at every
// threshold from 0.70 to 0.86 with qualifiers and from 0.70 to 0.80 by
// name alone, so false positives set it. 0.80 is the lowest threshold
// that meets every false-positive target with a margin (with qualifiers
// 0.1% of yente's global negatives, none of its US negatives and 0.16% of
// US Congress names matched, targets 0.2% and 0.5%; by name alone 0.1%,
// 0.2% and 0.40%, under watchman's 0.2–0.3% and 0.6%; at 0.78 the name-only
// global negatives rise to 0.3%). It is the lowest such threshold because
// a wrong clear costs more than an alert an analyst dismisses.
const DefaultThreshold = 0.80

// DefaultLimit is the number of matches a Query returns when Limit is 0;
// MaxLimit bounds Limit.
const (
	DefaultLimit = 10
	MaxLimit     = 500
)

// Qualifier weights, documented above.
const (
	dobExactDelta     = 0.06
	dobMonthDelta     = 0.05
	dobYearDelta      = 0.04
	dobPartialDelta   = -0.05
	dobMismatchDelta  = -0.20
	countryMatchDelta = 0.03
	countryMissDelta  = -0.10
	kindMissDelta     = -0.20
	identifierDelta   = 0.20
	identifierFloor   = 0.90
	imoMissDelta      = -0.30
	weakAliasDelta    = -0.05

	patronymicWeight   = 1.0 / 3
	oneWordPenalty     = 0.15  // a one-word listed name against a query of several words
	unmatchedPenalty   = 0.06  // per query word a shorter listed name leaves unmatched
	initialSim         = 0.75  // an initial against the token it starts
	minPairSim         = 0.5   // token pairs below this are not aligned
	minLookupSim       = 0.6   // vocabulary tokens below this are not candidates
	maxCandidates      = 200   // names scored in full per query
	maxTrigramPostings = 4000  // trigrams in more vocabulary tokens than this are not counted
	commonPostings     = 20000 // a query token found in more names than this is not walked (see nameCandidates)
	candidateMargin    = 0.20  // names whose coverage estimate is below threshold−margin are not scored in full
)

// Query is one screening question. Name is required unless IMO or
// Identifiers is given.
type Query struct {
	Name        string   `json:"name"`
	Country     string   `json:"country,omitempty"` // ISO 3166 alpha-2, or ""
	DOB         string   `json:"dob,omitempty"`     // YYYY, YYYY-MM or YYYY-MM-DD, or ""
	IMO         string   `json:"imo,omitempty"`     // vessels: IMO number
	Identifiers []string `json:"identifiers,omitempty"`
	Kind        Kind     `json:"kind,omitempty"`      // "" = any
	Threshold   float64  `json:"threshold,omitempty"` // 0 (or less) = DefaultThreshold
	Limit       int      `json:"limit,omitempty"`     // 0 = DefaultLimit
}

// Match is one listed entry that matches a query. Entry is a copy of the
// indexed entry whose slices are shared with the index: read them, do not
// modify them.
type Match struct {
	Entry       Entry       `json:"entry"`
	Score       float64     `json:"score"`
	Explanation Explanation `json:"explanation"`
}

// Explanation says why an entry matched.
type Explanation struct {
	List           string    `json:"list"`
	SourceID       string    `json:"source_id"`
	MatchedName    string    `json:"matched_name"` // the listed name, verbatim
	NameType       string    `json:"name_type"`    // primary, alias or weak_alias
	NameSimilarity float64   `json:"name_similarity"`
	Tokens         string    `json:"tokens,omitempty"` // token alignment: "mohamed~muhammad 0.95, salek=salek"
	Features       []Feature `json:"features"`         // what moved the score, name_similarity first
	Score          float64   `json:"score"`
}

// Feature is one contribution to a score.
type Feature struct {
	Name   string  `json:"name"`   // name_similarity, dob, country, kind, identifier, imo, weak_alias
	Delta  float64 `json:"delta"`  // added to the score (name_similarity: the base)
	Detail string  `json:"detail"` // "match 1972", "mismatch RU vs IR", ...
}

// Map returns the explanation as a flat map, the shape reports show:
// {"name_similarity":0.93,"dob":"match 1972","country":"mismatch RU vs IR"}.
func (e Explanation) Map() map[string]any {
	m := map[string]any{
		"list": e.List, "source_id": e.SourceID, "matched_name": e.MatchedName,
		"name_type": e.NameType, "name_similarity": e.NameSimilarity, "score": e.Score,
	}
	for _, f := range e.Features {
		if f.Name != "name_similarity" {
			m[f.Name] = f.Detail
		}
	}
	return m
}

// date is a parsed date of birth; m and d are 0 when not stated.
type date struct{ y, m, d int }

// parseDate reads "YYYY", "YYYY-MM" or "YYYY-MM-DD" (anything after the
// day is ignored). It returns false for anything else.
func parseDate(s string) (date, bool) {
	s = strings.TrimSpace(s)
	if len(s) < 4 {
		return date{}, false
	}
	y, err := strconv.Atoi(s[:4])
	if err != nil || y < 1000 {
		return date{}, false
	}
	d := date{y: y}
	if len(s) >= 7 && s[4] == '-' {
		m, err := strconv.Atoi(s[5:7])
		if err != nil || m < 1 || m > 12 {
			return date{y: y}, true
		}
		d.m = m
		if len(s) >= 10 && s[7] == '-' {
			if dd, err := strconv.Atoi(s[8:10]); err == nil && dd >= 1 && dd <= 31 {
				d.d = dd
			}
		}
	}
	return d, true
}

func (d date) String() string {
	switch {
	case d.d > 0:
		return fmt.Sprintf("%04d-%02d-%02d", d.y, d.m, d.d)
	case d.m > 0:
		return fmt.Sprintf("%04d-%02d", d.y, d.m)
	}
	return fmt.Sprintf("%04d", d.y)
}

// compareDOB returns the dob feature of a query date against an entry's
// dates, and false when the entry states none.
func compareDOB(q date, listed []date) (Feature, bool) {
	if len(listed) == 0 {
		return Feature{}, false
	}
	const (
		rMismatch = iota
		rPartial
		rClose
		rYear
		rMonth
		rExact
	)
	best, bestD := -1, listed[0]
	for _, l := range listed {
		r := rMismatch
		switch dy := q.y - l.y; {
		case dy == 0:
			switch {
			case q.m == 0 || l.m == 0:
				r = rYear
			case q.m != l.m:
				r = rPartial
				if q.d > 0 && l.d > 0 && q.d == l.m && q.m == l.d {
					r = rMonth // day and month swapped
				}
			case q.d == 0 || l.d == 0:
				r = rMonth
			case q.d == l.d:
				r = rExact
			default:
				r = rPartial
			}
		case dy == 1 || dy == -1:
			r = rClose
		}
		if r > best {
			best, bestD = r, l
		}
	}
	f := Feature{Name: "dob"}
	switch best {
	case rExact:
		f.Delta, f.Detail = dobExactDelta, "match "+bestD.String()
	case rMonth:
		f.Delta, f.Detail = dobMonthDelta, "match "+bestD.String()
	case rYear:
		f.Delta, f.Detail = dobYearDelta, "match "+strconv.Itoa(bestD.y)
	case rClose:
		f.Delta, f.Detail = 0, fmt.Sprintf("close %s vs %s", q, bestD)
	case rPartial:
		f.Delta, f.Detail = dobPartialDelta, fmt.Sprintf("partial %s vs %s", q, bestD)
	default:
		f.Delta, f.Detail = dobMismatchDelta, fmt.Sprintf("mismatch %s vs %s", q, bestD)
	}
	return f, true
}

// compareCountry returns the country feature, and false when either side
// states none.
func compareCountry(q string, listed []string) (Feature, bool) {
	if q == "" || len(listed) == 0 {
		return Feature{}, false
	}
	for _, c := range listed {
		if strings.EqualFold(c, q) {
			return Feature{Name: "country", Delta: countryMatchDelta, Detail: "match " + strings.ToUpper(q)}, true
		}
	}
	return Feature{Name: "country", Delta: countryMissDelta,
		Detail: fmt.Sprintf("mismatch %s vs %s", strings.ToUpper(q), strings.ToUpper(strings.Join(listed, ",")))}, true
}

// Search returns the entries matching q with a score at or above the
// threshold, best first, at most the limit, each with its explanation. It
// returns nil when nothing matches or the query has neither a name with
// letters or digits, nor an IMO number, nor identifiers.
func (ix *Index) Search(q Query) []Match {
	threshold := q.Threshold
	if threshold <= 0 {
		threshold = DefaultThreshold
	}
	limit := q.Limit
	if limit <= 0 {
		limit = DefaultLimit
	}
	if limit > MaxLimit {
		limit = MaxLimit
	}
	s := ix.acquire()
	defer ix.release(s)
	s.reset(ix)
	s.prepare(q)

	ix.nameCandidates(s, threshold)
	ix.scoreCandidates(s)
	ix.qualifierCandidates(s)

	var out []scored
	for ei, c := range s.best {
		sc := ix.qualify(s, ei, c)
		if sc.score >= threshold {
			out = append(out, sc)
		}
	}
	slices.SortFunc(out, func(a, b scored) int {
		if a.score != b.score {
			if a.score > b.score {
				return -1
			}
			return 1
		}
		return int(a.entry) - int(b.entry)
	})
	if len(out) > limit {
		out = out[:limit]
	}
	if len(out) == 0 {
		return nil
	}
	matches := make([]Match, len(out))
	for i, sc := range out {
		matches[i] = ix.explain(s, sc)
	}
	return matches
}

// acquire takes a scratch, waiting while GOMAXPROCS searches run.
func (ix *Index) acquire() *scratch {
	s := <-ix.scratches
	if s == nil {
		s = newScratch(len(ix.names))
	}
	return s
}

func (ix *Index) release(s *scratch) { ix.scratches <- s }

// bestName is an entry's best scoring name for the query.
type bestName struct {
	name  uint32
	sim   float64
	valid bool // a name was scored (false: found only by IMO or identifier)
}

// scored is an entry's final score with its features.
type scored struct {
	entry    uint32
	score    float64
	name     bestName
	features []Feature
}

// qualify applies the query's qualifiers to an entry's best name.
func (ix *Index) qualify(s *scratch, ei uint32, b bestName) scored {
	e := &ix.entries[ei]
	sc := scored{entry: ei, name: b, score: b.sim}
	if b.valid && ix.names[b.name].typ == weakAliasName {
		sc.score += weakAliasDelta
		sc.features = append(sc.features, Feature{Name: "weak_alias", Delta: weakAliasDelta, Detail: "low-quality alias"})
	}
	if s.hasDOB {
		if f, ok := compareDOB(s.dob, ix.dobs[ei]); ok {
			sc.score += f.Delta
			sc.features = append(sc.features, f)
		}
	}
	if f, ok := compareCountry(s.country, e.Countries); ok {
		sc.score += f.Delta
		sc.features = append(sc.features, f)
	}
	if s.kind != "" && s.kind != Unknown && e.Kind != "" && e.Kind != Unknown && s.kind != e.Kind {
		sc.score += kindMissDelta
		sc.features = append(sc.features, Feature{Name: "kind", Delta: kindMissDelta,
			Detail: fmt.Sprintf("mismatch %s vs %s", s.kind, e.Kind)})
	}
	if len(s.ids) > 0 {
		for _, id := range e.Identifiers {
			v := normalizeIdentifier(id.Value)
			if v != "" && slices.Contains(s.ids, v) {
				before := sc.score
				sc.score += identifierDelta
				if b.sim >= 0.5 && sc.score < identifierFloor {
					sc.score = identifierFloor
				}
				if !b.valid && sc.score < identifierFloor {
					sc.score = identifierFloor
				}
				sc.features = append(sc.features, Feature{Name: "identifier", Delta: sc.score - before,
					Detail: fmt.Sprintf("match %s %s", id.Type, id.Value)})
				break
			}
		}
	}
	if s.imo != "" {
		if eimo := normalizeIMO(e.IMO); eimo != "" {
			before := sc.score
			if eimo == s.imo {
				sc.score = 1
				sc.features = append(sc.features, Feature{Name: "imo", Delta: sc.score - before, Detail: "match " + eimo})
			} else {
				sc.score += imoMissDelta
				sc.features = append(sc.features, Feature{Name: "imo", Delta: imoMissDelta,
					Detail: fmt.Sprintf("mismatch %s vs %s", s.imo, eimo)})
			}
		}
	}
	sc.score = math.Max(0, math.Min(1, sc.score))
	sc.score = math.Round(sc.score*10000) / 10000
	return sc
}

// nameFeatures returns the penalties an alignment's name similarity
// includes, as features: the name_similarity feature then holds the
// similarity before them, and the features still add up to the score.
func (ix *Index) nameFeatures(s *scratch, a alignment) []Feature {
	var out []Feature
	if a.oneWord {
		out = append(out, Feature{Name: "one_word_name", Delta: -oneWordPenalty,
			Detail: "a one-word listed name leaves query words unmatched"})
	}
	if a.unmatched != 0 {
		var words []string
		for i := range s.q {
			if a.unmatched&(1<<uint(i)) != 0 {
				words = append(words, s.q[i].text)
			}
		}
		out = append(out, Feature{Name: "unmatched_words", Delta: -unmatchedPenalty * float64(len(words)),
			Detail: strings.Join(words, " ") + " not in the shorter listed name"})
	}
	return out
}

// explain builds the Match of a scored entry.
func (ix *Index) explain(s *scratch, sc scored) Match {
	e := ix.entries[sc.entry]
	ex := Explanation{List: e.List, SourceID: e.SourceID, Score: sc.score}
	nameF := Feature{Name: "name_similarity"}
	if sc.name.valid {
		n := &ix.names[sc.name.name]
		ex.MatchedName = n.text
		ex.NameType = n.typ.String()
		ex.NameSimilarity = math.Round(sc.name.sim*10000) / 10000
		a, pairs := ix.scoreNameAlign(s, n, true)
		ex.Tokens = pairs
		penalties := ix.nameFeatures(s, a)
		nameF.Delta = ex.NameSimilarity
		for _, f := range penalties {
			nameF.Delta -= f.Delta
		}
		nameF.Delta = math.Round(nameF.Delta*10000) / 10000
		if ex.NameSimilarity == 1 {
			nameF.Detail = "exact"
		} else {
			nameF.Detail = "fuzzy"
		}
		sc.features = append(penalties, sc.features...)
	} else {
		ex.MatchedName = e.Name
		ex.NameType = primaryName.String()
		nameF.Detail = "not matched by name"
	}
	ex.Features = append([]Feature{nameF}, sc.features...)
	return Match{Entry: e, Score: sc.score, Explanation: ex}
}
