package resolvers

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/tradecompliance/compliance/graph"
	"github.com/tradecompliance/compliance/graph/ownership"
	"github.com/tradecompliance/compliance/graph/ubo"
	"github.com/tradecompliance/compliance/graphdb"
	"github.com/tradecompliance/compliance/graphdb/graphdbtest"
)

// countingGraph counts the calls made to the ownership graph (each is one
// database round trip, or one per 500 ids for the batched reads).
type countingGraph struct {
	ubo.OwnershipGraph
	mu    sync.Mutex
	calls map[string]int
}

func (c *countingGraph) count(name string) {
	c.mu.Lock()
	c.calls[name]++
	c.mu.Unlock()
}

func (c *countingGraph) total() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, v := range c.calls {
		n += v
	}
	return n
}

func (c *countingGraph) EntitiesByName(ctx context.Context, name string, limit int) ([]ownership.Node, error) {
	c.count("EntitiesByName")
	return c.OwnershipGraph.EntitiesByName(ctx, name, limit)
}

func (c *countingGraph) Upstream(ctx context.Context, root string, maxHops int) (ownership.Subgraph, error) {
	c.count("Upstream")
	return c.OwnershipGraph.Upstream(ctx, root, maxHops)
}

func (c *countingGraph) Entity(ctx context.Context, id string) (ownership.Node, error) {
	c.count("Entity")
	return c.OwnershipGraph.Entity(ctx, id)
}

func (c *countingGraph) EntitiesIn(ctx context.Context, ids []string) (map[string]ownership.Node, error) {
	c.count("EntitiesIn")
	return c.OwnershipGraph.EntitiesIn(ctx, ids)
}

func (c *countingGraph) Neighbours(ctx context.Context, ids []string, upstream bool) (map[string][]ubo.Link, error) {
	c.count("Neighbours")
	return c.OwnershipGraph.Neighbours(ctx, ids, upstream)
}

// A nested query over N entities (owners of owners, beneficial owners,
// sanctions exposure, and _entities) makes the same number of ownership
// graph calls for N = 3 and N = 30: one batched read per level, not one
// per entity.
func TestUBODataloadersBoundDatabaseCalls(t *testing.T) {
	env := graphdbtest.Lookup(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	db, err := graphdb.Open(ctx, graphdb.Config(env))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close(context.Background())
	if _, err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	run := graphdbtest.Unique(t)

	// Group g of n companies all named "<run> <g> Group Co": each C is
	// owned 100% by a holding H, which is owned 60% by a person P.
	load := func(group string, n int) []string {
		var b ownership.Batch
		var ids []string
		for i := range n {
			c, h, p := fmt.Sprintf("%s_%s_c%d", run, group, i), fmt.Sprintf("%s_%s_h%d", run, group, i), fmt.Sprintf("%s_%s_p%d", run, group, i)
			ids = append(ids, c, h, p)
			b.Nodes = append(b.Nodes,
				ownership.Node{ID: c, Kind: ownership.Company, Name: run + " " + group + " Group Co"},
				ownership.Node{ID: h, Kind: ownership.Company, Name: fmt.Sprintf("%s %s Holding %d", run, group, i)},
				ownership.Node{ID: p, Kind: ownership.Person, Name: fmt.Sprintf("%s %s Person %d", run, group, i)})
			hundred, sixty := 100.0, 60.0
			b.Edges = append(b.Edges,
				ownership.Edge{Key: ownership.EdgeKey(ownership.Owns, h, c, ""), Relation: ownership.Owns, From: h, To: c, Pct: &hundred},
				ownership.Edge{Key: ownership.EdgeKey(ownership.Owns, p, h, ""), Relation: ownership.Owns, From: p, To: h, Pct: &sixty})
		}
		if _, err := db.UpsertOwnership(ctx, b); err != nil {
			t.Fatal(err)
		}
		return ids
	}
	t.Cleanup(func() { deleteRun(t, env, run) })
	load("small", 3)
	load("large", 30)

	query := func(group string, n int) (map[string]int, int, []byte) {
		cg := &countingGraph{OwnershipGraph: db, calls: map[string]int{}}
		r := &Resolver{Ownership: cg}
		h := NewHandler(r, Config{MaxComplexity: 100000, MaxDepth: 20})
		q := fmt.Sprintf(`{ entities(name: %q, limit: 100) { id
			owners(maxHops: 1) { links { pct entity { name owners { links { pct entity { name kind } } } } } }
			beneficialOwners { owners { entity { name } pctMin } }
			sanctionsExposure(maxHops: 2) { status }
			subsidiaries { links { entity { id } } } } }`, run+" "+group+" Group Co")
		body, _ := json.Marshal(map[string]any{"query": q})
		req := httptest.NewRequest("POST", "/graphql", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		caller := &graph.Caller{Member: graph.Member{ID: "m"}, Key: graph.APIKey{ID: "k", Environment: graph.Production, Scopes: []string{"ubo"}}}
		req = req.WithContext(graph.WithCaller(req.Context(), caller))
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != http.StatusOK {
			t.Fatalf("status %d: %s", w.Code, w.Body)
		}
		var res struct {
			Data struct {
				Entities []struct {
					Owners struct {
						Links []struct {
							Entity struct {
								Owners struct {
									Links []struct{ Pct float64 }
								}
							}
						}
					}
					BeneficialOwners struct {
						Owners []struct{ PctMin float64 }
					}
				}
			}
			Errors []any
		}
		if err := json.Unmarshal(w.Body.Bytes(), &res); err != nil || len(res.Errors) > 0 {
			t.Fatalf("%v %s", err, w.Body)
		}
		if len(res.Data.Entities) != n {
			t.Fatalf("%d entities, want %d", len(res.Data.Entities), n)
		}
		for _, e := range res.Data.Entities {
			if len(e.Owners.Links) != 1 || len(e.Owners.Links[0].Entity.Owners.Links) != 1 || e.Owners.Links[0].Entity.Owners.Links[0].Pct != 60 ||
				len(e.BeneficialOwners.Owners) != 1 || e.BeneficialOwners.Owners[0].PctMin != 60 {
				t.Fatalf("unexpected answer: %s", w.Body)
			}
		}
		total := cg.total()
		cg.mu.Lock()
		defer cg.mu.Unlock()
		calls := map[string]int{}
		for k, v := range cg.calls {
			calls[k] = v
		}
		return calls, total, w.Body.Bytes()
	}
	smallCalls, smallTotal, _ := query("small", 3)
	largeCalls, largeTotal, _ := query("large", 30)
	t.Logf("calls for 3 entities: %v (%d); for 30: %v (%d)", smallCalls, smallTotal, largeCalls, largeTotal)
	// entities: 1 EntitiesByName. owners(1): 2 Neighbours (level 0, and
	// the truncation check); nested owners(1): 2; beneficialOwners (6
	// hops): at most 7; sanctionsExposure(2): at most 3; subsidiaries(1):
	// 2. Walks of one level share no call, so at most 17 in all.
	// A batch split by a late goroutine adds a call, never one per entity.
	const bound = 17
	if largeTotal > bound || smallTotal > bound {
		t.Errorf("calls = %d (3 entities), %d (30 entities), want at most %d each", smallTotal, largeTotal, bound)
	}
	if largeCalls["Upstream"] != 0 || largeCalls["Entity"] != 0 {
		t.Errorf("per-entity calls made: %v", largeCalls)
	}
}

// deleteRun deletes the test's entities (ids start with run) from the graph.
func deleteRun(t *testing.T, env graphdbtest.Env, run string) {
	ctx := context.Background()
	auth := neo4j.NoAuth()
	if env.User != "" {
		auth = neo4j.BasicAuth(env.User, env.Password, "")
	}
	d, err := neo4j.NewDriverWithContext(env.URI, auth)
	if err != nil {
		t.Errorf("cleanup: %v", err)
		return
	}
	defer d.Close(ctx)
	_, err = neo4j.ExecuteQuery(ctx, d, `MATCH (e:Entity) WHERE e.id STARTS WITH $run DETACH DELETE e`,
		map[string]any{"run": run + "_"}, neo4j.EagerResultTransformer, neo4j.ExecuteQueryWithDatabase(env.Database))
	if err != nil {
		t.Errorf("cleanup: %v", err)
	}
}
