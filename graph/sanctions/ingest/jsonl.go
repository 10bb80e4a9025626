package ingest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/tradecompliance/compliance/graph"
	"github.com/tradecompliance/compliance/graph/sanctions"
)

// maxLine bounds one line of a JSON-lines file.
const maxLine = 16 << 20

// ParseJSONL parses the normalized JSON-lines format (see the package
// documentation): one sanctions.Entry per line, with list equal to list.
// It is strict: a line that is not a valid entry rejects the file, naming
// the line and the field.
func ParseJSONL(list string, r io.Reader) (Result, error) {
	var res Result
	seen := map[string]int{}
	err := eachLine(r, func(n int, line []byte) error {
		if n == 1 && bytes.Contains(line, []byte(`"_snapshot"`)) {
			var h struct {
				Snapshot *struct {
					Published time.Time `json:"published"`
				} `json:"_snapshot"`
			}
			if err := json.Unmarshal(line, &h); err != nil {
				return graph.Invalid("file", "line 1: bad _snapshot header: %v", err)
			}
			if h.Snapshot != nil {
				res.Published = h.Snapshot.Published.UTC()
				return nil
			}
		}
		var e sanctions.Entry
		if err := json.Unmarshal(line, &e); err != nil {
			return graph.Invalid("file", "line %d: %v", n, err)
		}
		if err := validateEntry(list, &e); err != nil {
			return graph.Invalid("file", "line %d: %s", n, err.Error())
		}
		if prev, dup := seen[e.SourceID]; dup {
			return graph.Invalid("file", "line %d: source_id %q already on line %d", n, e.SourceID, prev)
		}
		seen[e.SourceID] = n
		finish(&e)
		res.Records++
		res.Entries = append(res.Entries, e)
		return nil
	})
	return res, err
}

// eachLine calls f with each non-blank line of r and its 1-based number.
func eachLine(r io.Reader, f func(n int, line []byte) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	n := 0
	for sc.Scan() {
		n++
		line := bytes.TrimSpace(sc.Bytes())
		if n == 1 {
			line = trimBOM(line)
		}
		if len(line) == 0 {
			continue
		}
		if err := f(n, line); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return graph.Invalid("file", "line %d: %v", n+1, err)
	}
	return nil
}

// validateEntry checks an entry of the normalized format.
func validateEntry(list string, e *sanctions.Entry) error {
	switch {
	case e.List == "":
		return fmt.Errorf("list is required")
	case e.List != list:
		return fmt.Errorf("list %q is not the list being ingested (%s)", e.List, list)
	case clean(e.SourceID) == "":
		return fmt.Errorf("source_id is required")
	case clean(e.Name) == "":
		return fmt.Errorf("name is required")
	}
	switch e.Kind {
	case "":
		e.Kind = sanctions.Unknown
	case sanctions.Person, sanctions.Entity, sanctions.Vessel, sanctions.Aircraft, sanctions.Unknown:
	default:
		return fmt.Errorf("kind %q is not person, entity, vessel, aircraft or unknown", e.Kind)
	}
	for i, c := range e.Countries {
		code, ok := ISOCode(c)
		if !ok {
			return fmt.Errorf("countries[%d] %q is not an ISO 3166-1 alpha-2 code", i, c)
		}
		e.Countries[i] = code
	}
	for i, d := range e.DatesOfBirth {
		if !validPartialDate(d) {
			return fmt.Errorf("dates_of_birth[%d] %q is not YYYY, YYYY-MM or YYYY-MM-DD", i, d)
		}
	}
	if e.IMO != "" && !isDigits(e.IMO, 7) {
		return fmt.Errorf("imo %q is not a 7-digit number", e.IMO)
	}
	for i, a := range e.Aliases {
		if clean(a.Name) == "" {
			return fmt.Errorf("aliases[%d].name is empty", i)
		}
	}
	for i, id := range e.Identifiers {
		if id.Country == "" {
			continue
		}
		code, ok := ISOCode(id.Country)
		if !ok {
			return fmt.Errorf("identifiers[%d].country %q is not an ISO 3166-1 alpha-2 code", i, id.Country)
		}
		e.Identifiers[i].Country = code
	}
	return nil
}

func isDigits(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
