package ingest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/tradecompliance/compliance/graph"
	"github.com/tradecompliance/compliance/graph/sanctions"
)

// ParseAmmitto reads the Ammitto project's JSON-lines transcriptions of the
// current official EU, UK, Canadian, Australian and Swiss lists (one
// official record per line, as ../shared/data holds them). Field mapping:
//
// eu (FSF sanctionEntity): logical_id → source id; name_aliases
// (whole_name, else first/middle/last) → the name (the first strong English
// or language-less one, as ParseEUXML) and aliases (weak when strong is
// false); subject_type.code person/enterprise → kind;
// regulations[].programme → programs; eu_reference_number and
// united_nation_id → identifiers; citizenships[].country_iso2_code and
// addresses[].country_iso2_code → countries; birthdates[] (birthdate, else
// year/month_of_year/day_of_month) → dates of birth; identifications[] →
// identifiers; remark → remarks. The designated-vessel records
// (vessel_name, imo_number, date_of_application) become vessels with
// source id "IMO <number>". Published: the latest regulation
// publication_date or date_of_application.
//
// uk_hmt (UK Sanctions List): unique_id → source id; names.names[] name1-5
// (given) and name6 (family) → the "Primary Name" and aliases (weak when
// alias_strength says low quality; "IMO 9470131 ("TORVIAN")" ship names
// → name TORVIAN, IMO 9470131); non_latin_names → aliases;
// individual_entity_ship → kind; regime_name → programs; ofsi_group_id and
// un_reference_number → identifiers; addresses → addresses and countries;
// other_information → remarks (UN references of other entries → LinkedTo);
// the IMO number of a ship from its name, other_information or
// uk_statement_of_reasons; date_designated → listed. Published: the
// latest last_updated. Dates of birth and nationalities are not carried by
// this transcription.
//
// ca (SEMA record): as ParseCAXML.
//
// au_dfat: reference → source id; names[] "Primary Name" → name, others and
// previous_names → aliases (weak when alias_strength is weak); entity_type →
// kind; dates_of_birth[] → dates of birth; citizenships and the countries
// ending address → countries; imo_number → IMO; additional_info → remarks;
// sanction.committees → programs; sanction.listing_information → listed.
// Published: the latest sanction.control_date.
//
// ch_seco (SECO target): as ParseCHXML, from ssid, sanctions_set_id and
// individual/entity.identity (names with name_parts, day_month_year,
// addresses) and justification. The 646 targets transcribed with their ids
// only (ships and goods) have no name and are skipped (Result.Skipped).
func ParseAmmitto(list string, r io.Reader) (Result, error) {
	var res Result
	var err error
	switch list {
	case sanctions.ListEU:
		err = eachAmmitto(r, func(n int, rec *ammittoEU) error { return rec.add(&res) })
	case sanctions.ListUKHMT:
		err = eachAmmitto(r, func(n int, rec *ammittoUK) error { return rec.add(&res) })
		if err == nil {
			linkByReference(res.Entries, func(e *sanctions.Entry) string { return identifier(e, "UN Reference Number") },
				func(e *sanctions.Entry) string { return e.Remarks })
		}
	case sanctions.ListCA:
		err = eachAmmitto(r, func(n int, rec *caRecord) error {
			e, err := rec.entry()
			if err != nil {
				return err
			}
			if e.Listed.After(res.Published) {
				res.Published = e.Listed
			}
			res.Entries = append(res.Entries, e)
			return nil
		})
	case sanctions.ListAUDFAT:
		err = eachAmmitto(r, func(n int, rec *ammittoAU) error { return rec.add(&res) })
	case sanctions.ListCHSECO:
		err = eachAmmitto(r, func(n int, rec *ammittoCH) error { return rec.add(&res) })
	default:
		return Result{}, graph.Invalid("list", "no Ammitto transcription is known for list %s", list)
	}
	if err != nil {
		return Result{}, err
	}
	for i := range res.Entries {
		finish(&res.Entries[i])
	}
	res.Records = len(res.Entries) + res.Skipped
	return res, nil
}

// eachAmmitto decodes each line of r into a fresh T and calls f with it.
func eachAmmitto[T any](r io.Reader, f func(n int, rec *T) error) error {
	return eachLine(r, func(n int, line []byte) error {
		if line[0] != '{' {
			return graph.Invalid("file", "line %d: not a JSON object", n)
		}
		rec := new(T)
		if err := json.Unmarshal(line, rec); err != nil {
			return graph.Invalid("file", "line %d: %v", n, err)
		}
		if err := f(n, rec); err != nil {
			return graph.Invalid("file", "line %d: %v", n, err)
		}
		return nil
	})
}

// jstr is a JSON string that also accepts a number or a boolean (the YAML
// the transcriptions come from types such values loosely).
type jstr string

func (s *jstr) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		var v string
		if err := json.Unmarshal(b, &v); err != nil {
			return err
		}
		*s = jstr(v)
		return nil
	}
	if bytes.Equal(b, []byte("null")) {
		*s = ""
		return nil
	}
	if len(b) > 0 && (b[0] == '-' || (b[0] >= '0' && b[0] <= '9') || b[0] == 't' || b[0] == 'f') {
		var v any
		if err := json.Unmarshal(b, &v); err != nil {
			return err
		}
		*s = jstr(fmt.Sprint(v))
		if f, ok := v.(float64); ok {
			*s = jstr(strconv.FormatFloat(f, 'f', -1, 64))
		}
		return nil
	}
	return fmt.Errorf("expected a string, got %.20s", b)
}

func (s jstr) String() string { return clean(string(s)) }

// jint is a JSON integer that also accepts a numeric string.
type jint int

func (n *jint) UnmarshalJSON(b []byte) error {
	var s jstr
	if err := s.UnmarshalJSON(b); err != nil {
		return err
	}
	*n = jint(atoi(strings.TrimSuffix(s.String(), ".0")))
	return nil
}

func maxDate(cur time.Time, s string) time.Time {
	if t, ok := parsePartialDate(clean(s)); ok && t.After(cur) {
		return t
	}
	return cur
}

func identifier(e *sanctions.Entry, typ string) string {
	for _, id := range e.Identifiers {
		if id.Type == typ {
			return id.Value
		}
	}
	return ""
}

type ammittoEU struct {
	EURef       jstr `json:"eu_reference_number"`
	LogicalID   jstr `json:"logical_id"`
	UNID        jstr `json:"united_nation_id"`
	Remark      jstr `json:"remark"`
	Regulations []struct {
		Programme       jstr `json:"programme"`
		PublicationDate jstr `json:"publication_date"`
	} `json:"regulations"`
	SubjectType struct {
		Code jstr `json:"code"`
	} `json:"subject_type"`
	Names []struct {
		WholeName  jstr  `json:"whole_name"`
		FirstName  jstr  `json:"first_name"`
		MiddleName jstr  `json:"middle_name"`
		LastName   jstr  `json:"last_name"`
		Language   jstr  `json:"name_language"`
		Strong     *bool `json:"strong"`
	} `json:"name_aliases"`
	Citizenships []struct {
		ISO2 jstr `json:"country_iso2_code"`
		Desc jstr `json:"country_description"`
	} `json:"citizenships"`
	Birthdates []struct {
		Birthdate jstr `json:"birthdate"`
		Year      jint `json:"year"`
		Month     jint `json:"month_of_year"`
		Day       jint `json:"day_of_month"`
	} `json:"birthdates"`
	Addresses []struct {
		Street jstr `json:"street"`
		City   jstr `json:"city"`
		Zip    jstr `json:"zip_code"`
		Region jstr `json:"region"`
		Place  jstr `json:"place"`
		ISO2   jstr `json:"country_iso2_code"`
		Desc   jstr `json:"country_description"`
	} `json:"addresses"`
	Identifications []struct {
		Type   jstr `json:"identification_type_code"`
		Number jstr `json:"number"`
		ISO2   jstr `json:"country_iso2_code"`
	} `json:"identifications"`
	VesselName        jstr `json:"vessel_name"`
	IMONumber         jstr `json:"imo_number"`
	DateOfApplication jstr `json:"date_of_application"`
}

func (x *ammittoEU) add(res *Result) error {
	if x.VesselName != "" || x.IMONumber != "" {
		e := sanctions.Entry{List: sanctions.ListEU, Kind: sanctions.Vessel, Name: x.VesselName.String(), IMO: x.IMONumber.String()}
		if e.IMO == "" || e.Name == "" {
			return fmt.Errorf("a designated vessel needs vessel_name and imo_number")
		}
		e.SourceID = "IMO " + e.IMO
		if t, ok := parsePartialDate(x.DateOfApplication.String()); ok {
			e.Listed = t
			res.Published = maxDate(res.Published, x.DateOfApplication.String())
		}
		res.Entries = append(res.Entries, e)
		return nil
	}
	e := sanctions.Entry{List: sanctions.ListEU, SourceID: x.LogicalID.String(), Kind: euKind(x.SubjectType.Code.String())}
	if e.SourceID == "" {
		e.SourceID = x.EURef.String()
	}
	if e.SourceID == "" {
		return fmt.Errorf("neither logical_id nor eu_reference_number")
	}
	names := make([]euName, 0, len(x.Names))
	for _, n := range x.Names {
		name := n.WholeName.String()
		if name == "" {
			name = joinNonEmpty(" ", n.FirstName.String(), n.MiddleName.String(), n.LastName.String())
		}
		names = append(names, euName{name: name, lang: n.Language.String(), weak: n.Strong != nil && !*n.Strong})
	}
	e.Name, e.Aliases = euNames(names)
	if e.Name == "" {
		return fmt.Errorf("entity %s has no name", e.SourceID)
	}
	for _, reg := range x.Regulations {
		e.Programs = appendUnique(e.Programs, reg.Programme.String())
		res.Published = maxDate(res.Published, reg.PublicationDate.String())
	}
	if ref := x.EURef.String(); ref != "" {
		e.Identifiers = append(e.Identifiers, sanctions.Identifier{Type: "EU Reference Number", Value: ref})
	}
	if un := x.UNID.String(); un != "" {
		e.Identifiers = append(e.Identifiers, sanctions.Identifier{Type: "UN Reference Number", Value: un})
	}
	for _, c := range x.Citizenships {
		e.Countries = appendUnique(e.Countries, euCountry{ISO2: c.ISO2.String(), Description: c.Desc.String()}.code())
	}
	for _, b := range x.Birthdates {
		if d := b.Birthdate.String(); d != "" {
			e.DatesOfBirth = appendUnique(e.DatesOfBirth, extractDates(d)...)
		} else {
			e.DatesOfBirth = appendUnique(e.DatesOfBirth, dateString(int(b.Year), int(b.Month), int(b.Day)))
		}
	}
	for _, a := range x.Addresses {
		code := euCountry{ISO2: a.ISO2.String(), Description: a.Desc.String()}.code()
		country := ""
		if code != "" {
			country = a.Desc.String()
		}
		e.Addresses = appendUnique(e.Addresses, joinNonEmpty(", ", a.Street.String(), a.Place.String(), a.City.String(), a.Region.String(), a.Zip.String(), country))
		e.Countries = appendUnique(e.Countries, code)
	}
	for _, id := range x.Identifications {
		c, _ := ISOCode(id.ISO2.String())
		e.Identifiers = append(e.Identifiers, sanctions.Identifier{Type: id.Type.String(), Value: id.Number.String(), Country: c})
	}
	e.Remarks = x.Remark.String()
	res.Entries = append(res.Entries, e)
	return nil
}

type ammittoUKName struct {
	Name1    jstr `json:"name1"`
	Name2    jstr `json:"name2"`
	Name3    jstr `json:"name3"`
	Name4    jstr `json:"name4"`
	Name5    jstr `json:"name5"`
	Name6    jstr `json:"name6"`
	Type     jstr `json:"name_type"`
	Strength jstr `json:"alias_strength"`
}

func (n ammittoUKName) whole() string {
	return joinNonEmpty(" ", n.Name1.String(), n.Name2.String(), n.Name3.String(), n.Name4.String(), n.Name5.String(), n.Name6.String())
}

type ammittoUK struct {
	UniqueID      jstr `json:"unique_id"`
	GroupID       jstr `json:"ofsi_group_id"`
	UNRef         jstr `json:"un_reference_number"`
	LastUpdated   jstr `json:"last_updated"`
	DateDesignate jstr `json:"date_designated"`
	Names         struct {
		Names []ammittoUKName `json:"names"`
	} `json:"names"`
	NonLatin struct {
		Names []struct {
			Name jstr `json:"name_non_latin_script"`
		} `json:"names"`
	} `json:"non_latin_names"`
	Regime    jstr `json:"regime_name"`
	Type      jstr `json:"individual_entity_ship"`
	Other     jstr `json:"other_information"`
	Reasons   jstr `json:"uk_statement_of_reasons"`
	Addresses struct {
		Addresses []struct {
			L1      jstr `json:"address_line1"`
			L2      jstr `json:"address_line2"`
			L3      jstr `json:"address_line3"`
			L4      jstr `json:"address_line4"`
			L5      jstr `json:"address_line5"`
			L6      jstr `json:"address_line6"`
			Postal  jstr `json:"address_postal_code"`
			Country jstr `json:"address_country"`
		} `json:"addresses"`
	} `json:"addresses"`
}

// reShipName reads the UK list's ship names written "IMO 9470131 ("TORVIAN")".
var reShipName = regexp.MustCompile(`^IMO\s*(\d{7})\s*\(\s*["“']?(.+?)["”']?\s*\)$`)

func (x *ammittoUK) add(res *Result) error {
	e := sanctions.Entry{List: sanctions.ListUKHMT, SourceID: x.UniqueID.String(), Kind: ukKind(x.Type.String())}
	if e.SourceID == "" {
		return fmt.Errorf("no unique_id")
	}
	primary := false
	for _, n := range x.Names.Names {
		name := n.whole()
		if name == "" {
			continue
		}
		if m := reShipName.FindStringSubmatch(name); m != nil {
			name = clean(m[2])
			if e.IMO == "" {
				e.IMO = m[1]
			}
		}
		t := strings.ToLower(n.Type.String())
		weak := strings.HasPrefix(strings.ToLower(n.Strength.String()), "low")
		switch {
		case t == "primary name" && !primary:
			if e.Name != "" {
				e.Aliases = append(e.Aliases, sanctions.Alias{Name: e.Name})
			}
			e.Name, primary = name, true
		case e.Name == "":
			e.Name = name
		default:
			e.Aliases = append(e.Aliases, sanctions.Alias{Name: name, Weak: weak})
		}
	}
	if e.Name == "" {
		return fmt.Errorf("designation %s has no name", e.SourceID)
	}
	for _, n := range x.NonLatin.Names {
		e.Aliases = append(e.Aliases, sanctions.Alias{Name: n.Name.String()})
	}
	e.Programs = appendUnique(nil, x.Regime.String())
	if g := x.GroupID.String(); g != "" {
		e.Identifiers = append(e.Identifiers, sanctions.Identifier{Type: "OFSI Group ID", Value: g})
	}
	if u := x.UNRef.String(); u != "" {
		e.Identifiers = append(e.Identifiers, sanctions.Identifier{Type: "UN Reference Number", Value: u})
	}
	for _, a := range x.Addresses.Addresses {
		country := a.Country.String()
		e.Addresses = appendUnique(e.Addresses, joinNonEmpty(", ", a.L1.String(), a.L2.String(), a.L3.String(), a.L4.String(),
			a.L5.String(), a.L6.String(), a.Postal.String(), country))
		e.Countries = appendCountries(e.Countries, country)
	}
	e.Remarks = x.Other.String()
	if e.Kind == sanctions.Vessel && e.IMO == "" {
		// "BODHI (IMO 9144782) is involved in ...": the statement of reasons
		// names the ship's IMO number when the other information does not.
		e.IMO = findIMO(e.Remarks)
		if e.IMO == "" {
			e.IMO = findIMO(x.Reasons.String())
		}
	}
	if e.Kind != sanctions.Vessel && e.IMO != "" {
		e.Identifiers = append(e.Identifiers, sanctions.Identifier{Type: "IMO", Value: e.IMO})
		e.IMO = ""
	}
	if t, ok := parsePartialDate(x.DateDesignate.String()); ok {
		e.Listed = t
	}
	res.Published = maxDate(res.Published, x.LastUpdated.String())
	res.Entries = append(res.Entries, e)
	return nil
}

type ammittoAU struct {
	Reference jstr `json:"reference"`
	Type      jstr `json:"entity_type"`
	Names     []struct {
		Text     jstr `json:"text"`
		Type     jstr `json:"name_type"`
		Strength jstr `json:"alias_strength"`
	} `json:"names"`
	PreviousNames []jstr `json:"previous_names"`
	Info          jstr   `json:"additional_info"`
	Sanction      struct {
		ListingInformation jstr `json:"listing_information"`
		Committees         jstr `json:"committees"`
		ControlDate        jstr `json:"control_date"`
	} `json:"sanction"`
	DatesOfBirth []struct {
		Raw  jstr `json:"raw_value"`
		Year jint `json:"year"`
		Mon  jint `json:"month"`
		Day  jint `json:"day"`
		From jint `json:"year_range_from"`
		To   jint `json:"year_range_to"`
	} `json:"dates_of_birth"`
	Citizenships []jstr `json:"citizenships"`
	Address      jstr   `json:"address"`
	IMO          jstr   `json:"imo_number"`
}

func (x *ammittoAU) add(res *Result) error {
	e := sanctions.Entry{List: sanctions.ListAUDFAT, SourceID: x.Reference.String(), Kind: auKind(x.Type.String())}
	if e.SourceID == "" {
		return fmt.Errorf("no reference")
	}
	primary := false
	for _, n := range x.Names {
		name := n.Text.String()
		if name == "" {
			continue
		}
		t := strings.ToLower(n.Type.String())
		switch {
		case strings.HasPrefix(t, "primary") && !primary:
			if e.Name != "" {
				e.Aliases = append(e.Aliases, sanctions.Alias{Name: e.Name})
			}
			e.Name, primary = name, true
		case e.Name == "":
			e.Name = name
		default:
			e.Aliases = append(e.Aliases, sanctions.Alias{Name: name, Weak: strings.EqualFold(n.Strength.String(), "weak")})
		}
	}
	if e.Name == "" {
		return fmt.Errorf("reference %s has no name", e.SourceID)
	}
	for _, p := range x.PreviousNames {
		e.Aliases = append(e.Aliases, sanctions.Alias{Name: p.String()})
	}
	for _, d := range x.DatesOfBirth {
		switch {
		case d.From > 0 && d.To > 0:
			e.DatesOfBirth = appendUnique(e.DatesOfBirth, extractDates(fmt.Sprintf("%d to %d", d.From, d.To))...)
		case d.Year > 0:
			e.DatesOfBirth = appendUnique(e.DatesOfBirth, dateString(int(d.Year), int(d.Mon), int(d.Day)))
		default:
			e.DatesOfBirth = appendUnique(e.DatesOfBirth, extractDates(d.Raw.String())...)
		}
	}
	for _, c := range x.Citizenships {
		e.Countries = appendCountries(e.Countries, c.String())
	}
	if a := x.Address.String(); a != "" {
		e.Addresses = []string{a}
		e.Countries = appendUnique(e.Countries, addressCountries(a)...)
	}
	e.Remarks = x.Info.String()
	if imo := x.IMO.String(); imo != "" {
		if e.Kind == sanctions.Vessel {
			e.IMO = imo
		} else {
			e.Identifiers = append(e.Identifiers, sanctions.Identifier{Type: "IMO", Value: imo})
		}
	}
	e.Programs = appendUnique(nil, x.Sanction.Committees.String())
	e.Listed = firstDate(x.Sanction.ListingInformation.String())
	res.Published = maxDate(res.Published, x.Sanction.ControlDate.String())
	res.Entries = append(res.Entries, e)
	return nil
}

type ammittoCHIdentity struct {
	Main  jstr `json:"main"`
	Names []struct {
		Type    jstr `json:"name_type"`
		Quality jstr `json:"quality"`
		Parts   []struct {
			Order jint `json:"order"`
			Type  jstr `json:"name_part_type"`
			Value jstr `json:"value"`
		} `json:"name_parts"`
	} `json:"names"`
	DMY *struct {
		Day   jint `json:"day"`
		Month jint `json:"month"`
		Year  jint `json:"year"`
	} `json:"day_month_year"`
	Addresses []struct {
		Details jstr `json:"address_details"`
		Zip     jstr `json:"zip_code"`
	} `json:"addresses"`
}

type ammittoCHSubject struct {
	Identity      ammittoCHIdentity `json:"identity"`
	Justification jstr              `json:"justification"`
}

type ammittoCH struct {
	SSID       jstr              `json:"ssid"`
	SetID      jstr              `json:"sanctions_set_id"`
	Individual *ammittoCHSubject `json:"individual"`
	Entity     *ammittoCHSubject `json:"entity"`
}

func (x *ammittoCH) add(res *Result) error {
	t := chTarget{SSID: x.SSID.String(), SetIDAttr: x.SetID.String()}
	s := x.Individual
	if s == nil {
		s = x.Entity
	}
	if s == nil { // a target transcribed with its ids only
		res.Skipped++
		return nil
	}
	id := chIdentity{Main: s.Identity.Main.String()}
	for _, n := range s.Identity.Names {
		name := chName{Type: n.Type.String(), Quality: n.Quality.String()}
		for _, p := range n.Parts {
			name.Parts = append(name.Parts, chNamePart{Order: int(p.Order), Type: p.Type.String(), Value: p.Value.String()})
		}
		id.Names = append(id.Names, name)
	}
	if d := s.Identity.DMY; d != nil {
		id.Births = append(id.Births, chBirth{Day: strconv.Itoa(int(d.Day)), Month: strconv.Itoa(int(d.Month)), Year: strconv.Itoa(int(d.Year))})
	}
	for _, a := range s.Identity.Addresses {
		id.Addresses = append(id.Addresses, chAddress{Details: a.Details.String(), Zip: a.Zip.String()})
	}
	subject := &chSubject{Identities: []chIdentity{id}}
	if j := s.Justification.String(); j != "" {
		subject.Justifications = []string{j}
	}
	if x.Individual != nil {
		t.Individual = subject
	} else {
		t.Entity = subject
	}
	e, _, ok, err := t.entry(nil, nil)
	if err != nil {
		return err
	}
	if !ok {
		res.Skipped++
		return nil
	}
	res.Entries = append(res.Entries, e)
	return nil
}
