package ingest

import (
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// toUTF8 returns b as UTF-8 text: unchanged (less a byte-order mark) when it
// is valid UTF-8, else decoded as Windows-1252, the superset of Latin-1 that
// the older official CSV files are written in.
func toUTF8(b []byte) string {
	b = trimBOM(b)
	if utf8.Valid(b) {
		return string(b)
	}
	var sb strings.Builder
	sb.Grow(len(b) + len(b)/8)
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

// cp1252 maps the bytes 0x80-0x9F of Windows-1252 to runes; the unassigned
// ones map to the Latin-1 control character of the same value.
var cp1252 = [32]rune{
	'€', 0x81, '‚', 'ƒ', '„', '…', '†', '‡', 'ˆ', '‰', 'Š', '‹', 'Œ', 0x8D, 'Ž', 0x8F,
	0x90, '‘', '’', '“', '”', '•', '–', '—', '˜', '™', 'š', '›', 'œ', 0x9D, 'ž', 'Ÿ',
}

func trimBOM(b []byte) []byte {
	if len(b) >= 3 && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF {
		return b[3:]
	}
	return b
}

// clean trims s and collapses every run of white space (tabs, newlines,
// no-break spaces) into one space.
func clean(s string) string {
	if s == "" {
		return ""
	}
	simple := true
	prevSpace := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f' {
			simple = false
			break
		}
		if c == ' ' {
			if prevSpace {
				simple = false
				break
			}
			prevSpace = true
		} else {
			prevSpace = false
		}
	}
	if simple && !prevSpace {
		return s
	}
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\u200b", "")), " ")
}

// appendUnique appends the cleaned values to list, skipping empty ones and
// those already present (compared case-insensitively).
func appendUnique(list []string, values ...string) []string {
outer:
	for _, v := range values {
		v = clean(v)
		if v == "" {
			continue
		}
		for _, have := range list {
			if strings.EqualFold(have, v) {
				continue outer
			}
		}
		list = append(list, v)
	}
	return list
}

// ofacEmpty returns "" for OFAC's "-0-" placeholder, else s cleaned.
func ofacEmpty(s string) string {
	s = clean(s)
	if s == "-0-" {
		return ""
	}
	return s
}

// dateString formats a possibly partial date as YYYY, YYYY-MM or
// YYYY-MM-DD. A zero month or day means unknown, and so does a day without
// a month. It returns "" when the year is outside 1800-2100 or the month or
// day is impossible.
func dateString(y, m, d int) string {
	if y < 1800 || y > 2100 || m < 0 || m > 12 || d < 0 || d > 31 {
		return ""
	}
	if m == 0 {
		return strconv.Itoa(y)
	}
	if d == 0 {
		return pad4(y) + "-" + pad2(m)
	}
	t := time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC)
	if t.Day() != d { // 31 April and the like
		return pad4(y) + "-" + pad2(m)
	}
	return pad4(y) + "-" + pad2(m) + "-" + pad2(d)
}

func pad2(n int) string {
	if n < 10 {
		return "0" + strconv.Itoa(n)
	}
	return strconv.Itoa(n)
}

func pad4(n int) string {
	s := strconv.Itoa(n)
	for len(s) < 4 {
		s = "0" + s
	}
	return s
}

// atoi parses a small non-negative integer, returning 0 when s is not one.
func atoi(s string) int {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > 9 {
		return 0
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0
	}
	return n
}

var months = map[string]int{
	"jan": 1, "january": 1, "janvier": 1,
	"feb": 2, "february": 2, "fev": 2, "fevrier": 2, "février": 2,
	"mar": 3, "march": 3, "mars": 3,
	"apr": 4, "april": 4, "avr": 4, "avril": 4,
	"may": 5, "mai": 5,
	"jun": 6, "june": 6, "juin": 6,
	"jul": 7, "july": 7, "juil": 7, "juillet": 7,
	"aug": 8, "august": 8, "aout": 8, "août": 8,
	"sep": 9, "sept": 9, "september": 9, "septembre": 9,
	"oct": 10, "october": 10, "octobre": 10,
	"nov": 11, "november": 11, "novembre": 11,
	"dec": 12, "december": 12, "décembre": 12, "decembre": 12,
}

const monthRE = `(Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sept?(?:ember)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)`

var (
	reISODate   = regexp.MustCompile(`\b(\d{4})-(\d{1,2})(?:-(\d{1,2}))?\b`)
	reDMYDate   = regexp.MustCompile(`\b(\d{1,2})[/.](\d{1,2})[/.](\d{4})\b`)
	reDayMonY   = regexp.MustCompile(`(?i)\b(\d{1,2})(?:st|nd|rd|th)?\.?\s*` + monthRE + `\.?,?\s*(\d{4})\b`)
	reMonDayY   = regexp.MustCompile(`(?i)\b` + monthRE + `\.?\s+(\d{1,2}),\s*(\d{4})\b`)
	reMonY      = regexp.MustCompile(`(?i)\b` + monthRE + `\.?,?\s*(\d{4})\b`)
	reYearRange = regexp.MustCompile(`(?i)\b(1[89]\d\d|20\d\d)\s*(?:-|–|—|to|and|/)\s*(1[89]\d\d|20\d\d)\b`)
	reYear      = regexp.MustCompile(`\b(1[89]\d\d|20\d\d)\b`)
)

// extractDates finds the dates in free text such as "DOB 10 Dec 1948",
// "circa 1955", "1955 to 1958", "a) 14/10/1974; b) 19/11/1974",
// "Approximately 1962-1963" or "00/09/1962", and returns them as YYYY,
// YYYY-MM or YYYY-MM-DD. Numeric day/month/year dates are read day first,
// as the UK, EU and Australian lists write them. A range of years of at
// most 12 years is expanded to every year in it; a longer one to its ends.
func extractDates(s string) []string {
	if s == "" {
		return nil
	}
	var out []string
	// blank replaces each match that f takes with a separator, so that the
	// looser patterns after it do not read its parts again.
	blank := func(re *regexp.Regexp, f func(m []string) string) {
		s = re.ReplaceAllStringFunc(s, func(match string) string {
			d := f(re.FindStringSubmatch(match))
			if d == "" {
				return match
			}
			out = appendUnique(out, d)
			return " ; "
		})
	}
	blank(reISODate, func(m []string) string { return dateString(atoi(m[1]), atoi(m[2]), atoi(m[3])) })
	blank(reDMYDate, func(m []string) string { return dateString(atoi(m[3]), atoi(m[2]), atoi(m[1])) })
	blank(reDayMonY, func(m []string) string {
		return dateString(atoi(m[3]), months[strings.ToLower(m[2])], atoi(m[1]))
	})
	blank(reMonDayY, func(m []string) string {
		return dateString(atoi(m[3]), months[strings.ToLower(m[1])], atoi(m[2]))
	})
	blank(reMonY, func(m []string) string { return dateString(atoi(m[2]), months[strings.ToLower(m[1])], 0) })
	s = reYearRange.ReplaceAllStringFunc(s, func(match string) string {
		m := reYearRange.FindStringSubmatch(match)
		a, b := atoi(m[1]), atoi(m[2])
		if a > b {
			a, b = b, a
		}
		if b-a <= 12 {
			for y := a; y <= b; y++ {
				out = appendUnique(out, dateString(y, 0, 0))
			}
		} else {
			out = appendUnique(out, dateString(a, 0, 0), dateString(b, 0, 0))
		}
		return " ; "
	})
	blank(reYear, func(m []string) string { return dateString(atoi(m[1]), 0, 0) })
	return out
}

// firstDate returns the first full or partial date in s as a time (the
// first day of the month or year when partial), or the zero time.
func firstDate(s string) time.Time {
	for _, d := range extractDates(s) {
		if t, ok := parsePartialDate(d); ok {
			return t
		}
	}
	return time.Time{}
}

// parsePartialDate parses YYYY, YYYY-MM or YYYY-MM-DD.
func parsePartialDate(d string) (time.Time, bool) {
	for _, layout := range []string{"2006-01-02", "2006-01", "2006"} {
		if len(d) == len(layout) {
			t, err := time.Parse(layout, d)
			return t, err == nil
		}
	}
	return time.Time{}, false
}

// validPartialDate reports whether d is YYYY, YYYY-MM or YYYY-MM-DD.
func validPartialDate(d string) bool {
	_, ok := parsePartialDate(d)
	return ok
}

var reIMO = regexp.MustCompile(`\bIMO\b[^0-9A-Za-z]{0,4}(?:[Nn](?:o\.?|umber)[^0-9]{0,3})?(\d{7})\b`)

// findIMO returns the first IMO number stated in s ("IMO 9470131",
// "IMO number: 5342883", "(IMO) Number: 1790183"), or "".
func findIMO(s string) string {
	if !strings.Contains(s, "IMO") {
		return ""
	}
	if m := reIMO.FindStringSubmatch(strings.ReplaceAll(s, "(IMO)", "IMO")); m != nil {
		return m[1]
	}
	return ""
}

// validIMO reports whether s is a 7-digit IMO number with a valid check
// digit (the last digit is the sum of the first six weighted 7 to 2, mod 10).
func validIMO(s string) bool {
	if len(s) != 7 {
		return false
	}
	sum := 0
	for i := 0; i < 7; i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
		if i < 6 {
			sum += int(s[i]-'0') * (7 - i)
		}
	}
	return sum%10 == int(s[6]-'0')
}

var reUNRef = regexp.MustCompile(`\b([A-Z]{2}[ie]\.\d{3})\b`)

// unReferences returns the UN reference numbers ("QDi.232", "TAe.010")
// that text mentions, in order, without duplicates.
func unReferences(text string) []string {
	var out []string
	for _, m := range reUNRef.FindAllStringSubmatch(text, -1) {
		out = appendUnique(out, m[1])
	}
	return out
}

var reAKA = regexp.MustCompile(`(?i)\(\s*(?:also known as|a\.?k\.?a\.?|formerly known as|f\.?k\.?a\.?|also|or|formerly)\s*:?\s*([^()]+)\)`)

// splitAKA takes the aliases a name states in parentheses, such as
// "Chekad Sanat Faraz Asia (also known as Shakad Sanat Asmari)" or
// "X (also known as Y)(or Z)", out of it.
func splitAKA(name string) (string, []string) {
	if !strings.Contains(name, "(") {
		return clean(name), nil
	}
	var aliases []string
	rest := reAKA.ReplaceAllStringFunc(name, func(m string) string {
		sm := reAKA.FindStringSubmatch(m)
		for _, a := range strings.Split(sm[1], ";") {
			aliases = appendUnique(aliases, strings.Trim(clean(a), `"“”'’,`))
		}
		return " "
	})
	rest = clean(rest)
	if rest == "" { // the whole name was parenthesised: keep it
		return clean(name), nil
	}
	return rest, aliases
}

// isLegalSuffix reports whether s, a piece of a comma-separated list of
// names, is only a legal form that belongs to the name before it
// ("Air Bagan Holdings Pte. Ltd." split after "Pte.").
func isLegalSuffix(s string) bool {
	switch strings.ToLower(strings.Trim(s, ". ")) {
	case "ltd", "limited", "inc", "llc", "l.l.c", "co", "corp", "s.a", "sa", "s.a.l", "gmbh", "ag", "plc", "jsc", "pjsc",
		"ojsc", "cjsc", "llp", "lp", "bv", "b.v", "nv", "n.v", "pte", "pte. ltd", "sarl", "s.a.r.l", "fze", "fzco", "fz-llc",
		"sdn bhd", "bhd", "srl", "s.r.l", "spa", "s.p.a", "a.s", "as", "oy", "ab", "kg", "co. ltd", "co., ltd", "sal":
		return true
	}
	return false
}

// splitNameList splits a comma-separated list of names, keeping legal forms
// ("Ltd.", "Inc.") with the name they follow.
func splitNameList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		p = clean(p)
		if p == "" {
			continue
		}
		if len(out) > 0 && isLegalSuffix(p) {
			out[len(out)-1] += ", " + p
			continue
		}
		out = append(out, p)
	}
	return out
}
