package graph

import (
	"context"
	"strings"
	"sync"
	"time"
)

// Store is a backing store whose readiness the service reports: reachable,
// and with every migration applied.
type Store interface {
	Ping(ctx context.Context) error
	PendingMigrations(ctx context.Context) ([]string, error)
}

// Check is the outcome of one readiness check.
type Check struct {
	Name   string `json:"name"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail,omitempty"`
}

// Status is the service's version, readiness and coverage statement.
type Status struct {
	Version  string   `json:"version"`
	Ready    bool     `json:"ready"`
	Checks   []Check  `json:"checks"`
	Coverage Coverage `json:"coverage"`
}

// Health checks the readiness of the service's stores.
type Health struct {
	Version string
	Stores  []NamedStore
	Timeout time.Duration // per check; 2s when zero
}

// NamedStore is a Store with the name readiness reports use ("postgres", "neo4j").
type NamedStore struct {
	Name  string
	Store Store
}

// Status runs every check concurrently and returns the result; it never
// fails: an unreachable store is a failed check with a short detail that
// names no credentials, SQL or Cypher.
func (h *Health) Status(ctx context.Context) Status {
	timeout := h.Timeout
	if timeout == 0 {
		timeout = 2 * time.Second
	}
	checks := make([]Check, len(h.Stores))
	var wg sync.WaitGroup
	for i, s := range h.Stores {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(ctx, timeout)
			defer cancel()
			checks[i] = checkStore(ctx, s)
		}()
	}
	wg.Wait()
	ready := true
	for _, c := range checks {
		ready = ready && c.OK
	}
	return Status{Version: h.Version, Ready: ready, Checks: checks, Coverage: ServiceCoverage()}
}

func checkStore(ctx context.Context, s NamedStore) Check {
	if err := s.Store.Ping(ctx); err != nil {
		return Check{Name: s.Name, Detail: "unreachable"}
	}
	pending, err := s.Store.PendingMigrations(ctx)
	if err != nil {
		return Check{Name: s.Name, Detail: "migration state unreadable"}
	}
	if len(pending) > 0 {
		return Check{Name: s.Name, Detail: "migrations pending: " + strings.Join(pending, ", ")}
	}
	return Check{Name: s.Name, OK: true}
}
