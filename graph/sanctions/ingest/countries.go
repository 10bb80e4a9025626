package ingest

import (
	"regexp"
	"strings"
	"sync"
)

// CountryCode returns the ISO 3166-1 alpha-2 code of a country named in
// any of the ways the official lists write it: the ISO short name, common
// and older names ("Burma", "Korea, North", "Iran (Islamic Republic of)"),
// demonyms ("Iranian", "Afghan") or the code itself. Kosovo is XK, as the
// lists use it. It reports false for anything else ("undetermined",
// "former Soviet Union").
func CountryCode(name string) (string, bool) {
	countriesOnce.Do(loadCountries)
	key := countryKey(name)
	if key == "" {
		return "", false
	}
	if c, ok := countryByKey[key]; ok {
		return c, true
	}
	// "Region: Gaza", "Pakistan (location as at May 2008)", "Congo, Democratic Republic of the".
	s := strings.TrimSpace(name)
	if i := strings.Index(s, ":"); i >= 0 {
		if c, ok := countryByKey[countryKey(s[i+1:])]; ok {
			return c, true
		}
	}
	if i := strings.Index(s, "("); i > 0 {
		if c, ok := countryByKey[countryKey(s[:i])]; ok {
			return c, true
		}
	}
	if i := strings.Index(s, ","); i > 0 {
		if c, ok := countryByKey[countryKey(s[i+1:]+" "+s[:i])]; ok {
			return c, true
		}
	}
	for _, p := range []string{"possibly ", "probably ", "reportedly ", "formerly "} {
		if strings.HasPrefix(key, strings.TrimSpace(p)+" ") {
			return CountryCode(s[len(p):])
		}
	}
	return "", false
}

// ISOCode returns code upper-cased when it is an ISO 3166-1 alpha-2 code
// (or XK); the EU's "UK" and "EL" become GB and GR. It reports false for
// anything else, such as the EU's "00" (unknown).
func ISOCode(code string) (string, bool) {
	countriesOnce.Do(loadCountries)
	c := strings.ToUpper(strings.TrimSpace(code))
	switch c {
	case "UK":
		return "GB", true
	case "EL":
		return "GR", true
	}
	if len(c) == 2 && countryCodes[c] {
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
	countryByKey  map[string]string
	countryCodes  map[string]bool
)

func loadCountries() {
	countryByKey = make(map[string]string, 1024)
	countryCodes = make(map[string]bool, 256)
	for _, line := range strings.Split(countryTable, "\n") {
		code, names, ok := strings.Cut(line, " ")
		if !ok {
			continue
		}
		countryCodes[code] = true
		for _, n := range strings.Split(names, "|") {
			countryByKey[countryKey(n)] = code
		}
	}
}

// countryKey folds a country name for lookup: lower case, Latin accents
// removed, "&" read as "and", punctuation dropped, a leading "the" and
// "Republic of" variants kept as they are.
func countryKey(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := true
	for _, r := range s {
		r = foldLatin(r)
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
			space = false
		case r >= 'A' && r <= 'Z':
			b.WriteRune(r + ('a' - 'A'))
			space = false
		case r == '&':
			if !space {
				b.WriteByte(' ')
			}
			b.WriteString("and ")
			space = true
		case r == '\'' || r == '’' || r == '.':
			// "People's", "U.S.": dropped without a space
		default:
			if !space {
				b.WriteByte(' ')
				space = true
			}
		}
	}
	k := strings.TrimSpace(b.String())
	k = strings.TrimPrefix(k, "the ")
	return k
}

// foldLatin maps the accented Latin letters country names use to their base letter.
func foldLatin(r rune) rune {
	if r < 0xC0 {
		return r
	}
	if f, ok := latinFold[r]; ok {
		return f
	}
	return r
}

var latinFold = map[rune]rune{
	'À': 'A', 'Á': 'A', 'Â': 'A', 'Ã': 'A', 'Ä': 'A', 'Å': 'A', 'Ç': 'C', 'È': 'E', 'É': 'E', 'Ê': 'E', 'Ë': 'E',
	'Ì': 'I', 'Í': 'I', 'Î': 'I', 'Ï': 'I', 'Ñ': 'N', 'Ò': 'O', 'Ó': 'O', 'Ô': 'O', 'Õ': 'O', 'Ö': 'O', 'Ø': 'O',
	'Ù': 'U', 'Ú': 'U', 'Û': 'U', 'Ü': 'U', 'Ý': 'Y', 'à': 'a', 'á': 'a', 'â': 'a', 'ã': 'a', 'ä': 'a', 'å': 'a',
	'ç': 'c', 'è': 'e', 'é': 'e', 'ê': 'e', 'ë': 'e', 'ì': 'i', 'í': 'i', 'î': 'i', 'ï': 'i', 'ñ': 'n', 'ò': 'o',
	'ó': 'o', 'ô': 'o', 'õ': 'o', 'ö': 'o', 'ø': 'o', 'ù': 'u', 'ú': 'u', 'û': 'u', 'ü': 'u', 'ý': 'y', 'ÿ': 'y',
}

// countryTable lists each ISO 3166-1 alpha-2 code (and XK, Kosovo) with its
// ISO short name first, then the other names, older names and demonyms the
// official lists use, separated by "|".
const countryTable = `AF Afghanistan|Afghan
AX Åland Islands
AL Albania|Albanian
DZ Algeria|Algerian
AS American Samoa
AD Andorra|Andorran
AO Angola|Angolan
AI Anguilla
AQ Antarctica
AG Antigua and Barbuda|Antigua
AR Argentina|Argentine|Argentinian
AM Armenia|Armenian
AW Aruba
AU Australia|Australian
AT Austria|Austrian
AZ Azerbaijan|Azerbaijani|Azeri
BS Bahamas|Bahamas, The|The Bahamas
BH Bahrain|Bahraini
BD Bangladesh|Bangladeshi
BB Barbados|Barbadian
BY Belarus|Belarusian|Belarussian|Byelorussia
BE Belgium|Belgian
BZ Belize|Belizean
BJ Benin|Beninese
BM Bermuda
BT Bhutan
BO Bolivia, Plurinational State of|Bolivia|Bolivian
BQ Bonaire, Sint Eustatius and Saba|Bonaire
BA Bosnia and Herzegovina|Bosnia-Herzegovina|Bosnian
BW Botswana|Motswana|Botswanan
BV Bouvet Island
BR Brazil|Brazilian
IO British Indian Ocean Territory
BN Brunei Darussalam|Brunei
BG Bulgaria|Bulgarian
BF Burkina Faso|Burkinabe
BI Burundi|Burundian
CV Cabo Verde|Cape Verde
KH Cambodia|Cambodian
CM Cameroon|Cameroonian
CA Canada|Canadian
KY Cayman Islands
CF Central African Republic|Central African
TD Chad|Chadian
CL Chile|Chilean
CN China|Chinese|People's Republic of China|PRC
CX Christmas Island
CC Cocos (Keeling) Islands|Cocos Islands
CO Colombia|Colombian
KM Comoros|Comorian
CG Congo|Congo, Republic of the|Republic of the Congo|Congo-Brazzaville|Congo (Brazzaville)
CD Congo, Democratic Republic of the|Democratic Republic of the Congo|Congo, Democratic Republic of|Congo (Democratic Republic)|DR Congo|DRC|Congo-Kinshasa|Congo (Kinshasa)|Zaire|Congo, Democratic Republic of (was Zaire)
CK Cook Islands
CR Costa Rica|Costa Rican
CI Côte d'Ivoire|Cote d'Ivoire|Cote d Ivoire|Ivory Coast|Ivorian
HR Croatia|Croatian
CU Cuba|Cuban
CW Curaçao|Curacao
CY Cyprus|Cypriot
CZ Czechia|Czech Republic|Czech
DK Denmark|Danish
DJ Djibouti|Djiboutian
DM Dominica
DO Dominican Republic
EC Ecuador|Ecuadorian
EG Egypt|Egyptian
SV El Salvador|Salvadoran
GQ Equatorial Guinea|Equatorial Guinean
ER Eritrea|Eritrean
EE Estonia|Estonian
SZ Eswatini|Swaziland
ET Ethiopia|Ethiopian
FK Falkland Islands (Malvinas)|Falkland Islands
FO Faroe Islands
FJ Fiji|Fijian
FI Finland|Finnish
FR France|French
GF French Guiana
PF French Polynesia
TF French Southern Territories
GA Gabon|Gabonese
GM Gambia|The Gambia|Gambia, The|Gambian
GE Georgia|Georgian
DE Germany|German|Federal Republic of Germany
GH Ghana|Ghanaian
GI Gibraltar
GR Greece|Greek
GL Greenland
GD Grenada
GP Guadeloupe
GU Guam
GT Guatemala|Guatemalan
GG Guernsey
GN Guinea|Guinean
GW Guinea-Bissau|Guinea Bissau
GY Guyana|Guyanese
HT Haiti|Haitian
HM Heard Island and McDonald Islands
VA Holy See|Vatican|Vatican City
HN Honduras|Honduran
HK Hong Kong|Hong Kong SAR|China, Hong Kong Special Administrative Region|Hong Kong, China|Hong Kong Special Administrative Region
HU Hungary|Hungarian
IS Iceland|Icelandic
IN India|Indian
ID Indonesia|Indonesian
IR Iran, Islamic Republic of|Iran|Iranian|Iran (Islamic Republic of)|Islamic Republic of Iran|Persia
IQ Iraq|Iraqi
IE Ireland|Irish
IM Isle of Man|Man, Isle of
IL Israel|Israeli
IT Italy|Italian
JM Jamaica|Jamaican
JP Japan|Japanese
JE Jersey
JO Jordan|Jordanian
KZ Kazakhstan|Kazakh|Kazakhstani
KE Kenya|Kenyan
KI Kiribati
KP Korea, Democratic People's Republic of|North Korea|Korea, North|Democratic People's Republic of Korea|Democratic People's Republic of Korea (North Korea)|DPRK|North Korean|Korea (Democratic People's Republic of)|Korea, Democratic People's Republic
KR Korea, Republic of|South Korea|Korea, South|Republic of Korea|South Korean|Korea (Republic of)
KW Kuwait|Kuwaiti
KG Kyrgyzstan|Kyrgyz|Kyrgyz Republic|Kirghizia
LA Lao People's Democratic Republic|Laos|Lao|Lao PDR
LV Latvia|Latvian
LB Lebanon|Lebanese
LS Lesotho|Basotho
LR Liberia|Liberian
LY Libya|Libyan|Libyan Arab Jamahiriya
LI Liechtenstein|Liechtensteiner
LT Lithuania|Lithuanian
LU Luxembourg|Luxembourgish
MO Macao|Macau|Macao SAR|China, Macao Special Administrative Region
MG Madagascar|Malagasy
MW Malawi|Malawian
MY Malaysia|Malaysian
MV Maldives|Maldivian
ML Mali|Malian|Northern Mali
MT Malta|Maltese
MH Marshall Islands
MQ Martinique
MR Mauritania|Mauritanian
MU Mauritius|Mauritian
YT Mayotte
MX Mexico|Mexican
FM Micronesia, Federated States of|Micronesia
MD Moldova, Republic of|Moldova|Moldovan|Republic of Moldova
MC Monaco|Monegasque
MN Mongolia|Mongolian
ME Montenegro|Montenegrin
MS Montserrat
MA Morocco|Moroccan
MZ Mozambique|Mozambican
MM Myanmar|Burma|Burmese|Myanmar (Burma)
NA Namibia|Namibian
NR Nauru
NP Nepal|Nepalese|Nepali
NL Netherlands, Kingdom of the|Netherlands|The Netherlands|Holland|Dutch
NC New Caledonia
NZ New Zealand|New Zealander
NI Nicaragua|Nicaraguan
NE Niger|Nigerien
NG Nigeria|Nigerian
NU Niue
NF Norfolk Island
MK North Macedonia|Macedonia|North Macedonia, The Republic of|Republic of North Macedonia|The former Yugoslav Republic of Macedonia|Macedonian
MP Northern Mariana Islands
NO Norway|Norwegian
OM Oman|Omani
PK Pakistan|Pakistani
PW Palau
PS Palestine, State of|Palestine|State of Palestine|Palestinian|Palestinian Territories|Occupied Palestinian Territories|Occupied Palestinian Territory|Gaza|Gaza Strip|West Bank|North Gaza|Northern Gaza|Palestinian Territory, Occupied
PA Panama|Panamanian
PG Papua New Guinea|Papua New Guinean
PY Paraguay|Paraguayan
PE Peru|Peruvian
PH Philippines|Filipino|Philippine
PN Pitcairn
PL Poland|Polish
PT Portugal|Portuguese
PR Puerto Rico
QA Qatar|Qatari
RE Réunion|Reunion
RO Romania|Romanian
RU Russian Federation|Russia|Russian|Russian Federation (the)
RW Rwanda|Rwandan
BL Saint Barthélemy|Saint Barthelemy
SH Saint Helena, Ascension and Tristan da Cunha|Saint Helena
KN Saint Kitts and Nevis|St. Kitts and Nevis|Saint Kitts
LC Saint Lucia|St. Lucia
MF Saint Martin (French part)|Saint Martin
PM Saint Pierre and Miquelon
VC Saint Vincent and the Grenadines|St. Vincent and the Grenadines
WS Samoa
SM San Marino|Sammarinese
ST Sao Tome and Principe|Sao Tome
SA Saudi Arabia|Saudi|Saudi Arabian|Kingdom of Saudi Arabia
SN Senegal|Senegalese
RS Serbia|Serbian|Serbia and Montenegro
SC Seychelles|Seychellois
SL Sierra Leone|Sierra Leonean
SG Singapore|Singaporean
SX Sint Maarten (Dutch part)|Sint Maarten
SK Slovakia|Slovak Republic|Slovak
SI Slovenia|Slovenian
SB Solomon Islands
SO Somalia|Somali
ZA South Africa|South African
GS South Georgia and the South Sandwich Islands
SS South Sudan|South Sudanese
ES Spain|Spanish
LK Sri Lanka|Sri Lankan
SD Sudan|Sudanese
SR Suriname|Surinamese
SJ Svalbard and Jan Mayen
SE Sweden|Swedish
CH Switzerland|Swiss
SY Syrian Arab Republic|Syria|Syrian
TW Taiwan, Province of China|Taiwan|Taiwanese|Republic of China
TJ Tajikistan|Tajik|Tajikistani
TZ Tanzania, United Republic of|Tanzania|United Republic of Tanzania|Tanzanian
TH Thailand|Thai
TL Timor-Leste|East Timor
TG Togo|Togolese
TK Tokelau
TO Tonga
TT Trinidad and Tobago|Trinidad
TN Tunisia|Tunisian
TR Türkiye|Turkey|Turkish|Republic of Turkiye
TM Turkmenistan|Turkmen
TC Turks and Caicos Islands
TV Tuvalu
UG Uganda|Ugandan
UA Ukraine|Ukrainian|Crimea
AE United Arab Emirates|UAE|Emirati|U.A.E.
GB United Kingdom of Great Britain and Northern Ireland|United Kingdom|UK|U.K.|Great Britain|Britain|British|England|Scotland|Wales|Northern Ireland
US United States of America|United States|USA|U.S.A.|US|U.S.|American
UM United States Minor Outlying Islands
UY Uruguay|Uruguayan
UZ Uzbekistan|Uzbek|Uzbekistani
VU Vanuatu
VE Venezuela, Bolivarian Republic of|Venezuela|Venezuelan|Bolivarian Republic of Venezuela
VN Viet Nam|Vietnam|Vietnamese|Viet Nam (the)
VG Virgin Islands (British)|British Virgin Islands|Virgin Islands, British|BVI
VI Virgin Islands (U.S.)|US Virgin Islands|Virgin Islands, U.S.
WF Wallis and Futuna
EH Western Sahara
YE Yemen|Yemeni
ZM Zambia|Zambian
ZW Zimbabwe|Zimbabwean
XK Kosovo|Kosovar`
