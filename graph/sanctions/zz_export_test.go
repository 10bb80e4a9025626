package sanctions

// DebugCounts returns per-query internals, for tuning only.
func (ix *Index) DebugCounts(q Query) (touched, cands, lookups, postings int) {
	s := ix.acquire()
	defer ix.release(s)
	s.reset(ix)
	s.prepare(q)
	th := q.Threshold
	if th == 0 {
		th = DefaultThreshold
	}
	ix.nameCandidates(s, th)
	for _, g := range s.groups {
		postings += g.postings
		lookups += g.to - g.from
	}
	return len(s.touched), len(s.cands), lookups, postings
}
