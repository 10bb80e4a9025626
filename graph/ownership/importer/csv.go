package importer

import (
	"bytes"
	"encoding/csv"
	"errors"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/tradecompliance/compliance/graph/ownership"
)

// CSVColumns are the columns of the CSV edge format, in their documented
// order. The header names them; order is free and unknown columns are an
// error (so a typo does not silently drop data).
//
//	owner_id, owned_id           required; the parties' stable ids
//	owner_name, owned_name       required the first time an id appears
//	owner_kind, owned_kind       company (default), person, trust or vessel
//	owner_jurisdiction, owned_jurisdiction   ISO-2 code or country name
//	relation                     owns (default) or controls
//	pct                          exact share in percent, or empty
//	pct_min, pct_max             a band instead of pct; all empty = unknown
//	role                         controls only: board_appointment,
//	                             voting_rights or other_influence
//	as_of                        YYYY, YYYY-MM or YYYY-MM-DD
//	source                       free text
var CSVColumns = []string{
	"owner_id", "owner_name", "owner_kind", "owner_jurisdiction",
	"owned_id", "owned_name", "owned_kind", "owned_jurisdiction",
	"relation", "pct", "pct_min", "pct_max", "role", "as_of", "source",
}

// ParseCSV parses the CSV edge format. It returns an invalid error naming
// the file and line of the first bad row.
func ParseCSV(file string, data []byte) (ownership.Batch, Stats, error) {
	st := Stats{Format: CSV}
	r := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))))
	r.FieldsPerRecord = -1
	header, err := r.Read()
	if err != nil {
		return ownership.Batch{}, st, lineError(file, 1, "no header: %s", csvMessage(err))
	}
	col := map[string]int{}
	for i, h := range header {
		h = strings.ToLower(strings.TrimSpace(h))
		known := false
		for _, c := range CSVColumns {
			known = known || c == h
		}
		if !known {
			return ownership.Batch{}, st, lineError(file, 1, "unknown column %q; the columns are %s", h, strings.Join(CSVColumns, ","))
		}
		if _, dup := col[h]; dup {
			return ownership.Batch{}, st, lineError(file, 1, "column %q given twice", h)
		}
		col[h] = i
	}
	for _, c := range []string{"owner_id", "owned_id"} {
		if _, ok := col[c]; !ok {
			return ownership.Batch{}, st, lineError(file, 1, "missing column %q", c)
		}
	}
	b := newBuilder()
	named := map[string]bool{}
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
		var ids [2]string
		for i, side := range []string{"owner", "owned"} {
			id := get(side + "_id")
			if id == "" {
				return ownership.Batch{}, st, lineError(file, line, "%s_id is empty", side)
			}
			ids[i] = id
			name := cleanName(get(side + "_name"))
			if name == "" {
				if !named[id] {
					return ownership.Batch{}, st, lineError(file, line, "%s_name is empty for %q, which no earlier row names", side, id)
				}
				continue
			}
			kind := ownership.Kind(strings.ToLower(get(side + "_kind")))
			if kind == "" {
				kind = ownership.Company
			}
			if !kind.Valid() {
				return ownership.Batch{}, st, lineError(file, line, "%s_kind %q must be company, person, trust or vessel", side, kind)
			}
			n := ownership.Node{ID: id, Kind: kind, Name: name, Source: get("source")}
			if j := get(side + "_jurisdiction"); j != "" {
				if n.Jurisdiction = iso2(j); n.Jurisdiction == "" {
					return ownership.Batch{}, st, lineError(file, line, "%s_jurisdiction %q is not a known country", side, j)
				}
			}
			if i, ok := b.nodeAt[id]; ok && b.nodes[i].Kind != kind {
				return ownership.Batch{}, st, lineError(file, line, "%s_kind %s contradicts an earlier row's %s for %q", side, kind, b.nodes[i].Kind, id)
			}
			named[id] = true
			b.node(n)
		}
		e := ownership.Edge{From: ids[0], To: ids[1], AsOf: get("as_of"), Source: get("source")}
		if e.From == e.To {
			return ownership.Batch{}, st, lineError(file, line, "owner_id and owned_id are the same")
		}
		if e.AsOf != "" && !validDate(e.AsOf) {
			return ownership.Batch{}, st, lineError(file, line, "as_of %q must be YYYY, YYYY-MM or YYYY-MM-DD", e.AsOf)
		}
		var perr error
		pct := func(c string) *float64 {
			v, err := parsePct(get(c))
			if err != nil && perr == nil {
				perr = errors.New(c + " " + err.Error())
			}
			return v
		}
		e.Pct, e.PctMin, e.PctMax = pct("pct"), pct("pct_min"), pct("pct_max")
		if perr != nil {
			return ownership.Batch{}, st, lineError(file, line, "%s", perr)
		}
		if e.Pct != nil && (e.PctMin != nil || e.PctMax != nil) {
			return ownership.Batch{}, st, lineError(file, line, "give pct or pct_min/pct_max, not both")
		}
		if e.PctMin != nil && e.PctMax != nil && *e.PctMin > *e.PctMax {
			return ownership.Batch{}, st, lineError(file, line, "pct_min is above pct_max")
		}
		switch rel := strings.ToLower(get("relation")); rel {
		case "", "owns":
			e.Relation = ownership.Owns
			if get("role") != "" {
				return ownership.Batch{}, st, lineError(file, line, "role is only for relation controls")
			}
		case "controls":
			e.Relation, e.Role = ownership.Controls, ownership.Role(strings.ToLower(get("role")))
			if !e.Role.Valid() {
				return ownership.Batch{}, st, lineError(file, line, "role %q must be board_appointment, voting_rights or other_influence", get("role"))
			}
			if e.Pct != nil {
				e.PctMin, e.PctMax, e.Pct = e.Pct, e.Pct, nil
			}
		default:
			return ownership.Batch{}, st, lineError(file, line, "relation %q must be owns or controls", rel)
		}
		b.edge(e)
	}
	return b.finish(file, st)
}

// parsePct parses a percentage: "60", "60.5", "60%"; "" gives nil.
func parsePct(s string) (*float64, error) {
	s = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "%"))
	if s == "" {
		return nil, nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return nil, errors.New("must be a number of percent, e.g. 60 or 12.5")
	}
	if v < 0 || v > 100 {
		return nil, errors.New("must be between 0 and 100")
	}
	return &v, nil
}

// validDate reports whether s is YYYY, YYYY-MM or YYYY-MM-DD with sane
// fields.
func validDate(s string) bool {
	parts := strings.Split(s, "-")
	if len(parts) > 3 || len(parts[0]) != 4 {
		return false
	}
	lim := []int{9999, 12, 31}
	for i, p := range parts {
		if i > 0 && len(p) != 2 {
			return false
		}
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > lim[i] {
			return false
		}
	}
	return true
}

func csvMessage(err error) string {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// csvRows reads the data rows of a CSV file after its header, with the
// columns of the header.
type csvRows struct {
	file string
	r    *csv.Reader
	col  map[string]int // lower-cased header name -> index
	rec  []string
	line int // the current row's line in the file
}

// next reads the next row. It returns false at the end of the file, and an
// invalid error naming the file and line of a malformed row.
func (c *csvRows) next() (bool, error) {
	rec, err := c.r.Read()
	if errors.Is(err, io.EOF) {
		return false, nil
	}
	if err != nil {
		line := 0
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			line = pe.Line
		}
		return false, lineError(c.file, line, "%s", csvMessage(err))
	}
	c.rec = rec
	c.line, _ = c.r.FieldPos(0)
	return true, nil
}

// get returns the current row's trimmed value of column name, "" when the
// header or the row lacks it.
func (c *csvRows) get(name string) string {
	if i, ok := c.col[name]; ok && i < len(c.rec) {
		return strings.TrimSpace(c.rec[i])
	}
	return ""
}
