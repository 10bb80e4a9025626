package sanctions

import (
	"hash/maphash"
	"runtime"
	"strings"
	"unicode"
)

// Index is the in-memory matching index over the entries of any number of
// lists. It is immutable once built and safe for concurrent Search.
//
// Every primary name and alias of every entry is normalized into tokens
// (see Normalize; a person's name keeps words that spell legal forms); a
// vocabulary of distinct tokens carries lookup structures that find, for a
// query token, the listed tokens it may be a spelling of without scanning
// the vocabulary:
//
//   - a deletion neighbourhood (each token and every one-letter deletion of
//     it, hashed): finds any single insertion, deletion, substitution or
//     adjacent transposition, i.e. the typo in "Abudl" or "Myongc";
//   - phonetic keys: the consonant skeleton (Mohamed, Muhammad and محمد
//     share "mhmd") and the canonical name variant (Ibragim → ibrahim);
//     between Arabic-script and Latin spellings, also the skeleton without
//     w (تواب and Tawwab);
//   - trigrams of tokens of five letters or more: a token sharing half of
//     a query token's three-letter windows is compared (Khaymurzina and
//     Chajmurzina, two edits apart);
//   - exact token ids.
//
// Pairs of neighbouring words (and three with a particle in the middle)
// are indexed merged, so that "Abdul Rahman" finds عبدالرحمن and the
// reverse. Posting lists map each vocabulary token to the names holding
// it; a query accumulates, per name, how much of itself and of the name
// the found tokens cover (an estimate of the name similarity from above),
// and only names whose estimate comes within candidateMargin of the
// threshold, at most maxCandidates of them, are scored in full. Entries
// are also indexed by IMO number and by identifier.
type Index struct {
	entries []Entry
	names   []nameRec
	vocab   []tokenInfo
	vocabID map[string]uint32   // vocabKey → vocab id
	post    [][]uint32          // vocab id → name ids, ascending
	del     map[uint64][]uint32 // hash of a token or a one-letter deletion → vocab ids
	phon    map[string][]uint32 // skeleton, or "=" + canonical variant → vocab ids
	loose   map[string][]uint32 // looseSkeleton → vocab ids, for Arabic-script spellings
	tri     map[uint32][]uint32 // trigram → Latin vocab ids of 5 letters or more
	exact   map[string][]uint32 // sorted-token key → name ids
	keys    map[string][]uint32 // NormalizeKey of a primary name or alias → entry ids, ascending
	imo     map[string][]uint32 // IMO number → entry ids
	ids     map[string][]uint32 // normalized identifier → entry ids
	dobs    [][]date            // entry id → parsed dates of birth
	seed    maphash.Seed
	// scratches holds the per-query working memory (a few MB each): at
	// most GOMAXPROCS searches run at once, the others wait for one, so
	// memory stays bounded however many callers search concurrently.
	scratches chan *scratch
}

// nameType says which of an entry's names a nameRec is.
type nameType uint8

const (
	primaryName nameType = iota
	aliasName
	weakAliasName
)

func (t nameType) String() string {
	switch t {
	case aliasName:
		return "alias"
	case weakAliasName:
		return "weak_alias"
	}
	return "primary"
}

// nameRec is one indexed name of an entry.
type nameRec struct {
	entry  uint32
	typ    nameType
	weight float32  // sum of its tokens' weights
	minW   float32  // the same with patronymics at patronymicWeight: the least total scoring may use
	tokens []uint32 // vocab ids, in name order
	text   string   // as published
}

// NewIndex builds the index over entries. Names that normalize to nothing
// are skipped; an entry without any indexable name can still be found by
// its IMO number or identifiers. The entries slice is retained, not copied:
// the caller must not modify it afterwards.
func NewIndex(entries []Entry) *Index {
	ix := &Index{
		entries: entries,
		vocabID: make(map[string]uint32, len(entries)*2),
		del:     make(map[uint64][]uint32, len(entries)*8),
		phon:    make(map[string][]uint32, len(entries)*2),
		loose:   make(map[string][]uint32, len(entries)*2),
		tri:     make(map[uint32][]uint32, 1<<14),
		exact:   make(map[string][]uint32, len(entries)*3),
		keys:    make(map[string][]uint32, len(entries)*3),
		imo:     map[string][]uint32{},
		ids:     map[string][]uint32{},
		dobs:    make([][]date, len(entries)),
		seed:    maphash.MakeSeed(),
	}
	var tokBuf []uint32
	seenKey := map[string]bool{}
	for ei := range entries {
		e := &entries[ei]
		clear(seenKey)
		add := func(text string, typ nameType) {
			toks := nameTokens(text, e.Kind)
			if len(toks) == 0 {
				return
			}
			key := tokensKey(toks)
			// The exact lookup key: NormalizeKey, which is key itself
			// unless a person's name kept legal-form words.
			nk := key
			if e.Kind == Person {
				nk = NormalizeKey(text)
			}
			if ks := ix.keys[nk]; nk != "" && (len(ks) == 0 || ks[len(ks)-1] != uint32(ei)) {
				ix.keys[nk] = append(ks, uint32(ei))
			}
			if seenKey[key] {
				return
			}
			seenKey[key] = true
			if len(tokBuf)+len(toks) > cap(tokBuf) {
				tokBuf = make([]uint32, 0, 1<<16)
			}
			start := len(tokBuf)
			var w, minW float32
			for _, t := range toks {
				id := ix.vocabToken(t)
				tokBuf = append(tokBuf, id)
				w += ix.vocab[id].weight
				if isPatronymic(t.text) {
					minW += ix.vocab[id].weight * patronymicWeight
				} else {
					minW += ix.vocab[id].weight
				}
			}
			nid := uint32(len(ix.names))
			ix.names = append(ix.names, nameRec{
				entry:  uint32(ei),
				typ:    typ,
				weight: w,
				minW:   minW,
				tokens: tokBuf[start:len(tokBuf):len(tokBuf)],
				text:   text,
			})
			for _, id := range tokBuf[start:] {
				ix.addPosting(id, nid)
			}
			// Merged neighbours (Abd al-Rahman → abdalrahman), for finding
			// a name spelled with fewer, compound words.
			for j := 0; j+1 < len(toks); j++ {
				for _, n := range []int{2, 3} {
					if !mergeSpan(len(toks), j, n, func(k int) *tokenInfo { return &ix.vocab[tokBuf[start+k]] }) {
						continue
					}
					sc := scriptLatin
					for k := j; k < j+n; k++ {
						if toks[k].script == scriptAbjad {
							sc = scriptAbjad
						}
					}
					for _, text := range mergedTexts(j, n, func(k int) *tokenInfo { return &ix.vocab[tokBuf[start+k]] }) {
						if len(text) <= maxMergedBytes {
							ix.addPosting(ix.mergedToken(token{text: text, script: sc}), nid)
						}
					}
				}
			}
			ix.exact[key] = append(ix.exact[key], nid)
		}
		add(e.Name, primaryName)
		for _, a := range e.Aliases {
			if a.Weak {
				add(a.Name, weakAliasName)
			} else {
				add(a.Name, aliasName)
			}
		}
		if imo := normalizeIMO(e.IMO); imo != "" {
			ix.imo[imo] = appendUnique(ix.imo[imo], uint32(ei))
		}
		for _, id := range e.Identifiers {
			if v := normalizeIdentifier(id.Value); v != "" {
				ix.ids[v] = appendUnique(ix.ids[v], uint32(ei))
			}
		}
		for _, d := range e.DatesOfBirth {
			if pd, ok := parseDate(d); ok {
				ix.dobs[ei] = append(ix.dobs[ei], pd)
			}
		}
	}
	ix.scratches = make(chan *scratch, max(1, runtime.GOMAXPROCS(0)))
	for range cap(ix.scratches) {
		ix.scratches <- nil // allocated on first use
	}
	return ix
}

// vocabToken returns the vocabulary id of t, adding it and its lookup keys
// when new.
func (ix *Index) vocabToken(t token) uint32 {
	key := vocabKey(t.text, t.script)
	if id, ok := ix.vocabID[key]; ok {
		return id
	}
	id := uint32(len(ix.vocab))
	ti := newTokenInfo(t)
	ix.vocab = append(ix.vocab, ti)
	ix.vocabID[key] = id
	ix.post = append(ix.post, nil)
	if t.script == scriptLatin && len(t.text) >= minTrigramLen {
		forTrigrams(t.text, func(g uint32) {
			if p := ix.tri[g]; len(p) == 0 || p[len(p)-1] != id {
				ix.tri[g] = append(p, id)
			}
		})
	}
	switch {
	case t.script != scriptOther && len(t.text) >= 3:
		ix.forDeletions(t.text, func(h uint64) {
			ix.del[h] = appendUnique(ix.del[h], id)
		})
	case t.script != scriptOther:
		// short tokens: only themselves, for a query with a doubled letter (Yyu)
		h := maphash.String(ix.seed, t.text)
		ix.del[h] = appendUnique(ix.del[h], id)
	}
	if len(ti.skel) >= 2 {
		ix.phon[ti.skel] = append(ix.phon[ti.skel], id)
		if l := looseSkeleton(ti.skel); len(l) >= 2 {
			ix.loose[l] = append(ix.loose[l], id)
		}
	}
	if ti.canon != "" {
		ix.phon["="+ti.canon] = append(ix.phon["="+ti.canon], id)
	}
	return id
}

// vocabKey keys the vocabulary: a token transliterated from Arabic script
// is another token than the same letters written in Latin ("amr" from عمر
// is Umar or Omar; the Latin "Amr" is Amr), so it is compared as such.
func vocabKey(text string, sc script) string {
	if sc == scriptAbjad {
		return "\x01" + text
	}
	return text
}

// minTrigramLen is the shortest token looked up by trigrams.
const minTrigramLen = 5

// forTrigrams calls f with each three-letter window of s, packed.
func forTrigrams(s string, f func(uint32)) {
	for i := 0; i+3 <= len(s); i++ {
		f(uint32(s[i])<<16 | uint32(s[i+1])<<8 | uint32(s[i+2]))
	}
}

// addPosting adds name nid to the postings of vocab token id.
func (ix *Index) addPosting(id, nid uint32) {
	p := ix.post[id]
	if len(p) == 0 || p[len(p)-1] != nid {
		ix.post[id] = append(p, nid)
	}
}

// maxMergedBytes bounds the merged neighbours indexed.
const maxMergedBytes = 20

// mergedToken returns the vocabulary id of a merged neighbour pair: a
// token found by its exact text and phonetic keys, not by deletions.
func (ix *Index) mergedToken(t token) uint32 {
	key := vocabKey(t.text, t.script)
	if id, ok := ix.vocabID[key]; ok {
		return id
	}
	id := uint32(len(ix.vocab))
	ti := newTokenInfo(t)
	ix.vocab = append(ix.vocab, ti)
	ix.vocabID[key] = id
	ix.post = append(ix.post, nil)
	if len(ti.skel) >= 2 {
		ix.phon[ti.skel] = append(ix.phon[ti.skel], id)
		if l := looseSkeleton(ti.skel); len(l) >= 2 {
			ix.loose[l] = append(ix.loose[l], id)
		}
	}
	return id
}

// forDeletions calls f with the hash of s and of every string s minus one
// byte (tokens of the deletion neighbourhood are ASCII).
func (ix *Index) forDeletions(s string, f func(uint64)) {
	var buf [maxTokenBytes]byte
	f(maphash.String(ix.seed, s))
	if len(s) > maxTokenBytes {
		return
	}
	for i := 0; i < len(s); i++ {
		if i > 0 && s[i] == s[i-1] {
			continue // same string as the previous deletion
		}
		n := copy(buf[:], s[:i])
		n += copy(buf[n:], s[i+1:])
		f(maphash.Bytes(ix.seed, buf[:n]))
	}
}

// Len returns the number of entries and of indexed names.
func (ix *Index) Len() (entries, names int) { return len(ix.entries), len(ix.names) }

// Entries returns the indexed entries (not a copy).
func (ix *Index) Entries() []Entry { return ix.entries }

// ExactKey returns the entries one of whose names, primary or alias (weak
// aliases included), has normalized key key (NormalizeKey): exact
// equality, never fuzzy or substring. None for an empty key.
func (ix *Index) ExactKey(key string) []Entry {
	if key == "" {
		return nil
	}
	eis := ix.keys[key]
	out := make([]Entry, len(eis))
	for i, ei := range eis {
		out[i] = ix.entries[ei]
	}
	return out
}

func appendUnique(s []uint32, v uint32) []uint32 {
	for _, x := range s {
		if x == v {
			return s
		}
	}
	return append(s, v)
}

// normalizeIMO returns the 7 digits of an IMO number written as "IMO
// 9288693", "9288693" or "IMO: 9288693", or "" if there are not exactly 7.
func normalizeIMO(s string) string {
	var b [7]byte
	n := 0
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= '0' && c <= '9' {
			if n == 7 {
				return ""
			}
			b[n] = c
			n++
		}
	}
	if n != 7 {
		return ""
	}
	return string(b[:])
}

// normalizeIdentifier returns an identifier's letters and digits,
// upper-cased, or "" when fewer than 5 remain (too short to identify).
func normalizeIdentifier(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r < 128 && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			b.WriteRune(unicode.ToUpper(r))
		}
	}
	if b.Len() < 5 {
		return ""
	}
	return b.String()
}
