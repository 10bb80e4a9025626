package sanctions

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// maxNameBytes bounds the input a name is read from; the rest is ignored.
// No listed name comes near it, and Normalize's own output always fits, so
// normalizing twice gives the same result.
const maxNameBytes = 4096

// maxTokens bounds the tokens of one name, maxTokenBytes one token; the
// rest is ignored.
const (
	maxTokens     = 24
	maxTokenBytes = 64
)

// token is one normalized word of a name.
type token struct {
	text   string // lower-case, ASCII Latin unless script is scriptOther
	script script
}

// Normalize returns name as matching sees it: NFKC-folded, lower-cased,
// diacritics removed, Cyrillic, Greek, Arabic-script, Georgian and Hebrew
// transliterated to Latin, apostrophes dropped (Sa'id → said), other
// punctuation turned into spaces, dotted abbreviations joined (S.A. → sa),
// and legal forms (LLC, Ltd, OOO, ЗАО, PJSC, GmbH, S.A., ...) removed unless
// nothing else is left. Tokens are single-space separated, in input order.
// It returns "" for a name with no letters or digits. Normalize is
// idempotent: Normalize(Normalize(s)) == Normalize(s).
func Normalize(name string) string {
	toks := normalizeTokens(name)
	switch len(toks) {
	case 0:
		return ""
	case 1:
		return toks[0].text
	}
	var b strings.Builder
	for i, t := range toks {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(t.text)
	}
	return b.String()
}

// NormalizeKey returns the order-independent key of a name: its normalized
// tokens sorted and joined by single spaces ("Putin, Vladimir" and
// "Vladimir PUTIN" give the same key). It returns "" when Normalize does.
func NormalizeKey(name string) string {
	return tokensKey(normalizeTokens(name))
}

func tokensKey(toks []token) string {
	ss := make([]string, len(toks))
	for i, t := range toks {
		ss[i] = t.text
	}
	sortStrings(ss)
	return strings.Join(ss, " ")
}

// normalizeTokens is Normalize as a token slice, with each token's script.
func normalizeTokens(name string) []token {
	return stripLegalForms(tokenize(name))
}

// nameTokens returns the tokens matching uses for a name of kind: those
// of Normalize, except that a person's name keeps words that spell legal
// forms elsewhere (Thomas Sá, Ao Jie).
func nameTokens(name string, kind Kind) []token {
	if kind == Person {
		return tokenize(name)
	}
	return normalizeTokens(name)
}

// word is a run of letters and digits from the input, before
// transliteration, and whether exactly one '.' separates it from the next
// word (for S.A. → sa).
type word struct {
	runes []rune
	dot   bool
}

// tokenize splits name into transliterated, lower-cased tokens.
func tokenize(name string) []token {
	if len(name) > 4*maxNameBytes {
		name = name[:4*maxNameBytes]
	}
	if !isASCII(name) {
		// Invalid bytes become spaces first: NFKC leaves the text after
		// them unnormalized, and the result would normalize differently.
		name = norm.NFKC.String(strings.ToValidUTF8(name, " "))
	}
	if len(name) > maxNameBytes {
		name = name[:maxNameBytes]
	}
	var words []word
	var cur []rune
	sepLen, sepDot := 0, false
	for _, r := range name {
		switch {
		case isApostrophe(r):
			continue
		case unicode.IsLetter(r) || unicode.IsDigit(r) || (unicode.IsMark(r) && len(cur) > 0):
			if len(cur) == 0 && len(words) > 0 {
				words[len(words)-1].dot = sepLen == 1 && sepDot
			}
			cur = append(cur, unicode.ToLower(r))
			sepLen, sepDot = 0, false
		default:
			if len(cur) > 0 {
				words = append(words, word{runes: cur})
				cur = nil
				sepLen, sepDot = 0, false
			}
			sepLen++
			sepDot = r == '.'
		}
	}
	if len(cur) > 0 {
		words = append(words, word{runes: cur})
	}

	toks := make([]token, 0, len(words))
	var b strings.Builder
	lang := russian
	if !isASCII(name) {
		lang = cyrillicLangOf(name)
	}
	for i := 0; i < len(words) && len(toks) < maxTokens; i++ {
		w := words[i]
		// Join dotted single letters: S.A. → sa, S.p.A. → spa, L.L.C. → llc.
		if w.dot && isSingleLetter(w) && i+1 < len(words) && isSingleLetter(words[i+1]) {
			joined := []rune{w.runes[0]}
			j := i
			for words[j].dot && j+1 < len(words) && isSingleLetter(words[j+1]) {
				j++
				joined = append(joined, words[j].runes[0])
			}
			w = word{runes: joined}
			i = j
		}
		toks = appendWordTokens(toks, w.runes, lang, &b)
	}
	if len(toks) > maxTokens {
		toks = toks[:maxTokens]
	}
	return toks
}

// appendWordTokens transliterates one word and appends its token (two
// for an Arabic word with the article: الرحمن → al rhmn).
func appendWordTokens(toks []token, w []rune, lang cyrillicLang, b *strings.Builder) []token {
	b.Reset()
	sc := scriptLatin
	for i := 0; i < len(w); {
		r := w[i]
		switch {
		case r < utf8.RuneSelf:
			if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
				b.WriteRune(r)
			}
			i++
		case isCyrillic(r):
			j := i
			for j < len(w) && (isCyrillic(w[j]) || unicode.IsMark(w[j])) {
				j++
			}
			translitCyrillicWord(w[i:j], lang, b)
			i = j
		case isGreek(r):
			j := i
			for j < len(w) && (isGreek(w[j]) || unicode.IsMark(w[j])) {
				j++
			}
			translitGreekWord(w[i:j], b)
			i = j
		case isArabic(r):
			j := i
			for j < len(w) && (isArabic(w[j]) || unicode.IsMark(w[j])) {
				j++
			}
			run := w[i:j]
			if i == 0 && b.Len() == 0 && hasArabicArticle(run) {
				toks = append(toks, token{text: "al", script: scriptAbjad})
				run = run[2:]
			}
			translitArabicWord(run, b)
			sc = scriptAbjad
			i = j
		case isGeorgian(r):
			b.WriteString(georgian[r])
			i++
		case isHebrew(r):
			if s, ok := hebrew[r]; ok {
				b.WriteString(s)
				sc = scriptAbjad
			}
			i++
		default:
			if s, ok := latinFold[r]; ok {
				b.WriteString(s)
			} else if unicode.IsLetter(r) || unicode.IsDigit(r) {
				if d := unicode.ToLower(r); d < utf8.RuneSelf {
					b.WriteRune(d)
				} else {
					b.WriteRune(d)
					sc = scriptOther
				}
			} else if unicode.IsMark(r) && sc == scriptOther {
				b.WriteRune(r) // vowel signs of Devanagari, Thai, ...
			}
			i++
		}
	}
	if b.Len() == 0 {
		return toks
	}
	text := b.String()
	if len(text) > maxTokenBytes {
		cut := maxTokenBytes
		for cut > 0 && !utf8.RuneStart(text[cut]) {
			cut--
		}
		text = text[:cut]
	}
	return append(toks, token{text: text, script: sc})
}

func isSingleLetter(w word) bool { return len(w.runes) == 1 && unicode.IsLetter(w.runes[0]) }

// hasArabicArticle reports whether an Arabic word starts with the article
// ال followed by at least two letters, and is not the word الله.
func hasArabicArticle(w []rune) bool {
	if len(w) < 4 || w[0] != 'ا' || w[1] != 'ل' {
		return false
	}
	if w[2] == 'ل' && w[3] == 'ه' && len(w) == 4 {
		return false // الله
	}
	return true
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// legalForms are the tokens naming a legal form, in the normalized
// spelling; Cyrillic forms arrive transliterated (ООО → ooo, ЗАО → zao,
// ПАО → pao, АО → ao, ТОВ → tov).
var legalForms = map[string]bool{
	"llc": true, "ltd": true, "limited": true, "ooo": true, "zao": true, "oao": true,
	"pao": true, "ao": true, "pjsc": true, "ojsc": true, "cjsc": true, "jsc": true,
	"fze": true, "fzco": true, "fzc": true, "fzllc": true, "sa": true, "sarl": true,
	"srl": true, "spa": true, "sas": true, "gmbh": true, "mbh": true, "ag": true,
	"kg": true, "llp": true, "lp": true, "inc": true, "incorporated": true,
	"corp": true, "corporation": true, "co": true, "company": true, "bv": true,
	"nv": true, "pte": true, "pty": true, "plc": true, "tov": true, "pat": true,
	"prat": true, "zat": true, "odo": true, "nao": true, "fgup": true, "gup": true,
	"mup": true, "bhd": true, "sdn": true, "pvt": true, "ltda": true, "sac": true,
	"saa": true, "sae": true, "doo": true, "ead": true, "kft": true, "zrt": true,
	"sro": true, "oyj": true,
}

// legalPhrases are multi-word legal forms, longest first.
var legalPhrases = [][]string{
	{"obshchestvo", "s", "ogranichennoy", "otvetstvennostyu"},
	{"obshchestvo", "s", "ogranichennoi", "otvetstvennostiu"},
	{"tovarystvo", "z", "obmezhenoyu", "vidpovidalnistyu"},
	{"tovarystvo", "z", "obmezhenoiu", "vidpovidalnistiu"},
	{"public", "joint", "stock", "company"},
	{"closed", "joint", "stock", "company"},
	{"open", "joint", "stock", "company"},
	{"private", "joint", "stock", "company"},
	{"publichnoe", "aktsionernoe", "obshchestvo"},
	{"zakrytoe", "aktsionernoe", "obshchestvo"},
	{"otkrytoe", "aktsionernoe", "obshchestvo"},
	{"limited", "liability", "company"},
	{"limited", "liability", "partnership"},
	{"public", "limited", "company"},
	{"private", "limited", "company"},
	{"s", "de", "rl", "de", "cv"},
	{"sa", "de", "cv"},
	{"joint", "stock", "company"},
	{"aktsionernoe", "obshchestvo"},
	{"sociedad", "anonima"},
	{"societe", "anonyme"},
	{"free", "zone", "establishment"},
	{"free", "zone", "company"},
}

// stripLegalForms removes legal-form tokens and phrases, repeating until
// nothing more goes (so the result is stable), and leaves the tokens as
// they are when every token is a legal form.
func stripLegalForms(toks []token) []token {
	for {
		drop := make([]bool, len(toks))
		any := false
		for i := 0; i < len(toks); i++ {
			if legalForms[toks[i].text] {
				drop[i] = true
				any = true
			}
			for _, p := range legalPhrases {
				if i+len(p) > len(toks) {
					continue
				}
				ok := true
				for k, w := range p {
					if toks[i+k].text != w {
						ok = false
						break
					}
				}
				if ok {
					for k := range p {
						drop[i+k] = true
					}
					any = true
				}
			}
		}
		if !any {
			return toks
		}
		kept := toks[:0:0]
		for i, t := range toks {
			if !drop[i] {
				kept = append(kept, t)
			}
		}
		if len(kept) == 0 {
			return toks
		}
		toks = kept
	}
}

// sortStrings sorts a short slice in place (insertion sort: names have a
// handful of tokens).
func sortStrings(ss []string) {
	for i := 1; i < len(ss); i++ {
		for j := i; j > 0 && ss[j] < ss[j-1]; j-- {
			ss[j], ss[j-1] = ss[j-1], ss[j]
		}
	}
}
