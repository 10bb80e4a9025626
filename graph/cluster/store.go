package cluster

import (
	"context"
	"time"
)

// Filter selects records of the list: each non-zero field restricts.
type Filter struct {
	Severity Severity  // "" for any
	Country  string    // ISO alpha-2, "" for any
	Since    time.Time // only records added after it; zero for any
}

// ImportResult says what an import did.
type ImportResult struct {
	Records         int   `json:"records"`          // lines read
	Added           int   `json:"added"`            // new records (cluster.entity_added each)
	Updated         int   `json:"updated"`          // records changed
	Unchanged       int   `json:"unchanged"`        // identical to the stored record
	SeverityChanged int   `json:"severity_changed"` // of Updated, cluster.entity_severity_changed each
	Version         int64 `json:"version"`          // the registry version after the import
}

// Store is the registry's source of truth (relational implements it).
type Store interface {
	Source
	// ImportRecords adds or updates records by slug in one transaction,
	// with their events, and bumps the registry version when anything
	// changed. A record identical to the stored one changes nothing and
	// emits nothing. Records with a zero AddedAt get now when new and keep
	// their stored value otherwise.
	ImportRecords(ctx context.Context, recs []Record, now time.Time) (ImportResult, error)
	// ListRecords returns the records f selects, newest first.
	ListRecords(ctx context.Context, f Filter) ([]Record, error)
}
