package sanctionstest

import (
	"os"
	"strings"
	"testing"

	"github.com/tradecompliance/compliance/graph/sanctions"
)

func TestLoadAll(t *testing.T) {
	dir, err := Dir()
	if err != nil {
		t.Skipf("shared data set not available, skipping: %v", err)
	}
	lists, err := LoadAll(dir)
	if err != nil {
		t.Fatalf("LoadAll(%s) = %v", dir, err)
	}
	// Row counts of the shared data README (CH: its individuals and
	// entities; its ID-only objects are skipped).
	want := map[string]int{
		sanctions.ListUSSDN: 14965, sanctions.ListUSCons: 442, sanctions.ListUN: 1003, sanctions.ListEU: 6457,
		sanctions.ListUKHMT: 6349, sanctions.ListCA: 5690, sanctions.ListAUDFAT: 3856, sanctions.ListCHSECO: 7608,
	}
	for id, n := range want {
		if got := len(lists[id]); got != n {
			t.Errorf("len(LoadAll()[%s]) = %d, want %d", id, got, n)
		}
	}
	for id, es := range lists {
		for _, e := range es {
			if e.Name == "" || e.SourceID == "" || e.List != id {
				t.Errorf("LoadAll()[%s] has %+v, want a name, a source id and list %s", id, e, id)
				break
			}
		}
	}
	// Spot checks: a non-Latin alias, a date of birth, an IMO number.
	var arabic, dob, imo bool
	for _, e := range lists[sanctions.ListUN] {
		for _, a := range e.Aliases {
			arabic = arabic || Script(a.Name) == "arabic"
		}
		dob = dob || len(e.DatesOfBirth) > 0
	}
	for _, e := range lists[sanctions.ListAUDFAT] {
		imo = imo || e.IMO != ""
	}
	if !arabic || !dob || !imo {
		t.Errorf("LoadAll(): UN Arabic aliases %v, UN dates of birth %v, AU IMO numbers %v, want all true", arabic, dob, imo)
	}
}

func TestCountryNames(t *testing.T) {
	dir, err := Dir()
	if err != nil {
		t.Skipf("shared data set not available, skipping: %v", err)
	}
	cn, err := LoadCountryNames(dir)
	if err != nil {
		t.Fatalf("LoadCountryNames(%s) = %v", dir, err)
	}
	for in, want := range map[string]string{"Iran": "IR", "Russia": "RU", "United Arab Emirates": "AE", "af": "AF", "Nowhere Land": ""} {
		if got := cn.Code(in); got != want {
			t.Errorf("Code(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestTypoQueriesShareNoToken(t *testing.T) {
	es := []sanctions.Entry{{Name: "Abdulhai Salek"}, {Name: "Vladimir Putin"}, {Name: "Kim Jong Un"}}
	qs := TypoQueries(es, 5, 1)
	if len(qs) == 0 {
		t.Fatalf("TypoQueries() = none, want some")
	}
	vocab := map[string]bool{}
	for _, e := range es {
		for _, w := range strings.Fields(sanctions.Normalize(e.Name)) {
			vocab[w] = true
		}
	}
	for _, q := range qs {
		for _, w := range strings.Fields(sanctions.Normalize(q.Name)) {
			if vocab[w] {
				t.Errorf("TypoQueries() gave %q, whose word %q is listed", q.Name, w)
			}
		}
	}
}

// TestWriteReport prints the whole measurement (WriteReport) when
// SANCTIONS_REPORT is set:
//
//	SANCTIONS_REPORT=1 go test ./graph/sanctions/sanctionstest -run WriteReport -v
func TestWriteReport(t *testing.T) {
	if os.Getenv("SANCTIONS_REPORT") == "" {
		t.Skip("set SANCTIONS_REPORT=1 to print the matching report")
	}
	dir, err := Dir()
	if err != nil {
		t.Skipf("shared data set not available, skipping: %v", err)
	}
	var b strings.Builder
	if err := WriteReport(&b, dir); err != nil {
		t.Fatalf("WriteReport(%s) = %v", dir, err)
	}
	t.Log("\n" + b.String())
}
