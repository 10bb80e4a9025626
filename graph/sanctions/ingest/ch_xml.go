package ingest

import (
	"encoding/xml"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/tradecompliance/compliance/graph"
	"github.com/tradecompliance/compliance/graph/sanctions"
)

// The SECO XML schema (swiss-sanctions-list), as SECO publishes it:
//
//	<swiss-sanctions-list date="YYYY-MM-DD" list-type="whole-list">
//	  <sanctions-program ssid="..">
//	    <program-name lang="eng">..</program-name>
//	    <sanctions-set lang="eng" ssid="..">..</sanctions-set>
//	  </sanctions-program>
//	  <place ssid=".."><location>..</location><area>..</area><country iso-code="IR">..</country></place>
//	  <target ssid=".." sanctions-set-id="..">  (or a <sanctions-set-id> child)
//	    <foreign-identifier>QDi.123</foreign-identifier>
//	    <modification modification-type="listed|amended|de-listed" effective-date=".." publication-date=".."/>
//	    <individual sex=".."> | <entity> | <object object-type="vessel|aircraft">
//	      <identity ssid=".." main="true|false">
//	        <name name-type="primary-name|alias|formerly-known-as" quality="good|low">
//	          <name-part order="1" name-part-type="family-name|given-name|whole-name|title|...">
//	            <value>..</value><spelling-variant lang=".." script="..">..</spelling-variant>
//	          </name-part>
//	        </name>
//	        <day-month-year day=".." month=".." year=".."/>
//	        <nationality><country iso-code="..">..</country></nationality>
//	        <address place-id=".."><address-details>..</address-details><zip-code>..</zip-code></address>
//	        <identification-document document-type="passport|id-card|..">
//	          <number>..</number><issuer code="..">..</issuer></identification-document>
//	      </identity>
//	      <justification>..</justification>
//	      <relation target-id=".." relation-type=".."/>
//	      <other-information>IMO number: 1234567</other-information>
//	    </individual>
//	  </target>
//	</swiss-sanctions-list>

type chCountry struct {
	ISO  string `xml:"iso-code,attr"`
	Code string `xml:"code,attr"`
	Text string `xml:",chardata"`
}

func (c chCountry) code() string {
	for _, s := range []string{c.ISO, c.Code} {
		if code, ok := ISOCode(s); ok {
			return code
		}
	}
	code, _ := CountryCode(c.Text)
	return code
}

type chPlace struct {
	SSID     string    `xml:"ssid,attr"`
	Location string    `xml:"location"`
	Area     string    `xml:"area"`
	Country  chCountry `xml:"country"`
}

type chNamePart struct {
	Order    int    `xml:"order,attr"`
	Type     string `xml:"name-part-type,attr"`
	Value    string `xml:"value"`
	Variants []struct {
		Lang   string `xml:"lang,attr"`
		Script string `xml:"script,attr"`
		Text   string `xml:",chardata"`
	} `xml:"spelling-variant"`
}

type chName struct {
	Type    string       `xml:"name-type,attr"`
	Quality string       `xml:"quality,attr"`
	Parts   []chNamePart `xml:"name-part"`
}

type chIdentity struct {
	Main          string      `xml:"main,attr"`
	Names         []chName    `xml:"name"`
	Births        []chBirth   `xml:"day-month-year"`
	Nationalities []chCountry `xml:"nationality>country"`
	Addresses     []chAddress `xml:"address"`
	Documents     []struct {
		Type   string    `xml:"document-type,attr"`
		Number string    `xml:"number"`
		Issuer chCountry `xml:"issuer"`
	} `xml:"identification-document"`
}

type chBirth struct {
	Day   string `xml:"day,attr"`
	Month string `xml:"month,attr"`
	Year  string `xml:"year,attr"`
}

type chAddress struct {
	PlaceID  string    `xml:"place-id,attr"`
	Details  string    `xml:"address-details"`
	Zip      string    `xml:"zip-code"`
	POBox    string    `xml:"p-o-box"`
	Location string    `xml:"location"`
	Area     string    `xml:"area"`
	Country  chCountry `xml:"country"`
}

type chSubject struct {
	ObjectType     string       `xml:"object-type,attr"`
	Identities     []chIdentity `xml:"identity"`
	Justifications []string     `xml:"justification"`
	Relations      []struct {
		TargetID string `xml:"target-id,attr"`
		Type     string `xml:"relation-type,attr"`
	} `xml:"relation"`
	OtherInformation []string `xml:"other-information"`
}

type chTarget struct {
	SSID          string `xml:"ssid,attr"`
	SetIDAttr     string `xml:"sanctions-set-id,attr"`
	SetIDElem     string `xml:"sanctions-set-id"`
	Foreign       string `xml:"foreign-identifier"`
	Modifications []struct {
		Type          string `xml:"modification-type,attr"`
		EffectiveDate string `xml:"effective-date,attr"`
		Publication   string `xml:"publication-date,attr"`
	} `xml:"modification"`
	Individual *chSubject `xml:"individual"`
	Entity     *chSubject `xml:"entity"`
	Object     *chSubject `xml:"object"`
}

// ParseCHXML parses the Swiss SECO sanctions list XML (schema above). The
// source id is the target's ssid. The main identity's first primary name is
// the name; its other names, their spelling variants (Cyrillic, Arabic ...)
// and the other identities' names are aliases, weak when their quality is
// low. Relations to other targets become LinkedTo, quoted as those targets'
// names. Targets whose last modification de-lists them are skipped.
// Publication date: the root's date attribute.
func ParseCHXML(r io.Reader) (Result, error) {
	var res Result
	root := false
	programs := map[string]string{}
	places := map[string]chPlace{}
	var targets []chTarget
	err := walkXML(r, func(d *xml.Decoder, se xml.StartElement, depth int) (bool, error) {
		if depth == 0 {
			if se.Name.Local != "swiss-sanctions-list" {
				return false, fmt.Errorf("root element is <%s>, not <swiss-sanctions-list>", se.Name.Local)
			}
			root = true
			for _, a := range se.Attr {
				if a.Name.Local == "date" {
					t, err := time.Parse("2006-01-02", strings.TrimSpace(a.Value))
					if err != nil {
						return false, fmt.Errorf("date %q is not YYYY-MM-DD", a.Value)
					}
					res.Published = t
				}
			}
			return true, nil
		}
		if depth != 1 {
			return false, d.Skip()
		}
		switch se.Name.Local {
		case "sanctions-program":
			var p struct {
				Names []struct {
					Lang string `xml:"lang,attr"`
					Text string `xml:",chardata"`
				} `xml:"program-name"`
				Sets []struct {
					SSID string `xml:"ssid,attr"`
				} `xml:"sanctions-set"`
			}
			if err := d.DecodeElement(&p, &se); err != nil {
				return false, err
			}
			name := ""
			for _, n := range p.Names {
				if name == "" || n.Lang == "eng" {
					name = clean(n.Text)
				}
			}
			for _, s := range p.Sets {
				programs[clean(s.SSID)] = name
			}
			return false, nil
		case "place":
			var p chPlace
			if err := d.DecodeElement(&p, &se); err != nil {
				return false, err
			}
			places[clean(p.SSID)] = p
			return false, nil
		case "target":
			var t chTarget
			if err := d.DecodeElement(&t, &se); err != nil {
				return false, err
			}
			targets = append(targets, t)
			res.Records++
			return false, nil
		}
		return false, d.Skip()
	})
	if err != nil {
		return Result{}, err
	}
	if !root {
		return Result{}, graph.Invalid("file", "no <swiss-sanctions-list> element")
	}
	type rel struct {
		entry  int
		target string
	}
	var rels []rel
	names := map[string]string{}
	for _, t := range targets {
		e, relations, ok, err := t.entry(programs, places)
		if err != nil {
			return Result{}, graph.Invalid("file", "%v", err)
		}
		if !ok {
			res.Skipped++
			continue
		}
		names[e.SourceID] = e.Name
		for _, r := range relations {
			rels = append(rels, rel{len(res.Entries), r})
		}
		res.Entries = append(res.Entries, e)
	}
	for _, r := range rels {
		if name, ok := names[r.target]; ok {
			res.Entries[r.entry].LinkedTo = appendUnique(res.Entries[r.entry].LinkedTo, name)
		}
	}
	return res, nil
}

// entry maps a target; ok is false for a de-listed target or one with no
// name. It returns the ssids of the targets it is related to.
func (t *chTarget) entry(programs map[string]string, places map[string]chPlace) (e sanctions.Entry, relations []string, ok bool, err error) {
	e = sanctions.Entry{List: sanctions.ListCHSECO, SourceID: clean(t.SSID)}
	if e.SourceID == "" {
		return e, nil, false, fmt.Errorf("a target has no ssid")
	}
	var s *chSubject
	switch {
	case t.Individual != nil:
		s, e.Kind = t.Individual, sanctions.Person
	case t.Entity != nil:
		s, e.Kind = t.Entity, sanctions.Entity
	case t.Object != nil:
		s, e.Kind = t.Object, sanctions.Unknown
		switch strings.ToLower(clean(t.Object.ObjectType)) {
		case "vessel", "ship":
			e.Kind = sanctions.Vessel
		case "aircraft":
			e.Kind = sanctions.Aircraft
		}
	default:
		return e, nil, false, fmt.Errorf("target %s has no individual, entity or object", e.SourceID)
	}
	// The modifications run oldest first; the last tells the state.
	mods := t.Modifications
	if n := len(mods); n > 0 && strings.EqualFold(clean(mods[n-1].Type), "de-listed") {
		return e, nil, false, nil
	}
	for _, m := range mods {
		if strings.EqualFold(clean(m.Type), "listed") {
			d := clean(m.EffectiveDate)
			if d == "" {
				d = clean(m.Publication)
			}
			if tm, err := time.Parse("2006-01-02", d); err == nil && (e.Listed.IsZero() || tm.Before(e.Listed)) {
				e.Listed = tm
			}
		}
	}
	set := clean(t.SetIDAttr)
	if set == "" {
		set = clean(t.SetIDElem)
	}
	if p := programs[set]; p != "" {
		e.Programs = []string{p}
	} else if set != "" {
		e.Programs = []string{"sanctions set " + set}
	}
	if f := clean(t.Foreign); f != "" {
		e.Identifiers = append(e.Identifiers, sanctions.Identifier{Type: "UN Reference Number", Value: f})
	}
	// The main identity first.
	ids := append([]chIdentity(nil), s.Identities...)
	sort.SliceStable(ids, func(i, j int) bool { return ids[i].Main == "true" && ids[j].Main != "true" })
	for _, id := range ids {
		for _, n := range id.Names {
			whole, variants := n.compose()
			if whole == "" {
				continue
			}
			weak := strings.EqualFold(clean(n.Quality), "low")
			if e.Name == "" && !weak && (n.Type == "primary-name" || n.Type == "") {
				e.Name = whole
			} else {
				e.Aliases = append(e.Aliases, sanctions.Alias{Name: whole, Weak: weak})
			}
			for _, v := range variants {
				e.Aliases = append(e.Aliases, sanctions.Alias{Name: v, Weak: weak})
			}
		}
		for _, b := range id.Births {
			d := dateString(atoi(b.Year), atoi(b.Month), atoi(b.Day))
			if e.Kind == sanctions.Person {
				e.DatesOfBirth = appendUnique(e.DatesOfBirth, d)
			}
		}
		for _, c := range id.Nationalities {
			e.Countries = appendUnique(e.Countries, c.code())
		}
		for _, a := range id.Addresses {
			p := places[clean(a.PlaceID)]
			if clean(a.Location) != "" || clean(a.Area) != "" || a.Country.code() != "" {
				p = chPlace{Location: a.Location, Area: a.Area, Country: a.Country}
			}
			country := clean(p.Country.Text)
			po := ""
			if clean(a.POBox) != "" {
				po = "P.O. Box " + clean(a.POBox)
			}
			e.Addresses = appendUnique(e.Addresses, joinNonEmpty(", ", a.Details, po, a.Zip, p.Location, p.Area, country))
			e.Countries = appendUnique(e.Countries, p.Country.code())
		}
		for _, doc := range id.Documents {
			e.Identifiers = append(e.Identifiers, sanctions.Identifier{Type: clean(doc.Type), Value: clean(doc.Number), Country: doc.Issuer.code()})
		}
	}
	if e.Name == "" && len(e.Aliases) > 0 {
		e.Name, e.Aliases = e.Aliases[0].Name, e.Aliases[1:]
	}
	if e.Name == "" {
		return e, nil, false, nil
	}
	var notes []string
	for _, o := range s.OtherInformation {
		o = clean(o)
		notes = append(notes, o)
		if imo := findIMO(o); imo != "" {
			if e.Kind == sanctions.Vessel && e.IMO == "" {
				e.IMO = imo
			} else if e.Kind != sanctions.Vessel {
				e.Identifiers = append(e.Identifiers, sanctions.Identifier{Type: "IMO", Value: imo})
			}
		}
	}
	for _, j := range s.Justifications {
		notes = append(notes, clean(j))
	}
	e.Remarks = joinNonEmpty(" ", notes...)
	for _, r := range s.Relations {
		if id := clean(r.TargetID); id != "" {
			relations = append(relations, id)
		}
	}
	finish(&e)
	return e, relations, true, nil
}

// compose writes a name's parts in order, titles left out, and the names
// its spelling variants give, one per language and script. Parts typed
// "suffix" are kept: SECO types real name parts so ("Willie Adolphus Coo
// Coo"), and "Jr." tells two people apart.
func (n chName) compose() (string, []string) {
	parts := append([]chNamePart(nil), n.Parts...)
	sort.SliceStable(parts, func(i, j int) bool { return parts[i].Order < parts[j].Order })
	var whole []string
	type key struct{ lang, script string }
	variants := map[key][]string{}
	var order []key
	for i, p := range parts {
		if p.Type == "title" {
			continue
		}
		whole = append(whole, p.Value)
		for _, v := range p.Variants {
			k := key{v.Lang, v.Script}
			if _, ok := variants[k]; !ok {
				order = append(order, k)
				variants[k] = make([]string, len(parts))
			}
			variants[k][i] = v.Text
		}
	}
	var out []string
	for _, k := range order {
		var vs []string
		for i, p := range parts {
			if p.Type == "title" {
				continue
			}
			if variants[k][i] != "" {
				vs = append(vs, variants[k][i])
			} else {
				vs = append(vs, p.Value)
			}
		}
		out = append(out, joinNonEmpty(" ", vs...))
	}
	return joinNonEmpty(" ", whole...), out
}
