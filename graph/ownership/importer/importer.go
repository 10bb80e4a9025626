// Package importer parses ownership files into ownership batches: BODS 0.2
// and 0.4 statements (JSON array or JSON lines), the project's CSV edge
// format and OpenOil's ownership CSVs. It is pure parsing: it reads bytes
// and writes nothing, so a file is validated whole before anything is
// stored.
//
// Errors name the file and line: graph.Invalid("file", "NAME line N: ...").
package importer

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"unicode"

	"github.com/tradecompliance/compliance/graph"
	"github.com/tradecompliance/compliance/graph/country"
	"github.com/tradecompliance/compliance/graph/ownership"
)

// Format names an input format.
type Format string

// Formats.
const (
	BODS    Format = "bods"    // BODS 0.2 or 0.4 statements
	CSV     Format = "csv"     // the documented CSV edge format
	OpenOil Format = "openoil" // OpenOil ownership CSV (BP, Nigeria)
)

// MaxFileSize is the largest file Parse accepts.
const MaxFileSize = 256 << 20

// Stats counts what a parse read and what it left out.
type Stats struct {
	Format  Format `json:"format"`
	Records int    `json:"records"` // statements or CSV rows read
	Nodes   int    `json:"nodes"`
	Stubs   int    `json:"stubs"`
	Edges   int    `json:"edges"`
	// Skipped counts records that give no edge, by reason.
	Skipped map[string]int `json:"skipped,omitempty"`
}

func (s *Stats) skip(reason string) {
	if s.Skipped == nil {
		s.Skipped = map[string]int{}
	}
	s.Skipped[reason]++
}

// Detect returns the format of data: BODS when it starts with '[' or '{',
// OpenOil when its CSV header has the columns parent, company and
// immediate, CSV when it has owner_id and owned_id. It returns an invalid
// error naming format otherwise.
func Detect(data []byte) (Format, error) {
	t := bytes.TrimLeftFunc(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")), unicode.IsSpace)
	if len(t) > 0 && (t[0] == '[' || t[0] == '{') {
		return BODS, nil
	}
	header, _, _ := bytes.Cut(t, []byte("\n"))
	cols := map[string]bool{}
	for _, c := range strings.Split(strings.TrimSpace(string(header)), ",") {
		cols[strings.Trim(strings.TrimSpace(c), `"`)] = true
	}
	switch {
	case cols["owner_id"] && cols["owned_id"]:
		return CSV, nil
	case cols["parent"] && cols["company"] && cols["immediate"]:
		return OpenOil, nil
	}
	return "", graph.Invalid("format", "cannot tell the format: not BODS JSON, not the CSV edge format (owner_id, owned_id, ...) and not an OpenOil CSV (parent, company, immediate, ...)")
}

// Parse parses data from the file named name in format f ("" detects it).
// It returns the batch and its counts, or an invalid error naming the file
// and line of the first bad record.
func Parse(name string, data []byte, f Format) (ownership.Batch, Stats, error) {
	if len(data) > MaxFileSize {
		return ownership.Batch{}, Stats{}, graph.Invalid("file", "%s: larger than %d bytes", name, MaxFileSize)
	}
	if f == "" {
		var err error
		if f, err = Detect(data); err != nil {
			return ownership.Batch{}, Stats{}, graph.Invalid("file", "%s: %s", name, err.(*graph.Error).Message)
		}
	}
	var (
		b   ownership.Batch
		st  Stats
		err error
	)
	switch f {
	case BODS:
		b, st, err = ParseBODS(name, data)
	case CSV:
		b, st, err = ParseCSV(name, data)
	case OpenOil:
		b, st, err = ParseOpenOil(name, data)
	default:
		return b, st, graph.Invalid("format", "format %q must be bods, csv or openoil", f)
	}
	if err != nil {
		return ownership.Batch{}, st, err
	}
	if err := b.Validate(); err != nil {
		return ownership.Batch{}, st, graph.Invalid("file", "%s: %s", name, graph.AsError(err).Message)
	}
	return b, st, nil
}

// lineError returns the error for a bad record at line of file.
func lineError(file string, line int, format string, args ...any) error {
	return graph.Invalid("file", "%s line %d: %s", file, line, fmt.Sprintf(format, args...))
}

// builder collects nodes and edges, merging repeats: a later description
// of a node fills fields the earlier one left empty, and an edge with the
// same key replaces the earlier one.
type builder struct {
	nodes    []ownership.Node
	nodeAt   map[string]int
	stubs    map[string]ownership.Node
	stubIDs  []string
	edges    []ownership.Edge
	edgeAt   map[string]int
	nominees map[string]bool
}

func newBuilder() *builder {
	return &builder{nodeAt: map[string]int{}, stubs: map[string]ownership.Node{}, edgeAt: map[string]int{}}
}

func (b *builder) node(n ownership.Node) {
	if i, ok := b.nodeAt[n.ID]; ok {
		old := &b.nodes[i]
		if old.Jurisdiction == "" {
			old.Jurisdiction = n.Jurisdiction
		}
		if len(old.Identifiers) == 0 {
			old.Identifiers = n.Identifiers
		}
		if old.Address == "" {
			old.Address = n.Address
		}
		if old.FoundedOn == "" {
			old.FoundedOn = n.FoundedOn
		}
		old.Nominee = old.Nominee || n.Nominee
		return
	}
	b.nodeAt[n.ID] = len(b.nodes)
	b.nodes = append(b.nodes, n)
}

// stub records a party referred to but maybe not described.
func (b *builder) stub(n ownership.Node) {
	if _, ok := b.stubs[n.ID]; !ok {
		b.stubs[n.ID] = n
		b.stubIDs = append(b.stubIDs, n.ID)
	}
}

func (b *builder) edge(e ownership.Edge) {
	e.Key = ownership.EdgeKey(e.Relation, e.From, e.To, e.Role)
	if i, ok := b.edgeAt[e.Key]; ok {
		b.edges[i] = e
		return
	}
	b.edgeAt[e.Key] = len(b.edges)
	b.edges = append(b.edges, e)
}

// batch returns the batch, with stubs only for parties never described.
func (b *builder) batch() ownership.Batch {
	out := ownership.Batch{Nodes: b.nodes, Edges: b.edges}
	for _, id := range b.stubIDs {
		if _, ok := b.nodeAt[id]; !ok {
			out.Stubs = append(out.Stubs, b.stubs[id])
		}
	}
	if out.Nodes == nil {
		out.Nodes = []ownership.Node{}
	}
	if out.Edges == nil {
		out.Edges = []ownership.Edge{}
	}
	return out
}

// iso2 resolves a country code or name to ISO 3166 alpha-2, or "".
func iso2(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	if c, ok := country.Default().Resolve(s); ok {
		return c.ISO2
	}
	return ""
}

var spaces = regexp.MustCompile(`\s+`)

// nameID returns an id for a party known only by name: prefix, ":", the
// name lower-cased with runs of spaces collapsed. Legal forms are kept, so
// "X Ltd" and "X Inc" stay apart.
func nameID(prefix, name string) string {
	return prefix + ":" + strings.ToLower(spaces.ReplaceAllString(strings.TrimSpace(name), " "))
}

// cleanName trims a name and collapses its spaces.
func cleanName(s string) string {
	return spaces.ReplaceAllString(strings.TrimSpace(s), " ")
}

// finish returns the batch built from file with its counts, or an invalid
// error when the file had no data rows.
func (b *builder) finish(file string, st Stats) (ownership.Batch, Stats, error) {
	if st.Records == 0 {
		return ownership.Batch{}, st, lineError(file, 2, "no rows after the header")
	}
	out := b.batch()
	st.Nodes, st.Edges = len(out.Nodes), len(out.Edges)
	return out, st, nil
}
