package sanctions

import "strings"

// Name variants: the romanizations lists use for one given name, mapped to
// one canonical spelling (the "name symbols" of OpenSanctions' rigour, in
// small). Two tokens with the same canonical form score nameVariantSim
// even when their spelling differs by several letters (Mohamed/Muhammad,
// Ibragim/Ibrahim, Yevgeniy/Evgenii, Volodymyr/Vladimir). Words that merely
// share consonants but are different names (Hassan/Hussein) are kept apart.
var nameVariantGroups = [][]string{
	{"muhammad", "mohammad", "mohammed", "mohamed", "mohamad", "muhammed", "muhamad", "muhamed",
		"mouhamed", "mouhammad", "mohd", "mohamud", "mahomed", "mukhammad", "mukhamed", "magomed",
		"mokhammad", "mokhamed", "muhammet", "mehmet", "mehmed", "maxamed", "mohammod", "mohmmad",
		"muhamud", "mohamaed", "mohummad", "muhamadou", "mouhamadou", "mamadou"},
	{"ahmad", "ahmed", "ahmet", "akhmad", "akhmed", "achmad", "achmed", "ahmat", "ahamed", "axmed"},
	{"mahmud", "mahmoud", "mahmood", "makhmud", "mahmut", "mahamoud", "mehmood"},
	{"husayn", "hussein", "husein", "hussain", "husain", "hossein", "hosein", "houssein", "hussien",
		"husseyn", "huseyn", "husyn", "huseyin", "hossain", "hosain", "hussen", "husen"},
	{"hasan", "hassan", "hasen", "hassen", "khasan", "hassane"},
	{"abd", "abdul", "abdel", "abdal", "abdoul", "abdol", "abdu", "abdoel", "abdulla"},
	{"abdullah", "abdallah", "abdollah", "abdoulah", "abdalla", "abdillah", "abdelah", "abdellah",
		"abdoullah", "abdulah", "abdulloh"},
	{"yusuf", "youssef", "yousef", "yusef", "yousuf", "yousif", "yusif", "youssouf", "yussuf",
		"jusuf", "yosef", "yousof", "yusof", "yussef", "yousseff", "yusup", "yusuph"},
	{"ibrahim", "ebrahim", "ibraheem", "ibragim", "brahim", "ibrahima", "ibrohim", "ebraheem"},
	{"umar", "omar", "omer", "oumar", "umer", "omor"},
	{"uthman", "othman", "osman", "usman", "othmane", "usmon", "outhman", "osmane", "usmaan"},
	{"said", "saeed", "saied", "saiid", "saeid", "saaid", "saied", "sayid", "sa'id"},
	{"sayyid", "sayed", "seyed", "seyyed", "syed", "sayyed", "saiyid", "sayyad", "sayeed"},
	{"khalid", "khaled", "khalied", "kaled", "khaalid", "halid"},
	{"mustafa", "mostafa", "moustafa", "mustapha", "mostapha", "moustapha", "mustofa", "mustafo"},
	{"abu", "abou", "aboo", "abo"},
	{"bin", "ben", "ibn", "bn", "ibni", "bint", "binti", "bte"},
	{"al", "el", "ul", "ad", "ar", "as", "at", "az", "an", "ash"},
	{"ali", "aly", "alee", "aliyu"},
	{"jamal", "gamal", "djamal", "jamaal", "jemal", "djamel", "jamel"},
	{"rahman", "rehman", "rahmon", "rakhman", "rahmaan", "rachman", "rahmane", "rehmane"},
	{"rahim", "raheem", "rakhim", "rahime"},
	{"karim", "kareem", "kerim", "karime"},
	{"salih", "saleh", "salekh", "salehe"},
	{"muhsin", "mohsen", "mohsin", "muhsen", "mouhsine"},
	{"hamid", "hameed", "hamed", "khamid", "hamide"},
	{"nasir", "nasser", "naser", "nassir", "nacer", "nasr", "nassar"},
	{"haji", "hajji", "hadji", "hadzhi", "khadzhi", "hajj", "alhaji", "alhaj"},
	{"mullah", "mulla", "molla", "mullo", "moulla", "mollah", "mawlawi", "maulavi", "mawlavi", "maulvi"},
	{"qasim", "kassem", "qassem", "kasim", "qasem", "kacem", "qassim", "kasem", "gasim"},
	{"yasin", "yassin", "yaseen", "yassine", "yacine", "yasine", "jasin"},
	{"ismail", "ismael", "esmail", "ismayil", "ismoil", "ismaeel", "esmaeil", "ismayl"},
	{"yahya", "yahia", "yehia", "yahiya", "yehya", "yahiye"},
	{"musa", "moussa", "mousa", "moosa", "mussa"},
	{"isa", "issa", "eesa", "essa", "aissa"},
	{"zakariya", "zakaria", "zakariyya", "zakarya", "zakariyah", "zakariah"},
	{"abdulaziz", "abdelaziz", "abdalaziz", "abdulazeez"},
	{"abdulrahman", "abdelrahman", "abdalrahman", "abdurrahman", "abdurahman", "abdulrehman",
		"abderrahmane", "abderahmane", "abdourahmane", "abdurakhman"},
	{"faisal", "faysal", "feisal", "fayçal", "faycal"},
	{"tariq", "tarek", "tarik", "tareq", "tareck"},
	{"walid", "waleed", "oualid"},
	{"hisham", "hesham", "hicham"},
	{"hamza", "hamzah", "hamsa"},
	{"anwar", "anouar", "anwer", "anvar"},
	{"jafar", "jaafar", "djafar", "dzhafar", "jaffar"},
	{"fathi", "fethi", "fatih", "fathy"},
	{"mubarak", "moubarak", "mubarok", "moubarack"},
	{"suleiman", "sulaiman", "sulayman", "soliman", "slimane", "suleyman", "sulejman", "sleiman"},
	{"aleksandr", "alexander", "alexandr", "oleksandr", "aliaksandr", "aleksander", "alexandre",
		"alyaksandr", "aleksandar", "olexandr"},
	{"sergey", "sergei", "serhiy", "serhii", "siarhei", "sergiy", "serguei", "sergej", "serhij"},
	{"dmitriy", "dmitry", "dmitri", "dmytro", "dzmitry", "dimitri", "dmitrii", "dmitrij", "dzmitryi"},
	{"evgeniy", "yevgeny", "yevgeniy", "evgeny", "evgenii", "yevhen", "yauheni", "eugene", "evgenij",
		"yevgeni", "ievgen", "yevhenii", "evgenyi"},
	{"yuriy", "yuri", "yury", "yurii", "iurii", "yurij", "jurij", "yuriy", "iouri", "youri"},
	{"andrey", "andrei", "andriy", "andrii", "andrej", "andrij"},
	{"aleksey", "alexei", "alexey", "aleksei", "oleksiy", "oleksii", "aliaksei", "alexej", "aleksej",
		"oleksij", "alyaksei"},
	{"mikhail", "mykhailo", "mikhailo", "mikhael", "mikhal", "michail", "mihail", "mikalai"},
	{"vladimir", "volodymyr", "uladzimir", "wladimir", "vladymyr"},
	{"nikolay", "nikolai", "mykola", "nicolai", "nikolaj", "mikola"},
	{"viktor", "victor", "wiktor"},
	{"valeriy", "valery", "valerii", "valeri", "valerij"},
	{"anatoliy", "anatoly", "anatolii", "anatoli", "anatolij"},
	{"vitaliy", "vitaly", "vitalii", "vitali", "vitalij"},
	{"gennadiy", "gennady", "gennadii", "hennadiy", "hennadii", "gennadi"},
	{"grigoriy", "grigory", "hryhoriy", "hryhorii", "grigori", "grigorii"},
	{"georgiy", "georgy", "georgii", "heorhiy", "heorhii", "georgi"},
	{"pavel", "pavlo", "paval"},
	{"petr", "pyotr", "petro", "piotr", "pyatro"},
	{"ilya", "ilia", "illia", "ilja"},
	{"igor", "ihor", "ihar"},
	{"oleg", "oleh", "aleh"},
	{"vasiliy", "vasily", "vasyl", "vasili", "vasilii", "vasil", "vasilij", "vasiliy"},
	{"konstantin", "kostiantyn", "kanstantsin", "constantin", "kostyantyn"},
	{"tatyana", "tatiana", "tetiana", "tatsiana", "tatjana"},
	{"natalya", "natalia", "nataliya", "natallia", "natalja"},
	{"yelena", "elena", "olena"},
	{"yekaterina", "ekaterina", "katsiaryna", "kateryna"},
	{"yulia", "yuliya", "iuliia", "yulija"},
	{"olga", "olha", "volha"},
	{"kim", "gim"},
	{"choe", "choi", "chwe"},
	{"ri", "rhee", "yi"},
	{"pak", "park", "bak"},
	{"jong", "chong"},
	{"jr", "junior"},
}

// canonicalName maps a normalized token to its canonical variant, for the
// tokens of nameVariantGroups.
var canonicalName = func() map[string]string {
	m := make(map[string]string, 1024)
	for _, g := range nameVariantGroups {
		for _, v := range g {
			v = Normalize(v)
			if _, dup := m[v]; !dup {
				m[v] = g[0]
			}
		}
	}
	return m
}()

// particles are connecting words of names (articles, "son of", nobiliary
// particles). They weigh little in a name: their absence or presence on one
// side barely moves the score.
var particles = map[string]bool{
	"al": true, "el": true, "ul": true, "ad": true, "ar": true, "as": true, "at": true,
	"az": true, "an": true, "ash": true,
	"bin": true, "ben": true, "ibn": true, "bint": true, "binti": true, "bte": true, "ould": true,
	"ag": true, "ait": true, "de": true, "da": true, "del": true, "della": true, "di": true,
	"du": true, "dos": true, "das": true, "van": true, "von": true, "der": true, "den": true,
	"la": true, "le": true, "y": true, "e": true, "and": true, "the": true, "of": true,
	"ogly": true, "oglu": true, "kyzy": true, "qizi": true, "uly": true, "ugli": true,
}

// isPatronymic reports whether a token reads as a patronymic (Ivanovich,
// Petrovna, Ivanovych), which queries often leave out.
func isPatronymic(t string) bool {
	if len(t) < 6 {
		return false
	}
	for _, suf := range []string{"ovich", "evich", "ovych", "evych", "ovna", "evna", "ichna", "ovic", "evic", "avich", "avna", "ovitch", "evitch"} {
		if strings.HasSuffix(t, suf) {
			return true
		}
	}
	return false
}

func isVowel(c byte) bool {
	switch c {
	case 'a', 'e', 'i', 'o', 'u', 'y':
		return true
	}
	return false
}

// skeleton returns the consonant skeleton of a Latin token, the phonetic
// key matching uses across romanizations and for Arabic-script spellings
// (which do not write short vowels): digraphs folded (kh→k, sh→s, th→t,
// dh→d, gh→g, ph→f, zh/dzh/dj→j, ts→s, ch stays as one sound), c/q→k,
// z→s, w→v, x→ks, vowels (a e i o u y) dropped, doubled consonants
// collapsed, a final h dropped; a leading vowel is kept as "a". It returns "" for a token with anything but a-z and 0-9.
func skeleton(t string) string {
	var b [maxTokenBytes * 2]byte
	n := 0
	emit := func(c byte) {
		if n > 0 && b[n-1] == c {
			return
		}
		if n < len(b) {
			b[n] = c
			n++
		}
	}
	for i := 0; i < len(t); i++ {
		c := t[i]
		var next byte
		if i+1 < len(t) {
			next = t[i+1]
		}
		if i == 0 && isVowel(c) {
			emit('a')
			continue
		}
		switch {
		case isVowel(c):
			continue
		case c == 'h' && i > 0 && strings.IndexByte("kstdgpcz", t[i-1]) >= 0:
			continue // second letter of kh, sh, th, dh, gh, ph, ch
		case c == 'h' && i == len(t)-1 && i > 0:
			continue // final h: Abdullah/Abdulla, عبدالله abdallh
		case c == 'c' && next == 'h':
			emit('C')
		case c == 'p' && next == 'h':
			emit('f')
		case c == 'z' && next == 'h', c == 'd' && next == 'j':
			emit('j')
			i++
		case c == 'd' && next == 'z' && i+2 < len(t) && t[i+2] == 'h':
			emit('j')
			i += 2
		case c == 't' && (next == 's' || next == 'z'):
			emit('s')
			i++
		case c == 'c', c == 'q':
			emit('k')
		case c == 'z':
			emit('s')
		case c == 'w':
			emit('v')
		case c == 'x':
			emit('k')
			emit('s')
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
			emit(c)
		default:
			return ""
		}
	}
	return string(b[:n])
}

// looseSkeleton is a skeleton without v (w), with ch read as sh: the key
// that lets an Arabic-script spelling, where و mostly reads u, meet its
// Latin spellings (تواب tuab/Tawwab, حويش huysh/Huwaysh, ما يشو/Maychou).
func looseSkeleton(sk string) string {
	if strings.IndexByte(sk, 'v') < 0 && strings.IndexByte(sk, 'C') < 0 {
		return sk
	}
	b := make([]byte, 0, len(sk))
	for i := 0; i < len(sk); i++ {
		c := sk[i]
		switch c {
		case 'v':
			continue
		case 'C':
			c = 's'
		}
		if len(b) > 0 && b[len(b)-1] == c {
			continue
		}
		b = append(b, c)
	}
	return string(b)
}
