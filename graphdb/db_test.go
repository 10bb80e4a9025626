package graphdb

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/tradecompliance/compliance/graph"
)

func TestPing(t *testing.T) {
	db := openTest(t)
	if err := db.Ping(testContext(t)); err != nil {
		t.Fatalf("Ping() = %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := db.Ping(ctx); graph.ErrorCode(err) != graph.CodeUnavailable {
		t.Errorf("Ping(canceled) = %v, want code %s", err, graph.CodeUnavailable)
	}
}

func TestOpenFails(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
	}{
		{"no URI", Config{}},
		{"bad scheme", Config{URI: "ftp://user:hunter2@127.0.0.1:1"}},
		{"nothing listening", Config{URI: "bolt://user:hunter2@127.0.0.1:1", User: "neo4j", Password: "hunter2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			db, err := Open(ctx, tt.cfg)
			if err == nil {
				db.Close(ctx)
				t.Fatalf("Open(%q) = nil error, want unavailable", tt.cfg.URI)
			}
			e := graph.AsError(err)
			if e.Code != graph.CodeUnavailable || e.Message != "graph database is unavailable" {
				t.Errorf("Open(%q) = code %s, message %q, want %s, %q", tt.cfg.URI, e.Code, e.Message, graph.CodeUnavailable, "graph database is unavailable")
			}
			if strings.Contains(err.Error(), "hunter2") {
				t.Errorf("Open(%q) = %q, which shows the password", tt.cfg.URI, err)
			}
		})
	}
}

func TestRedactURI(t *testing.T) {
	tests := []struct{ in, want string }{
		{"bolt://127.0.0.1:7687", "bolt://127.0.0.1:7687"},
		{"neo4j+s://user:secret@db.example.com:7687/?policy=x", "neo4j+s://db.example.com:7687/"},
		{"127.0.0.1:7687", "<unparsable URI>"},
		{"", "<unparsable URI>"},
	}
	for _, tt := range tests {
		if got := redactURI(tt.in); got != tt.want {
			t.Errorf("redactURI(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestNew(t *testing.T) {
	// New does not connect: nothing listens on port 1.
	db, err := New(Config{URI: "bolt://127.0.0.1:1"})
	if err != nil {
		t.Fatalf("New(bolt://127.0.0.1:1) = %v, want no error", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := db.Ping(ctx); graph.ErrorCode(err) != graph.CodeUnavailable {
		t.Errorf("Ping() with nothing listening = %v, want code %s", err, graph.CodeUnavailable)
	}
	if err := db.Close(ctx); err != nil {
		t.Errorf("Close() = %v", err)
	}
	if _, err := New(Config{URI: "ftp://127.0.0.1:1"}); graph.ErrorCode(err) != graph.CodeUnavailable {
		t.Errorf("New(ftp://127.0.0.1:1) = %v, want code %s", err, graph.CodeUnavailable)
	}
}
