package ubo

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"
)

// Shell-company signals, by the names verdicts carry.
const (
	SignalSecrecyJurisdiction     = "secrecy_jurisdiction"
	SignalNoNaturalPersonAtTop    = "no_natural_person_at_top"
	SignalCircularOwnership       = "circular_ownership"
	SignalMassRegistrationAddress = "mass_registration_address"
	SignalNomineeOfficers         = "nominee_officers"
	SignalRecentIncorporation     = "recent_incorporation"
)

// signalWeight is how much each signal counts towards a verdict. Structural
// red flags (cycles, shared registration addresses, nominees) count double;
// a secrecy jurisdiction, an ownership chain that ends in companies, or a
// young company is common among legitimate firms on its own.
var signalWeight = map[string]int{
	SignalSecrecyJurisdiction:     1,
	SignalNoNaturalPersonAtTop:    1,
	SignalCircularOwnership:       2,
	SignalMassRegistrationAddress: 2,
	SignalNomineeOfficers:         2,
	SignalRecentIncorporation:     1,
}

// Verdicts, from the strongest down. A verdict is the sum of its signals'
// weights: LikelyShell at 4 or more, PossibleShell at 2 or 3, WeakSignals
// at 1, NoSignals at 0.
const (
	VerdictLikelyShell   = "likely_shell"
	VerdictPossibleShell = "possible_shell"
	VerdictWeakSignals   = "weak_signals"
	VerdictNoSignals     = "no_signals"
)

// MassRegistrationMin is the number of legal entities of one graph that
// must share a normalized address for it to count as a mass-registration
// address.
const MassRegistrationMin = 3

// RecentIncorporationWindow is how recent an incorporation is a signal.
const RecentIncorporationWindow = 365 * 24 * time.Hour

// SecrecyJurisdictions are the ISO alpha-2 codes treated as secrecy
// jurisdictions: the offshore centres among the top ranks of the Tax
// Justice Network's Financial Secrecy Index, 2022 edition (top 10, published
// 2022-05-17: US, CH, SG, HK, LU, JP, DE, AE, VG, GG) and 2020 edition (top
// 15, published 2020-02-18: KY, US, CH, HK, SG, LU, JP, NL, VG, AE, GG, GB,
// TW, DE, PA). The large onshore economies of those ranks (US, JP, DE, NL,
// GB, TW) are left out: the index ranks them for the scale of their
// financial sectors (its Global Scale Weight), not for the secrecy of their
// company law, and flagging them would flag most ordinary groups.
var SecrecyJurisdictions = map[string]string{
	"KY": "Cayman Islands (FSI 2020 rank 1)",
	"CH": "Switzerland (FSI 2022 rank 2)",
	"SG": "Singapore (FSI 2022 rank 3)",
	"HK": "Hong Kong (FSI 2022 rank 4)",
	"LU": "Luxembourg (FSI 2022 rank 5)",
	"AE": "United Arab Emirates (FSI 2022 rank 8)",
	"VG": "British Virgin Islands (FSI 2022 rank 9)",
	"GG": "Guernsey (FSI 2022 rank 10)",
	"PA": "Panama (FSI 2020 rank 15)",
}

// Signal is one shell-company signal with its evidence.
type Signal struct {
	Name     string `json:"name"`
	Evidence string `json:"evidence"`
}

// Verdict is the shell-company verdict on one legal entity.
type Verdict struct {
	EntityID string   `json:"entity_id"`
	Name     string   `json:"name"`
	Verdict  string   `json:"verdict"`
	Score    int      `json:"score"`
	Signals  []Signal `json:"signals"`
}

// Shell returns the shell-company verdict of every legal entity of the
// graph (every node that is not a person or a vessel), keyed by entity id.
// Signals are read from the graph as given. frontier names the nodes whose
// owners lie beyond the traversal's reach: a chain that ends there may end
// in a natural person, so it never makes no_natural_person_at_top fire.
func Shell(nodes []Node, edges []Edge, frontier []string, now time.Time) map[string]Verdict {
	beyond := map[string]bool{}
	for _, id := range frontier {
		beyond[id] = true
	}
	byID := make(map[string]*Node, len(nodes))
	for i := range nodes {
		byID[nodes[i].ID] = &nodes[i]
	}
	owners := map[string][]Edge{} // owned -> ownership edges into it
	for _, e := range edges {
		if e.Relation == RelOwns {
			owners[e.To] = append(owners[e.To], e)
		}
	}
	addresses := map[string][]string{} // normalized address -> legal entities
	for _, n := range nodes {
		if legalEntity(n.Kind) && n.Address != "" {
			k := normalizeAddress(n.Address)
			if k != "" {
				addresses[k] = append(addresses[k], n.ID)
			}
		}
	}
	out := map[string]Verdict{}
	for _, n := range nodes {
		if !legalEntity(n.Kind) {
			continue
		}
		var sig []Signal
		if s, ok := secrecySignal(n); ok {
			sig = append(sig, s)
		}
		if s, ok := noPersonSignal(n.ID, owners, byID, beyond); ok {
			sig = append(sig, s)
		}
		if s, ok := cycleSignal(n.ID, owners, byID); ok {
			sig = append(sig, s)
		}
		if s, ok := addressSignal(n, addresses); ok {
			sig = append(sig, s)
		}
		if s, ok := nomineeSignal(n, edges, byID); ok {
			sig = append(sig, s)
		}
		if s, ok := recentSignal(n, now); ok {
			sig = append(sig, s)
		}
		out[n.ID] = verdict(n, sig)
	}
	return out
}

func verdict(n Node, sig []Signal) Verdict {
	score := 0
	for _, s := range sig {
		score += signalWeight[s.Name]
	}
	v := Verdict{EntityID: n.ID, Name: n.Name, Score: score, Signals: sig}
	if v.Signals == nil {
		v.Signals = []Signal{}
	}
	switch {
	case score >= 4:
		v.Verdict = VerdictLikelyShell
	case score >= 2:
		v.Verdict = VerdictPossibleShell
	case score == 1:
		v.Verdict = VerdictWeakSignals
	default:
		v.Verdict = VerdictNoSignals
	}
	return v
}

// legalEntity reports whether a node of kind gets a shell verdict.
func legalEntity(kind string) bool { return kind != KindPerson && kind != KindVessel }

func secrecySignal(n Node) (Signal, bool) {
	why, ok := SecrecyJurisdictions[strings.ToUpper(n.Jurisdiction)]
	if !ok {
		return Signal{}, false
	}
	return Signal{SignalSecrecyJurisdiction, fmt.Sprintf("registered in %s: %s", strings.ToUpper(n.Jurisdiction), why)}, true
}

// noPersonSignal searches the upstream ownership graph of id (breadth
// first, each entity once) and fires when no natural person is reachable:
// every chain ends in a company, a trust, or an entity whose owners are not
// recorded. An entity with no recorded owner at all fires too ("no owner
// recorded"). A chain cut by the hop limit (its top in beyond) is not known
// to end without a person, so the signal does not fire. The answer is that
// of enumerating every simple path, in time linear in the graph.
func noPersonSignal(id string, owners map[string][]Edge, byID map[string]*Node, beyond map[string]bool) (Signal, bool) {
	if beyond[id] {
		return Signal{}, false
	}
	if len(owners[id]) == 0 {
		return Signal{SignalNoNaturalPersonAtTop, "no owner recorded in the ownership data"}, true
	}
	var tops []string
	personFound := false
	seen := map[string]bool{id: true}
	queue := []string{id}
	for len(queue) > 0 && !personFound {
		cur := queue[0]
		queue = queue[1:]
		if beyond[cur] {
			personFound = true // unknown: may be a person
			break
		}
		ups := owners[cur]
		if len(ups) == 0 {
			if n := byID[cur]; n != nil && n.Kind == KindPerson {
				personFound = true
				break
			}
			tops = append(tops, describe(cur, byID))
			continue
		}
		for _, e := range ups {
			if seen[e.From] {
				continue
			}
			if n := byID[e.From]; n != nil && n.Kind == KindPerson {
				personFound = true
				break
			}
			seen[e.From] = true
			queue = append(queue, e.From)
		}
	}
	if personFound {
		return Signal{}, false
	}
	slices.Sort(tops)
	tops = slices.Compact(tops)
	if len(tops) > 5 {
		tops = append(tops[:5], fmt.Sprintf("and %d more", len(tops)-5))
	}
	return Signal{SignalNoNaturalPersonAtTop, "every upstream ownership chain ends without a natural person, at " + strings.Join(tops, ", ")}, true
}

func describe(id string, byID map[string]*Node) string {
	n := byID[id]
	if n == nil {
		return id + " (not in the graph)"
	}
	kind := n.Kind
	if kind == "" {
		kind = "unknown kind"
	}
	return fmt.Sprintf("%s (%s)", n.Name, kind)
}

// cycleSignal fires when id owns itself through a chain of ownership
// edges; the evidence is the shortest such cycle.
func cycleSignal(id string, owners map[string][]Edge, byID map[string]*Node) (Signal, bool) {
	// Breadth-first upward from id; reaching id again closes a cycle.
	prev := map[string]string{}
	queue := []string{id}
	seen := map[string]bool{}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		for _, e := range owners[cur] {
			if e.From == id {
				chain := []string{name(id, byID)}
				for c := cur; c != id; c = prev[c] {
					chain = append(chain, name(c, byID))
				}
				chain = append(chain, name(id, byID))
				slices.Reverse(chain)
				return Signal{SignalCircularOwnership, "ownership cycle: " + strings.Join(chain, " owns ")}, true
			}
			if !seen[e.From] {
				seen[e.From] = true
				prev[e.From] = cur
				queue = append(queue, e.From)
			}
		}
	}
	return Signal{}, false
}

func name(id string, byID map[string]*Node) string {
	if n := byID[id]; n != nil && n.Name != "" {
		return n.Name
	}
	return id
}

func addressSignal(n Node, addresses map[string][]string) (Signal, bool) {
	if n.Address == "" {
		return Signal{}, false
	}
	shared := addresses[normalizeAddress(n.Address)]
	if len(shared) < MassRegistrationMin {
		return Signal{}, false
	}
	return Signal{SignalMassRegistrationAddress, fmt.Sprintf("address %q is shared by %d legal entities of this graph (threshold %d)", n.Address, len(shared), MassRegistrationMin)}, true
}

// nomineeWord finds "nominee", "nominees" and "nominee director" style
// words in a name.
var nomineeWord = regexp.MustCompile(`(?i)\bnominees?\b`)

// nomineeSignal fires when the entity is flagged a nominee, or when an
// owner or controller of it is flagged a nominee (BODS isNominee / nominee
// interests, as imported) or named like one ("... Nominees Ltd").
func nomineeSignal(n Node, edges []Edge, byID map[string]*Node) (Signal, bool) {
	var ev []string
	if n.Nominee {
		ev = append(ev, "the entity itself is recorded as a nominee")
	}
	seen := map[string]bool{}
	for _, e := range edges {
		if e.To != n.ID {
			continue
		}
		o := byID[e.From]
		switch {
		case o != nil && o.Nominee && !seen[o.ID]:
			ev = append(ev, fmt.Sprintf("%s (%s) is recorded as a nominee", o.Name, e.Relation))
		case o != nil && nomineeWord.MatchString(o.Name) && !seen[o.ID]:
			ev = append(ev, fmt.Sprintf("%s (%s) is named as a nominee", o.Name, e.Relation))
		default:
			continue
		}
		seen[e.From] = true
	}
	if len(ev) == 0 {
		return Signal{}, false
	}
	slices.Sort(ev)
	return Signal{SignalNomineeOfficers, strings.Join(slices.Compact(ev), "; ")}, true
}

func recentSignal(n Node, now time.Time) (Signal, bool) {
	if n.Founded == nil || n.Founded.After(now) || now.Sub(*n.Founded) > RecentIncorporationWindow {
		return Signal{}, false
	}
	return Signal{SignalRecentIncorporation, fmt.Sprintf("incorporated %s, within 12 months of the build (%s)", n.Founded.Format(time.DateOnly), now.Format(time.DateOnly))}, true
}

// normalizeAddress folds an address for comparison: letters and digits,
// lower case, single spaces.
func normalizeAddress(s string) string {
	var b strings.Builder
	space := false
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			b.WriteRune(r)
			space = false
		} else {
			space = true
		}
	}
	return b.String()
}
