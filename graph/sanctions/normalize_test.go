package sanctions

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestNormalize(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"empty", "", ""},
		{"only punctuation", " -- ,; ", ""},
		{"case folding", "Vladimir PUTIN", "vladimir putin"},
		{"comma order kept", "PUTIN, Vladimir", "putin vladimir"},
		{"diacritics", "Müller-Lüdenscheidt Société Générale", "muller ludenscheidt societe generale"},
		{"latin specials", "Łódź Øresund Straße Æther İstanbul", "lodz oresund strasse aether istanbul"},
		{"apostrophes kept in word", "Mus’ab Al-Sa'adi MY’ONG", "musab al saadi myong"},
		{"hyphen splits", "ABD-AL-MAJID", "abd al majid"},
		{"dotted abbreviation", "J.P. Morgan", "jp morgan"},
		{"dotted legal form", "CECOEX, S.A.", "cecoex"},
		{"s.p.a.", "Fincantieri S.p.A.", "fincantieri"},
		{"l.l.c.", "Acme L.L.C.", "acme"},
		{"llc", "Aviation Systems LLC", "aviation systems"},
		{"ltd and co", "ANGLO-CARIBBEAN CO., LTD.", "anglo caribbean"},
		{"limited", "Great Prospect International Limited", "great prospect international"},
		{"gmbh", "Siemens GmbH", "siemens"},
		{"pjsc", "PJSC Rosneft", "rosneft"},
		{"jsc fze fzco", "Alpha JSC Beta FZE Gamma FZCO", "alpha beta gamma"},
		{"ooo latin", "OOO Romashka", "romashka"},
		{"phrase", "Sovcomflot Public Joint Stock Company", "sovcomflot"},
		{"limited liability company", "Petrochem Limited Liability Company", "petrochem"},
		{"all legal forms kept", "Co., Ltd.", "co ltd"},
		{"cyrillic ooo", "ООО «Ромашка»", "romashka"},
		{"cyrillic zao", "ЗАО Газпром", "gazprom"},
		{"cyrillic oao pao ao", "ОАО Альфа ПАО Бета АО Гамма", "alfa beta gamma"},
		{"cyrillic spelled out", "Общество с ограниченной ответственностью Вектор", "vektor"},
		{"russian", "Владимир Владимирович ПУТИН", "vladimir vladimirovich putin"},
		{"russian y", "Сергей Дмитрий Юрий", "sergey dmitriy yuriy"},
		{"russian soft and hard signs", "Игорь Объедков", "igor obedkov"},
		{"russian shch kh ts", "Щукин Хабаров Цой", "shchukin khabarov tsoy"},
		{"ukrainian reading", "Олександр Іванович Гончаренко", "oleksandr ivanovych honcharenko"},
		{"ukrainian initial ye", "Євген", "yevhen"},
		{"russian with і-less words", "Гончаренко Сергей", "goncharenko sergey"},
		{"belarusian", "Аляксандр Рыгоравіч Лукашэнка", "aliaksandr ryhoravich lukashenka"},
		{"serbian", "Ђорђе Јовановић", "djordje jovanovic"},
		{"greek", "Αλέξης Τσίπρας", "alexis tsipras"},
		{"greek digraphs", "Μπακογιάννη Ντόρα Ουρανία", "bakogianni dora ourania"},
		{"arabic", "محمد", "mhmd"},
		{"arabic article split", "صدام حسين التكريتي", "sdam hsin al tkriti"},
		{"arabic allah kept", "عبد الله", "abd allh"},
		{"arabic long vowels", "يوسف نور", "yusf nur"},
		{"arabic hamza forms", "أحمد إبراهيم", "ahmd ibrahim"},
		{"arabic taa marbuta", "فاطمة", "fatma"},
		{"persian letters", "پرویز چگینی", "pruyz chgini"},
		{"arabic harakat dropped", "مُحَمَّد", "mhmd"},
		{"arabic digits", "شركة ١٢٣", "shrka 123"},
		{"arabic presentation forms", "ﻣﺤﻤﺪ", "mhmd"},
		{"allah ligature", "ﷲ", "allh"},
		{"georgian", "ახალი", "akhali"},
		{"hebrew", "דוד", "dvd"},
		{"han kept", "王小明", "王小明"},
		{"hangul kept", "김정은", "김정은"},
		{"fullwidth", "ＡＢＣ　ＤＥＦ", "abc def"},
		{"digits kept", "140 Repair Plant", "140 repair plant"},
		{"whitespace collapsed", "  Ali \t\n Hassan  ", "ali hassan"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Normalize(tt.in); got != tt.want {
				t.Errorf("Normalize(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestNormalizeKey(t *testing.T) {
	tests := []struct {
		name, a, b string
	}{
		{"token order", "PUTIN, Vladimir", "Vladimir Putin"},
		{"legal form anywhere", "LLC Aviation Systems", "Aviation Systems, L.L.C."},
		{"punctuation", "Al-Qaida", "AL QAIDA"},
		{"cyrillic legal form", "ООО Вектор", "Vektor OOO"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if ka, kb := NormalizeKey(tt.a), NormalizeKey(tt.b); ka != kb {
				t.Errorf("NormalizeKey(%q) = %q, want NormalizeKey(%q) = %q", tt.a, ka, tt.b, kb)
			}
		})
	}
}

func TestNormalizePersonKeepsLegalFormWords(t *testing.T) {
	// A person query is tokenized without legal-form stripping: "Sá" stays.
	toks := tokenize("Thomas Sá")
	if got := len(toks); got != 2 {
		t.Errorf("tokenize(%q) = %d tokens, want 2", "Thomas Sá", got)
	}
}

func TestSkeleton(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"mohammed", "mohammed", "mhmd"},
		{"muhammad", "muhammad", "mhmd"},
		{"arabic mhmd", "mhmd", "mhmd"},
		{"initial vowel", "omar", "amr"},
		{"kh digraph", "khalid", "kld"},
		{"sh digraph", "shamsuddin", "smsdn"},
		{"ch kept apart", "chechen", "Cn"},
		{"zh", "zhukov", "jkv"},
		{"ts", "tsoy", "s"},
		{"x", "alexander", "alksndr"},
		{"final h", "abdullah", "abdl"},
		{"non-ascii", "王", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := skeleton(tt.in); got != tt.want {
				t.Errorf("skeleton(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestTokenSim(t *testing.T) {
	tok := func(s string) tokenInfo { return newTokenInfo(tokenize(s)[0]) }
	tests := []struct {
		name     string
		a, b     string
		min, max float64
	}{
		{"equal", "salek", "salek", 1, 1},
		{"variant group", "mohamed", "muhammad", nameVariantSim, 1},
		{"variant russian", "yevgeniy", "evgenii", nameVariantSim, 1},
		{"doubled letter", "hassan", "hasan", 0.9, 0.99},
		{"transposition", "abudl", "abdul", 0.8, 0.9},
		{"one typo long word", "attiiqullah", "attiqullah", 0.9, 0.99},
		{"hassan is not hussein", "hassan", "hussein", 0, 0.79},
		{"unrelated", "smith", "jones", 0, 0.3},
		{"short tokens exact only", "al", "el", nameVariantSim, nameVariantSim},
		{"short token doubled", "yu", "yyu", 0.8, 0.9},
		{"short unrelated", "li", "lu", 0, 0},
		{"arabic vs latin", "محمد", "mohammed", 0.85, 1},
		{"arabic vs latin yusuf", "يوسف", "youssef", 0.75, 1},
		{"arabic dad as z", "ضیا", "zia", 0.8, 1},
		{"han never fuzzy", "王小明", "王小", 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b := tok(tt.a), tok(tt.b)
			got := tokenSim(&a, &b)
			if got < tt.min || got > tt.max {
				t.Errorf("tokenSim(%q, %q) = %.3f, want within [%.3f, %.3f]", tt.a, tt.b, got, tt.min, tt.max)
			}
			if rev := tokenSim(&b, &a); rev != got {
				t.Errorf("tokenSim(%q, %q) = %.3f, want %.3f (symmetric)", tt.b, tt.a, rev, got)
			}
		})
	}
}

// checkNormalized reports what is wrong with a Normalize result, or "".
func checkNormalized(in, out string) string {
	if !utf8.ValidString(out) {
		return "invalid UTF-8"
	}
	if out != strings.TrimSpace(out) || strings.Contains(out, "  ") {
		return "stray spaces"
	}
	if again := Normalize(out); again != out {
		return "not idempotent: Normalize(out) = " + again
	}
	if len(strings.Fields(out)) > maxTokens {
		return "too many tokens"
	}
	for _, f := range strings.Fields(out) {
		if len(f) > maxTokenBytes {
			return "token too long"
		}
	}
	return ""
}

func FuzzNormalize(f *testing.F) {
	for _, s := range []string{
		"", "Vladimir PUTIN", "ООО «Ромашка»", "S.A. Cecoex, S.A.", "صدام حسين التكريتي",
		"Αλέξης Τσίπρας", "J.P. Morgan", "a.b.cd", "王小明", "김정은", "नमस्ते", "joint ltd stock company xyz",
		"Co., Ltd.", "ﷲ", "Лукашэнка", "\xff\xfe", "Mus’ab", "ʻ", "l.l.c.", "‍\u200d\u0301a",
		strings.Repeat("щ", 600), strings.Repeat("a.", 300),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out := Normalize(in)
		if msg := checkNormalized(in, out); msg != "" {
			t.Errorf("Normalize(%q) = %q: %s", in, out, msg)
		}
		if k1, k2 := NormalizeKey(in), NormalizeKey(out); k1 != k2 {
			t.Errorf("NormalizeKey(%q) = %q, want NormalizeKey(Normalize(…)) = %q", in, k1, k2)
		}
	})
}

func FuzzTokenSim(f *testing.F) {
	f.Add("mohammed", "محمد")
	f.Add("", "x")
	f.Add("王小明", "abc")
	f.Fuzz(func(t *testing.T, a, b string) {
		ta, tb := tokenize(a), tokenize(b)
		if len(ta) == 0 || len(tb) == 0 {
			return
		}
		ia, ib := newTokenInfo(ta[0]), newTokenInfo(tb[0])
		s := tokenSim(&ia, &ib)
		if s < 0 || s > 1 {
			t.Errorf("tokenSim(%q, %q) = %v, want within [0, 1]", ta[0].text, tb[0].text, s)
		}
		if ta[0].text == tb[0].text && s != 1 {
			t.Errorf("tokenSim(%q, %q) = %v, want 1", ta[0].text, tb[0].text, s)
		}
	})
}
