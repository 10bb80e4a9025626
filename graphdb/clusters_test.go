package graphdb

import (
	"context"
	"slices"
	"testing"

	"github.com/tradecompliance/compliance/graph/cluster"
	"github.com/tradecompliance/compliance/graphdb/graphdbtest"
)

func TestAliasLinks(t *testing.T) {
	recs := []cluster.Record{
		{ID: "b", EntityName: "Beta Oil", Aliases: []string{"Shared Name", "Alpha Co."}},
		{ID: "a", EntityName: "Alpha Co"},
		{ID: "c", EntityName: "SHARED-NAME"},
		{ID: "d", EntityName: "Delta"},
	}
	got := AliasLinks(recs)
	var pairs []string
	for _, l := range got {
		pairs = append(pairs, l["from"].(string)+">"+l["to"].(string)+":"+l["key"].(string))
	}
	if want := []string{"a>b:alphaco", "b>c:sharedname"}; !slices.Equal(pairs, want) {
		t.Errorf("AliasLinks = %v, want %v", pairs, want)
	}
}

// Mirroring is idempotent and follows changes: a record leaving its group
// loses its hub edge, a removed alias its cross-reference edge.
func TestMirrorClusters(t *testing.T) {
	db := openTest(t)
	ctx := testContext(t)
	run := graphdbtest.Unique(t)
	id := func(s string) string { return run + "_" + s }
	t.Cleanup(func() {
		for _, s := range []string{"a", "b", "c"} {
			mustRun(context.Background(), t, db, `MATCH (e:ClusterEntity {id: $id}) DETACH DELETE e`, map[string]any{"id": id(s)})
		}
		mustRun(context.Background(), t, db, `MATCH (g:ClusterGroup {id: $id}) DETACH DELETE g`, map[string]any{"id": id("g")})
	})
	recs := []cluster.Record{
		{ID: id("a"), Slug: "demo-a", EntityName: "Demo A", Severity: cluster.Confirmed, Group: "ring", GroupID: id("g")},
		{ID: id("b"), Slug: "demo-b", EntityName: "Demo B", Aliases: []string{"Demo C"}, Severity: cluster.Likely, Group: "ring", GroupID: id("g"), Protected: true, SanctionsSource: "un"},
		{ID: id("c"), Slug: "demo-c", EntityName: "Demo C", Severity: cluster.Suspected},
	}
	for range 2 {
		st, err := db.MirrorClusters(ctx, recs)
		if err != nil {
			t.Fatal(err)
		}
		if st != (MirrorStats{Entities: 3, Groups: 1, MemberEdges: 2, AliasEdges: 1}) {
			t.Errorf("MirrorClusters = %+v", st)
		}
	}
	members, err := db.GroupMembers(ctx, id("g"))
	if err != nil || len(members) != 2 || members[1].Slug != "demo-b" || !members[1].Protected || members[1].SanctionsSource != "un" {
		t.Errorf("GroupMembers = %+v, %v", members, err)
	}
	links, err := db.AliasNeighbours(ctx, id("c"))
	if err != nil || len(links) != 1 || links[0].Other.Slug != "demo-b" || links[0].Name != "Demo C" || links[0].Key != "democ" {
		t.Errorf("AliasNeighbours(c) = %+v, %v", links, err)
	}
	if e, ok, err := db.ClusterEntity(ctx, id("a")); err != nil || !ok || e.EntityName != "Demo A" || e.Severity != cluster.Confirmed {
		t.Errorf("ClusterEntity(a) = %+v %v %v", e, ok, err)
	}

	recs[0].Group, recs[0].GroupID = "", ""
	recs[1].Aliases = nil
	if _, err := db.MirrorClusters(ctx, recs); err != nil {
		t.Fatal(err)
	}
	if gs, _ := db.EntityGroups(ctx, id("a")); len(gs) != 0 {
		t.Errorf("a left the group but has %v", gs)
	}
	if links, _ := db.AliasNeighbours(ctx, id("b")); len(links) != 0 {
		t.Errorf("b lost its alias but has links %+v", links)
	}
}
