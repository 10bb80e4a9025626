package ubo

import (
	"fmt"
	"slices"
	"strings"
)

// Aggregate risks.
const (
	RiskHigh    = "high"
	RiskMedium  = "medium"
	RiskLow     = "low"
	RiskUnknown = "unknown"
)

// Aggregate returns the aggregate risk of a built result and every reason
// for it. The rules, strongest first:
//
//   - high: the root is blocked under the OFAC 50% rule; the root itself
//     matches a sanctions list; the root matches a confirmed or likely
//     cluster record; or the root is a likely shell.
//   - medium: the root is possibly blocked (an ownership band straddles
//     50%); another node of the graph matches a sanctions list or the
//     cluster blocklist (a suspected record is a lead); the root is a
//     possible shell; or another legal entity of the graph is a likely
//     shell.
//   - unknown: nothing above, and something could not be checked: the
//     root is not in the ownership data, the sanctions lists were not all
//     screened, the blocklist was not screened, a node's sanctions or
//     blocklist screening failed, the OFAC 50% status is unknown, the
//     traversal was truncated at max_hops, the root has no recorded
//     owner at all, or the root name matched more than one entity (the
//     one assessed may not be the one meant).
//   - low: nothing above, and every check ran.
//
// Weaker findings (weak shell signals) are listed as reasons without
// raising the risk. Absence of data is never low.
func Aggregate(r *Result) (string, []string) {
	var high, medium, unknown, notes []string
	if !r.RootFound {
		unknown = append(unknown, "the root entity is not in the ownership data: no ownership could be traversed, screened or assessed")
	}
	switch r.OFAC50.Status {
	case OFACBlocked:
		high = append(high, "the root is blocked under the OFAC 50% rule: "+strings.Join(r.OFAC50.Evidence, "; "))
	case OFACPossiblyBlocked:
		medium = append(medium, "the root is possibly blocked under the OFAC 50% rule (an ownership band straddles 50%): "+strings.Join(r.OFAC50.Evidence, "; "))
	}
	for _, id := range matchedEntities(r) {
		n := nodeName(r, id)
		if id == r.RootEntityID {
			high = append(high, fmt.Sprintf("the root %s matches a sanctions list (%s)", n, listsOf(r, id)))
		} else {
			medium = append(medium, fmt.Sprintf("%s in the ownership graph matches a sanctions list (%s)", n, listsOf(r, id)))
		}
	}
	for _, h := range r.ClusterHits {
		sev := h.Severity
		what := fmt.Sprintf("%s matches cluster record %q (%s)", h.EntityName, h.Name, sev)
		if sev == "suspected" {
			what += ", a publicly reported lead, not a confirmed fraud"
		}
		if h.EntityID == r.RootEntityID && (sev == "confirmed" || sev == "likely") {
			high = append(high, "the root "+what)
		} else {
			medium = append(medium, what)
		}
	}
	for _, id := range sortedKeys(r.ShellCompanyVerdicts) {
		v := r.ShellCompanyVerdicts[id]
		names := signalNames(v)
		switch {
		case id == r.RootEntityID && v.Verdict == VerdictLikelyShell:
			high = append(high, fmt.Sprintf("the root %s is a likely shell company (%s)", v.Name, names))
		case id == r.RootEntityID && v.Verdict == VerdictPossibleShell:
			medium = append(medium, fmt.Sprintf("the root %s is a possible shell company (%s)", v.Name, names))
		case v.Verdict == VerdictLikelyShell:
			medium = append(medium, fmt.Sprintf("%s in the ownership graph is a likely shell company (%s)", v.Name, names))
		case id == r.RootEntityID && v.Verdict == VerdictWeakSignals:
			notes = append(notes, fmt.Sprintf("the root %s shows a weak shell signal (%s)", v.Name, names))
		}
	}
	if r.RootFound {
		switch r.SanctionsCoverage {
		case "complete":
		case "partial":
			unknown = append(unknown, "sanctions screening was partial: lists not screened: "+strings.Join(r.ListsMissing, ", "))
		default:
			unknown = append(unknown, "sanctions screening was unavailable: no list could be screened")
		}
		if !r.BlocklistScreened {
			unknown = append(unknown, "the cluster blocklist was not screened")
		}
		if len(r.Candidates) > 0 {
			unknown = append(unknown, fmt.Sprintf("the root name is ambiguous: it matched %d entities; %s (%s) was assessed, not %s",
				len(r.Candidates)+1, nodeName(r, r.RootEntityID), r.RootEntityID, strings.Join(r.Candidates, ", ")))
		}
		if r.OFAC50.Status == OFACUnknown || r.OFAC50.Status == "" {
			unknown = append(unknown, "the OFAC 50% rule status is unknown: the ownership above the root could not be assessed")
		}
		if !hasOwner(r) {
			unknown = append(unknown, "the root has no recorded owner in the ownership data: its beneficial owners are not identified")
		}
		if r.SanctionsCoverage != "" && r.SanctionsCoverage != "unavailable" {
			if names := nodesWhere(r, func(n Node) bool { return !n.Sanctions.Screened }); names != "" {
				unknown = append(unknown, "sanctions screening failed for: "+names)
			}
		}
		if r.BlocklistScreened {
			if names := nodesWhere(r, func(n Node) bool {
				return n.Blocklist.Status != BlocklistClear && n.Blocklist.Status != BlocklistHit
			}); names != "" {
				unknown = append(unknown, "the cluster blocklist was not screened for: "+names)
			}
		}
		if r.Truncated {
			unknown = append(unknown, "the traversal stopped at max_hops with owners beyond it: ownership above is not assessed")
		}
	}
	var risk string
	var reasons []string
	switch {
	case len(high) > 0:
		risk, reasons = RiskHigh, slices.Concat(high, medium, unknown, notes)
	case len(medium) > 0:
		risk, reasons = RiskMedium, slices.Concat(medium, unknown, notes)
	case len(unknown) > 0:
		risk, reasons = RiskUnknown, slices.Concat(unknown, notes)
	default:
		risk = RiskLow
		reasons = append([]string{"no sanctions, blocklist, OFAC 50% or shell-company finding in the screened graph"}, notes...)
	}
	return risk, reasons
}

// hasOwner reports whether some node owns the root through an ownership
// edge.
func hasOwner(r *Result) bool {
	for _, e := range r.Edges {
		if e.Relation == RelOwns && e.To == r.RootEntityID {
			return true
		}
	}
	return false
}

// nodesWhere returns the names of the nodes for which f is true, joined;
// "" when none.
func nodesWhere(r *Result, f func(Node) bool) string {
	var names []string
	for _, n := range r.Nodes {
		if f(n) {
			names = append(names, n.Name)
		}
	}
	return strings.Join(names, ", ")
}

func matchedEntities(r *Result) []string {
	var ids []string
	for _, m := range r.SanctionsMatches {
		ids = append(ids, m.EntityID)
	}
	slices.Sort(ids)
	return slices.Compact(ids)
}

func listsOf(r *Result, id string) string {
	var ls []string
	for _, m := range r.SanctionsMatches {
		if m.EntityID == id {
			ls = append(ls, fmt.Sprintf("%s %s %q", m.List, m.SourceID, m.ListedName))
		}
	}
	slices.Sort(ls)
	return strings.Join(slices.Compact(ls), "; ")
}

func nodeName(r *Result, id string) string {
	for _, n := range r.Nodes {
		if n.ID == id {
			return n.Name
		}
	}
	return id
}

func signalNames(v Verdict) string {
	names := make([]string, len(v.Signals))
	for i, s := range v.Signals {
		names[i] = s.Name
	}
	return strings.Join(names, ", ")
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
