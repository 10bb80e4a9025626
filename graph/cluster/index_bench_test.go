package cluster

import (
	"context"
	"fmt"
	"testing"
)

// BenchmarkIndexCheck: one check against an index of 5,000 records with two
// aliases each (scripts/bench clusters measures the HTTP path).
func BenchmarkIndexCheck(b *testing.B) {
	recs := make([]Record, 5000)
	for i := range recs {
		recs[i] = Record{ID: fmt.Sprint(i), Slug: fmt.Sprintf("bench-%05d", i), EntityName: fmt.Sprintf("Bench Fictional Petro %05d Ltd", i),
			Aliases: []string{fmt.Sprintf("BFP %05d", i), fmt.Sprintf("Bench Petro Trading %05d", i)}, Severity: Severities[i%3], Country: "AE"}
	}
	idx := NewIndex(1, recs)
	queries := []struct{ entity, country string }{
		{"Bench Fictional Petro 02500 Ltd", ""}, {"BFP 04999", "AE"}, {"Bench Fictional Petro 02500", ""}, {"Unknown Trader", "United Kingdom"},
	}
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		q := queries[i%len(queries)]
		if _, err := idx.Check(ctx, q.entity, q.country); err != nil {
			b.Fatal(err)
		}
	}
}
