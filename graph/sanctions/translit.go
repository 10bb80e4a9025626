package sanctions

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Transliteration of the scripts sanctions lists publish names in, to the
// Latin spelling most lists use for the same names.
//
//   - Cyrillic: Russian after the Russian passport system (ICAO 9303 with й→y,
//     the spelling most Western lists copy: Sergey, Dmitriy, Yuriy); a name
//     with і, ї, є or ґ is read as Ukrainian (г→h, и→y), one with ў, or і
//     beside ы or э, as Belarusian (Aliaksandr); Serbian, Macedonian and
//     Kazakh letters are covered.
//   - Greek: ELOT 743, simplified.
//   - Arabic script (Arabic, Persian, Urdu, Pashto letters): a consonantal
//     romanization (ع→a, خ→kh, ش→sh, ق→q, long vowels و→u, ي→i, initial
//     و→w, ي→y), which loses the short vowels the script does not write;
//     matching compares such tokens by their consonant skeleton (see
//     skeleton), which is what makes "محمد" meet Mohammed, Muhammad and
//     Mohamed alike. A word starting with the article ال is split into "al"
//     and the rest, as Latin spellings write it (al-Tikriti).
//   - Georgian and Hebrew: letter by letter.
//
// Other scripts (Han, Hangul, Devanagari, Thai, ...) are kept as they are,
// so a query in those scripts still meets a listed name in the same script.

// Script of a token's source, as far as matching cares.
type script uint8

const (
	scriptLatin script = iota // Latin, or anything transliterated to full Latin
	scriptAbjad               // Arabic script: vowels mostly unwritten
	scriptOther               // kept untransliterated (Han, Hangul, ...)
)

var cyrillic = map[rune]string{
	'а': "a", 'б': "b", 'в': "v", 'г': "g", 'д': "d", 'е': "e", 'ё': "e",
	'ж': "zh", 'з': "z", 'и': "i", 'й': "y", 'к': "k", 'л': "l", 'м': "m",
	'н': "n", 'о': "o", 'п': "p", 'р': "r", 'с': "s", 'т': "t", 'у': "u",
	'ф': "f", 'х': "kh", 'ц': "ts", 'ч': "ch", 'ш': "sh", 'щ': "shch",
	'ъ': "", 'ы': "y", 'ь': "", 'э': "e", 'ю': "yu", 'я': "ya",
	// Ukrainian, Belarusian
	'і': "i", 'ї': "yi", 'є': "ye", 'ґ': "g", 'ў': "u",
	// Serbian, Macedonian, Montenegrin
	'ђ': "dj", 'ј': "j", 'љ': "lj", 'њ': "nj", 'ћ': "c", 'џ': "dz", 'ѓ': "gj",
	'ќ': "kj", 'ѕ': "dz",
	// Kazakh, Kyrgyz, Tajik, Uzbek, Azerbaijani, Tatar, Bashkir, Mongolian
	'ә': "a", 'ғ': "g", 'қ': "k", 'ң': "n", 'ө': "o", 'ұ': "u", 'ү': "u",
	'һ': "h", 'ҳ': "h", 'ҷ': "j", 'ӣ': "i", 'ӯ': "u", 'ҫ': "s", 'ӑ': "a",
	'ӗ': "e", 'ҙ': "z", 'ҡ': "k", 'ӊ': "n", 'ҝ': "g", 'ҹ': "ch",
	'ӏ': "", 'ѣ': "e", 'ѳ': "f", 'ѵ': "i",
}

// ukrainian overrides the Russian reading inside a word that has a letter
// only Ukrainian (or Belarusian) uses.
var ukrainian = map[rune]string{
	'г': "h", 'и': "y", 'й': "i", 'щ': "shch", 'ю': "iu", 'я': "ia", 'є': "ie", 'ї': "i",
}

var belarusian = map[rune]string{
	'г': "h", 'ў': "u", 'й': "i", 'ю': "iu", 'я': "ia", 'е': "ie", 'ё': "io",
}

var greek = map[rune]string{
	'α': "a", 'β': "v", 'γ': "g", 'δ': "d", 'ε': "e", 'ζ': "z", 'η': "i",
	'θ': "th", 'ι': "i", 'κ': "k", 'λ': "l", 'μ': "m", 'ν': "n", 'ξ': "x",
	'ο': "o", 'π': "p", 'ρ': "r", 'σ': "s", 'ς': "s", 'τ': "t", 'υ': "y",
	'φ': "f", 'χ': "ch", 'ψ': "ps", 'ω': "o", 'ϐ': "v", 'ϑ': "th", 'ϕ': "f",
	'ϲ': "s", 'ϳ': "j",
}

// greekPairs are the digraphs ELOT 743 spells as one sound.
var greekPairs = map[string]string{
	"ου": "ou", "αυ": "av", "ευ": "ev", "ηυ": "iv", "γγ": "ng", "γκ": "gk",
	"γξ": "nx", "γχ": "nch", "μπ": "mp", "ντ": "nt",
}

// arabic maps Arabic-script letters; "" drops the letter. Hamza carriers
// and the alef forms read as their vowel.
var arabic = map[rune]string{
	'ا': "a", 'أ': "a", 'إ': "i", 'آ': "a", 'ٱ': "a", 'ٲ': "a", 'ٳ': "i", 'ٵ': "a",
	'ب': "b", 'ت': "t", 'ث': "th", 'ج': "j", 'ح': "h", 'خ': "kh", 'د': "d",
	'ذ': "dh", 'ر': "r", 'ز': "z", 'س': "s", 'ش': "sh", 'ص': "s", 'ض': "d",
	'ط': "t", 'ظ': "z", 'ع': "a", 'غ': "gh", 'ف': "f", 'ق': "q", 'ك': "k",
	'ل': "l", 'م': "m", 'ن': "n", 'ه': "h", 'ة': "a", 'ى': "a", 'ء': "",
	'ؤ': "u", 'ئ': "i", 'ـ': "",
	// Persian, Urdu, Pashto, Kurdish, Sindhi, Maghrebi
	'پ': "p", 'چ': "ch", 'ژ': "zh", 'گ': "g", 'ک': "k", 'ی': "i", 'ے': "e",
	'ۃ': "a", 'ٹ': "t", 'ڈ': "d", 'ڑ': "r", 'ں': "n", 'ھ': "h", 'ہ': "h",
	'ۀ': "e", 'ە': "e", 'ڤ': "v", 'ڨ': "g", 'ڭ': "ng", 'ۆ': "o", 'ێ': "e",
	'ڕ': "r", 'ڵ': "l", 'ټ': "t", 'ځ': "dz", 'څ': "ts", 'ډ': "d", 'ړ': "r",
	'ږ': "zh", 'ښ': "sh", 'ګ': "g", 'ڼ': "n", 'ۍ': "ai", 'ې': "e", 'ۇ': "u",
	'ۋ': "v", 'ﻻ': "la",
}

var georgian = map[rune]string{
	'ა': "a", 'ბ': "b", 'გ': "g", 'დ': "d", 'ე': "e", 'ვ': "v", 'ზ': "z",
	'თ': "t", 'ი': "i", 'კ': "k", 'ლ': "l", 'მ': "m", 'ნ': "n", 'ო': "o",
	'პ': "p", 'ჟ': "zh", 'რ': "r", 'ს': "s", 'ტ': "t", 'უ': "u", 'ფ': "p",
	'ქ': "k", 'ღ': "gh", 'ყ': "q", 'შ': "sh", 'ჩ': "ch", 'ც': "ts", 'ძ': "dz",
	'წ': "ts", 'ჭ': "ch", 'ხ': "kh", 'ჯ': "j", 'ჰ': "h",
}

var hebrew = map[rune]string{
	'א': "a", 'ב': "b", 'ג': "g", 'ד': "d", 'ה': "h", 'ו': "v", 'ז': "z",
	'ח': "kh", 'ט': "t", 'י': "y", 'כ': "k", 'ך': "k", 'ל': "l", 'מ': "m",
	'ם': "m", 'נ': "n", 'ן': "n", 'ס': "s", 'ע': "a", 'פ': "p", 'ף': "f",
	'צ': "ts", 'ץ': "ts", 'ק': "k", 'ר': "r", 'ש': "sh", 'ת': "t",
}

// latinSpecial are Latin letters NFD does not decompose to ASCII.
var latinSpecial = map[rune]string{
	'ß': "ss", 'ẞ': "ss", 'æ': "ae", 'Æ': "ae", 'ø': "o", 'Ø': "o", 'œ': "oe",
	'Œ': "oe", 'ł': "l", 'Ł': "l", 'đ': "d", 'Đ': "d", 'ð': "d", 'Ð': "d",
	'þ': "th", 'Þ': "th", 'ı': "i", 'ŋ': "ng", 'Ŋ': "ng", 'ħ': "h", 'Ħ': "h",
	'ŧ': "t", 'Ŧ': "t", 'ĸ': "k", 'ſ': "s", 'ƒ': "f", 'ə': "a", 'Ə': "a",
	'ɨ': "i", 'ʉ': "u", 'ɔ': "o", 'Ɔ': "o", 'ɛ': "e", 'Ɛ': "e", 'ƙ': "k",
	'ɗ': "d", 'ɓ': "b", 'ƴ': "y", 'ʃ': "sh", 'ʒ': "zh", 'ǝ': "a",
}

// apostrophes vanish without splitting a word: Sa'id, Mus’ab, MY’ONG.
func isApostrophe(r rune) bool {
	switch r {
	case '\'', '’', '‘', 'ʼ', 'ʻ', 'ʽ', 'ʾ', 'ʿ', '`', '´', '′', 'ʹ', 'ˈ', '‛', 'ꞌ':
		return true
	}
	return false
}

// latinFold caches the ASCII fold of Latin letters with diacritics
// (U+0080..U+024F and U+1E00..U+1EFF): é→e, ş→s, ň→n, ạ→a.
var latinFold = func() map[rune]string {
	m := make(map[rune]string, 800)
	add := func(r rune) {
		if s, ok := latinSpecial[r]; ok {
			m[r] = s
			return
		}
		if !unicode.IsLetter(r) {
			return
		}
		var b strings.Builder
		for _, d := range norm.NFKD.String(string(r)) {
			if unicode.Is(unicode.Mn, d) {
				continue
			}
			d = unicode.ToLower(d)
			if s, ok := latinSpecial[d]; ok {
				b.WriteString(s)
			} else if d < utf8.RuneSelf {
				b.WriteRune(d)
			} else {
				return // not foldable to ASCII: keep the letter as it is
			}
		}
		if b.Len() > 0 {
			m[r] = b.String()
		}
	}
	for r := rune(0x80); r <= 0x24F; r++ {
		add(r)
	}
	for r := rune(0x1E00); r <= 0x1EFF; r++ {
		add(r)
	}
	for r := range latinSpecial {
		m[r] = latinSpecial[r]
	}
	return m
}()

// greekBase strips the tonos and dialytika from a Greek letter.
func greekBase(r rune) rune {
	d := norm.NFD.String(string(r))
	b, _ := utf8.DecodeRuneInString(d)
	return unicode.ToLower(b)
}

func isCyrillic(r rune) bool { return r >= 0x0400 && r <= 0x052F }
func isGreek(r rune) bool    { return (r >= 0x0370 && r <= 0x03FF) || (r >= 0x1F00 && r <= 0x1FFF) }
func isArabic(r rune) bool {
	return (r >= 0x0600 && r <= 0x06FF) || (r >= 0x0750 && r <= 0x077F) || (r >= 0x08A0 && r <= 0x08FF)
}
func isGeorgian(r rune) bool { return r >= 0x10A0 && r <= 0x10FF }
func isHebrew(r rune) bool   { return r >= 0x0590 && r <= 0x05FF }

// arabicDigit returns the ASCII digit of an Arabic-Indic digit, or -1.
func arabicDigit(r rune) rune {
	switch {
	case r >= 0x0660 && r <= 0x0669:
		return '0' + r - 0x0660
	case r >= 0x06F0 && r <= 0x06F9:
		return '0' + r - 0x06F0
	}
	return -1
}

// cyrillicLang is the reading of a name's Cyrillic words.
type cyrillicLang uint8

const (
	russian cyrillicLang = iota
	ukrainianLang
	belarusianLang
)

// cyrillicLangOf decides how a whole name reads: a name with ў, or with і
// beside ы or э, is Belarusian; a name with і, ї, є or ґ otherwise is
// Ukrainian (Олександр Гончаренко: honcharenko, the г of every word read
// as h); anything else is Russian.
func cyrillicLangOf(name string) cyrillicLang {
	var i, ukr, ye bool
	for _, r := range name {
		switch r {
		case 'ў', 'Ў':
			return belarusianLang
		case 'і', 'І':
			i = true
		case 'ї', 'Ї', 'є', 'Є', 'ґ', 'Ґ':
			ukr = true
		case 'ы', 'Ы', 'э', 'Э':
			ye = true
		}
	}
	switch {
	case ukr:
		return ukrainianLang
	case i && ye:
		return belarusianLang
	case i:
		return ukrainianLang
	}
	return russian
}

// translitCyrillicWord transliterates one word of Cyrillic letters
// (already lower-cased) in the reading lang.
func translitCyrillicWord(w []rune, lang cyrillicLang, b *strings.Builder) {
	var over map[rune]string
	switch lang {
	case ukrainianLang:
		over = ukrainian
	case belarusianLang:
		over = belarusian
	}
	for i, r := range w {
		if over != nil {
			if s, ok := over[r]; ok {
				if i == 0 {
					// word-initial: yu, ya, ye, yi, y
					switch r {
					case 'ю':
						s = "yu"
					case 'я':
						s = "ya"
					case 'є':
						s = "ye"
					case 'ї':
						s = "yi"
					case 'й':
						s = "y"
					case 'е':
						if lang == belarusianLang {
							s = "ye"
						}
					}
				}
				b.WriteString(s)
				continue
			}
		}
		if s, ok := cyrillic[r]; ok {
			b.WriteString(s)
		} else if unicode.IsLetter(r) {
			b.WriteRune(r)
		}
	}
}

// translitGreekWord transliterates one lower-cased Greek word.
func translitGreekWord(w []rune, b *strings.Builder) {
	for i := 0; i < len(w); i++ {
		r := greekBase(w[i])
		if i+1 < len(w) {
			pair := string([]rune{r, greekBase(w[i+1])})
			if s, ok := greekPairs[pair]; ok {
				if i == 0 && pair == "μπ" {
					s = "b"
				} else if i == 0 && pair == "ντ" {
					s = "d"
				}
				b.WriteString(s)
				i++
				continue
			}
		}
		if s, ok := greek[r]; ok {
			b.WriteString(s)
		}
	}
}

// translitArabicWord transliterates one Arabic-script word. Harakat are
// dropped; و and ي read as consonants (w, y) word-initially or after a
// vowel letter, else as long vowels (u, i).
func translitArabicWord(w []rune, b *strings.Builder) {
	prevVowel := true // word start behaves like "after a vowel"
	for _, r := range w {
		if d := arabicDigit(r); d >= 0 {
			b.WriteRune(d)
			prevVowel = false
			continue
		}
		switch r {
		case 'و':
			if prevVowel {
				b.WriteString("w")
				prevVowel = false
			} else {
				b.WriteString("u")
				prevVowel = true
			}
			continue
		case 'ي', 'ی', 'ې', 'ێ':
			if prevVowel {
				b.WriteString("y")
				prevVowel = false
			} else {
				b.WriteString("i")
				prevVowel = true
			}
			continue
		}
		s, ok := arabic[r]
		if !ok {
			continue // harakat, shadda, sukun, tanwin, marks
		}
		b.WriteString(s)
		if s != "" {
			prevVowel = isVowelByte(s[len(s)-1])
		}
	}
}

func isVowelByte(c byte) bool {
	switch c {
	case 'a', 'e', 'i', 'o', 'u':
		return true
	}
	return false
}
