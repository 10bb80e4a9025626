package ingest

import (
	"regexp"
	"sort"
	"strings"

	"github.com/tradecompliance/compliance/graph/sanctions"
)

// ofacIDTypes are the identifier types OFAC remarks state as
// "TYPE VALUE (Country)", longest first so that "Diplomatic Passport" wins
// over "Passport".
var ofacIDTypes = func() []string {
	t := []string{
		"Passport", "Diplomatic Passport", "British National Overseas Passport", "Stateless Person Passport",
		"Passport Booklet", "National ID No.", "National Foreign ID Number", "Personal ID Card", "Tax ID No.",
		"Registration Number", "Registration ID", "Business Registration Number", "Business Registration Document #",
		"Business Number", "Identification Number", "Government Gazette Number", "C.U.R.P.", "C.U.R.P. #", "R.F.C.",
		"R.F.C. #", "RFC", "Cedula No.", "NIT #", "RUC #", "RIF #", "D.N.I.", "Folio Mercantil No.",
		"Matricula Mercantil No", "Unified Social Credit Code (USCC)", "United Social Credit Code Certificate (USCCC)",
		"Commercial Registry Number", "Company Number", "UK Company Number", "License", "V.A.T. Number",
		"Economic Register Number (CBLS)", "C.R. No.", "Trade License No.", "Chamber of Commerce Number",
		"Central Registration System Number", "Istanbul Chamber of Comm. No.", "Legal Entity Number",
		"Driver's License No.", "Electoral Registry No.", "Birth Certificate Number", "Enterprise Number",
		"Credencial electoral", "C.U.I.", "C.U.I.T.", "C.U.I.P.", "Cartilla de Servicio Militar Nacional",
		"Residency Number", "I.F.E.", "Permit Number", "Public Registration Number", "SSN", "Branch Unit Number",
		"Certificate of Incorporation Number", "Turkish Identification Number", "Dubai Chamber of Commerce Membership No.",
		"Numero de Identidad", "LE Number", "Registered Charity No.", "Citizen's Card Number", "Travel Document Number",
		"RTN", "US FEIN", "VisaNumberID", "SRE Permit No.", "File Number", "Refugee ID Card", "Tazkira National ID Card",
		"Organization Code", "Numero Unico de Identificacao Tributaria (NUIT)", "C.I.F.", "Military Registration Number",
		"Afghan Money Service Provider License Number", "Kenyan ID No.", "Stateless Person ID Card", "N.I.E.",
		"Immigration No.", "Moroccan Personal ID No.", "SWIFT/BIC", "D-U-N-S Number", "MMSI", "ISIN", "Equity Ticker",
		"Aircraft Manufacturer's Serial Number (MSN)", "Aircraft Tail Number",
		"Aircraft Construction Number (also called L/N or S/N or F/N)", "Vessel Registration Identification",
		"Seafarer's Identification Document", "Bosnian Personal ID No.", "Serial No.", "Pilot License Number",
		"Fiscal Code", "Trade Registry No.", "Company ID", "Registration No.", "Identity Card",
	}
	sort.Slice(t, func(i, j int) bool { return len(t[i]) > len(t[j]) })
	return t
}()

var (
	reRemarkSep   = regexp.MustCompile(`;\s*`)
	reAltPrefix   = regexp.MustCompile(`^(?i:alt\.)\s+`)
	reRemarkAlias = regexp.MustCompile(`^([afn])\.k\.a\.,?\s+(.+)$`)
	reTrailParen  = regexp.MustCompile(`^(.*?)\s*\(([^()]*)\)\s*(.*)$`)
)

// parseOFACRemarks reads the structured statements of an OFAC remarks
// field into e: "a.k.a. 'X'" (the low-quality aliases, which the CSV set
// carries only here), "DOB ...", "nationality X", "citizen X",
// "Nationality of Registration X", "Linked To: NAME" (quoted verbatim),
// "Vessel Registration Identification IMO 1234567" and identifiers such as
// "Passport 1084010 (Egypt)". The whole text is kept as e.Remarks.
func parseOFACRemarks(e *sanctions.Entry, remarks string) {
	remarks = clean(remarks)
	if remarks == "" {
		return
	}
	e.Remarks = remarks
	// The field ends with a period, which is not part of its last statement.
	body := strings.TrimSuffix(remarks, ".")
	for _, item := range reRemarkSep.Split(body, -1) {
		item = strings.TrimSpace(reAltPrefix.ReplaceAllString(strings.TrimSpace(item), ""))
		if item == "" {
			continue
		}
		if m := reRemarkAlias.FindStringSubmatch(item); m != nil {
			name := strings.Trim(m[2], `'"‘’“” `)
			e.Aliases = appendAlias(e.Aliases, e.Name, name, true)
			continue
		}
		key, rest, _ := strings.Cut(item, " ")
		switch key {
		case "DOB":
			e.DatesOfBirth = appendUnique(e.DatesOfBirth, extractDates(rest)...)
			continue
		case "nationality", "citizen", "Nationality":
			rest = strings.TrimPrefix(rest, "of Registration ")
			e.Countries = appendCountries(e.Countries, rest)
			continue
		case "Linked":
			if name, ok := strings.CutPrefix(rest, "To:"); ok {
				e.LinkedTo = appendUnique(e.LinkedTo, strings.TrimSpace(name))
			}
			continue
		}
		for _, t := range ofacIDTypes {
			value, ok := strings.CutPrefix(item, t)
			if !ok || (value != "" && value[0] != ' ' && value[0] != ':') {
				continue
			}
			value = strings.TrimSpace(strings.TrimPrefix(value, ":"))
			id := sanctions.Identifier{Type: t, Value: value}
			if m := reTrailParen.FindStringSubmatch(value); m != nil && m[1] != "" {
				if c, ok := CountryCode(m[2]); ok {
					id.Value, id.Country = m[1], c
				}
			}
			if t == "Vessel Registration Identification" {
				if imo := findIMO(id.Value); imo != "" && e.Kind == sanctions.Vessel && e.IMO == "" {
					e.IMO = imo
				}
			}
			e.Identifiers = append(e.Identifiers, id)
			break
		}
	}
}
