package sanctionstest

import (
	"math/rand/v2"
	"strings"
	"unicode"

	"github.com/tradecompliance/compliance/graph/sanctions"
)

// QualitySets returns yente's benchmark sets as QualitySets, with the
// qualifiers the files give (date of birth, nationality, kind person), as
// yente measures them.
func QualitySets(bench []BenchSet) []sanctions.QualitySet {
	var out []sanctions.QualitySet
	for _, b := range bench {
		out = append(out, sanctions.QualitySet{Name: b.Name, Positive: b.Positive, Queries: b.Queries})
	}
	return out
}

// NameOnlySets returns the same sets with the names alone (no date of
// birth, nationality or kind), as watchman's figures were measured; their
// names get the prefix "name:".
func NameOnlySets(bench []BenchSet) []sanctions.QualitySet {
	var out []sanctions.QualitySet
	for _, b := range bench {
		qs := make([]sanctions.Query, len(b.Queries))
		for i, q := range b.Queries {
			qs[i] = sanctions.Query{Name: q.Name}
		}
		out = append(out, sanctions.QualitySet{Name: "name:" + b.Name, Positive: b.Positive, Queries: qs})
	}
	return out
}

// Script names the script a name is mostly written in: "latin",
// "cyrillic", "arabic", "greek" or "other" (the first letter decides).
func Script(s string) string {
	for _, r := range s {
		switch {
		case r >= 0x0400 && r <= 0x052F:
			return "cyrillic"
		case r >= 0x0600 && r <= 0x06FF:
			return "arabic"
		case r >= 0x0370 && r <= 0x03FF:
			return "greek"
		case unicode.Is(unicode.Latin, r):
			return "latin"
		case unicode.IsLetter(r):
			return "other"
		}
	}
	return "other"
}

// CrossScript builds the cross-script labelled sets from the lists
// themselves. Some entries carry, beside their Latin names, aliases in
// Cyrillic, Arabic or Greek script (EU, UK, AU, UN transcriptions).
//
// Forward ("cyrillic→latin", ...): the returned latinOnly entries are all
// entries with every non-Latin name removed; each such alias becomes a
// query that must find its own entry (list and source id) by its Latin
// names alone.
//
// Reverse ("latin→cyrillic", ...): the returned scriptOnly entries are
// all entries, where those with a non-Latin alias keep only their
// non-Latin names; the entry's Latin primary name becomes a query that
// must find that entry by its non-Latin names alone.
//
// Sets are per script and kind (person, entity): a person's name is
// transliterated between scripts, an entity's is mostly translated
// ("Акционерное общество" = "Joint Stock Company"), which no
// transliteration can match; the entity sets are reported for what they
// are.
func CrossScript(all []sanctions.Entry) (latinOnly, scriptOnly []sanctions.Entry, forward, reverse []sanctions.QualitySet) {
	fw := map[string]*sanctions.QualitySet{}
	rv := map[string]*sanctions.QualitySet{}
	latinOnly = make([]sanctions.Entry, len(all))
	scriptOnly = make([]sanctions.Entry, len(all))
	add := func(m map[string]*sanctions.QualitySet, name string, q string, e *sanctions.Entry) {
		if m[name] == nil {
			m[name] = &sanctions.QualitySet{Name: name, Positive: true}
		}
		m[name].Queries = append(m[name].Queries, sanctions.Query{Name: q})
		m[name].Expect = append(m[name].Expect, []string{e.List + ":" + e.SourceID})
	}
	for i := range all {
		e := all[i]
		lo, so := e, e
		lo.Aliases, so.Aliases = nil, nil
		latinName := Script(e.Name) == "latin"
		seen := map[string]bool{}
		for _, a := range e.Aliases {
			sc := Script(a.Name)
			if sc == "latin" {
				lo.Aliases = append(lo.Aliases, a)
				continue
			}
			so.Aliases = append(so.Aliases, a)
			if sc == "other" || !latinName {
				continue
			}
			kind := "entity"
			if e.Kind == sanctions.Person {
				kind = "person"
			}
			add(fw, sc+"→latin "+kind, a.Name, &e)
			if !seen[sc] {
				seen[sc] = true
				add(rv, "latin→"+sc+" "+kind, e.Name, &e)
			}
		}
		if len(so.Aliases) > 0 && latinName {
			so.Name, so.Aliases = so.Aliases[0].Name, so.Aliases[1:]
		} else {
			so = e
		}
		latinOnly[i], scriptOnly[i] = lo, so
	}
	for _, sc := range []string{"cyrillic", "arabic", "greek"} {
		for _, k := range []string{"person", "entity"} {
			if s := fw[sc+"→latin "+k]; s != nil {
				forward = append(forward, *s)
			}
			if s := rv["latin→"+sc+" "+k]; s != nil {
				reverse = append(reverse, *s)
			}
		}
	}
	return latinOnly, scriptOnly, forward, reverse
}

// TypoQueries returns n queries made from listed Latin-script names of
// two to five words with one random edit (substitution, transposition,
// deletion or insertion) in every word of three letters or more, keeping
// only those in which no normalized word is a word of any listed name:
// the queries that share no exact token with the lists. The same seed
// gives the same queries.
func TypoQueries(all []sanctions.Entry, n int, seed uint64) []sanctions.Query {
	vocab := map[string]bool{}
	var pool []string
	for _, e := range all {
		names := []string{e.Name}
		for _, a := range e.Aliases {
			names = append(names, a.Name)
		}
		for _, nm := range names {
			toks := strings.Fields(sanctions.Normalize(nm))
			for _, t := range toks {
				vocab[t] = true
			}
			if Script(nm) == "latin" && len(toks) >= 2 && len(toks) <= 5 && nm == e.Name {
				pool = append(pool, strings.Join(toks, " "))
			}
		}
	}
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	const letters = "abcdefghijklmnopqrstuvwxyz"
	var out []sanctions.Query
	for tries := 0; len(out) < n && tries < n*50 && len(pool) > 0; tries++ {
		toks := strings.Fields(pool[r.IntN(len(pool))])
		ok := true
		for i, t := range toks {
			if len(t) < 3 {
				ok = false
				break
			}
			b := []byte(t)
			p := r.IntN(len(b))
			switch r.IntN(4) {
			case 0:
				b[p] = letters[r.IntN(26)]
			case 1:
				if p+1 < len(b) {
					b[p], b[p+1] = b[p+1], b[p]
				} else {
					b[p-1], b[p] = b[p], b[p-1]
				}
			case 2:
				b = append(b[:p], b[p+1:]...)
			default:
				b = append(b[:p], append([]byte{letters[r.IntN(26)]}, b[p:]...)...)
			}
			toks[i] = string(b)
			if vocab[toks[i]] {
				ok = false
				break
			}
		}
		if ok {
			out = append(out, sanctions.Query{Name: strings.Join(toks, " ")})
		}
	}
	return out
}
