package country

import (
	"bufio"
	"encoding/csv"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// sharedData returns the path of ../shared/data, or skips the test when the
// real data is absent.
func sharedData(t *testing.T, parts ...string) string {
	t.Helper()
	base := os.Getenv("COMPLIANCE_SHARED_DATA")
	if base == "" {
		base = filepath.Join("..", "..", "..", "shared", "data")
	}
	p := filepath.Join(append([]string{base}, parts...)...)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("real data %s is absent (set COMPLIANCE_SHARED_DATA); skipping", p)
	}
	return p
}

func TestTableShape(t *testing.T) {
	all := Default().All()
	if len(all) != 235 {
		t.Fatalf("len(All()) = %d, want 235", len(all))
	}
	slugRE := regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	seen := map[string]bool{}
	for i, c := range all {
		if !slugRE.MatchString(c.Slug) || len(c.ISO2) != 2 || len(c.ISO3) != 3 || c.Name == "" {
			t.Errorf("row %d = %+v: bad shape", i, c)
		}
		for _, k := range []string{"slug:" + c.Slug, "iso2:" + c.ISO2, "iso3:" + c.ISO3} {
			if seen[k] {
				t.Errorf("duplicate %s", k)
			}
			seen[k] = true
		}
		if i > 0 && all[i-1].Slug >= c.Slug {
			t.Errorf("rows not ordered by slug at %s", c.Slug)
		}
	}
}

func TestResolve(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Russia", "RU"}, {"Russian Federation", "RU"}, {"RUSSIA", "RU"}, {"ru", "RU"}, {"RUS", "RU"}, {"russia", "RU"},
		{"Iran (Islamic Republic of)", "IR"}, {"Iran", "IR"}, {"IRN", "IR"}, {"Islamic Republic of Iran", "IR"},
		{"Côte d'Ivoire", "CI"}, {"Cote d’Ivoire", "CI"}, {"Ivory Coast", "CI"}, {"cote-divoire", "CI"},
		{"North Korea", "KP"}, {"Korea, Democratic People's Republic of", "KP"}, {"DPRK", "KP"},
		{"South Korea", "KR"}, {"Republic of Korea", "KR"},
		{"Congo", "CG"}, {"Democratic Republic of the Congo", "CD"}, {"DR Congo", "CD"}, {"Congo (Kinshasa)", "CD"},
		{"United Kingdom", "GB"}, {"UK", "GB"}, {"Great Britain", "GB"}, {"GB", "GB"},
		{"United States of America", "US"}, {"USA", "US"}, {"U.S.", "US"},
		{"Türkiye", "TR"}, {"Turkey", "TR"}, {"Syrian Arab Republic", "SY"}, {"Viet Nam", "VN"},
		{"Venezuela (Bolivarian Republic of)", "VE"}, {"Burma", "MM"}, {"Swaziland", "SZ"},
		{"St. Lucia", "LC"}, {"Saint Kitts & Nevis", "KN"}, {"the Netherlands", "NL"}, {"Kosovo", "XK"},
		{"  united   arab emirates ", "AE"}, {"UAE", "AE"},
	}
	for _, tt := range tests {
		got, ok := Default().Resolve(tt.in)
		if !ok || got.ISO2 != tt.want {
			t.Errorf("Resolve(%q) = %q, %v; want %q", tt.in, got.ISO2, ok, tt.want)
		}
	}
	for _, in := range []string{"", "Narnia", "XX", "Europe", "Asia", "Africa", "Antarctica", "Congo-Brazzaville-Kinshasa"} {
		if got, ok := Default().Resolve(in); ok {
			t.Errorf("Resolve(%q) = %q, want no jurisdiction", in, got.ISO2)
		}
	}
}

func TestResolveName(t *testing.T) {
	for in, want := range map[string]string{"Russia": "RU", "UK": "GB", "USA": "US", "Lao": "LA", "U.K.": "GB"} {
		if got, ok := Default().ResolveName(in); !ok || got.ISO2 != want {
			t.Errorf("ResolveName(%q) = %q, %v; want %q", in, got.ISO2, ok, want)
		}
	}
	for _, in := range []string{"ru", "RUS", "no", "in", "and", "na", "can"} {
		if got, ok := Default().ResolveName(in); ok {
			t.Errorf("ResolveName(%q) = %q: a code is not a name", in, got.ISO2)
		}
	}
}

// Every ISO 3166-1 entry is covered (or deliberately excluded), with the
// right alpha-3, and its official ISO name resolves to it.
func TestAgainstISO3166(t *testing.T) {
	f, err := os.Open(sharedData(t, "iso3166", "iso3166_all.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	excluded := []string{"AQ", "BV", "HM", "TF", "UM", "IO", "GS", "CX", "CC", "NF", "SJ", "TK", "PN", "AX", "MF"}
	covered := 0
	for _, r := range rows[1:] {
		name, a2, a3 := r[0], r[1], r[2]
		if slices.Contains(excluded, a2) {
			if c, ok := Default().Resolve(a2); ok {
				t.Errorf("excluded %s resolves to %s", a2, c.Slug)
			}
			continue
		}
		covered++
		c, ok := Default().Resolve(name)
		if !ok || c.ISO2 != a2 {
			t.Errorf("Resolve(ISO name %q) = %q, %v; want %s", name, c.ISO2, ok, a2)
		}
		if byCode, _ := Default().Resolve(a3); byCode.ISO2 != a2 {
			t.Errorf("Resolve(%s) = %q, want %s", a3, byCode.ISO2, a2)
		}
	}
	if covered != 234 { // plus Kosovo, not in ISO 3166-1
		t.Errorf("covered ISO entries = %d, want 234", covered)
	}
}

// The OpenSanctions country-name variants (about 15,700 in Latin script,
// many languages): no variant may resolve to the wrong jurisdiction.
func TestAgainstCountryNameVariants(t *testing.T) {
	f, err := os.Open(sharedData(t, "iso3166", "opensanctions_countrynames_data.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	code := ""
	var total, resolved, wrong int
	latin := regexp.MustCompile(`^[\p{Latin}\p{Mn} .,'’()&-]+$`)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		if !strings.HasPrefix(line, " ") && strings.HasSuffix(line, ":") {
			code = strings.TrimSuffix(line, ":")
			continue
		}
		v, ok := strings.CutPrefix(strings.TrimSpace(line), "- ")
		if !ok || code == "FAIL" || len(code) != 2 {
			continue
		}
		if _, current := Default().Resolve(code); !current {
			continue // a withdrawn code (ZR, YU, SU, ...): its successor is the right answer
		}
		v = strings.Trim(v, `"'`)
		if !latin.MatchString(v) {
			continue
		}
		total++
		c, ok := Default().Resolve(v)
		if !ok {
			continue
		}
		resolved++
		if c.ISO2 != strings.ToUpper(code) {
			wrong++
			t.Errorf("Resolve(%q) = %s, but the variant names %s", v, c.ISO2, strings.ToUpper(code))
		}
	}
	t.Logf("Latin-script variants: %d, resolved %d (%.1f%%), wrong %d", total, resolved, 100*float64(resolved)/float64(total), wrong)
}
