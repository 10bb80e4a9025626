package relational_test

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/tradecompliance/compliance/graph"
	"github.com/tradecompliance/compliance/graph/sanctions"
	"github.com/tradecompliance/compliance/graph/sanctions/ingest"
	"github.com/tradecompliance/compliance/relational"
	"github.com/tradecompliance/compliance/relational/relationaltest"
)

func testSnapshot(list, sha string, names ...string) sanctions.Snapshot {
	s := sanctions.Snapshot{List: list, Source: "test.jsonl", Format: ingest.FormatJSONL, SHA256: sha,
		Published: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	for i, n := range names {
		s.Entries = append(s.Entries, sanctions.Entry{List: list, SourceID: string(rune('A' + i)), Kind: sanctions.Person, Name: n,
			Aliases: []sanctions.Alias{{Name: n + " alias", Weak: true}}, Countries: []string{"IR"}, DatesOfBirth: []string{"1970"},
			LinkedTo: []string{"SOMEONE"}, Listed: time.Date(2020, 1, 2, 0, 0, 0, 0, time.UTC)})
	}
	return s
}

func TestSanctionsSnapshots(t *testing.T) {
	ctx := context.Background()
	db := relationaltest.New(t)

	st, err := db.ListFreshness(ctx)
	if err != nil || len(st) != 8 {
		t.Fatalf("ListFreshness(empty) = %d lists, %v; want the 8 lists", len(st), err)
	}
	for i, s := range st {
		if s.List != graph.SanctionsLists[i].ID || s.Name == "" || s.Rows != 0 || s.SnapshotID != "" || s.Published != nil || s.IngestedAt != nil {
			t.Errorf("ListFreshness(empty)[%d] = %+v, want %s never ingested, zero rows", i, s, graph.SanctionsLists[i].ID)
		}
	}

	first := testSnapshot("un", "sha-1", "Alpha", "Beta")
	id1, err := db.SaveSnapshot(ctx, first)
	if err != nil {
		t.Fatalf("SaveSnapshot(un) error = %v", err)
	}
	cur, err := db.CurrentSnapshots(ctx)
	if err != nil || len(cur) != 1 {
		t.Fatalf("CurrentSnapshots() = %d snapshots, %v; want 1", len(cur), err)
	}
	if !reflect.DeepEqual(cur[0].Entries, first.Entries) || cur[0].SHA256 != "sha-1" || !cur[0].Published.Equal(first.Published) ||
		cur[0].Format != ingest.FormatJSONL || cur[0].Source != "test.jsonl" {
		t.Errorf("CurrentSnapshots()[0] = %+v with entries %+v, want the snapshot saved", cur[0], cur[0].Entries)
	}

	second := testSnapshot("un", "sha-2", "Gamma")
	second.Published = time.Time{}
	id2, err := db.SaveSnapshot(ctx, second)
	if err != nil || id2 == id1 {
		t.Fatalf("SaveSnapshot(un, second) = %s, %v; want a new id", id2, err)
	}
	st, _ = db.ListFreshness(ctx)
	un := st[2]
	if un.List != "un" || un.SnapshotID != id2 || un.Rows != 1 || un.SHA256 != "sha-2" || un.Published != nil || un.IngestedAt == nil || un.CheckedAt == nil {
		t.Errorf("ListFreshness() un = %+v, want the second snapshot (1 row, no publication date)", un)
	}
	var stored, current int
	db.Pool.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE is_current) FROM sanctions_snapshots WHERE list = 'un'`).Scan(&stored, &current)
	if stored != 2 || current != 1 {
		t.Errorf("un snapshots stored = %d (%d current), want 2 (1 current): the previous one stays stored", stored, current)
	}

	time.Sleep(10 * time.Millisecond)
	if id, err := db.TouchSnapshot(ctx, "un"); err != nil || id != id2 {
		t.Errorf("TouchSnapshot(un) = %s, %v; want %s", id, err, id2)
	}
	st2, _ := db.ListFreshness(ctx)
	if !st2[2].CheckedAt.After(*un.CheckedAt) || !st2[2].IngestedAt.Equal(*un.IngestedAt) {
		t.Errorf("after TouchSnapshot, un checked %v ingested %v; want checked later than %v, ingested unchanged", st2[2].CheckedAt, st2[2].IngestedAt, un.CheckedAt)
	}
	if id, err := db.TouchSnapshot(ctx, "eu"); err != nil || id != "" {
		t.Errorf("TouchSnapshot(eu never ingested) = %q, %v; want \"\", nil", id, err)
	}

	bad := []struct {
		name string
		snap sanctions.Snapshot
	}{
		{"unknown list", testSnapshot("us_ofac", "x", "A")},
		{"no entries", testSnapshot("eu", "x")},
		{"no sha256", testSnapshot("eu", "", "A")},
	}
	for _, b := range bad {
		if _, err := db.SaveSnapshot(ctx, b.snap); graph.ErrorCode(err) != graph.CodeInvalid {
			t.Errorf("SaveSnapshot(%s) error = %v, want invalid", b.name, err)
		}
	}
	if cur, _ := db.CurrentSnapshots(ctx); len(cur) != 1 || cur[0].SHA256 != "sha-2" {
		t.Errorf("after refused saves, CurrentSnapshots() = %d, want the un snapshot sha-2 only", len(cur))
	}
}

// TestSanctionsSnapshotSwitchIsAtomic saves snapshots of one list from
// several goroutines while readers load the current ones: a reader always
// sees exactly one snapshot of the list, complete, and one stays current.
func TestSanctionsSnapshotSwitchIsAtomic(t *testing.T) {
	ctx := context.Background()
	db := relationaltest.New(t)
	if _, err := db.SaveSnapshot(ctx, testSnapshot("eu", "sha-0", "A", "B", "C")); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	errs := make(chan error, 64)
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				cur, err := db.CurrentSnapshots(ctx)
				if err != nil {
					errs <- err
					return
				}
				if len(cur) != 1 || len(cur[0].Entries) != 3 {
					t.Errorf("CurrentSnapshots() during saves = %d snapshots, want exactly 1 with its 3 entries", len(cur))
					return
				}
			}
		}()
	}
	var savers sync.WaitGroup
	for i := range 8 {
		savers.Add(1)
		go func() {
			defer savers.Done()
			if _, err := db.SaveSnapshot(ctx, testSnapshot("eu", "sha-"+string(rune('a'+i)), "A", "B", "C")); err != nil {
				errs <- err
			}
		}()
	}
	savers.Wait()
	close(stop)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("concurrent save or load: %v", err)
	}
	var stored, current int
	db.Pool.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE is_current) FROM sanctions_snapshots WHERE list = 'eu'`).Scan(&stored, &current)
	if stored != 9 || current != 1 {
		t.Errorf("eu snapshots after 8 concurrent saves = %d stored, %d current; want 9, 1", stored, current)
	}
}

func TestSanctionsFetchStates(t *testing.T) {
	ctx := context.Background()
	db := relationaltest.New(t)
	a := relational.FetchState{URL: "https://example.org/SDN.CSV", List: "us_sdn", ETag: `"v1"`, LastModified: "Mon, 02 Jan 2006 15:04:05 GMT", SHA256: "aa"}
	b := relational.FetchState{URL: "https://example.org/ADD.CSV", List: "us_sdn", ETag: `W/"v1"`}
	if err := db.SaveFetchStates(ctx, []relational.FetchState{a, b}); err != nil {
		t.Fatal(err)
	}
	a.ETag = `"v2"`
	if err := db.SaveFetchStates(ctx, []relational.FetchState{a}); err != nil {
		t.Fatal(err)
	}
	got, err := db.FetchStates(ctx, []string{a.URL, b.URL, "https://example.org/none"})
	if err != nil || len(got) != 2 || got[a.URL] != a || got[b.URL] != b {
		t.Errorf("FetchStates() = %+v, %v; want %+v and %+v", got, err, a, b)
	}
}

// TestSanctionsLoadAllLists stores every list of ../shared/data as parsed by
// ingest, then times what start-up does: load the current snapshots and
// build the matching index. The budget is 20 s for both.
func TestSanctionsLoadAllLists(t *testing.T) {
	dir := os.Getenv("COMPLIANCE_SHARED_DATA")
	if dir == "" {
		dir = filepath.Join("..", "..", "shared", "data")
	}
	if _, err := os.Stat(filepath.Join(dir, "README.md")); err != nil {
		t.Skipf("real list files not found at %s (set COMPLIANCE_SHARED_DATA): skipping", dir)
	}
	sets := map[string][]string{
		"us_sdn":  {"ofac/sdn.csv", "ofac/add.csv", "ofac/alt.csv", "ofac/sdn_comments.csv"},
		"us_cons": {"ofac/cons_prim.csv", "ofac/cons_add.csv", "ofac/cons_alt.csv", "ofac/cons_comments.csv"},
		"un":      {"un/un_consolidated.xml"},
		"eu":      {"eu/eu_fsf_ammitto_2026-03-15.jsonl.gz"},
		"uk_hmt":  {"uk/uk_sanctions_list_ammitto_2026-08-22.jsonl.gz"},
		"ca":      {"ca/ca_sema_ammitto_2026-08-22.jsonl.gz"},
		"au_dfat": {"au/au_dfat_ammitto_2026-08-22.jsonl.gz"},
		"ch_seco": {"ch/ch_seco_ammitto_2026-03-15.jsonl.gz"},
	}
	ctx := context.Background()
	db := relationaltest.New(t)
	start := time.Now()
	total := 0
	for list, names := range sets {
		var files []ingest.File
		for _, n := range names {
			b, err := os.ReadFile(filepath.Join(dir, n))
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, ingest.File{Name: n, Data: b})
		}
		p, err := ingest.Parse(list, files)
		if err != nil {
			t.Fatalf("Parse(%s) error = %v", list, err)
		}
		if _, err := db.SaveSnapshot(ctx, p.Snapshot); err != nil {
			t.Fatalf("SaveSnapshot(%s) error = %v", list, err)
		}
		total += len(p.Entries)
	}
	ingestTime := time.Since(start)

	start = time.Now()
	cur, err := db.CurrentSnapshots(ctx)
	if err != nil || len(cur) != 8 {
		t.Fatalf("CurrentSnapshots() = %d, %v; want 8", len(cur), err)
	}
	loadTime := time.Since(start)
	var entries []sanctions.Entry
	for _, s := range cur {
		entries = append(entries, s.Entries...)
	}
	if len(entries) != total {
		t.Errorf("CurrentSnapshots() = %d entries, want the %d stored", len(entries), total)
	}
	start = time.Now()
	ix := sanctions.NewIndex(entries)
	indexTime := time.Since(start)
	if n, _ := ix.Len(); n != total {
		t.Errorf("NewIndex() holds %d entries, want %d", n, total)
	}
	var blob int64
	db.Pool.QueryRow(ctx, `SELECT sum(octet_length(entries_gz)) FROM sanctions_snapshots WHERE is_current`).Scan(&blob)
	t.Logf("8 lists, %d entries: parse+store %v; load %v (%.1f MB compressed); index %v; load+index %v",
		total, ingestTime.Round(time.Millisecond), loadTime.Round(time.Millisecond), float64(blob)/1e6,
		indexTime.Round(time.Millisecond), (loadTime + indexTime).Round(time.Millisecond))
	if loadTime+indexTime > 20*time.Second {
		t.Errorf("load+index = %v, want under 20 s", loadTime+indexTime)
	}
}
