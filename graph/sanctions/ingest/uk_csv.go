package ingest

import (
	"encoding/csv"
	"errors"
	"io"
	"regexp"
	"strings"
	"time"

	"github.com/tradecompliance/compliance/graph"
	"github.com/tradecompliance/compliance/graph/sanctions"
)

// ParseUKCSV parses OFSI's consolidated list CSV (ConList.csv): a
// "Last Updated,DD/MM/YYYY" line (the publication date), a header line,
// then one row per name of a designation, rows of one designation sharing
// its Group ID (the source id). Columns are found by their header names, so
// added or reordered columns are tolerated. The row whose Alias Type is
// "Primary Name" (or "Prime Alias") gives the name; the others are
// aliases, weak when their Alias Quality is low. Name 1-5 are the given
// names and Name 6 the family name, written in that order. Associations by
// UN reference number in Other Information become LinkedTo.
func ParseUKCSV(r io.Reader) (Result, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxFileBytes+1))
	if err != nil {
		return Result{}, graph.Invalid("file", "%v", err)
	}
	cr := csv.NewReader(strings.NewReader(toUTF8(data)))
	cr.FieldsPerRecord = -1
	cr.LazyQuotes = true
	var res Result
	var col map[string]int
	type group struct {
		e        sanctions.Entry
		primary  bool
		unRef    string
		otherRaw string
	}
	var groups []*group
	byID := map[string]*group{}
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		line, _ := cr.FieldPos(0)
		if err != nil {
			return Result{}, graph.Invalid("file", "%v", err)
		}
		if len(rec) == 0 || (len(rec) == 1 && strings.TrimSpace(rec[0]) == "") {
			continue
		}
		if col == nil {
			first := strings.TrimSpace(rec[0])
			if strings.EqualFold(first, "Last Updated") {
				if len(rec) > 1 {
					t, err := time.Parse("02/01/2006", strings.TrimSpace(rec[1]))
					if err != nil {
						return Result{}, graph.Invalid("file", "line %d: Last Updated %q is not DD/MM/YYYY", line, rec[1])
					}
					res.Published = t
				}
				continue
			}
			col = map[string]int{}
			for i, h := range rec {
				col[strings.ToLower(clean(h))] = i
			}
			for _, need := range []string{"name 6", "group id", "group type"} {
				if _, ok := col[need]; !ok {
					return Result{}, graph.Invalid("file", "line %d: no %q column: not an OFSI ConList.csv header", line, need)
				}
			}
			continue
		}
		get := func(name string) string {
			if i, ok := col[name]; ok && i < len(rec) {
				return clean(rec[i])
			}
			return ""
		}
		res.Records++
		id := get("group id")
		if id == "" {
			return Result{}, graph.Invalid("file", "line %d: no Group ID", line)
		}
		name := joinNonEmpty(" ", get("name 1"), get("name 2"), get("name 3"), get("name 4"), get("name 5"), get("name 6"))
		g := byID[id]
		if g == nil {
			g = &group{e: sanctions.Entry{List: sanctions.ListUKHMT, SourceID: id, Kind: ukKind(get("group type"))}}
			byID[id] = g
			groups = append(groups, g)
		}
		e := &g.e
		aliasType := strings.ToLower(get("alias type"))
		switch {
		case name == "":
		case !g.primary && (aliasType == "primary name" || aliasType == "prime alias"):
			if e.Name != "" {
				e.Aliases = append(e.Aliases, sanctions.Alias{Name: e.Name})
			}
			e.Name, g.primary = name, true
		case e.Name == "":
			e.Name = name
		default:
			e.Aliases = append(e.Aliases, sanctions.Alias{Name: name, Weak: strings.HasPrefix(strings.ToLower(get("alias quality")), "low")})
		}
		if nl := get("name non-latin script"); nl != "" {
			e.Aliases = append(e.Aliases, sanctions.Alias{Name: nl})
		}
		e.DatesOfBirth = appendUnique(e.DatesOfBirth, extractDates(get("dob"))...)
		e.Countries = appendCountries(e.Countries, get("nationality"))
		country := get("country")
		addr := joinNonEmpty(", ", get("address 1"), get("address 2"), get("address 3"), get("address 4"),
			get("address 5"), get("address 6"), get("post/zip code"), country)
		e.Addresses = appendUnique(e.Addresses, addr)
		e.Countries = appendCountries(e.Countries, country)
		if p := get("passport number"); p != "" {
			e.Identifiers = append(e.Identifiers, sanctions.Identifier{Type: "Passport", Value: p, Country: firstCountry(get("passport details"))})
		}
		if n := get("national identification number"); n != "" {
			details := get("national identification details")
			if details == "" {
				details = get("ni details")
			}
			e.Identifiers = append(e.Identifiers, sanctions.Identifier{Type: "National Identification Number", Value: n, Country: firstCountry(details)})
		}
		for h, i := range col {
			if strings.Contains(h, "imo") && i < len(rec) && e.IMO == "" {
				if v := clean(rec[i]); len(v) == 7 {
					e.IMO = v
				}
			}
		}
		e.Programs = appendUnique(e.Programs, get("regime"))
		if e.Listed.IsZero() {
			if t, err := time.Parse("02/01/2006", get("listed on")); err == nil {
				e.Listed = t
			}
		}
		if other := get("other information"); other != "" && !strings.Contains(e.Remarks, other) {
			e.Remarks = joinNonEmpty(" ", e.Remarks, other)
			if m := reUKUNRef.FindStringSubmatch(other); m != nil && g.unRef == "" {
				g.unRef = m[1]
			}
		}
	}
	if col == nil {
		return Result{}, graph.Invalid("file", "no header line: not an OFSI ConList.csv")
	}
	for _, g := range groups {
		e := &g.e
		if e.Name == "" {
			return Result{}, graph.Invalid("file", "Group ID %s has no name", e.SourceID)
		}
		if imo := findIMO(e.Remarks); imo != "" && e.IMO == "" && e.Kind == sanctions.Vessel {
			e.IMO = imo
		}
		if g.unRef != "" {
			e.Identifiers = append(e.Identifiers, sanctions.Identifier{Type: "UN Reference Number", Value: g.unRef})
		}
		res.Entries = append(res.Entries, *e)
	}
	unRef := map[string]string{}
	for i, g := range groups {
		if g.unRef != "" {
			unRef[res.Entries[i].SourceID] = g.unRef
		}
	}
	linkByReference(res.Entries, func(e *sanctions.Entry) string { return unRef[e.SourceID] },
		func(e *sanctions.Entry) string { return e.Remarks })
	for i := range res.Entries {
		finish(&res.Entries[i])
	}
	return res, nil
}

// reUKUNRef finds an entry's own UN reference in ConList's Other
// Information ("UN Ref IRi.018").
var reUKUNRef = regexp.MustCompile(`UN Ref(?:erence Number)?:?\s*(?:UN Ref\s*)?([A-Z]{2}[ie]\.\d{3})`)

func ukKind(groupType string) sanctions.Kind {
	switch strings.ToLower(clean(groupType)) {
	case "individual":
		return sanctions.Person
	case "entity":
		return sanctions.Entity
	case "ship":
		return sanctions.Vessel
	}
	return sanctions.Unknown
}

// firstCountry returns the code of the first country text names, or "".
func firstCountry(text string) string {
	if cs := CountryCodes(text); len(cs) > 0 {
		return cs[0]
	}
	return ""
}
