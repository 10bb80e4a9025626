package kyc

import (
	"fmt"
	"strings"
)

// effect returns the verdict a step's status calls for on its own. A step
// that could not look (unavailable, degraded, not screened) calls for
// review: absence of evidence is never a pass. Not-checked tradability or
// directors (the input lacked them) and unmeasured adverse media do not
// block a pass; the reasoning names them.
func effect(step Step, st Status) Verdict {
	switch st {
	case StatusFail:
		if step == StepDirectors {
			return VerdictReview
		}
		return VerdictFail
	case StatusPass, StatusNotChecked, StatusUnmeasured:
		return VerdictPass
	case StatusPending:
		return VerdictPending
	}
	return VerdictReview
}

func rank(v Verdict) int {
	switch v {
	case VerdictFail:
		return 3
	case VerdictReview:
		return 2
	case VerdictPending:
		return 1
	}
	return 0
}

// Initial returns the verdict of the synchronous checks: fail on a
// confirmed cluster match or blocked tradability, review on a likely or
// suspected match, restricted tradability or an unavailable check, else
// pending (the remaining steps are running; not a clearance). The
// reasoning quotes each check's summary.
func Initial(clusterStep, tradability StepResult) VerdictEvidence {
	steps := map[Step]StepResult{StepClusterBlocklist: clusterStep, StepRegulatoryTradability: tradability}
	ve := decide(steps, []Step{StepClusterBlocklist, StepRegulatoryTradability})
	if ve.Verdict == VerdictPass {
		ve.Verdict = VerdictPending
		ve.Reasoning = "pending: the synchronous checks found nothing (" + summaries(steps, StepClusterBlocklist, StepRegulatoryTradability) +
			"); sanctions, directors, ownership and adverse-media steps are still running. Not a clearance."
	}
	return ve
}

// Final returns the verdict of a run whose six screening steps are done:
// fail, review or pass, with a reason per step. A sanctions hit, a
// degraded or unavailable sanctions lookup, and an unavailable or
// unscreened ownership step all prevent a pass. A missing step counts as
// unavailable. The evidence carries the run's coverage statement.
func Final(steps map[Step]StepResult) VerdictEvidence {
	ve := decide(steps, Steps[:6])
	c := Coverage()
	ve.Coverage = &c
	return ve
}

func decide(steps map[Step]StepResult, order []Step) VerdictEvidence {
	ve := VerdictEvidence{Verdict: VerdictPass, Reasons: []Reason{}}
	for _, s := range order {
		r, ok := steps[s]
		if !ok {
			r = StepResult{Step: s, Status: StatusUnavailable, Summary: string(s) + " step did not run"}
		}
		e := effect(s, r.Status)
		ve.Reasons = append(ve.Reasons, Reason{Step: s, Status: r.Status, Effect: e, Text: r.Summary})
		if rank(e) > rank(ve.Verdict) {
			ve.Verdict = e
		}
	}
	var lead, rest []string
	for _, r := range ve.Reasons {
		line := fmt.Sprintf("%s %s: %s", r.Step, r.Status, r.Text)
		if r.Effect == ve.Verdict && ve.Verdict != VerdictPass {
			lead = append(lead, line)
		} else {
			rest = append(rest, line)
		}
	}
	switch ve.Verdict {
	case VerdictPass:
		ve.Reasoning = "pass: " + strings.Join(rest, "; ") + ". Decision support for a compliance officer, not a clearance."
	default:
		ve.Reasoning = string(ve.Verdict) + ": " + strings.Join(lead, "; ")
		if len(rest) > 0 {
			ve.Reasoning += ". Other steps: " + strings.Join(rest, "; ")
		}
	}
	return ve
}

func summaries(steps map[Step]StepResult, order ...Step) string {
	var parts []string
	for _, s := range order {
		parts = append(parts, fmt.Sprintf("%s %s: %s", s, steps[s].Status, steps[s].Summary))
	}
	return strings.Join(parts, "; ")
}
