package graphdb

import (
	"context"
	"testing"

	"github.com/tradecompliance/compliance/graph/sanctions"
	"github.com/tradecompliance/compliance/graphdb/graphdbtest"
)

func TestReplaceSanctionsList(t *testing.T) {
	db := openTest(t)
	ctx := testContext(t)
	list := graphdbtest.Unique(t) + "_sdn"
	t.Cleanup(func() {
		mustRun(context.Background(), t, db, `MATCH (e:SanctionsEntry {list: $list}) DETACH DELETE e`, map[string]any{"list": list})
	})
	first := []sanctions.Entry{
		{SourceID: "10", Name: "ALPHA PETROLEUM TRADING LLC", Kind: sanctions.Entity, LinkedTo: []string{"BETA SHIPPING CO", "NO SUCH PARTY", "GAMMA"}},
		{SourceID: "11", Name: "BETA SHIPPING CO", Kind: sanctions.Entity, Aliases: []sanctions.Alias{{Name: "BETA MARINE"}}},
		{SourceID: "12", Name: "GAMMA", Kind: sanctions.Entity},
		{SourceID: "13", Name: "GAMMA", Kind: sanctions.Person},                                                    // a second GAMMA: the link to it is ambiguous
		{SourceID: "14", Name: "DELTA ENERGY", Kind: sanctions.Entity, LinkedTo: []string{"Beta Marine", "ALPHA"}}, // alias; substring
	}
	st, err := db.ReplaceSanctionsList(ctx, "snap-1", list, first)
	if err != nil {
		t.Fatal(err)
	}
	if st != (LinkStats{Entries: 5, Links: 2, Unresolved: 2, Ambiguous: 1}) {
		t.Errorf("ReplaceSanctionsList = %+v, want 5 entries, 2 links, 2 unresolved (incl. the substring ALPHA), 1 ambiguous", st)
	}
	links, err := db.SanctionsLinks(ctx, list+":11")
	if err != nil {
		t.Fatal(err)
	}
	if len(links) != 2 || links[0].ID != list+":10" || links[0].Quoted != "BETA SHIPPING CO" || links[0].Outgoing ||
		links[1].ID != list+":14" || links[1].Quoted != "Beta Marine" {
		t.Errorf("SanctionsLinks(11) = %+v", links)
	}
	if ids, _ := db.ListedByName(ctx, "Gamma"); len(ids) != 2 {
		t.Errorf("ListedByName(Gamma) = %v, want both GAMMA entries", ids)
	}
	if ids, _ := db.ListedByName(ctx, "Gam"); len(ids) != 0 {
		t.Errorf("ListedByName(Gam) = %v, want none: no substring matches", ids)
	}

	// A new snapshot replaces the list: gone entries and their links go too.
	second := []sanctions.Entry{
		{SourceID: "11", Name: "BETA SHIPPING CO", Kind: sanctions.Entity},
		{SourceID: "15", Name: "EPSILON", Kind: sanctions.Entity, LinkedTo: []string{"beta shipping co."}},
	}
	st, err = db.ReplaceSanctionsList(ctx, "snap-2", list, second)
	if err != nil || st.Entries != 2 || st.Links != 1 {
		t.Fatalf("second ReplaceSanctionsList = %+v, %v", st, err)
	}
	links, _ = db.SanctionsLinks(ctx, list+":11")
	if len(links) != 1 || links[0].ID != list+":15" {
		t.Errorf("after replacement SanctionsLinks(11) = %+v, want only EPSILON", links)
	}
	if ids, _ := db.ListedByName(ctx, "ALPHA PETROLEUM TRADING"); len(ids) != 0 {
		t.Errorf("ALPHA is still in the graph after the new snapshot: %v", ids)
	}
	if ok, err := db.EntryExists(ctx, list+":15"); !ok || err != nil {
		t.Errorf("EntryExists(15) = %v, %v, want true", ok, err)
	}
	if ok, err := db.EntryExists(ctx, list+":14"); ok || err != nil {
		t.Errorf("EntryExists(14) = %v, %v, want false: not in the new snapshot", ok, err)
	}
}
