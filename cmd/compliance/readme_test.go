package main

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/tradecompliance/compliance/rest"
)

// The README prints the route table; it must match the code's.
func TestREADMERouteTable(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest1, ok1 := strings.Cut(string(readme), "<!-- routes:begin -->\n")
	table, _, ok2 := strings.Cut(rest1, "<!-- routes:end -->")
	if !ok1 || !ok2 {
		t.Fatal("README lacks the routes:begin/end markers")
	}
	var want bytes.Buffer
	rest.PrintRoutes(&want)
	if table != want.String() {
		t.Errorf("README route table is stale; paste the output of `compliance routes`:\n%s", want.String())
	}
}
