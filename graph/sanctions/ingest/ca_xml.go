package ingest

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/tradecompliance/compliance/graph"
	"github.com/tradecompliance/compliance/graph/sanctions"
)

// caRecord is one record of sema-lmes.xml. The 2020 file names the fields
// Entity, DateOfBirth and Aliases; later ones EntityOrShip and
// DateOfBirthOrShipBuildDate (and the Ammitto transcription follows them).
type caRecord struct {
	Country      string `xml:"Country" json:"country"`
	LastName     string `xml:"LastName" json:"last_name"`
	GivenName    string `xml:"GivenName" json:"given_name"`
	Entity       string `xml:"Entity" json:"entity"`
	EntityOrShip string `xml:"EntityOrShip" json:"entity_or_ship"`
	Title        string `xml:"Title" json:"title"`
	TitleOrShip  string `xml:"TitleOrShip" json:"title_or_ship"`
	Aliases      string `xml:"Aliases" json:"aliases"`
	DateOfBirth  string `xml:"DateOfBirth" json:"date_of_birth"`
	DOBOrBuild   string `xml:"DateOfBirthOrShipBuildDate" json:"date_of_birth_or_ship_build_date"`
	IMO          string `xml:"ShipIMONumber" json:"ship_imo_number"`
	Schedule     string `xml:"Schedule" json:"schedule"`
	Item         string `xml:"Item" json:"item"`
	Listed       string `xml:"DateOfListing" json:"date_of_listing"`
}

// ParseCAXML parses Canada's Special Economic Measures Act consolidated
// list (sema-lmes.xml, data-set/record). The source id is
// "Country; Schedule S; Item N", unique in the list. The Country field names
// the sanctions regime ("Russia / Russie"), so it is the entry's program,
// not its nationality. An EntityOrShip with a build date is a ship. The
// file states no publication date; the latest DateOfListing stands for it.
func ParseCAXML(r io.Reader) (Result, error) {
	var res Result
	root := false
	err := walkXML(r, func(d *xml.Decoder, se xml.StartElement, depth int) (bool, error) {
		if depth == 0 {
			if se.Name.Local != "data-set" {
				return false, fmt.Errorf("root element is <%s>, not <data-set>", se.Name.Local)
			}
			root = true
			return true, nil
		}
		if depth == 1 && se.Name.Local == "record" {
			var x caRecord
			if err := d.DecodeElement(&x, &se); err != nil {
				return false, err
			}
			res.Records++
			e, err := x.entry()
			if err != nil {
				return false, err
			}
			if e.Listed.After(res.Published) {
				res.Published = e.Listed
			}
			res.Entries = append(res.Entries, e)
			return false, nil
		}
		return false, d.Skip()
	})
	if err != nil {
		return Result{}, err
	}
	if !root {
		return Result{}, graph.Invalid("file", "no <data-set> element")
	}
	return res, nil
}

func (x *caRecord) entry() (sanctions.Entry, error) {
	regime := clean(x.Country)
	item := clean(x.Item)
	schedule := clean(x.Schedule)
	e := sanctions.Entry{List: sanctions.ListCA}
	e.SourceID = joinNonEmpty("; ", regime, prefixed("Schedule ", schedule), prefixed("Item ", item))
	if item == "" {
		return e, fmt.Errorf("a record (%s) has no Item", regime)
	}
	if regime != "" {
		e.Programs = []string{regime}
	}
	org := clean(x.EntityOrShip)
	if org == "" {
		org = clean(x.Entity)
	}
	date := clean(x.DOBOrBuild)
	if date == "" {
		date = clean(x.DateOfBirth)
	}
	var aliases []string
	switch {
	case org != "":
		e.Name, aliases = splitAKA(org)
		e.Kind = sanctions.Entity
		if date != "" || clean(x.IMO) != "" || clean(x.TitleOrShip) != "" && isShipTitle(x.TitleOrShip) {
			e.Kind = sanctions.Vessel // a ship: the date is its build date
			if imo := clean(x.IMO); imo != "" {
				e.IMO = strings.TrimPrefix(imo, "IMO ")
			}
		}
	default:
		var given, last []string
		var gn, ln string
		gn, given = splitAKA(x.GivenName)
		ln, last = splitAKA(x.LastName)
		e.Name = joinNonEmpty(" ", gn, ln)
		e.Kind = sanctions.Person
		aliases = append(given, last...)
		e.DatesOfBirth = extractDates(date)
	}
	if e.Name == "" {
		return e, fmt.Errorf("record %s has no name", e.SourceID)
	}
	for _, a := range aliases {
		e.Aliases = appendAlias(e.Aliases, e.Name, a, false)
	}
	for _, a := range splitNameList(x.Aliases) {
		e.Aliases = appendAlias(e.Aliases, e.Name, a, false)
	}
	if t, err := time.Parse("2006-01-02", clean(x.Listed)); err == nil {
		e.Listed = t
	}
	finish(&e)
	return e, nil
}

func prefixed(prefix, s string) string {
	if s == "" {
		return ""
	}
	return prefix + s
}

func isShipTitle(s string) bool {
	s = strings.ToLower(s)
	return strings.Contains(s, "ship") || strings.Contains(s, "vessel") || strings.Contains(s, "tanker")
}
