package resolvers

import (
	"time"

	"github.com/tradecompliance/compliance/graph"
	"github.com/tradecompliance/compliance/graph/sanctions"
	"github.com/tradecompliance/compliance/resolvers/model"
)

// screeningModel is a screening as the GraphQL schema shows it.
func screeningModel(s sanctions.Screening) *model.SanctionsScreening {
	cov := graph.ServiceCoverage()
	out := &model.SanctionsScreening{
		Matches: []model.SanctionsMatch{}, Coverage: s.Coverage, Degraded: s.Degraded,
		ListsScreened: s.ListsScreened, ListsMissing: s.ListsMissing, StaleHours: s.StaleHours,
		Threshold: s.Threshold, Caveats: s.Caveats, Statement: &cov,
	}
	for _, m := range s.Matches {
		ex := &model.SanctionsExplanation{
			MatchedName: m.Explanation.MatchedName, NameType: m.Explanation.NameType,
			NameSimilarity: m.Explanation.NameSimilarity, Tokens: optional(m.Explanation.Tokens),
			Features: []model.SanctionsFeature{},
		}
		for _, f := range m.Explanation.Features {
			ex.Features = append(ex.Features, model.SanctionsFeature{Name: f.Name, Delta: f.Delta, Detail: f.Detail})
		}
		out.Matches = append(out.Matches, model.SanctionsMatch{
			Score: m.Score, List: m.Entry.List, SourceID: m.Entry.SourceID, Name: m.Entry.Name, Kind: string(m.Entry.Kind),
			Programs: nonNil(m.Entry.Programs), Countries: nonNil(m.Entry.Countries), DatesOfBirth: nonNil(m.Entry.DatesOfBirth),
			Imo: optional(m.Entry.IMO), Explanation: ex,
		})
	}
	return out
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func timePtr(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}
