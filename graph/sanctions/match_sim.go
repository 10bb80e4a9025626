package sanctions

import "strings"

// Token similarity.
//
// Two tokens are compared by a weighted edit distance tuned for the ways
// one name is spelled across romanizations and typed with typos, and
// turned into a similarity 1 - distance/longer length:
//
//   - substituting a vowel for a vowel (a e i o u y) costs 0.5
//     (Mohammed/Muhammad, Yusuf/Yosef), and so do the consonant pairs
//     romanizations swap: c/k, k/q, c/q, s/z, c/s, u/w, v/w, f/v, j/y, g/j;
//   - inserting or deleting a letter that doubles its neighbour costs 0.5
//     (Hassan/Hasan), an h costs 0.5 (Kh/K, Sh/S), a vowel 0.7;
//   - transposing two adjacent letters costs 0.8 (Faiz/Afiz);
//   - substituting the first letter for an unrelated one, or inserting a
//     consonant (not h, w, y) before an initial vowel, costs 2
//     (Fallon/Tallon, Anna/Banna: a different name more often than a
//     typo);
//   - anything else costs 1.
//
//   - an h costs 0.5 only after k, s, t, d, g, p, c, z or at the end after
//     a vowel (Kh/K, Sh/S, Abdullah/Abdulla);
//
// Two tokens that differ only in a final o against a (Antonio/Antonia,
// Mario/Maria) are a masculine and a feminine name, not a typo: they score
// genderedSim, which aligns them at a fifth of their weight (pairCredit),
// and the explanation marks the pair "gendered ending".
//
// Tokens of the same name-variant group (canonicalName) score at least
// nameVariantSim. A token transliterated from Arabic script against a
// Latin one uses costUnwritten for the Latin vowels the script does not
// write (محمد → mhmd against Muhammad). Tokens of two or fewer letters only
// match exactly, as variants, or by a doubled letter.

const (
	nameVariantSim = 0.95
	costVowelSub   = 0.5
	costLikeSub    = 0.5
	costDouble     = 0.5
	costH          = 0.5
	costVowelIndel = 0.7
	costTranspose  = 0.8
)

// tokenInfo is a token with what similarity needs precomputed.
type tokenInfo struct {
	text   string
	canon  string // canonical variant, or ""
	skel   string // consonant skeleton
	script script
	weight float32
}

func newTokenInfo(t token) tokenInfo {
	ti := tokenInfo{text: t.text, script: t.script, canon: canonicalName[t.text]}
	if t.script != scriptOther {
		ti.skel = skeleton(t.text)
	}
	ti.weight = tokenWeight(t.text)
	return ti
}

// tokenWeight is how much a token counts in a name: its length in letters
// (long, rare-looking words identify more than short ones), at most 12;
// particles (al, bin, de, ...) count 1, and the generic words of company
// names (trading, international, oil, ...) count genericWeight of their
// length, so that two companies sharing only those do not match.
func tokenWeight(t string) float32 {
	if particles[t] {
		return 1
	}
	n := 0
	for range t {
		n++
	}
	n = max(1, min(n, 12))
	if genericWords[t] {
		return max(1, genericWeight*float32(n))
	}
	return float32(n)
}

// genericWeight scales the weight of a generic company word.
const genericWeight = 0.35

// genericWords are the words company names share without identifying
// anyone, in commodity trade above all, in English and in the
// transliterations the lists use.
var genericWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`
		trading trade traders international intl global general group groups holding holdings
		industries industry industrial enterprise enterprises services service solutions systems
		oil gas petroleum petrochemical petrochemicals energy energies refinery refining fuel fuels
		shipping ship ships marine maritime navigation tanker tankers logistics transport transportation
		investment investments invest capital finance financial bank banking insurance
		import export imports exports commercial commerce development technology technologies
		products product production manufacturing manufacture construction engineering resources
		mining metals steel chemical chemicals electronics equipment machinery agency partners
		national foreign world united new east west middle north south far central
		management consulting projects project supply supplies distribution company corporation
		torgovy dom kompaniya obedinenie predpriyatie zavod tsentr
		`) {
		m[w] = true
	}
	return m
}()

// tokenSim returns the similarity of two tokens in [0, 1].
func tokenSim(a, b *tokenInfo) float64 {
	if a.text == b.text {
		return 1
	}
	if a.script == scriptOther || b.script == scriptOther {
		return 0
	}
	s := 0.0
	if a.canon != "" && a.canon == b.canon {
		s = nameVariantSim
	}
	abjadA := a.script == scriptAbjad && b.script != scriptAbjad
	abjadB := b.script == scriptAbjad && a.script != scriptAbjad
	// The length difference alone may rule out a useful similarity.
	la, lb := len(a.text), len(b.text)
	if abjadB {
		la, lb = lb, la
	}
	least := 0.5 // the cheapest insertion or deletion
	if (abjadA || abjadB) && lb > la {
		least = costUnwritten
	}
	if 1-least*float64(max(la-lb, lb-la))/float64(max(la, lb)) < minPairSim {
		return s
	}
	var e float64
	switch {
	case abjadA:
		e = editSimMode(a.text, b.text, true)
	case abjadB:
		e = editSimMode(b.text, a.text, true)
	default:
		e = editSimMode(a.text, b.text, false)
	}
	if len(a.text) <= 2 || len(b.text) <= 2 {
		// Short tokens: only a doubled letter (Yu/Yyu) or a variant.
		if e < 1-costDouble/3-1e-6 {
			return s
		}
	}
	if e > s {
		s = e
	}
	if s > genderedSim && s != nameVariantSim && genderedPair(a.text, b.text) {
		return genderedSim
	}
	return s
}

// genderedSim is the similarity of two given names that differ only in a
// gendered final vowel (Antonio/Antonia): a different name, not a typo.
const genderedSim = 0.5

// genderedPair reports whether a and b are one name in its masculine and
// feminine forms, ending in o and a (Antonio/Antonia, Mario/Maria,
// Roberto/Roberta): the same letters but the last, at least four of them.
func genderedPair(a, b string) bool {
	n := len(a)
	if n < 4 || len(b) != n || a[:n-1] != b[:n-1] {
		return false
	}
	x, y := a[n-1], b[n-1]
	return x == 'a' && y == 'o' || x == 'o' && y == 'a'
}

// editSim returns 1 - d/max(len) for the weighted edit distance d above,
// or 0 when the distance exceeds the longer length.
func editSim(a, b string) float64 { return editSimMode(a, b, false) }

// editSimMode is editSim; with abjad, a is a transliteration from Arabic
// script and b a Latin spelling: a vowel b has and a lacks costs only
// costUnwritten (short vowels are not written), a vowel a has and b lacks
// costs 0.5 (a long vowel or ayn a spelling leaves out).
func editSimMode(a, b string, abjad bool) float64 {
	m := max(len(a), len(b))
	if m == 0 {
		return 1
	}
	s := 1 - editDistance(a, b, abjad)/float64(m)
	if s < 0 {
		return 0
	}
	return s
}

// costUnwritten is the cost of a Latin vowel an Arabic-script spelling
// does not write.
const costUnwritten = 0.15

// editDistance is the weighted optimal-string-alignment distance.
func editDistance(a, b string, abjad bool) float64 {
	const maxLen = 2 * maxTokenBytes
	if len(a) > maxLen {
		a = a[:maxLen]
	}
	if len(b) > maxLen {
		b = b[:maxLen]
	}
	la, lb := len(a), len(b)
	var delA, insB [maxLen]float32
	for i := range la {
		delA[i] = indelCost(a, i)
		if i == 0 && !abjad {
			delA[0] = firstIndelCost(a, delA[0])
		}
		if abjad && isVowel(a[i]) {
			delA[i] = 0.5
		}
	}
	for j := range lb {
		insB[j] = indelCost(b, j)
		if j == 0 && !abjad {
			insB[0] = firstIndelCost(b, insB[0])
		}
		if abjad {
			switch c := b[j]; {
			case isVowel(c):
				insB[j] = costUnwritten
			case c == 'w' || c == 'y':
				insB[j] = min(insB[j], 0.5) // the diphthongs aw, ay written with one letter
			}
		}
	}
	var rows [3][maxLen + 1]float32
	prev2, prev, cur := &rows[0], &rows[1], &rows[2]
	prev[0] = 0
	for j := 1; j <= lb; j++ {
		prev[j] = prev[j-1] + insB[j-1]
	}
	for i := 1; i <= la; i++ {
		da := delA[i-1]
		cur[0] = prev[0] + da
		ca := a[i-1]
		for j := 1; j <= lb; j++ {
			cb := b[j-1]
			sc := subCost(ca, cb)
			if abjad && sc == 1 && abjadLike(ca, cb) {
				sc = costLikeSub
			}
			if i == 1 && j == 1 && sc == 1 && !abjad && !(ca == 'g' && cb == 'h' || ca == 'h' && cb == 'g') {
				sc = costFirst // Fallon/Tallon; Hennadiy/Gennadiy aside
			}
			best := prev[j-1] + sc
			if v := prev[j] + da; v < best {
				best = v
			}
			if v := cur[j-1] + insB[j-1]; v < best {
				best = v
			}
			if i > 1 && j > 1 && ca == b[j-2] && a[i-2] == cb && ca != cb {
				if v := prev2[j-2] + costTranspose; v < best {
					best = v
				}
			}
			cur[j] = best
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return float64(prev[lb])
}

// costFirst is the cost of changing the first letter of a Latin token to
// an unrelated consonant, or of adding one before it (Fallon/Tallon,
// Anna/Banna): typos and romanizations rarely touch the first letter, and
// such pairs are different names far more often than misspellings.
const costFirst = 2

// firstIndelCost is the cost of inserting or deleting s[0], given its
// ordinary cost c: costFirst for a consonant before a vowel that is no h,
// w or y (Yelena/Elena, Wahid/Ahid stay cheap) and doubles nothing. A
// consonant before a consonant is more often a letter slipped across a
// word boundary (Lauren Tnkunda, Myongc-hin) and keeps its cost.
func firstIndelCost(s string, c float32) float32 {
	if c == 1 && len(s) > 1 && isVowel(s[1]) && !strings.ContainsRune("hwy", rune(s[0])) {
		return costFirst
	}
	return c
}

// indelCost is the cost of inserting or deleting s[i].
func indelCost(s string, i int) float32 {
	c := s[i]
	if (i > 0 && s[i-1] == c) || (i+1 < len(s) && s[i+1] == c) {
		return costDouble
	}
	if c == 'd' && i+1 < len(s) && s[i+1] == 'j' {
		return costH // Djamel/Jamel
	}
	if c == 'h' && i > 0 && (strings.IndexByte("kstdgpcz", s[i-1]) >= 0 || (i == len(s)-1 && isVowel(s[i-1]))) {
		return costH // kh/k, sh/s, th/t, ... and a final h: Abdullah/Abdulla
	}
	if isVowel(c) {
		return costVowelIndel
	}
	return 1
}

func subCost(x, y byte) float32 {
	if x < 128 && y < 128 {
		return subTable[x][y]
	}
	if x == y {
		return 0
	}
	return 1
}

// abjadLike reports whether an Arabic-script letter's transliteration
// (first) and a Latin letter (second) are a usual pair: ض/ذ/ظ read d or z
// (Zia, Zakir), ث t or s (Saqib), ق q or g (Gasmi).
func abjadLike(a, l byte) bool {
	switch {
	case a == 'd' && l == 'z', a == 'z' && l == 'd', a == 't' && l == 's', a == 'q' && l == 'g':
		return true
	}
	return false
}

// subTable holds the substitution costs of ASCII byte pairs.
var subTable = func() *[128][128]float32 {
	var t [128][128]float32
	for x := range 128 {
		for y := range 128 {
			switch {
			case x == y:
				t[x][y] = 0
			case isVowel(byte(x)) && isVowel(byte(y)):
				t[x][y] = costVowelSub
			default:
				t[x][y] = 1
			}
		}
	}
	for _, p := range []string{"ck", "kq", "cq", "sz", "cs", "uw", "vw", "fv", "jy", "gj"} {
		t[p[0]][p[1]] = costLikeSub
		t[p[1]][p[0]] = costLikeSub
	}
	return &t
}()
