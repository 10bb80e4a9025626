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

type euEntity struct {
	LogicalID       string   `xml:"logicalId,attr"`
	EUReference     string   `xml:"euReferenceNumber,attr"`
	UNID            string   `xml:"unitedNationId,attr"`
	DesignationDate string   `xml:"designationDate,attr"`
	Remarks         []string `xml:"remark"`
	Regulations     []struct {
		Programme string `xml:"programme,attr"`
	} `xml:"regulation"`
	SubjectType struct {
		Code string `xml:"code,attr"`
	} `xml:"subjectType"`
	Names []struct {
		WholeName string `xml:"wholeName,attr"`
		FirstName string `xml:"firstName,attr"`
		Middle    string `xml:"middleName,attr"`
		LastName  string `xml:"lastName,attr"`
		Language  string `xml:"nameLanguage,attr"`
		Strong    string `xml:"strong,attr"`
	} `xml:"nameAlias"`
	Citizenships []euCountry `xml:"citizenship"`
	Births       []struct {
		euCountry
		Birthdate string `xml:"birthdate,attr"`
		Year      string `xml:"year,attr"`
		Month     string `xml:"monthOfYear,attr"`
		Day       string `xml:"dayOfMonth,attr"`
	} `xml:"birthdate"`
	Identifications []struct {
		euCountry
		Number      string `xml:"number,attr"`
		LatinNumber string `xml:"latinNumber,attr"`
		TypeCode    string `xml:"identificationTypeCode,attr"`
		TypeDesc    string `xml:"identificationTypeDescription,attr"`
	} `xml:"identification"`
	Addresses []struct {
		euCountry
		Street  string `xml:"street,attr"`
		City    string `xml:"city,attr"`
		ZipCode string `xml:"zipCode,attr"`
		Region  string `xml:"region,attr"`
		Place   string `xml:"place,attr"`
		POBox   string `xml:"poBox,attr"`
	} `xml:"address"`
}

type euCountry struct {
	ISO2        string `xml:"countryIso2Code,attr"`
	Description string `xml:"countryDescription,attr"`
}

// code returns the ISO code the element states ("00" is unknown), else
// the one its description names.
func (c euCountry) code() string {
	if code, ok := ISOCode(c.ISO2); ok {
		return code
	}
	if code, ok := CountryCode(c.Description); ok {
		return code
	}
	return ""
}

// ParseEUXML parses the EU Financial Sanctions Files XML (export of
// sanctionEntity). The source id is the entity's logicalId; its EU
// reference number and UN id are kept as identifiers. The primary name is
// chosen by euNames (the first English or language-less name alias);
// aliases with strong="false" are weak. Publication date: the root's
// generationDate.
func ParseEUXML(r io.Reader) (Result, error) {
	var res Result
	root := false
	err := walkXML(r, func(d *xml.Decoder, se xml.StartElement, depth int) (bool, error) {
		if depth == 0 {
			if se.Name.Local != "export" {
				return false, fmt.Errorf("root element is <%s>, not <export>", se.Name.Local)
			}
			root = true
			for _, a := range se.Attr {
				if a.Name.Local == "generationDate" {
					t, err := time.Parse(time.RFC3339, strings.TrimSpace(a.Value))
					if err != nil {
						return false, fmt.Errorf("generationDate %q is not an RFC 3339 time", a.Value)
					}
					res.Published = t.UTC()
				}
			}
			return true, nil
		}
		if depth == 1 && se.Name.Local == "sanctionEntity" {
			var x euEntity
			if err := d.DecodeElement(&x, &se); err != nil {
				return false, err
			}
			res.Records++
			e, err := x.entry()
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
		return Result{}, graph.Invalid("file", "no <export> element")
	}
	return res, nil
}

func (x *euEntity) entry() (sanctions.Entry, error) {
	e := sanctions.Entry{List: sanctions.ListEU, SourceID: clean(x.LogicalID)}
	if e.SourceID == "" {
		e.SourceID = clean(x.EUReference)
	}
	if e.SourceID == "" {
		return e, fmt.Errorf("a sanctionEntity has neither logicalId nor euReferenceNumber")
	}
	e.Kind = euKind(x.SubjectType.Code)
	names := make([]euName, 0, len(x.Names))
	for _, n := range x.Names {
		name := clean(n.WholeName)
		if name == "" {
			name = joinNonEmpty(" ", n.FirstName, n.Middle, n.LastName)
		}
		names = append(names, euName{name: name, lang: n.Language, weak: strings.EqualFold(strings.TrimSpace(n.Strong), "false")})
	}
	e.Name, e.Aliases = euNames(names)
	if e.Name == "" {
		return e, fmt.Errorf("sanctionEntity %s has no name", e.SourceID)
	}
	for _, reg := range x.Regulations {
		e.Programs = appendUnique(e.Programs, reg.Programme)
	}
	if ref := clean(x.EUReference); ref != "" {
		e.Identifiers = append(e.Identifiers, sanctions.Identifier{Type: "EU Reference Number", Value: ref})
	}
	if un := clean(x.UNID); un != "" {
		e.Identifiers = append(e.Identifiers, sanctions.Identifier{Type: "UN Reference Number", Value: un})
	}
	if t, err := time.Parse("2006-01-02", clean(x.DesignationDate)); err == nil {
		e.Listed = t
	}
	for _, c := range x.Citizenships {
		e.Countries = appendUnique(e.Countries, c.code())
	}
	for _, b := range x.Births {
		if d := clean(b.Birthdate); d != "" {
			e.DatesOfBirth = appendUnique(e.DatesOfBirth, extractDates(d)...)
		} else {
			e.DatesOfBirth = appendUnique(e.DatesOfBirth, dateString(atoi(b.Year), atoi(b.Month), atoi(b.Day)))
		}
	}
	for _, id := range x.Identifications {
		v := clean(id.Number)
		if v == "" {
			v = clean(id.LatinNumber)
		}
		t := clean(id.TypeDesc)
		if t == "" {
			t = clean(id.TypeCode)
		}
		e.Identifiers = append(e.Identifiers, sanctions.Identifier{Type: t, Value: v, Country: id.code()})
	}
	for _, a := range x.Addresses {
		code := a.code()
		country := ""
		if code != "" {
			country = clean(a.Description)
		}
		po := ""
		if clean(a.POBox) != "" {
			po = "P.O. Box " + clean(a.POBox)
		}
		e.Addresses = appendUnique(e.Addresses, joinNonEmpty(", ", a.Street, po, a.Place, a.City, a.Region, a.ZipCode, country))
		e.Countries = appendUnique(e.Countries, code)
	}
	e.Remarks = clean(strings.Join(x.Remarks, " "))
	if imo := findIMO(e.Remarks); imo != "" {
		if e.Kind == sanctions.Vessel {
			e.IMO = imo
		} else {
			e.Identifiers = append(e.Identifiers, sanctions.Identifier{Type: "IMO", Value: imo})
		}
	}
	finish(&e)
	return e, nil
}

// euKind maps the FSF subjectType code.
func euKind(code string) sanctions.Kind {
	switch strings.ToLower(clean(code)) {
	case "person":
		return sanctions.Person
	case "enterprise", "entity", "organisation", "organization":
		return sanctions.Entity
	case "vessel":
		return sanctions.Vessel
	case "aircraft":
		return sanctions.Aircraft
	}
	return sanctions.Unknown
}

// euName is one name alias of an EU entry: its name, its nameLanguage and
// whether it is weak (strong="false").
type euName struct {
	name, lang string
	weak       bool
}

// euNames picks the primary name of an EU entry among its name aliases, in
// file order: the first strong one stated in English or in no particular
// language, else the first English or language-less one, else the first.
// The FSF file gives no primary flag; it states each name in the language
// versions of the regulations (the Swedish, Czech, Slovak ... transliterations
// and the original Cyrillic or Arabic spelling), often before the English
// one, and the first of those is no name to show or to screen by. The
// other names are the aliases, weak when they are.
func euNames(names []euName) (string, []sanctions.Alias) {
	rank := func(n euName) int {
		r := 0
		if l := strings.TrimSpace(n.lang); l != "" && !strings.EqualFold(l, "EN") {
			r += 2
		}
		if n.weak {
			r++
		}
		return r
	}
	primary := -1
	for i, n := range names {
		if n.name != "" && (primary < 0 || rank(n) < rank(names[primary])) {
			primary = i
		}
	}
	if primary < 0 {
		return "", nil
	}
	name := names[primary].name
	var aliases []sanctions.Alias
	for i, n := range names {
		if i != primary && n.name != "" {
			aliases = appendAlias(aliases, name, n.name, n.weak)
		}
	}
	return name, aliases
}
