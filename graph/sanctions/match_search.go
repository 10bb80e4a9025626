package sanctions

import (
	"fmt"
	"math/bits"
	"slices"
	"strings"
)

// scratch is the per-query working memory of Search, held per Index.
type scratch struct {
	acc []nameAcc // per name, valid when acc[n].stamp == cur
	cur uint32

	vstamp []uint32 // per vocab token: looked up for the current query token
	vcur   uint32
	tstamp []uint32 // per vocab token: trigram count valid for the current lookup
	tcount []uint8
	tcur   uint32

	touched []uint32
	cands   []cand
	forced  []uint32
	best    map[uint32]bestName
	sims    map[uint64]float32 // merged-span similarities
	// per-query similarity cache: vocab token → slot, slot × query token → sim
	slot      []int32
	slotStamp []uint32
	slotSims  []float32
	edges     []edge
	lookup    []vmatch
	groups    []lookupGroup
	gm        []vmatch
	qspans    []qspan

	// the query
	q       []tokenInfo
	qW      float32
	hasDOB  bool
	dob     date
	country string
	kind    Kind
	imo     string
	ids     []string
}

// lookupGroup is what one query token, or one merged span of them, found
// in the vocabulary: s.gm[from:to].
type lookupGroup struct {
	bits     uint32 // query tokens covered
	w        float32
	merged   bool
	from, to int
	postings int // total posting entries of the found tokens
}

// qspan is a merged span of query tokens (see mergeSpan).
type qspan struct {
	i, n  int
	bits  uint32
	w     float32
	abjad bool
	texts []string // mergedTexts
}

// nameAcc accumulates, for one name, the coverage the query's found
// tokens give it (one cache line fetch per posting).
type nameAcc struct {
	stamp uint32
	seen  uint32 // bit i: query token i already counted
	q, n  float32
}

type cand struct {
	name uint32
	est  float32
}

type vmatch struct {
	vid uint32
	sim float32
}

type edge struct {
	qmask, nmask uint32
	sim          float32
	w            float32
}

func newScratch(names int) *scratch {
	return &scratch{
		acc:  make([]nameAcc, names),
		best: map[uint32]bestName{},
		sims: map[uint64]float32{},
	}
}

func (s *scratch) reset(ix *Index) {
	s.cur++
	if s.cur == 0 {
		clear(s.acc)
		clear(s.slotStamp)
		s.cur = 1
	}
	if len(s.vstamp) != len(ix.vocab) {
		s.vstamp = make([]uint32, len(ix.vocab))
		s.vcur = 0
		s.tstamp = make([]uint32, len(ix.vocab))
		s.tcount = make([]uint8, len(ix.vocab))
		s.tcur = 0
		s.slot = make([]int32, len(ix.vocab))
		s.slotStamp = make([]uint32, len(ix.vocab))
	}
	s.slotSims = s.slotSims[:0]
	s.touched = s.touched[:0]
	s.cands = s.cands[:0]
	s.forced = s.forced[:0]
	clear(s.best)
	clear(s.sims)
	s.q = s.q[:0]
	s.qW = 0
	s.ids = s.ids[:0]
}

// prepare reads the query into the scratch.
func (s *scratch) prepare(q Query) {
	toks := nameTokens(q.Name, q.Kind)
	for _, t := range toks {
		ti := newTokenInfo(t)
		s.q = append(s.q, ti)
		s.qW += ti.weight
	}
	s.qspans = s.qspans[:0]
	for i := 0; i+1 < len(s.q); i++ {
		for _, n := range []int{2, 3} {
			if !mergeSpan(len(s.q), i, n, func(k int) *tokenInfo { return &s.q[k] }) {
				continue
			}
			sp := qspan{i: i, n: n, texts: mergedTexts(i, n, func(k int) *tokenInfo { return &s.q[k] })}
			for k := i; k < i+n; k++ {
				sp.w += s.q[k].weight
				sp.bits |= 1 << uint(k)
				sp.abjad = sp.abjad || s.q[k].script == scriptAbjad
			}
			s.qspans = append(s.qspans, sp)
		}
	}
	s.dob, s.hasDOB = parseDate(q.DOB)
	s.country = strings.ToUpper(strings.TrimSpace(q.Country))
	s.kind = q.Kind
	s.imo = normalizeIMO(q.IMO)
	for _, id := range q.Identifiers {
		if v := normalizeIdentifier(id); v != "" {
			s.ids = append(s.ids, v)
		}
	}
}

// sim returns the similarity of query token i and vocab token vid,
// computed once per query.
func (ix *Index) sim(s *scratch, i int, vid uint32) float32 {
	nq := len(s.q)
	if s.slotStamp[vid] != s.cur {
		s.slotStamp[vid] = s.cur
		s.slot[vid] = int32(len(s.slotSims) / nq)
		for range nq {
			s.slotSims = append(s.slotSims, -1)
		}
	}
	k := int(s.slot[vid])*nq + i
	if v := s.slotSims[k]; v >= 0 {
		return v
	}
	v := float32(tokenSim(&s.q[i], &ix.vocab[vid]))
	s.slotSims[k] = v
	return v
}

// lookupToken returns the vocabulary tokens query token i may be a
// spelling of, with their similarity, best first.
func (ix *Index) lookupToken(s *scratch, i int) []vmatch {
	return ix.lookupInfo(s, &s.q[i], i)
}

// lookupInfo is lookupToken for any token; i >= 0 caches similarities as
// query token i's.
func (ix *Index) lookupInfo(s *scratch, qt *tokenInfo, i int) []vmatch {
	s.vcur++
	if s.vcur == 0 {
		clear(s.vstamp)
		s.vcur = 1
	}
	out := s.lookup[:0]
	consider := func(vid uint32) {
		if s.vstamp[vid] == s.vcur {
			return
		}
		s.vstamp[vid] = s.vcur
		var v float32
		if i >= 0 {
			v = ix.sim(s, i, vid)
		} else {
			v = float32(tokenSim(qt, &ix.vocab[vid]))
		}
		if v >= minLookupSim {
			out = append(out, vmatch{vid, v})
		}
	}
	if id, ok := ix.vocabID[qt.text]; ok {
		consider(id)
	}
	if id, ok := ix.vocabID[vocabKey(qt.text, scriptAbjad)]; ok {
		consider(id)
	}
	if qt.script != scriptOther && len(qt.text) >= 3 {
		ix.forDeletions(qt.text, func(h uint64) {
			for _, vid := range ix.del[h] {
				consider(vid)
			}
		})
	}
	if len(qt.skel) >= 2 {
		for _, vid := range ix.phon[qt.skel] {
			consider(vid)
		}
	}
	if qt.canon != "" {
		for _, vid := range ix.phon["="+qt.canon] {
			consider(vid)
		}
	}
	if l := looseSkeleton(qt.skel); len(l) >= 2 {
		for _, vid := range ix.loose[l] {
			// across scripts only: Arabic-script query, or Arabic-script listed token
			if qt.script == scriptAbjad || ix.vocab[vid].script == scriptAbjad {
				consider(vid)
			}
		}
	}
	// Trigrams, for a token the lists do not spell exactly: tokens sharing
	// at least half of its windows (skipping windows so common they
	// identify nothing).
	if _, exact := ix.vocabID[qt.text]; !exact && qt.script == scriptLatin && len(qt.text) >= minTrigramLen {
		s.tcur++
		if s.tcur == 0 {
			clear(s.tstamp)
			s.tcur = 1
		}
		n := len(qt.text) - 2
		need := uint8(max(3, (n+1)/2))
		forTrigrams(qt.text, func(g uint32) {
			p := ix.tri[g]
			if len(p) > maxTrigramPostings {
				return
			}
			for _, vid := range p {
				if s.tstamp[vid] != s.tcur {
					s.tstamp[vid] = s.tcur
					s.tcount[vid] = 0
				}
				s.tcount[vid]++
				if s.tcount[vid] == need {
					consider(vid)
				}
			}
		})
	}
	// The other spellings of a name variant found (omhammed finds
	// mohammed, whose group holds mohamed and muhammad).
	for k := 0; k < len(out); k++ {
		if c := ix.vocab[out[k].vid].canon; c != "" && out[k].sim >= 0.8 && c != qt.canon {
			for _, vid := range ix.phon["="+c] {
				consider(vid)
			}
		}
	}
	slices.SortFunc(out, func(a, b vmatch) int {
		switch {
		case a.sim > b.sim:
			return -1
		case a.sim < b.sim:
			return 1
		}
		return int(a.vid) - int(b.vid)
	})
	s.lookup = out
	return out
}

// nameCandidates finds the names worth scoring in full: every name whose
// sorted tokens equal the query's, and the best covered names by the
// accumulated similarity of found tokens.
func (ix *Index) nameCandidates(s *scratch, threshold float64) {
	if len(s.q) == 0 {
		return
	}
	toks := make([]token, len(s.q))
	for i, t := range s.q {
		toks[i] = token{text: t.text, script: t.script}
	}
	s.forced = append(s.forced, ix.exact[tokensKey(toks)]...)

	// Lookup groups: each query token, and each merged neighbour span
	// (Abdul Rahman → abdulrahman, for names that write it as one word).
	s.groups = s.groups[:0]
	s.gm = s.gm[:0]
	addGroup := func(bits uint32, w float32, merged bool, ms []vmatch) {
		g := lookupGroup{bits: bits, w: w, merged: merged, from: len(s.gm)}
		for _, m := range ms {
			g.postings += len(ix.post[m.vid])
		}
		s.gm = append(s.gm, ms...)
		g.to = len(s.gm)
		s.groups = append(s.groups, g)
	}
	for i := range s.q {
		addGroup(1<<uint(i), s.q[i].weight, false, ix.lookupToken(s, i))
	}
	for _, sp := range s.qspans {
		sc := scriptLatin
		if sp.abjad {
			sc = scriptAbjad
		}
		for _, text := range sp.texts {
			if len(text) > maxMergedBytes+4 {
				continue
			}
			mt := newTokenInfo(token{text: text, script: sc})
			addGroup(sp.bits, sp.w, true, ix.lookupInfo(s, &mt, -1))
		}
	}

	// A token whose spellings fill more than commonPostings posting
	// entries (Muhammad, Ali, al) is not walked when another token is
	// selective: every name it could add is counted as if it matched,
	// and scoring in full settles it.
	selective := false
	for _, g := range s.groups {
		if !g.merged && g.postings <= commonPostings {
			selective = true
		}
	}
	var deferredW float32
	for _, g := range s.groups {
		if selective && g.postings > commonPostings {
			if !g.merged {
				deferredW += g.w
			}
			continue
		}
		for _, m := range s.gm[g.from:g.to] {
			vw := ix.vocab[m.vid].weight
			dq, dn := m.sim*g.w, m.sim*vw
			for _, n := range ix.post[m.vid] {
				a := &s.acc[n]
				if a.stamp != s.cur {
					*a = nameAcc{stamp: s.cur}
					s.touched = append(s.touched, n)
				}
				if a.seen&g.bits == 0 {
					a.seen |= g.bits
					a.q += dq
					a.n += dn
				}
			}
		}
	}
	// One-letter tokens (initials) are not looked up; count them as matched.
	for i := range s.q {
		if len(s.q[i].text) == 1 {
			deferredW += s.q[i].weight
		}
	}
	// The estimate bounds the name similarity from above (best similarity
	// per token, no one-to-one constraint, full credit below 0.8), so a
	// name below threshold − candidateMargin cannot reach the threshold
	// even with every qualifier in its favour.
	minEst := float32(threshold - candidateMargin)
	for _, n := range s.touched {
		r := min(1, (s.acc[n].q+deferredW)/s.qW)
		p := min(1, (s.acc[n].n+deferredW)/ix.names[n].minW)
		if est := (r + p) / 2; est >= minEst {
			s.cands = append(s.cands, cand{n, est})
		}
	}
	if len(s.cands) > maxCandidates {
		slices.SortFunc(s.cands, func(a, b cand) int {
			switch {
			case a.est > b.est:
				return -1
			case a.est < b.est:
				return 1
			}
			return int(a.name) - int(b.name)
		})
		s.cands = s.cands[:maxCandidates]
	}
}

// scoreCandidates scores the candidate names in full and keeps each
// entry's best.
func (ix *Index) scoreCandidates(s *scratch) {
	score := func(n uint32) {
		rec := &ix.names[n]
		sim, _ := ix.scoreName(s, rec, false)
		if b, ok := s.best[rec.entry]; !ok || sim > b.sim || (sim == b.sim && n < b.name) {
			s.best[rec.entry] = bestName{name: n, sim: sim, valid: true}
		}
	}
	for _, n := range s.forced {
		score(n)
	}
	for _, c := range s.cands {
		score(c.name)
	}
}

// qualifierCandidates adds the entries found by IMO number or identifier,
// with their best name's similarity.
func (ix *Index) qualifierCandidates(s *scratch) {
	add := func(ei uint32) {
		if _, ok := s.best[ei]; ok {
			return
		}
		b := bestName{}
		if len(s.q) > 0 {
			for _, n := range ix.entryNames(ei) {
				sim, _ := ix.scoreName(s, &ix.names[n], false)
				if !b.valid || sim > b.sim {
					b = bestName{name: n, sim: sim, valid: true}
				}
			}
		}
		s.best[ei] = b
	}
	if s.imo != "" {
		for _, ei := range ix.imo[s.imo] {
			add(ei)
		}
	}
	for _, id := range s.ids {
		for _, ei := range ix.ids[id] {
			add(ei)
		}
	}
}

// entryNames returns the name ids of entry ei.
func (ix *Index) entryNames(ei uint32) []uint32 {
	var out []uint32
	// names are appended entry by entry: binary search the first.
	lo, hi := 0, len(ix.names)
	for lo < hi {
		m := (lo + hi) / 2
		if ix.names[m].entry < ei {
			lo = m + 1
		} else {
			hi = m
		}
	}
	for n := lo; n < len(ix.names) && ix.names[n].entry == ei; n++ {
		out = append(out, uint32(n))
	}
	return out
}

// scoreName aligns the query with one listed name and returns the name
// similarity; with explain, also the alignment as text and the penalties
// (see nameFeatures).
func (ix *Index) scoreName(s *scratch, rec *nameRec, explain bool) (float64, string) {
	a, desc := ix.scoreNameAlign(s, rec, explain)
	return a.sim, desc
}

// scoreNameAlign is scoreName returning the whole alignment.
func (ix *Index) scoreNameAlign(s *scratch, rec *nameRec, explain bool) (alignment, string) {
	q, nt := s.q, rec.tokens
	if len(q) == 0 || len(nt) == 0 {
		return alignment{}, ""
	}
	edges := s.edges[:0]
	for i := range q {
		for j, vid := range nt {
			v := ix.sim(s, i, vid)
			nv := &ix.vocab[vid]
			if v < minPairSim {
				// an initial against the token it starts
				qi := q[i].text
				if len(qi) == 1 && q[i].script == scriptLatin && len(nv.text) > 1 && nv.text[0] == qi[0] {
					v = initialSim
				} else if len(nv.text) == 1 && nv.script == scriptLatin && len(qi) > 1 && qi[0] == nv.text[0] {
					v = initialSim
				} else {
					continue
				}
			}
			edges = append(edges, edge{qmask: 1 << uint(i), nmask: 1 << uint(j), sim: v, w: q[i].weight + nv.weight})
		}
	}
	// Two adjacent tokens of one side (three, when the middle one is a
	// particle: Abd al-Qadir) against one token of the other.
	for si := range s.qspans {
		sp := &s.qspans[si]
		for j, vid := range nt {
			nv := &ix.vocab[vid]
			if nv.script == scriptOther || !mergeWorth(len(sp.texts[0]), len(nv.text), sp.abjad, nv.script == scriptAbjad) ||
				ix.sim(s, sp.i, vid) >= 0.9 || ix.sim(s, sp.i+sp.n-1, vid) >= 0.9 {
				continue
			}
			k := uint64(0x8000_0000|si)<<32 | uint64(vid)
			v, ok := s.sims[k]
			if !ok {
				for _, text := range sp.texts {
					v = max(v, float32(mergedSim(text, nv.text, sp.abjad, nv.script == scriptAbjad)))
				}
				s.sims[k] = v
			}
			if v >= 0.75 {
				edges = append(edges, edge{qmask: sp.bits, nmask: 1 << uint(j), sim: v, w: sp.w + nv.weight})
			}
		}
	}
	for j := 0; j+1 < len(nt); j++ {
		for _, n := range []int{2, 3} {
			if !mergeSpan(len(nt), j, n, func(k int) *tokenInfo { return &ix.vocab[nt[k]] }) {
				continue
			}
			var w float32
			abjad := false
			l := 0
			for k := j; k < j+n; k++ {
				v := &ix.vocab[nt[k]]
				w += v.weight
				l += len(v.text)
				abjad = abjad || v.script == scriptAbjad
			}
			var texts []string
			for i := range q {
				if q[i].script == scriptOther || !mergeWorth(l, len(q[i].text), abjad, q[i].script == scriptAbjad) ||
					ix.sim(s, i, nt[j]) >= 0.9 || ix.sim(s, i, nt[j+n-1]) >= 0.9 {
					continue
				}
				if texts == nil {
					texts = mergedTexts(j, n, func(k int) *tokenInfo { return &ix.vocab[nt[k]] })
				}
				var v float32
				for _, text := range texts {
					v = max(v, float32(mergedSim(text, q[i].text, abjad, q[i].script == scriptAbjad)))
				}
				if v >= 0.75 {
					edges = append(edges, edge{qmask: 1 << uint(i), nmask: (1<<uint(n) - 1) << uint(j), sim: v, w: q[i].weight + w})
				}
			}
		}
	}
	// Greedy alignment, best pairs first; and, when merged pairs exist,
	// once more with merged pairs first (Abdul Ghani / عبدالغنی must not
	// lose its Abdul to a lone abd elsewhere). The better one counts.
	slices.SortFunc(edges, func(a, b edge) int { return compareEdges(a, b, false) })
	s.edges = edges
	best := ix.align(s, rec, edges)
	if hasMerged(edges) {
		alt := slices.Clone(edges)
		slices.SortFunc(alt, func(a, b edge) int { return compareEdges(a, b, true) })
		if a := ix.align(s, rec, alt); a.sim > best.sim {
			best = a
			edges = alt
		}
	}
	if !explain {
		return best, ""
	}
	var desc []string
	var descAt []int // first query token of each pair, to print in query order
	var usedQ, usedN uint32
	for _, e := range edges {
		if usedQ&e.qmask != 0 || usedN&e.nmask != 0 {
			continue
		}
		usedQ |= e.qmask
		usedN |= e.nmask
		desc = append(desc, describeEdge(q, nt, ix, e))
		descAt = append(descAt, bits.TrailingZeros32(e.qmask))
	}
	idx := make([]int, len(desc))
	for k := range idx {
		idx[k] = k
	}
	slices.SortStableFunc(idx, func(a, b int) int { return descAt[a] - descAt[b] })
	sorted := make([]string, len(desc))
	for k, x := range idx {
		sorted[k] = desc[x]
	}
	return best, strings.Join(sorted, ", ")
}

// alignment is the outcome of one greedy alignment: the name similarity
// and the penalties it includes.
type alignment struct {
	sim       float64
	oneWord   bool   // a one-word listed name left query words unmatched
	unmatched uint32 // query tokens a shorter listed name left unmatched (unmatchedPenalty each)
}

// align takes edges in order, each whose tokens are still free, and
// returns the name similarity of the result.
func (ix *Index) align(s *scratch, rec *nameRec, edges []edge) alignment {
	q, nt := s.q, rec.tokens
	var usedQ, usedN uint32
	var coverQ, coverN float32
	for _, e := range edges {
		if usedQ&e.qmask != 0 || usedN&e.nmask != 0 {
			continue
		}
		usedQ |= e.qmask
		usedN |= e.nmask
		var wq, wn float32
		for i := range q {
			if e.qmask&(1<<uint(i)) != 0 {
				wq += q[i].weight
			}
		}
		for j, vid := range nt {
			if e.nmask&(1<<uint(j)) != 0 {
				wn += ix.vocab[vid].weight
			}
		}
		f := pairCredit(e.sim)
		coverQ += f * wq
		coverN += f * wn
	}
	totalN := float32(0)
	for j, vid := range nt {
		w := ix.vocab[vid].weight
		if usedN&(1<<uint(j)) == 0 && isPatronymic(ix.vocab[vid].text) {
			w *= patronymicWeight
		}
		totalN += w
	}
	r := coverQ / s.qW
	p := min(1, coverN/totalN)
	a := alignment{sim: float64(r+p) / 2}
	// A one-word listed name that leaves query words unmatched.
	if len(nt) == 1 && usedQ != 1<<uint(len(q))-1 {
		a.sim -= oneWordPenalty
		a.oneWord = true
	} else if len(nt) < len(q) {
		// A listed name shorter than the query that leaves a word of it
		// unmatched (Erik John Lee / Lee, John): the query names someone
		// the listed name says nothing of. Particles, initials and
		// patronymics (which lists often omit) aside.
		for i := range q {
			if usedQ&(1<<uint(i)) == 0 && len(q[i].text) > 1 && !particles[q[i].text] && !isPatronymic(q[i].text) {
				a.unmatched |= 1 << uint(i)
				a.sim -= unmatchedPenalty
			}
		}
	}
	a.sim = max(0, a.sim)
	return a
}

// compareEdges orders edges best first: by similarity, then weight; with
// mergedFirst, edges joining several tokens on either side come first.
func compareEdges(a, b edge, mergedFirst bool) int {
	if mergedFirst {
		am, bm := a.merged(), b.merged()
		switch {
		case am && !bm:
			return -1
		case bm && !am:
			return 1
		}
	}
	switch {
	case a.sim > b.sim:
		return -1
	case a.sim < b.sim:
		return 1
	case a.w > b.w:
		return -1
	case a.w < b.w:
		return 1
	}
	return 0
}

func (e edge) merged() bool {
	return bits.OnesCount32(e.qmask) > 1 || bits.OnesCount32(e.nmask) > 1
}

func hasMerged(edges []edge) bool {
	for _, e := range edges {
		if e.merged() {
			return true
		}
	}
	return false
}

// pairCredit is the share of two tokens' weight an aligned pair of
// similarity sim covers: sim itself from 0.8 up, falling twice as fast
// below (Crow/Chou at 0.62 covers 0.45), so that loosely similar tokens do
// not add up to a match.
func pairCredit(sim float32) float32 {
	if sim >= 0.8 {
		return sim
	}
	return max(0, 2*sim-0.8)
}

// mergeSpan reports whether the n tokens from i of a side of count tokens
// may be merged: two tokens, or three with a particle in the middle, none
// of another script.
func mergeSpan(count, i, n int, tok func(int) *tokenInfo) bool {
	if i+n > count {
		return false
	}
	for k := i; k < i+n; k++ {
		if tok(k).script == scriptOther {
			return false
		}
	}
	return n == 2 || particles[tok(i+1).text]
}

// mergedTexts returns the merged spellings of the n tokens from i: all
// joined, and for three with the article al in the middle also without it,
// since the article assimilates (Shams al-Din, Shamsuddin, شمس الدين).
func mergedTexts(i, n int, tok func(int) *tokenInfo) []string {
	var b strings.Builder
	for k := i; k < i+n; k++ {
		b.WriteString(tok(k).text)
	}
	out := []string{b.String()}
	if n == 3 && canonicalName[tok(i+1).text] == "al" {
		out = append(out, tok(i).text+tok(i+2).text)
	}
	return out
}

// mergeWorth reports whether a merged span of length a may match a token
// of length b: a token of 7 letters or more (5 from Arabic script), since
// short ones meet chance joins (Mike Lee, Mekele); and lengths within a
// third of each other, or, when one side comes from Arabic script (no
// short vowels), that side at least half as long as the other.
func mergeWorth(a, b int, abjadA, abjadB bool) bool {
	switch {
	case abjadA && !abjadB:
		return b >= 7 && a*2 >= b && a*3 <= b*4
	case abjadB && !abjadA:
		return b >= 5 && a*4 >= b*3 && a <= b*2
	}
	return b >= 7 && a*4 >= b*3 && a*3 <= b*4
}

// mergedSim compares a merged pair a with a token b; abjadA and abjadB say
// which side comes from Arabic script.
func mergedSim(a, b string, abjadA, abjadB bool) float64 {
	switch {
	case abjadA && !abjadB:
		return editSimMode(a, b, true)
	case abjadB && !abjadA:
		return editSimMode(b, a, true)
	}
	return editSim(a, b)
}

func describeEdge(q []tokenInfo, nt []uint32, ix *Index, e edge) string {
	var qs, ns []string
	for i := range q {
		if e.qmask&(1<<uint(i)) != 0 {
			qs = append(qs, q[i].text)
		}
	}
	for j, vid := range nt {
		if e.nmask&(1<<uint(j)) != 0 {
			ns = append(ns, ix.vocab[vid].text)
		}
	}
	a, b := strings.Join(qs, "+"), strings.Join(ns, "+")
	if e.sim == 1 {
		return a + "=" + b
	}
	if len(qs) == 1 && len(ns) == 1 && genderedPair(qs[0], ns[0]) {
		return fmt.Sprintf("%s~%s %.2f gendered ending", a, b, e.sim)
	}
	if len(qs) == 1 && len(ns) == 1 && a != "" && b != "" && a[0] != b[0] && subCost(a[0], b[0]) == 1 {
		return fmt.Sprintf("%s~%s %.2f first letter differs", a, b, e.sim)
	}
	return fmt.Sprintf("%s~%s %.2f", a, b, e.sim)
}
