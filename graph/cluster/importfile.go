package cluster

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/tradecompliance/compliance/graph"
)

// Bounds of a record's fields.
const (
	MinNameLen   = 2
	MaxNameLen   = 300
	MaxAliases   = 50
	MaxSourceLen = 1000
	MaxSlugLen   = 120
)

// ImportColumns are the fields of an import line: the CSV header names and
// the JSON lines member names. entity_name and severity are required.
var ImportColumns = []string{
	"slug", "entity_name", "aliases", "severity", "country", "group", "added_at", "source", "sanctions_source", "protected",
}

var slugRE = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// ReservedSlug is the one word a slug may not be: /api/v1/clusters/
// submissions/{request_id} shares its route with /api/v1/clusters/{slug}/
// graph, so a record or group of that slug could never be reached.
const ReservedSlug = "submissions"

// ValidSlug reports whether s is a slug: lower-case letters and digits in
// hyphen-separated runs, at most MaxSlugLen bytes, and not ReservedSlug.
func ValidSlug(s string) bool {
	return len(s) <= MaxSlugLen && slugRE.MatchString(s) && s != ReservedSlug
}

// Slugify returns a slug for name: diacritics removed, letters and digits
// lower-cased, every other run of characters one hyphen. A name with no
// Latin letter or digit gets "entity-" and a hash of the name.
func Slugify(name string) string {
	var b strings.Builder
	dash := false
	for _, r := range norm.NFKD.String(name) {
		switch {
		case r < utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r)):
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(unicode.ToLower(r))
		case unicode.Is(unicode.Mn, r): // a combining mark of a decomposed letter
		default:
			dash = true
		}
		if b.Len() >= MaxSlugLen-1 {
			break
		}
	}
	s := strings.Trim(b.String(), "-")
	if len(s) > MaxSlugLen {
		s = strings.Trim(s[:MaxSlugLen], "-")
	}
	if s == "" {
		sum := sha256.Sum256([]byte(name))
		s = "entity-" + hex.EncodeToString(sum[:6])
	}
	if s == ReservedSlug {
		s += "-entity"
	}
	return s
}

// ImportError is a bad import line: the file and line are named.
type ImportError struct {
	File  string
	Line  int
	Field string
	Msg   string
}

func (e *ImportError) Error() string {
	if e.Field != "" {
		return fmt.Sprintf("%s:%d: %s: %s", e.File, e.Line, e.Field, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
}

// importLine is one line as read, before validation.
type importLine struct {
	Slug            string   `json:"slug"`
	EntityName      string   `json:"entity_name"`
	Aliases         []string `json:"aliases"`
	Severity        string   `json:"severity"`
	Country         string   `json:"country"`
	Group           string   `json:"group"`
	AddedAt         string   `json:"added_at"`
	Source          string   `json:"source"`
	SanctionsSource string   `json:"sanctions_source"`
	Protected       bool     `json:"protected"`
}

// ParseImport reads an import file: CSV with a header row of ImportColumns
// (aliases separated by "|"), or JSON lines with the same member names
// (aliases an array). The format is chosen by the extension of name (.csv;
// .jsonl, .ndjson or .json) and otherwise by the first character. It fails
// with an *ImportError naming name and the line for the first bad line, or
// for two lines with the same slug. AddedAt is zero where the line gives
// none.
func ParseImport(name string, r io.Reader) ([]Record, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	var lines []importLine
	var lineNos []int
	switch ext := strings.ToLower(filepath.Ext(name)); {
	case ext == ".csv":
		lines, lineNos, err = parseCSV(name, data)
	case ext == ".jsonl" || ext == ".ndjson" || ext == ".json" || bytes.HasPrefix(bytes.TrimSpace(data), []byte("{")):
		lines, lineNos, err = parseJSONL(name, data)
	default:
		lines, lineNos, err = parseCSV(name, data)
	}
	if err != nil {
		return nil, err
	}
	out := make([]Record, 0, len(lines))
	seen := map[string]int{}
	for i, l := range lines {
		rec, err := l.record()
		if err != nil {
			var ge *graph.Error
			if errors.As(err, &ge) {
				return nil, &ImportError{File: name, Line: lineNos[i], Field: ge.Field, Msg: ge.Message}
			}
			return nil, &ImportError{File: name, Line: lineNos[i], Msg: err.Error()}
		}
		if prev, dup := seen[rec.Slug]; dup {
			return nil, &ImportError{File: name, Line: lineNos[i], Field: "slug",
				Msg: fmt.Sprintf("slug %q is also on line %d (give each entity its own slug)", rec.Slug, prev)}
		}
		seen[rec.Slug] = lineNos[i]
		out = append(out, rec)
	}
	return out, nil
}

func parseJSONL(name string, data []byte) ([]importLine, []int, error) {
	var lines []importLine
	var nos []int
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 || text[0] == '#' {
			continue
		}
		var l importLine
		dec := json.NewDecoder(bytes.NewReader(text))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&l); err != nil {
			return nil, nil, &ImportError{File: name, Line: n, Msg: "not a JSON object of the import fields: " + strings.TrimPrefix(err.Error(), "json: ")}
		}
		if dec.More() {
			return nil, nil, &ImportError{File: name, Line: n, Msg: "more than one JSON value on the line"}
		}
		lines = append(lines, l)
		nos = append(nos, n)
	}
	if err := sc.Err(); err != nil {
		return nil, nil, &ImportError{File: name, Line: n + 1, Msg: err.Error()}
	}
	return lines, nos, nil
}

func parseCSV(name string, data []byte) ([]importLine, []int, error) {
	cr := csv.NewReader(bytes.NewReader(data))
	cr.FieldsPerRecord = -1
	header, err := cr.Read()
	if err == io.EOF {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, &ImportError{File: name, Line: 1, Msg: "malformed CSV header: " + err.Error()}
	}
	cols := make([]string, len(header))
	for i, h := range header {
		h = strings.ToLower(strings.TrimSpace(h))
		if !slices.Contains(ImportColumns, h) {
			return nil, nil, &ImportError{File: name, Line: 1, Msg: fmt.Sprintf("unknown column %q (columns: %s)", h, strings.Join(ImportColumns, ","))}
		}
		if slices.Contains(cols[:i], h) {
			return nil, nil, &ImportError{File: name, Line: 1, Msg: fmt.Sprintf("column %q twice", h)}
		}
		cols[i] = h
	}
	for _, req := range []string{"entity_name", "severity"} {
		if !slices.Contains(cols, req) {
			return nil, nil, &ImportError{File: name, Line: 1, Msg: "the header has no " + req + " column"}
		}
	}
	var lines []importLine
	var nos []int
	for {
		fields, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			line := 0
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				line = pe.Line
			}
			return nil, nil, &ImportError{File: name, Line: line, Msg: "malformed CSV: " + err.Error()}
		}
		line, _ := cr.FieldPos(0)
		if len(fields) == 1 && strings.TrimSpace(fields[0]) == "" {
			continue
		}
		if len(fields) != len(cols) {
			return nil, nil, &ImportError{File: name, Line: line, Msg: fmt.Sprintf("%d fields, the header has %d", len(fields), len(cols))}
		}
		var l importLine
		for i, c := range cols {
			v := strings.TrimSpace(fields[i])
			switch c {
			case "slug":
				l.Slug = v
			case "entity_name":
				l.EntityName = v
			case "aliases":
				for a := range strings.SplitSeq(v, "|") {
					if a = strings.TrimSpace(a); a != "" {
						l.Aliases = append(l.Aliases, a)
					}
				}
			case "severity":
				l.Severity = v
			case "country":
				l.Country = v
			case "group":
				l.Group = v
			case "added_at":
				l.AddedAt = v
			case "source":
				l.Source = v
			case "sanctions_source":
				l.SanctionsSource = v
			case "protected":
				if v != "" {
					b, err := strconv.ParseBool(v)
					if err != nil {
						return nil, nil, &ImportError{File: name, Line: line, Field: "protected", Msg: "protected must be true or false"}
					}
					l.Protected = b
				}
			}
		}
		lines = append(lines, l)
		nos = append(nos, line)
	}
	return lines, nos, nil
}

// record validates l. It fails with graph.Invalid naming the field.
func (l importLine) record() (Record, error) {
	r := Record{
		EntityName: strings.TrimSpace(l.EntityName), Severity: Severity(strings.ToLower(strings.TrimSpace(l.Severity))),
		Group: strings.TrimSpace(l.Group), Source: strings.TrimSpace(l.Source), Protected: l.Protected,
		SanctionsSource: strings.TrimSpace(l.SanctionsSource), Aliases: []string{},
	}
	if err := ValidName("entity_name", r.EntityName); err != nil {
		return Record{}, err
	}
	if !r.Severity.Valid() {
		return Record{}, graph.Invalid("severity", "severity must be confirmed, likely or suspected")
	}
	r.Slug = strings.TrimSpace(l.Slug)
	if r.Slug == "" {
		r.Slug = Slugify(r.EntityName)
	} else if !ValidSlug(r.Slug) {
		return Record{}, graph.Invalid("slug", "slug must be lower-case letters and digits separated by single hyphens, at most %d characters, and not %q", MaxSlugLen, ReservedSlug)
	}
	if r.Group != "" && !ValidSlug(r.Group) {
		return Record{}, graph.Invalid("group", "group must be a slug: lower-case letters and digits separated by single hyphens, and not %q", ReservedSlug)
	}
	var err error
	if r.Country, err = ParseCountry("country", l.Country); err != nil {
		return Record{}, err
	}
	if len(l.Aliases) > MaxAliases {
		return Record{}, graph.Invalid("aliases", "at most %d aliases", MaxAliases)
	}
	// Aliases are deduplicated by normalized key, as the registry stores
	// them, so that a re-import of the same line is unchanged.
	var keys []string
	for _, a := range l.Aliases {
		a = strings.TrimSpace(a)
		if err := ValidName("aliases", a); err != nil {
			return Record{}, err
		}
		if k := Normalize(a); !slices.Contains(keys, k) {
			keys = append(keys, k)
			r.Aliases = append(r.Aliases, a)
		}
	}
	if utf8.RuneCountInString(r.Source) > MaxSourceLen {
		return Record{}, graph.Invalid("source", "source must be at most %d characters", MaxSourceLen)
	}
	if strings.ContainsRune(r.Source, 0) {
		return Record{}, graph.Invalid("source", "source must not contain NUL characters")
	}
	if r.SanctionsSource != "" && !slices.ContainsFunc(graph.SanctionsLists, func(s graph.SanctionsList) bool { return s.ID == r.SanctionsSource }) {
		return Record{}, graph.Invalid("sanctions_source", "sanctions_source must be one of the 8 list ids (us_sdn, us_cons, un, eu, uk_hmt, ca, au_dfat, ch_seco)")
	}
	if l.AddedAt != "" {
		t, err := parseTime(l.AddedAt)
		if err != nil {
			return Record{}, graph.Invalid("added_at", "added_at must be an RFC 3339 date-time or a YYYY-MM-DD date")
		}
		r.AddedAt = t
	}
	return r, nil
}

// ValidName checks an entity name or alias: 2 to 300 characters, at least
// MinCheckChars letters or digits, no NUL (which PostgreSQL text cannot
// hold). It fails with graph.Invalid(field, ...).
func ValidName(field, s string) error {
	n := utf8.RuneCountInString(s)
	if n < MinNameLen || n > MaxNameLen {
		return graph.Invalid(field, "%s must be %d to %d characters", field, MinNameLen, MaxNameLen)
	}
	if strings.ContainsRune(s, 0) {
		return graph.Invalid(field, "%s must not contain NUL characters", field)
	}
	if utf8.RuneCountInString(Normalize(s)) < MinCheckChars {
		return graph.Invalid(field, "%s must have at least %d letters or digits", field, MinCheckChars)
	}
	return nil
}

// parseTime reads an RFC 3339 date-time or a YYYY-MM-DD date (midnight
// UTC), returned in UTC.
func parseTime(s string) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t.UTC(), nil
	}
	if t, err := time.Parse("2006-01-02T15:04:05.999999999", s); err == nil {
		return t, nil // ISO 8601 without an offset: read as UTC
	}
	t, err := time.Parse(time.DateOnly, s)
	return t.UTC(), err
}

// ParseSince reads the since filter: an RFC 3339 date-time, an ISO 8601
// date-time without offset (read as UTC) or a date. It fails with
// graph.Invalid("since", ...).
func ParseSince(s string) (time.Time, error) {
	t, err := parseTime(strings.TrimSpace(s))
	if err != nil {
		return time.Time{}, graph.Invalid("since", "since must be an ISO 8601 date-time such as 2026-01-02T03:04:05Z")
	}
	return t, nil
}
