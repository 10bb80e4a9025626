package ingest

import (
	"reflect"
	"testing"
)

func TestExtractDates(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string
	}{
		{"ofac day month year", "10 Dec 1948", []string{"1948-12-10"}},
		{"ofac month year", "Dec 1960", []string{"1960-12"}},
		{"ofac year", "1946", []string{"1946"}},
		{"ofac circa", "circa 1955", []string{"1955"}},
		{"ofac year range", "1955 to 1958", []string{"1955", "1956", "1957", "1958"}},
		{"ofac date range", "01 Jan 1960 to 31 Dec 1962", []string{"1960-01-01", "1962-12-31"}},
		{"iso", "1970-03-04", []string{"1970-03-04"}},
		{"iso month", "1983-10", []string{"1983-10"}},
		{"uk unknown day and month", "00/00/1936", []string{"1936"}},
		{"uk unknown day", "00/09/1962", []string{"1962-09"}},
		{"uk unknown month", "10/00/1983", []string{"1983"}},
		{"au list", "a) 14/10/1974; b) 19/11/1974", []string{"1974-10-14", "1974-11-19"}},
		{"au approximately range", "a) Approximately 1955- 1958 b) Approximately 1945-1950",
			[]string{"1955", "1956", "1957", "1958", "1945", "1946", "1947", "1948", "1949", "1950"}},
		{"au between", "Between 1968 and 1973", []string{"1968", "1969", "1970", "1971", "1972", "1973"}},
		{"au dotted month", "1 Jan. 1967", []string{"1967-01-01"}},
		{"au long month", "24 August 1962", []string{"1962-08-24"}},
		{"long range kept as ends", "1900 to 1950", []string{"1900", "1950"}},
		{"hijri year ignored", "24/06/1402 (Hijri Calendar)", nil},
		{"impossible day", "31/04/1970", []string{"1970-04"}},
		{"iso with short year part", "1955-58", []string{"1955"}},
		{"us month day year", "June 5, 1950", []string{"1950-06-05"}},
		{"nothing", "na", nil},
		{"empty", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := extractDates(tt.in); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("extractDates(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestCountryCode(t *testing.T) {
	tests := []struct {
		in   string
		want string
	}{
		{"Russia", "RU"},
		{"Russian Federation", "RU"},
		{"RUSSIAN FEDERATION", "RU"},
		{"Iran (Islamic Republic of)", "IR"},
		{"Iranian", "IR"},
		{"Korea, North", "KP"},
		{"Democratic People's Republic of Korea", "KP"},
		{"Korea, South", "KR"},
		{"Burma", "MM"},
		{"Congo, Democratic Republic of the", "CD"},
		{"Democratic Republic of the Congo", "CD"},
		{"Congo", "CG"},
		{"Côte d'Ivoire", "CI"},
		{"Cote d Ivoire", "CI"},
		{"Türkiye", "TR"},
		{"Turkey", "TR"},
		{"United Kingdom of Great Britain and Northern Ireland", "GB"},
		{"Bahamas, The", "BS"},
		{"Region: Gaza", "PS"},
		{"Kosovo", "XK"},
		{"Pakistan (location as at May 2008)", "PK"},
		{"China, Hong Kong Special Administrative Region", "HK"},
		{"  afghan  ", "AF"},
		{"Bosnia and Herzegovina", "BA"},
		{"Trinidad & Tobago", "TT"},
		{"Svalbard and Jan Mayen", "SJ"},
		{"Crimea", "UA"},
		{"Man, Isle of", "IM"},
		{"possibly Syria", "SY"},
		{"no", ""},
		{"and", ""},
		{"undetermined", ""},
		{"na", ""},
		{"-0-", ""},
		{"", ""},
	}
	for _, tt := range tests {
		got, ok := CountryCode(tt.in)
		if got != tt.want || ok != (tt.want != "") {
			t.Errorf("CountryCode(%q) = %q, %v, want %q", tt.in, got, ok, tt.want)
		}
	}
}

func TestCountryCodes(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"Russian and Ukrainian", []string{"RU", "UA"}},
		{"Bosnia and Herzegovina", []string{"BA"}},
		{"a) Afghanistan b) Pakistan", []string{"AF", "PK"}},
		{"(1) Iran (2) Iraq", []string{"IR", "IQ"}},
		{"Syria; Lebanon", []string{"SY", "LB"}},
		{"Russia / Russie", []string{"RU"}},
		{"nowhere", nil},
	}
	for _, tt := range tests {
		if got := CountryCodes(tt.in); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("CountryCodes(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestISOCode(t *testing.T) {
	tests := []struct{ in, want string }{{"ru", "RU"}, {"UK", "GB"}, {"EL", "GR"}, {"XK", "XK"}, {"SJ", "SJ"}, {"00", ""}, {"ZZ", ""}, {"RUS", ""}}
	for _, tt := range tests {
		if got, ok := ISOCode(tt.in); got != tt.want || ok != (tt.want != "") {
			t.Errorf("ISOCode(%q) = %q, %v, want %q", tt.in, got, ok, tt.want)
		}
	}
}

func TestFindIMO(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Vessel Registration Identification IMO 9144782", "9144782"},
		{"IMO number: 5342883. The company", "5342883"},
		{"(IMO) Number: 1790183.", "1790183"},
		{"BODHI (IMO 9144782) is involved", "9144782"},
		{"IMO No. 9288693", "9288693"},
		{"IMOVICH 1234567", ""},
		{"IMO 123456", ""},
		{"no number", ""},
	}
	for _, tt := range tests {
		if got := findIMO(tt.in); got != tt.want {
			t.Errorf("findIMO(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestValidIMO(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{{"9144782", true}, {"9999993", true}, {"9999994", false}, {"914478", false}, {"91447a2", false}}
	for _, tt := range tests {
		if got := validIMO(tt.in); got != tt.want {
			t.Errorf("validIMO(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestSplitAKA(t *testing.T) {
	tests := []struct {
		in      string
		name    string
		aliases []string
	}{
		{"Chekad Sanat Faraz Asia (also known as Shakad Sanat Asmari)", "Chekad Sanat Faraz Asia", []string{"Shakad Sanat Asmari"}},
		{"Saad Sazah Faraz Sharif (also known as Sadid Sazeh Parvaz Sharif)(or Daria Fanavar Borhan Sharif)",
			"Saad Sazah Faraz Sharif", []string{"Sadid Sazeh Parvaz Sharif", "Daria Fanavar Borhan Sharif"}},
		{"Granite Tile Factory (Kyaikto)", "Granite Tile Factory (Kyaikto)", nil},
		{"(also known as Only)", "(also known as Only)", nil},
	}
	for _, tt := range tests {
		name, aliases := splitAKA(tt.in)
		if name != tt.name || !reflect.DeepEqual(aliases, tt.aliases) {
			t.Errorf("splitAKA(%q) = %q, %q, want %q, %q", tt.in, name, aliases, tt.name, tt.aliases)
		}
	}
}

func TestSplitNameList(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"Air Bagan Holdings Pte. Ltd., Air Bagan Limited", []string{"Air Bagan Holdings Pte. Ltd.", "Air Bagan Limited"}},
		{"Example Trading Co., Ltd., Example Co", []string{"Example Trading Co., Ltd.", "Example Co"}},
		{"", nil},
	}
	for _, tt := range tests {
		if got := splitNameList(tt.in); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("splitNameList(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestToUTF8(t *testing.T) {
	tests := []struct {
		name string
		in   []byte
		want string
	}{
		{"utf-8 kept", []byte("CAFÉ"), "CAFÉ"},
		{"bom dropped", []byte("\xef\xbb\xbfA"), "A"},
		{"latin-1", []byte("CAF\xc9"), "CAFÉ"},
		{"windows-1252 quotes", []byte("\x93A\x94"), "“A”"},
	}
	for _, tt := range tests {
		if got := toUTF8(tt.in); got != tt.want {
			t.Errorf("toUTF8(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestClean(t *testing.T) {
	tests := []struct{ in, want string }{
		{"  a  b ", "a b"}, {"a\tb\nc", "a b c"}, {"a\u00a0b", "a b"}, {"plain", "plain"}, {"", ""},
	}
	for _, tt := range tests {
		if got := clean(tt.in); got != tt.want {
			t.Errorf("clean(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
