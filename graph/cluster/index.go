package cluster

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/tradecompliance/compliance/graph"
	"github.com/tradecompliance/compliance/graph/country"
)

// CheckKey returns the normalized form of a checked name. It fails with
// graph.Invalid("entity", ...) when the name has fewer than MinCheckChars
// letters and digits.
func CheckKey(entity string) (string, error) {
	k := Normalize(entity)
	if utf8.RuneCountInString(k) < MinCheckChars {
		return "", graph.Invalid("entity", "entity must have at least %d letters or digits (punctuation and spaces are ignored)", MinCheckChars)
	}
	return k, nil
}

// ParseCountry returns the ISO 3166-1 alpha-2 code of a country given as a
// code or a name, "" for "". It fails with graph.Invalid(field, ...) when s
// names no country.
func ParseCountry(field, s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", nil
	}
	c, ok := country.Default().Resolve(s)
	if !ok {
		return "", graph.Invalid(field, "%s %q is not a known country (use an ISO 3166-1 alpha-2 code)", field, s)
	}
	return c.ISO2, nil
}

// Index is an immutable in-memory index of the registry: every record under
// each of its normalized names. It answers checks without a database
// round trip.
type Index struct {
	version int64
	byKey   map[string][]*Record
	n       int
}

// NewIndex indexes records, as of registry version.
func NewIndex(version int64, records []Record) *Index {
	idx := &Index{version: version, byKey: map[string][]*Record{}, n: len(records)}
	for i := range records {
		r := &records[i]
		for _, k := range r.Keys() {
			idx.byKey[k] = append(idx.byKey[k], r)
		}
	}
	return idx
}

// Version returns the registry version the index was built from.
func (x *Index) Version() int64 { return x.version }

// Len returns the number of records indexed.
func (x *Index) Len() int { return x.n }

// Check answers the exact-match check over the index. See Checker.
func (x *Index) Check(_ context.Context, entity, country string) (CheckResult, error) {
	key, err := CheckKey(entity)
	if err != nil {
		return CheckResult{}, err
	}
	iso, err := ParseCountry("country", country)
	if err != nil {
		return CheckResult{}, err
	}
	res := CheckResult{Matches: []Record{}}
	for _, r := range x.byKey[key] {
		if iso != "" && r.Country != "" && r.Country != iso {
			continue
		}
		res.CountryUnknown = res.CountryUnknown || iso != "" && r.Country == ""
		res.Matches = append(res.Matches, *r)
	}
	SortBySeverity(res.Matches)
	if len(res.Matches) > 0 {
		res.Matched = true
		res.HighestSeverity = res.Matches[0].Severity
	}
	return res, nil
}

// SortBySeverity orders records by severity, highest first, then by entity
// name and slug.
func SortBySeverity(rs []Record) {
	slices.SortStableFunc(rs, func(a, b Record) int {
		if d := b.Severity.Rank() - a.Severity.Rank(); d != 0 {
			return d
		}
		if c := strings.Compare(a.EntityName, b.EntityName); c != 0 {
			return c
		}
		return strings.Compare(a.Slug, b.Slug)
	})
}

// Source is what a Registry loads its index from: the registry's store.
type Source interface {
	// RegistryVersion returns the current registry version; every change
	// to records or aliases increases it.
	RegistryVersion(ctx context.Context) (int64, error)
	// AllRecords returns every record with its aliases and the version
	// they are as of, read in one snapshot.
	AllRecords(ctx context.Context) ([]Record, int64, error)
}

// Registry is the Checker every instance serves checks from: an in-memory
// Index loaded from Source and swapped when the registry version changes.
// Run Watch to keep it fresh; a Registry not yet loaded loads on its first
// check. It is safe for concurrent use.
type Registry struct {
	Source Source

	mu     sync.RWMutex
	idx    *Index
	loadMu sync.Mutex
}

var _ Checker = (*Registry)(nil)

// Check answers from the current index, loading it first if this Registry
// has never loaded. It fails with invalid for a bad name or country, and
// with unavailable when the first load fails.
func (g *Registry) Check(ctx context.Context, entity, country string) (CheckResult, error) {
	idx, err := g.Index(ctx)
	if err != nil {
		return CheckResult{}, err
	}
	return idx.Check(ctx, entity, country)
}

// Index returns the current index, loading it if none is loaded yet. It
// fails with unavailable when that load fails.
func (g *Registry) Index(ctx context.Context) (*Index, error) {
	g.mu.RLock()
	idx := g.idx
	g.mu.RUnlock()
	if idx != nil {
		return idx, nil
	}
	if err := g.Reload(ctx); err != nil {
		return nil, err
	}
	g.mu.RLock()
	defer g.mu.RUnlock()
	return g.idx, nil
}

// Reload loads every record and swaps the index in. It fails with
// unavailable when the store cannot be read; the previous index stays.
func (g *Registry) Reload(ctx context.Context) error {
	g.loadMu.Lock()
	defer g.loadMu.Unlock()
	recs, version, err := g.Source.AllRecords(ctx)
	if err != nil {
		return graph.Unavailable("cluster registry", err)
	}
	idx := NewIndex(version, recs)
	g.mu.Lock()
	if g.idx == nil || g.idx.version <= version {
		g.idx = idx
	}
	g.mu.Unlock()
	return nil
}

// Refresh reloads the index when the registry version differs from the
// loaded one. It reports whether it reloaded.
func (g *Registry) Refresh(ctx context.Context) (bool, error) {
	v, err := g.Source.RegistryVersion(ctx)
	if err != nil {
		return false, graph.Unavailable("cluster registry", err)
	}
	g.mu.RLock()
	cur := g.idx
	g.mu.RUnlock()
	if cur != nil && cur.version == v {
		return false, nil
	}
	return true, g.Reload(ctx)
}

// Watch polls the registry version every interval until ctx ends and
// reloads the index when it changed, so a change made by another instance
// or by the CLI is served within interval plus one load. Failures are
// logged and retried on the next tick.
func (g *Registry) Watch(ctx context.Context, interval time.Duration, log *slog.Logger) {
	if log == nil {
		log = slog.Default()
	}
	if _, err := g.Refresh(ctx); err != nil && ctx.Err() == nil {
		log.Warn("cluster registry load", "err", err)
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			reloaded, err := g.Refresh(ctx)
			if err != nil && ctx.Err() == nil {
				log.Warn("cluster registry refresh", "err", err)
			}
			if reloaded && err == nil {
				log.Debug("cluster registry reloaded", "version", g.Version())
			}
		}
	}
}

// Version returns the version of the loaded index, -1 when none is loaded.
func (g *Registry) Version() int64 {
	g.mu.RLock()
	defer g.mu.RUnlock()
	if g.idx == nil {
		return -1
	}
	return g.idx.version
}
