package ingest

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/tradecompliance/compliance/graph"
	"github.com/tradecompliance/compliance/graph/sanctions"
)

// OFACFiles are the files of one OFAC legacy CSV set. Primary (sdn.csv or
// cons_prim.csv) is required; the others may be nil.
type OFACFiles struct {
	Primary   io.Reader // ent_num, SDN_Name, SDN_Type, Program, Title, Call_Sign, Vess_type, Tonnage, GRT, Vess_flag, Vess_owner, Remarks
	Addresses io.Reader // add.csv: ent_num, Add_num, Address, City/State/Province/Postal Code, Country, Add_remarks
	Aliases   io.Reader // alt.csv: ent_num, alt_num, alt_type, alt_name, alt_remarks
	Comments  io.Reader // sdn_comments.csv: ent_num, remarks_extended (the remarks beyond the primary file's limit)
}

// ParseOFACCSV parses an OFAC legacy CSV set (the SDN set or the non-SDN
// Consolidated cons_* set, same layout) into entries of list. Side-file
// rows whose ent_num the primary file lacks (later designations, when the
// files come from different days) are ignored and counted in
// Result.Orphans. The CSV files state no publication date.
func ParseOFACCSV(list string, files OFACFiles) (Result, error) {
	if files.Primary == nil {
		return Result{}, graph.Invalid("file", "the OFAC CSV set has no primary file (sdn.csv)")
	}
	var entries []sanctions.Entry
	index := map[string]int{}
	remarks := map[string]string{}
	err := readOFAC(files.Primary, "sdn.csv", 12, func(line int, r []string) error {
		id := r[0]
		if _, dup := index[id]; dup {
			return fmt.Errorf("line %d: ent_num %s appears twice", line, id)
		}
		e := sanctions.Entry{List: list, SourceID: id, Name: ofacEmpty(r[1])}
		if e.Name == "" {
			return fmt.Errorf("line %d: ent_num %s has no name", line, id)
		}
		switch strings.ToLower(ofacEmpty(r[2])) {
		case "individual":
			e.Kind = sanctions.Person
		case "vessel":
			e.Kind = sanctions.Vessel
		case "aircraft":
			e.Kind = sanctions.Aircraft
		case "":
			e.Kind = sanctions.Entity
		default:
			return fmt.Errorf("line %d: unknown SDN_Type %q", line, r[2])
		}
		e.Programs = splitPrograms(ofacEmpty(r[3]))
		if cs := ofacEmpty(r[5]); cs != "" {
			e.Identifiers = append(e.Identifiers, sanctions.Identifier{Type: "Call Sign", Value: cs})
		}
		if flag := ofacEmpty(r[9]); flag != "" {
			e.Countries = appendCountries(e.Countries, flag)
		}
		remarks[id] = ofacRaw(r[11])
		index[id] = len(entries)
		entries = append(entries, e)
		return nil
	})
	if err != nil {
		return Result{}, err
	}
	res := Result{Orphans: map[string]int{}, Records: len(entries)}
	orphan := func(kind, id string, seen map[string]bool) {
		if !seen[id] {
			seen[id] = true
			res.Orphans[kind]++
		}
	}
	if files.Comments != nil {
		seen := map[string]bool{}
		err := readOFAC(files.Comments, "sdn_comments.csv", 2, func(line int, r []string) error {
			if _, ok := index[r[0]]; !ok {
				orphan("comments", r[0], seen)
				return nil
			}
			remarks[r[0]] += ofacRaw(r[1])
			return nil
		})
		if err != nil {
			return Result{}, err
		}
	}
	if files.Aliases != nil {
		seen := map[string]bool{}
		err := readOFAC(files.Aliases, "alt.csv", 5, func(line int, r []string) error {
			i, ok := index[r[0]]
			if !ok {
				orphan("alt", r[0], seen)
				return nil
			}
			if name := ofacEmpty(r[3]); name != "" {
				entries[i].Aliases = appendAlias(entries[i].Aliases, entries[i].Name, name, false)
			}
			return nil
		})
		if err != nil {
			return Result{}, err
		}
	}
	if files.Addresses != nil {
		seen := map[string]bool{}
		err := readOFAC(files.Addresses, "add.csv", 6, func(line int, r []string) error {
			i, ok := index[r[0]]
			if !ok {
				orphan("add", r[0], seen)
				return nil
			}
			country := ofacEmpty(r[4])
			addr := joinNonEmpty(", ", ofacEmpty(r[2]), ofacEmpty(r[3]), country)
			entries[i].Addresses = appendUnique(entries[i].Addresses, addr)
			entries[i].Countries = appendCountries(entries[i].Countries, country)
			return nil
		})
		if err != nil {
			return Result{}, err
		}
	}
	for i := range entries {
		e := &entries[i]
		parseOFACRemarks(e, remarks[e.SourceID])
		finish(e)
	}
	if len(res.Orphans) == 0 {
		res.Orphans = nil
	}
	res.Entries = entries
	return res, nil
}

// readOFAC reads one headerless OFAC CSV file whose records have want
// fields, the first an integer ent_num, calling f with each. It tolerates
// the trailing 0x1A (DOS end-of-file) byte and blank lines.
func readOFAC(r io.Reader, name string, want int, f func(line int, rec []string) error) error {
	data, err := io.ReadAll(io.LimitReader(r, MaxFileBytes+1))
	if err != nil {
		return graph.Invalid("file", "%s: %v", name, err)
	}
	data = bytes.TrimRight(data, "\x1a\r\n \t")
	cr := csv.NewReader(strings.NewReader(toUTF8(data)))
	cr.FieldsPerRecord = -1
	cr.LazyQuotes = true
	cr.ReuseRecord = true
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		line, _ := cr.FieldPos(0)
		if err != nil {
			return graph.Invalid("file", "%s: %v", name, err)
		}
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue
		}
		if len(rec) != want {
			return graph.Invalid("file", "%s: line %d: expected %d fields, got %d (is this the right file of the set?)", name, line, want, len(rec))
		}
		rec[0] = strings.TrimSpace(rec[0])
		if _, err := strconv.ParseUint(rec[0], 10, 32); err != nil {
			return graph.Invalid("file", "%s: line %d: ent_num %q is not a number", name, line, rec[0])
		}
		if err := f(line, rec); err != nil {
			return graph.Invalid("file", "%s: %v", name, err)
		}
	}
}

// ofacFieldCount returns the number of fields of the first record of an
// OFAC CSV file, or 0.
func ofacFieldCount(data []byte) int {
	line, _, _ := bytes.Cut(data, []byte("\n"))
	cr := csv.NewReader(bytes.NewReader(line))
	cr.LazyQuotes = true
	cr.FieldsPerRecord = -1
	rec, err := cr.Read()
	if err != nil {
		return 0
	}
	return len(rec)
}

// ofacRaw returns s unchanged, or "" for the "-0-" placeholder: remarks are
// cleaned only once their overflow (sdn_comments.csv) is joined to them, so
// a space at the cut is kept.
func ofacRaw(s string) string {
	if strings.TrimSpace(s) == "-0-" {
		return ""
	}
	return s
}

// splitPrograms splits OFAC's "SDGT] [SYRIA" program lists.
func splitPrograms(s string) []string {
	s = strings.Trim(s, "[] ")
	if s == "" {
		return nil
	}
	var out []string
	for _, p := range strings.Split(s, "] [") {
		out = appendUnique(out, strings.Trim(p, "[] "))
	}
	return out
}

func joinNonEmpty(sep string, parts ...string) string {
	var keep []string
	for _, p := range parts {
		if p = clean(p); p != "" {
			keep = append(keep, p)
		}
	}
	return strings.Join(keep, sep)
}

// appendCountries appends the codes of the countries text names.
func appendCountries(list []string, text string) []string {
	return appendUnique(list, CountryCodes(text)...)
}

// appendAlias appends name as an alias unless it is empty, the primary name
// or an alias already present (compared case-insensitively). A strong
// mention of an alias present as weak makes it strong.
func appendAlias(aliases []sanctions.Alias, primary, name string, weak bool) []sanctions.Alias {
	name = clean(name)
	if name == "" || strings.EqualFold(name, primary) {
		return aliases
	}
	for i, a := range aliases {
		if strings.EqualFold(a.Name, name) {
			if !weak {
				aliases[i].Weak = false
			}
			return aliases
		}
	}
	return append(aliases, sanctions.Alias{Name: name, Weak: weak})
}

// finish tidies an entry: trims its strings, drops empty and duplicate
// values and sets an unknown kind.
func finish(e *sanctions.Entry) {
	e.Name = clean(e.Name)
	e.SourceID = clean(e.SourceID)
	if e.Kind == "" {
		e.Kind = sanctions.Unknown
	}
	aliases := e.Aliases[:0:0]
	for _, a := range e.Aliases {
		aliases = appendAlias(aliases, e.Name, a.Name, a.Weak)
	}
	e.Aliases = nilIfEmpty(aliases)
	e.Programs = nilIfEmpty(appendUnique(nil, e.Programs...))
	e.Countries = nilIfEmpty(appendUnique(nil, e.Countries...))
	e.DatesOfBirth = nilIfEmpty(appendUnique(nil, e.DatesOfBirth...))
	e.Addresses = nilIfEmpty(appendUnique(nil, e.Addresses...))
	e.LinkedTo = nilIfEmpty(appendUnique(nil, e.LinkedTo...))
	e.Remarks = strings.TrimSpace(e.Remarks)
	ids := e.Identifiers[:0:0]
	seen := map[sanctions.Identifier]bool{}
	for _, id := range e.Identifiers {
		id.Type, id.Value = clean(id.Type), clean(id.Value)
		if id.Value == "" || seen[id] {
			continue
		}
		seen[id] = true
		ids = append(ids, id)
	}
	e.Identifiers = nilIfEmpty(ids)
}

func nilIfEmpty[T any](s []T) []T {
	if len(s) == 0 {
		return nil
	}
	return s
}
