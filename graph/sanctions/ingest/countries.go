package ingest

import (
	"regexp"
	"strings"
	"sync"

	"github.com/tradecompliance/compliance/graph/country"
)

// CountryCode returns the ISO 3166-1 alpha-2 code of a country named in
// any of the ways the official lists write it. Names, aliases and older
// names ("Burma", "Korea, North", "Iran (Islamic Republic of)") resolve
// through graph/country, the one country-name table; this file adds only
// what that table does not and should not know: nationality adjectives
// ("Iranian", "Afghan"), the regions and former states the lists name for a
// country ("Region: Gaza", "Crimea", "Serbia and Montenegro"), the ISO
// territories graph/country excludes ("Svalbard and Jan Mayen"), and the
// list formats: a "Region:" prefix, a parenthesised remark ("Pakistan
// (location as at May 2008)"), comma inversion ("Isle of Man" as "Man, Isle
// of") and "possibly X". Kosovo is XK, as the lists use it. A bare code is
// not a name here ("na", "no", "in" are words); it reports false for
// anything else ("undetermined", "former Soviet Union").
func CountryCode(name string) (string, bool) {
	key := country.Normalize(name)
	if key == "" {
		return "", false
	}
	if c, ok := lookupCountry(name); ok {
		return c, true
	}
	// "Region: Gaza", "Pakistan (location as at May 2008)", "Congo, Democratic Republic of the".
	s := strings.TrimSpace(name)
	if i := strings.Index(s, ":"); i >= 0 {
		if c, ok := lookupCountry(s[i+1:]); ok {
			return c, true
		}
	}
	if i := strings.Index(s, "("); i > 0 {
		if c, ok := lookupCountry(s[:i]); ok {
			return c, true
		}
	}
	if i := strings.Index(s, ","); i > 0 {
		if c, ok := lookupCountry(s[i+1:] + " " + s[:i]); ok {
			return c, true
		}
	}
	for _, p := range []string{"possibly ", "probably ", "reportedly ", "formerly "} {
		if strings.HasPrefix(key, p) {
			return CountryCode(s[len(p):])
		}
	}
	return "", false
}

// lookupCountry resolves a whole name: by name through graph/country first,
// then through the residual table below.
func lookupCountry(name string) (string, bool) {
	if c, ok := country.Default().ResolveName(name); ok {
		return c.ISO2, true
	}
	countriesOnce.Do(loadCountries)
	c, ok := countryByKey[country.Normalize(name)]
	return c, ok
}

// ISOCode returns code upper-cased when it is an ISO 3166-1 alpha-2 code
// (or XK); the EU's "UK" and "EL" become GB and GR. It reports false for
// anything else, such as the EU's "00" (unknown).
func ISOCode(code string) (string, bool) {
	c := strings.ToUpper(strings.TrimSpace(code))
	switch c {
	case "UK":
		return "GB", true
	case "EL":
		return "GR", true
	}
	if len(c) != 2 {
		return "", false
	}
	if k, ok := country.Default().Resolve(c); ok && k.ISO2 == c {
		return c, true
	}
	countriesOnce.Do(loadCountries)
	if countryCodes[c] {
		return c, true
	}
	return "", false
}

// CountryCodes returns the codes of the countries text names: the whole text
// when it is one country, else each of its parts, split at ";", ",", "/",
// " and ", "a)", "b)" and the like ("Russian and Ukrainian",
// "a) Afghanistan b) Pakistan").
func CountryCodes(text string) []string {
	text = clean(text)
	if text == "" {
		return nil
	}
	if c, ok := CountryCode(text); ok {
		return []string{c}
	}
	var out []string
	for _, p := range reCountrySplit.Split(text, -1) {
		p = strings.Trim(p, " .")
		if p == "" {
			continue
		}
		if c, ok := CountryCode(p); ok {
			out = appendUnique(out, c)
			continue
		}
		for _, q := range strings.Split(p, " and ") {
			if c, ok := CountryCode(q); ok {
				out = appendUnique(out, c)
			}
		}
	}
	return out
}

var reCountrySplit = regexp.MustCompile(`\s*(?:;|,|/|\(\d+\)|\b[a-z]\)|\bor\b|&)\s*`)

var (
	countriesOnce sync.Once
	countryByKey  map[string]string // country.Normalize(name) -> code, for the residual table
	countryCodes  map[string]bool   // the codes of the territories graph/country excludes
)

func loadCountries() {
	countryByKey = make(map[string]string, 256)
	countryCodes = make(map[string]bool, 16)
	for _, table := range []string{excludedTerritories, nationalities, listRegions} {
		for _, line := range strings.Split(table, "\n") {
			code, names, ok := strings.Cut(line, " ")
			if !ok {
				continue
			}
			for _, n := range strings.Split(names, "|") {
				countryByKey[country.Normalize(n)] = code
			}
		}
	}
	for _, line := range strings.Split(excludedTerritories, "\n") {
		countryCodes[line[:2]] = true
	}
}

// The residual tables: each line is a code, a space and names separated by
// "|". Every other country name resolves through graph/country; a name
// graph/country already resolves to the same code does not belong here.

// excludedTerritories are the 15 ISO 3166-1 territories graph/country leaves
// out of its 235 jurisdictions (no permanent population, or trade wholly
// under another state's regime). The lists still name some of them (an
// address on Svalbard, a vessel flagged "Antarctica"), so ingest keeps
// their names and codes to record them as written.
const excludedTerritories = `AX Åland Islands
AQ Antarctica
BV Bouvet Island
IO British Indian Ocean Territory
CX Christmas Island
CC Cocos (Keeling) Islands|Cocos Islands
TF French Southern Territories
HM Heard Island and McDonald Islands
NF Norfolk Island
PN Pitcairn
MF Saint Martin (French part)|Saint Martin
GS South Georgia and the South Sandwich Islands
SJ Svalbard and Jan Mayen
TK Tokelau
UM United States Minor Outlying Islands`

// nationalities are the nationality adjectives and demonyms the lists use
// for "citizenship" and "nationality" ("Iranian", "Afghan"): not country
// names, so not graph/country's business.
const nationalities = `AF Afghan
AL Albanian
DZ Algerian
AD Andorran
AO Angolan
AR Argentine|Argentinian
AM Armenian
AU Australian
AT Austrian
AZ Azerbaijani|Azeri
BH Bahraini
BD Bangladeshi
BB Barbadian
BY Belarusian|Belarussian
BE Belgian
BZ Belizean
BJ Beninese
BO Bolivian
BA Bosnian
BW Motswana|Botswanan
BR Brazilian
BG Bulgarian
BF Burkinabe
BI Burundian
KH Cambodian
CM Cameroonian
CA Canadian
CF Central African
TD Chadian
CL Chilean
CN Chinese
CO Colombian
KM Comorian
CR Costa Rican
CI Ivorian
HR Croatian
CU Cuban
CY Cypriot
CZ Czech
DK Danish
DJ Djiboutian
EC Ecuadorian
EG Egyptian
SV Salvadoran
GQ Equatorial Guinean
ER Eritrean
EE Estonian
ET Ethiopian
FJ Fijian
FI Finnish
FR French
GA Gabonese
GM Gambian
GE Georgian
DE German
GH Ghanaian
GR Greek
GT Guatemalan
GN Guinean
GY Guyanese
HT Haitian
HN Honduran
HU Hungarian
IS Icelandic
IN Indian
ID Indonesian
IR Iranian
IQ Iraqi
IE Irish
IL Israeli
IT Italian
JM Jamaican
JP Japanese
JO Jordanian
KZ Kazakh|Kazakhstani
KE Kenyan
KP North Korean
KR South Korean
KW Kuwaiti
KG Kyrgyz
LV Latvian
LB Lebanese
LS Basotho
LR Liberian
LY Libyan
LI Liechtensteiner
LT Lithuanian
LU Luxembourgish
MG Malagasy
MW Malawian
MY Malaysian
MV Maldivian
ML Malian
MT Maltese
MR Mauritanian
MU Mauritian
MX Mexican
MD Moldovan
MC Monegasque
MN Mongolian
ME Montenegrin
MA Moroccan
MZ Mozambican
MM Burmese
NA Namibian
NP Nepalese|Nepali
NL Dutch
NZ New Zealander
NI Nicaraguan
NE Nigerien
NG Nigerian
MK Macedonian
NO Norwegian
OM Omani
PK Pakistani
PS Palestinian
PA Panamanian
PG Papua New Guinean
PY Paraguayan
PE Peruvian
PH Filipino|Philippine
PL Polish
PT Portuguese
QA Qatari
RO Romanian
RU Russian
RW Rwandan
SM Sammarinese
SA Saudi|Saudi Arabian
SN Senegalese
RS Serbian
SC Seychellois
SL Sierra Leonean
SG Singaporean
SK Slovak
SI Slovenian
SO Somali
ZA South African
SS South Sudanese
ES Spanish
LK Sri Lankan
SD Sudanese
SR Surinamese
SE Swedish
CH Swiss
SY Syrian
TW Taiwanese
TJ Tajik|Tajikistani
TZ Tanzanian
TH Thai
TG Togolese
TN Tunisian
TR Turkish
TM Turkmen
UG Ugandan
UA Ukrainian
AE Emirati
GB British
US American
UY Uruguayan
UZ Uzbek|Uzbekistani
VE Venezuelan
VN Vietnamese
YE Yemeni
ZM Zambian
ZW Zimbabwean
XK Kosovar`

// listRegions are the regions and former states the lists give where a
// country belongs: parts of a country ("Region: Gaza", "Crimea",
// "Scotland") and "Serbia and Montenegro", recorded as Serbia, its legal
// successor. graph/country resolves jurisdictions, not their regions or
// predecessors, so they stay here.
const listRegions = `ML Northern Mali
PS Gaza|Gaza Strip|West Bank|North Gaza|Northern Gaza
RS Serbia and Montenegro
UA Crimea
GB Scotland|Wales|Northern Ireland`
