package ingest

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/tradecompliance/compliance/graph"
	"github.com/tradecompliance/compliance/graph/sanctions"
)

type ofacXMLEntry struct {
	UID       string   `xml:"uid"`
	FirstName string   `xml:"firstName"`
	LastName  string   `xml:"lastName"`
	Title     string   `xml:"title"`
	SDNType   string   `xml:"sdnType"`
	Remarks   string   `xml:"remarks"`
	Programs  []string `xml:"programList>program"`
	IDs       []struct {
		Type    string `xml:"idType"`
		Number  string `xml:"idNumber"`
		Country string `xml:"idCountry"`
	} `xml:"idList>id"`
	AKAs []struct {
		Type      string `xml:"type"`
		Category  string `xml:"category"`
		FirstName string `xml:"firstName"`
		LastName  string `xml:"lastName"`
	} `xml:"akaList>aka"`
	Addresses []struct {
		Address1   string `xml:"address1"`
		Address2   string `xml:"address2"`
		Address3   string `xml:"address3"`
		City       string `xml:"city"`
		State      string `xml:"stateOrProvince"`
		PostalCode string `xml:"postalCode"`
		Country    string `xml:"country"`
	} `xml:"addressList>address"`
	Nationalities []string `xml:"nationalityList>nationality>country"`
	Citizenships  []string `xml:"citizenshipList>citizenship>country"`
	DatesOfBirth  []string `xml:"dateOfBirthList>dateOfBirthItem>dateOfBirth"`
	Vessel        struct {
		CallSign string `xml:"callSign"`
		Flag     string `xml:"vesselFlag"`
	} `xml:"vesselInfo"`
}

// ParseOFACXML parses OFAC's sdnList XML (sdn.xml, and consolidated.xml for
// the non-SDN list, same schema) into entries of list. Individuals' names
// are written "LAST, First" as in the CSV set. Publication date:
// publshInformation/Publish_Date (MM/DD/YYYY).
func ParseOFACXML(list string, r io.Reader) (Result, error) {
	var res Result
	root := false
	err := walkXML(r, func(d *xml.Decoder, se xml.StartElement, depth int) (bool, error) {
		if depth == 0 {
			if se.Name.Local != "sdnList" {
				return false, fmt.Errorf("root element is <%s>, not <sdnList>", se.Name.Local)
			}
			root = true
			return true, nil
		}
		switch se.Name.Local {
		case "publshInformation", "publishInformation":
			var pi struct {
				Date string `xml:"Publish_Date"`
			}
			if err := d.DecodeElement(&pi, &se); err != nil {
				return false, err
			}
			if s := strings.TrimSpace(pi.Date); s != "" {
				t, err := time.Parse("01/02/2006", s)
				if err != nil {
					return false, fmt.Errorf("Publish_Date %q is not MM/DD/YYYY", s)
				}
				res.Published = t
			}
			return false, nil
		case "sdnEntry":
			var x ofacXMLEntry
			if err := d.DecodeElement(&x, &se); err != nil {
				return false, err
			}
			res.Records++
			e, err := x.entry(list)
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
		return Result{}, graph.Invalid("file", "no <sdnList> element")
	}
	return res, nil
}

func ofacPersonName(last, first string) string {
	last, first = clean(last), clean(first)
	if first == "" {
		return last
	}
	if last == "" {
		return first
	}
	return last + ", " + first
}

func (x *ofacXMLEntry) entry(list string) (sanctions.Entry, error) {
	e := sanctions.Entry{List: list, SourceID: clean(x.UID), Name: ofacPersonName(x.LastName, x.FirstName)}
	if e.SourceID == "" {
		return e, errors.New("an sdnEntry has no uid")
	}
	if e.Name == "" {
		return e, fmt.Errorf("sdnEntry %s has no name", e.SourceID)
	}
	switch strings.ToLower(clean(x.SDNType)) {
	case "individual":
		e.Kind = sanctions.Person
	case "entity":
		e.Kind = sanctions.Entity
	case "vessel":
		e.Kind = sanctions.Vessel
	case "aircraft":
		e.Kind = sanctions.Aircraft
	default:
		e.Kind = sanctions.Unknown
	}
	e.Programs = appendUnique(nil, x.Programs...)
	for _, a := range x.AKAs {
		e.Aliases = appendAlias(e.Aliases, e.Name, ofacPersonName(a.LastName, a.FirstName), strings.EqualFold(clean(a.Category), "weak"))
	}
	for _, id := range x.IDs {
		ident := sanctions.Identifier{Type: clean(id.Type), Value: clean(id.Number)}
		if strings.HasSuffix(ident.Type, "Vessel Flag") || ident.Type == "Nationality of Registration" {
			e.Countries = appendCountries(e.Countries, ident.Value)
			continue
		}
		if !ofacXMLIdentifier(ident.Type) {
			continue
		}
		if c, ok := CountryCode(id.Country); ok {
			ident.Country = c
		}
		if strings.HasPrefix(ident.Type, "Vessel Registration") && e.Kind == sanctions.Vessel && e.IMO == "" {
			e.IMO = findIMO(ident.Value)
		}
		e.Identifiers = append(e.Identifiers, ident)
	}
	for _, a := range x.Addresses {
		e.Addresses = appendUnique(e.Addresses, joinNonEmpty(", ", a.Address1, a.Address2, a.Address3, a.City, a.State, a.PostalCode, a.Country))
		e.Countries = appendCountries(e.Countries, a.Country)
	}
	for _, c := range append(x.Nationalities, x.Citizenships...) {
		e.Countries = appendCountries(e.Countries, c)
	}
	if c := clean(x.Vessel.Flag); c != "" {
		e.Countries = appendCountries(e.Countries, c)
	}
	if cs := clean(x.Vessel.CallSign); cs != "" {
		e.Identifiers = append(e.Identifiers, sanctions.Identifier{Type: "Call Sign", Value: cs})
	}
	for _, d := range x.DatesOfBirth {
		e.DatesOfBirth = appendUnique(e.DatesOfBirth, extractDates(d)...)
	}
	// The XML's remarks hold what its elements do not: "Linked To:" and
	// the like.
	parseOFACRemarks(&e, x.Remarks)
	finish(&e)
	return e, nil
}

// ofacXMLIdentifier reports whether an idList type of the SDN XML is a
// document or registration number; the XML also files there statements
// such as "Gender", "Website" or "Secondary sanctions risk:".
func ofacXMLIdentifier(t string) bool {
	for _, p := range []string{"Gender", "Additional Sanctions Information", "Secondary sanctions risk",
		"Transactions Prohibited", "Website", "Email Address", "Phone Number", "Executive Order", "Target Type",
		"Organization Established Date", "Organization Type", "Listing Date", "Effective Date", "Purchase/Sales",
		"CAATSA", "Aircraft Manufacture Date", "Aircraft Model", "Aircraft Operator", "Aircraft Manufacturer",
		"Vessel Year of Build", "IFCA Determination", "Other Vessel Type", "Other Vessel Call Sign", "Telephone", "Fax"} {
		if strings.HasPrefix(t, p) {
			return t == "Aircraft Manufacturer's Serial Number (MSN)"
		}
	}
	return t != ""
}

// walkXML decodes an XML document token by token, calling f with each
// start element and its depth (0 for the root). When f returns descend, the
// walk goes on into the element's children; otherwise f must have consumed
// the element (DecodeElement or Skip). Syntax errors come back as invalid
// errors naming the line.
func walkXML(r io.Reader, f func(d *xml.Decoder, se xml.StartElement, depth int) (descend bool, err error)) error {
	d := xml.NewDecoder(r)
	d.CharsetReader = charsetReader
	depth := 0
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			if depth != 0 {
				return graph.Invalid("file", "XML ends inside an element (truncated file?)")
			}
			return nil
		}
		if err != nil {
			return xmlError(d, err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			descend, err := f(d, t, depth)
			if err != nil {
				return xmlError(d, err)
			}
			if descend {
				depth++
			}
		case xml.EndElement:
			depth--
		}
	}
}

func xmlError(d *xml.Decoder, err error) error {
	var ge *graph.Error
	if errors.As(err, &ge) {
		return err
	}
	line, _ := d.InputPos()
	return graph.Invalid("file", "line %d: %v", line, err)
}

// charsetReader lets encoding/xml read the declared encodings the official
// files use besides UTF-8.
func charsetReader(charset string, input io.Reader) (io.Reader, error) {
	switch strings.ToLower(charset) {
	case "utf-8", "utf8", "us-ascii", "ascii":
		return input, nil
	case "iso-8859-1", "latin1", "latin-1", "windows-1252", "cp1252":
		b, err := io.ReadAll(io.LimitReader(input, MaxFileBytes+1))
		if err != nil {
			return nil, err
		}
		return strings.NewReader(toUTF8Forced(b)), nil
	}
	return nil, fmt.Errorf("unsupported XML encoding %q", charset)
}

// toUTF8Forced decodes b as Windows-1252 even when it happens to be valid UTF-8.
func toUTF8Forced(b []byte) string {
	var sb strings.Builder
	for _, c := range b {
		switch {
		case c < 0x80:
			sb.WriteByte(c)
		case c < 0xA0:
			sb.WriteRune(cp1252[c-0x80])
		default:
			sb.WriteRune(rune(c))
		}
	}
	return sb.String()
}
