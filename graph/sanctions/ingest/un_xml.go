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

type unAlias struct {
	Quality string `xml:"QUALITY"`
	Name    string `xml:"ALIAS_NAME"`
}

type unAddress struct {
	Street  string `xml:"STREET"`
	City    string `xml:"CITY"`
	State   string `xml:"STATE_PROVINCE"`
	Zip     string `xml:"ZIP_CODE"`
	Country string `xml:"COUNTRY"`
	Note    string `xml:"NOTE"`
}

type unRecord struct {
	DataID       string   `xml:"DATAID"`
	First        string   `xml:"FIRST_NAME"`
	Second       string   `xml:"SECOND_NAME"`
	Third        string   `xml:"THIRD_NAME"`
	Fourth       string   `xml:"FOURTH_NAME"`
	ListType     string   `xml:"UN_LIST_TYPE"`
	Reference    string   `xml:"REFERENCE_NUMBER"`
	ListedOn     string   `xml:"LISTED_ON"`
	Comments     string   `xml:"COMMENTS1"`
	OriginalName []string `xml:"NAME_ORIGINAL_SCRIPT"`
	Nationality  []string `xml:"NATIONALITY>VALUE"`
	Births       []struct {
		Type     string `xml:"TYPE_OF_DATE"`
		Date     string `xml:"DATE"`
		Year     string `xml:"YEAR"`
		FromYear string `xml:"FROM_YEAR"`
		ToYear   string `xml:"TO_YEAR"`
	} `xml:"INDIVIDUAL_DATE_OF_BIRTH"`
	Documents []struct {
		Type            string `xml:"TYPE_OF_DOCUMENT"`
		Type2           string `xml:"TYPE_OF_DOCUMENT2"`
		Number          string `xml:"NUMBER"`
		IssuingCountry  string `xml:"ISSUING_COUNTRY"`
		CountryOfIssue  string `xml:"COUNTRY_OF_ISSUE"`
		DateOfIssueNote string `xml:"NOTE"`
	} `xml:"INDIVIDUAL_DOCUMENT"`
	IndividualAliases []unAlias   `xml:"INDIVIDUAL_ALIAS"`
	EntityAliases     []unAlias   `xml:"ENTITY_ALIAS"`
	IndividualAddress []unAddress `xml:"INDIVIDUAL_ADDRESS"`
	EntityAddress     []unAddress `xml:"ENTITY_ADDRESS"`
}

// ParseUNXML parses the UN Security Council consolidated list XML
// (CONSOLIDATED_LIST with INDIVIDUALS and ENTITIES). The source id is the
// UN reference number ("CDi.001"). Names mentioned by reference number in an
// entry's comments ("Associated with Abdelmalek Droukdel (QDi.232)") become
// its LinkedTo, quoted as that entry's listed name. Publication date: the
// root's dateGenerated.
func ParseUNXML(r io.Reader) (Result, error) {
	var res Result
	root := false
	err := walkXML(r, func(d *xml.Decoder, se xml.StartElement, depth int) (bool, error) {
		switch {
		case depth == 0:
			if se.Name.Local != "CONSOLIDATED_LIST" {
				return false, fmt.Errorf("root element is <%s>, not <CONSOLIDATED_LIST>", se.Name.Local)
			}
			root = true
			for _, a := range se.Attr {
				if a.Name.Local == "dateGenerated" {
					t, err := time.Parse(time.RFC3339, strings.TrimSpace(a.Value))
					if err != nil {
						t, err = time.Parse("2006-01-02", strings.TrimSpace(a.Value))
					}
					if err != nil {
						return false, fmt.Errorf("dateGenerated %q is not a date", a.Value)
					}
					res.Published = t.UTC()
				}
			}
			return true, nil
		case depth == 1 && (se.Name.Local == "INDIVIDUALS" || se.Name.Local == "ENTITIES"):
			return true, nil
		case depth == 2 && (se.Name.Local == "INDIVIDUAL" || se.Name.Local == "ENTITY"):
			var x unRecord
			if err := d.DecodeElement(&x, &se); err != nil {
				return false, err
			}
			res.Records++
			e, err := x.entry(se.Name.Local == "INDIVIDUAL")
			if err != nil {
				return false, err
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
		return Result{}, graph.Invalid("file", "no <CONSOLIDATED_LIST> element")
	}
	linkByReference(res.Entries, func(e *sanctions.Entry) string { return e.SourceID }, func(e *sanctions.Entry) string { return e.Remarks })
	return res, nil
}

func (x *unRecord) entry(person bool) (sanctions.Entry, error) {
	e := sanctions.Entry{
		List:     sanctions.ListUN,
		SourceID: clean(x.Reference),
		Name:     joinNonEmpty(" ", x.First, x.Second, x.Third, x.Fourth),
		Kind:     sanctions.Entity,
		Remarks:  clean(x.Comments),
	}
	if e.SourceID == "" {
		e.SourceID = clean(x.DataID)
	}
	if e.SourceID == "" {
		return e, fmt.Errorf("an entry has neither REFERENCE_NUMBER nor DATAID")
	}
	if e.Name == "" {
		return e, fmt.Errorf("entry %s has no name", e.SourceID)
	}
	aliases, addresses := x.EntityAliases, x.EntityAddress
	if person {
		e.Kind = sanctions.Person
		aliases, addresses = x.IndividualAliases, x.IndividualAddress
	}
	if lt := clean(x.ListType); lt != "" {
		e.Programs = []string{lt}
	}
	if t, err := time.Parse("2006-01-02", clean(x.ListedOn)); err == nil {
		e.Listed = t
	}
	for _, n := range x.OriginalName {
		e.Aliases = appendAlias(e.Aliases, e.Name, n, false)
	}
	for _, a := range aliases {
		e.Aliases = appendAlias(e.Aliases, e.Name, a.Name, strings.EqualFold(clean(a.Quality), "low"))
	}
	for _, n := range x.Nationality {
		e.Countries = appendCountries(e.Countries, n)
	}
	for _, a := range addresses {
		e.Addresses = appendUnique(e.Addresses, joinNonEmpty(", ", a.Street, a.City, a.State, a.Zip, a.Country))
		e.Countries = appendCountries(e.Countries, a.Country)
	}
	for _, b := range x.Births {
		switch {
		case clean(b.Date) != "":
			e.DatesOfBirth = appendUnique(e.DatesOfBirth, extractDates(b.Date)...)
		case clean(b.Year) != "":
			e.DatesOfBirth = appendUnique(e.DatesOfBirth, extractDates(b.Year)...)
		case clean(b.FromYear) != "" || clean(b.ToYear) != "":
			e.DatesOfBirth = appendUnique(e.DatesOfBirth, extractDates(clean(b.FromYear)+" to "+clean(b.ToYear))...)
		}
	}
	for _, doc := range x.Documents {
		id := sanctions.Identifier{Type: joinNonEmpty(" ", doc.Type, doc.Type2), Value: clean(doc.Number)}
		for _, c := range []string{doc.IssuingCountry, doc.CountryOfIssue} {
			if code, ok := CountryCode(c); ok && id.Country == "" {
				id.Country = code
			}
		}
		e.Identifiers = append(e.Identifiers, id)
	}
	if imo := findIMO(e.Remarks); imo != "" {
		e.Identifiers = append(e.Identifiers, sanctions.Identifier{Type: "IMO", Value: imo})
	}
	finish(&e)
	return e, nil
}

// linkByReference sets the LinkedTo of each entry to the names of the
// entries whose UN reference numbers its text mentions (not its own).
func linkByReference(entries []sanctions.Entry, ref, text func(*sanctions.Entry) string) {
	names := make(map[string]string, len(entries))
	for i := range entries {
		if r := ref(&entries[i]); r != "" {
			names[r] = entries[i].Name
		}
	}
	for i := range entries {
		e := &entries[i]
		self := ref(e)
		for _, r := range unReferences(text(e)) {
			if name, ok := names[r]; ok && r != self {
				e.LinkedTo = appendUnique(e.LinkedTo, name)
			}
		}
	}
}
