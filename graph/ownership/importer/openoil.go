package importer

import (
	"bytes"
	"encoding/csv"
	"path/filepath"
	"strings"

	"github.com/tradecompliance/compliance/graph/ownership"
)

// ParseOpenOil parses an OpenOil ownership CSV (BP_ownership_*.csv,
// Nigeria_ownership_*.csv): each row is parent -> company with the
// "immediate" percentage (empty: unknown). Parties are known by name only,
// so their ids are "openoil:" + the lower-cased name; "jurisdiction" (a
// country name) and "oc_id" (an OpenCorporates id) describe the company.
// Rows without a parent and rows with an end_date give no edge. The
// as_of date is source_date (dd.mm.yy) when given. It returns an invalid
// error naming the file and line of the first bad row.
func ParseOpenOil(file string, data []byte) (ownership.Batch, Stats, error) {
	st := Stats{Format: OpenOil}
	r := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))))
	r.FieldsPerRecord = -1
	r.LazyQuotes = true
	header, err := r.Read()
	if err != nil {
		return ownership.Batch{}, st, lineError(file, 1, "no header: %s", csvMessage(err))
	}
	col := map[string]int{}
	for i, h := range header {
		h = strings.ToLower(strings.TrimSpace(h))
		if _, ok := col[h]; !ok && h != "" {
			col[h] = i
		}
	}
	for _, c := range []string{"parent", "company", "immediate"} {
		if _, ok := col[c]; !ok {
			return ownership.Batch{}, st, lineError(file, 1, "missing column %q", c)
		}
	}
	src := "openoil: " + filepath.Base(file)
	b := newBuilder()
	rows := &csvRows{file: file, r: r, col: col}
	for {
		more, err := rows.next()
		if err != nil {
			return ownership.Batch{}, st, err
		}
		if !more {
			break
		}
		line, get := rows.line, rows.get
		st.Records++
		company, parent := cleanName(get("company")), cleanName(get("parent"))
		if company == "" {
			return ownership.Batch{}, st, lineError(file, line, "company is empty")
		}
		n := ownership.Node{ID: nameID("openoil", company), Kind: ownership.Company, Name: company, Source: src,
			Jurisdiction: iso2(get("jurisdiction"))}
		if oc := get("oc_id"); oc != "" {
			n.Identifiers = []ownership.Identifier{{Scheme: "opencorporates", ID: oc}}
		}
		b.node(n)
		if parent == "" {
			st.skip("no parent")
			continue
		}
		if get("end_date") != "" {
			st.skip("ended")
			continue
		}
		p := ownership.Node{ID: nameID("openoil", parent), Kind: ownership.Company, Name: parent, Source: src}
		if p.ID == n.ID {
			st.skip("owns itself")
			continue
		}
		b.node(p)
		pct, err := parsePct(get("immediate"))
		if err != nil {
			return ownership.Batch{}, st, lineError(file, line, "immediate %s", err)
		}
		b.edge(ownership.Edge{Relation: ownership.Owns, From: p.ID, To: n.ID, Pct: pct, AsOf: openOilDate(get("source_date")), Source: src})
	}
	return b.finish(file, st)
}

// openOilDate turns "06.07.13 00:00" (day.month.year) into "2013-07-06";
// anything else gives "".
func openOilDate(s string) string {
	d, _, _ := strings.Cut(strings.TrimSpace(s), " ")
	parts := strings.Split(d, ".")
	if len(parts) != 3 || len(parts[0]) != 2 || len(parts[1]) != 2 || len(parts[2]) != 2 {
		return ""
	}
	out := "20" + parts[2] + "-" + parts[1] + "-" + parts[0]
	if !validDate(out) {
		return ""
	}
	return out
}
