package main

import (
	"strings"
	"testing"
)

func TestE2EProbesAndMetrics(t *testing.T) {
	in := start(t, testEnv(t))

	h := in.do("GET", "/healthz", "", nil)
	if h.status != 200 || h.json(t)["ok"] != true {
		t.Fatalf("GET /healthz = %d %s", h.status, h.body)
	}
	if id := h.header.Get("X-Request-Id"); len(id) != 32 {
		t.Errorf("X-Request-Id = %q, want a generated 32-hex id", id)
	}
	if got := in.do("GET", "/healthz", "", nil, "X-Request-Id", "client-chosen-id-1").header.Get("X-Request-Id"); got != "client-chosen-id-1" {
		t.Errorf("X-Request-Id echo = %q, want client-chosen-id-1", got)
	}

	r := in.do("GET", "/readyz", "", nil)
	if r.status != 200 {
		t.Fatalf("GET /readyz = %d %s", r.status, r.body)
	}
	data := r.json(t)["data"].(map[string]any)
	if data["ready"] != true || len(data["checks"].([]any)) != 2 {
		t.Errorf("readyz data = %v", data)
	}

	m := in.do("GET", "/metrics", "", nil)
	for _, want := range []string{
		`compliance_http_requests_total{method="GET",route="GET /healthz",status="200"} `,
		`compliance_http_request_duration_seconds_bucket{method="GET",route="GET /readyz",status="200",le=`,
		"go_goroutines",
		"process_resident_memory_bytes",
		"compliance_pg_pool_total_conns",
	} {
		if !strings.Contains(string(m.body), want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
}
