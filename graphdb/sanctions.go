package graphdb

import (
	"context"
	"fmt"
	"slices"

	"github.com/tradecompliance/compliance/graph/sanctions"
)

// Sanctions entries live in the graph as (:SanctionsEntry {id, list,
// source_id, name, kind, name_key, snapshot}) with (a)-[:LINKED_TO
// {quoted}]->(b) edges where a's source states it is linked to b. The id is
// "<list>:<source_id>". An edge exists only when the quoted name matches
// exactly one entry of the same list by exact normalized name (primary name
// or alias), never by substring.

var (
	qSanctionsUpsert = register("sanctions_upsert", `
UNWIND $rows AS r
MERGE (e:SanctionsEntry {id: r.id})
SET e.list = r.list, e.source_id = r.source_id, e.name = r.name, e.kind = r.kind,
    e.name_key = r.name_key, e.snapshot = $snapshot
RETURN count(e) AS n`)

	qSanctionsPrune = register("sanctions_prune", `
MATCH (e:SanctionsEntry {list: $list})
WHERE e.snapshot <> $snapshot
DETACH DELETE e
RETURN count(*) AS n`)

	qSanctionsUnlink = register("sanctions_unlink", `
MATCH (e:SanctionsEntry {list: $list})-[l:LINKED_TO]->(:SanctionsEntry)
DELETE l
RETURN count(*) AS n`)

	qSanctionsLink = register("sanctions_link", `
UNWIND $rows AS r
MATCH (a:SanctionsEntry {id: r.from})
MATCH (b:SanctionsEntry {id: r.to})
MERGE (a)-[l:LINKED_TO]->(b)
SET l.quoted = r.quoted
RETURN count(l) AS n`)

	qSanctionsLinkedFrom = register("sanctions_linked_from", `
MATCH (e:SanctionsEntry {id: $id})-[l:LINKED_TO]->(m:SanctionsEntry)
RETURN m.id AS id, m.list AS list, m.source_id AS source_id, m.name AS name, l.quoted AS quoted`)

	qSanctionsLinkedTo = register("sanctions_linked_to", `
MATCH (m:SanctionsEntry)-[l:LINKED_TO]->(e:SanctionsEntry {id: $id})
RETURN m.id AS id, m.list AS list, m.source_id AS source_id, m.name AS name, l.quoted AS quoted`)

	qSanctionsByNameKey = register("sanctions_by_name_key", `
MATCH (e:SanctionsEntry {name_key: $key})
RETURN e.id AS id, e.list AS list, e.source_id AS source_id, e.name AS name`)

	qSanctionsEntryExists = register("sanctions_entry_exists", `
MATCH (e:SanctionsEntry {id: $id})
RETURN e.id AS id`)

	qSanctionsListCount = register("sanctions_list_count", `
MATCH (e:SanctionsEntry {list: $list})
RETURN count(e) AS n`)
)

// LinkStats says what loading one list into the graph did.
type LinkStats struct {
	Entries    int `json:"entries"`
	Links      int `json:"links"`
	Unresolved int `json:"unresolved"` // quoted names matching no entry of the list
	Ambiguous  int `json:"ambiguous"`  // quoted names matching several entries: not linked
}

const batchSize = 1000

// ReplaceSanctionsList makes the graph hold exactly entries for list, from
// snapshot snapshotID: it upserts the entries, removes the list's entries of
// earlier snapshots, and rebuilds the list's LINKED_TO edges. It fails with
// unavailable when the database cannot be reached; a failure part-way
// leaves the previous snapshot's entries in place, and rerunning repairs it.
func (db *DB) ReplaceSanctionsList(ctx context.Context, snapshotID, list string, entries []sanctions.Entry) (LinkStats, error) {
	var st LinkStats
	byKey := map[string][]string{} // name key -> entry ids (primary names and aliases)
	rows := make([]map[string]any, 0, len(entries))
	for _, e := range entries {
		if e.SourceID == "" {
			continue
		}
		id := list + ":" + e.SourceID
		key := sanctions.NormalizeKey(e.Name)
		rows = append(rows, map[string]any{
			"id": id, "list": list, "source_id": e.SourceID, "name": e.Name, "kind": string(e.Kind), "name_key": key,
		})
		for _, n := range append([]string{e.Name}, aliasNames(e)...) {
			if k := sanctions.NormalizeKey(n); k != "" && !slices.Contains(byKey[k], id) {
				byKey[k] = append(byKey[k], id)
			}
		}
	}
	for i := 0; i < len(rows); i += batchSize {
		batch := rows[i:min(i+batchSize, len(rows))]
		if _, err := db.autocommit(ctx, qSanctionsUpsert, map[string]any{"rows": batch, "snapshot": snapshotID}); err != nil {
			return st, err
		}
	}
	st.Entries = len(rows)
	if _, err := db.autocommit(ctx, qSanctionsPrune, map[string]any{"list": list, "snapshot": snapshotID}); err != nil {
		return st, err
	}
	if _, err := db.autocommit(ctx, qSanctionsUnlink, map[string]any{"list": list}); err != nil {
		return st, err
	}
	var links []map[string]any
	for _, e := range entries {
		if e.SourceID == "" {
			continue
		}
		from := list + ":" + e.SourceID
		for _, quoted := range e.LinkedTo {
			ids := byKey[sanctions.NormalizeKey(quoted)]
			switch {
			case len(ids) == 0:
				st.Unresolved++
			case len(ids) > 1:
				st.Ambiguous++
			case ids[0] != from:
				links = append(links, map[string]any{"from": from, "to": ids[0], "quoted": quoted})
			}
		}
	}
	for i := 0; i < len(links); i += batchSize {
		batch := links[i:min(i+batchSize, len(links))]
		if _, err := db.autocommit(ctx, qSanctionsLink, map[string]any{"rows": batch}); err != nil {
			return st, err
		}
	}
	st.Links = len(links)
	return st, nil
}

func aliasNames(e sanctions.Entry) []string {
	out := make([]string, len(e.Aliases))
	for i, a := range e.Aliases {
		out[i] = a.Name
	}
	return out
}

// LinkedEntry is an entry at the other end of a LINKED_TO edge.
type LinkedEntry struct {
	ID       string `json:"entity_id"`
	List     string `json:"list"`
	SourceID string `json:"source_id"`
	Name     string `json:"name"`
	Quoted   string `json:"quoted"`   // the link as the source states it, verbatim
	Outgoing bool   `json:"outgoing"` // true when the entry's own source states the link
}

// SanctionsLinks returns the entries linked to or from the entry with id
// ("<list>:<source_id>"), ordered by id; none when it has no links or does
// not exist.
func (db *DB) SanctionsLinks(ctx context.Context, id string) ([]LinkedEntry, error) {
	var out []LinkedEntry
	for _, q := range []struct {
		q        query
		outgoing bool
	}{{qSanctionsLinkedFrom, true}, {qSanctionsLinkedTo, false}} {
		recs, err := db.read(ctx, q.q, map[string]any{"id": id})
		if err != nil {
			return nil, err
		}
		for _, r := range recs {
			out = append(out, LinkedEntry{
				ID: str(r.Get("id")), List: str(r.Get("list")), SourceID: str(r.Get("source_id")),
				Name: str(r.Get("name")), Quoted: str(r.Get("quoted")), Outgoing: q.outgoing,
			})
		}
	}
	sortLinked(out)
	return out, nil
}

// ListedByName returns the ids of entries whose primary name has the same
// normalized key as name (exact, never substring); none for an empty key.
// Aliases are not held in the graph: the cluster sanctions network finds
// entries by primary name or alias with the in-process screener
// (sanctions.Screener.ExactListed) and checks them here with EntryExists.
func (db *DB) ListedByName(ctx context.Context, name string) ([]string, error) {
	key := sanctions.NormalizeKey(name)
	if key == "" {
		return nil, nil
	}
	recs, err := db.read(ctx, qSanctionsByNameKey, map[string]any{"key": key})
	if err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(recs))
	for _, r := range recs {
		ids = append(ids, str(r.Get("id")))
	}
	slices.Sort(ids)
	return ids, nil
}

// EntryExists reports whether the graph holds the entry with id
// ("<list>:<source_id>").
func (db *DB) EntryExists(ctx context.Context, id string) (bool, error) {
	recs, err := db.read(ctx, qSanctionsEntryExists, map[string]any{"id": id})
	if err != nil {
		return false, err
	}
	return len(recs) > 0, nil
}

// ListEntries returns the number of entries of list held in the graph: 0
// when the list was never loaded or its load failed. It fails with
// unavailable when the database cannot be reached.
func (db *DB) ListEntries(ctx context.Context, list string) (int, error) {
	recs, err := db.read(ctx, qSanctionsListCount, map[string]any{"list": list})
	if err != nil {
		return 0, err
	}
	if len(recs) == 0 {
		return 0, nil
	}
	n, _ := recs[0].Get("n")
	c, _ := n.(int64)
	return int(c), nil
}

func str(v any, _ bool) string {
	if s, ok := v.(string); ok {
		return s
	}
	if v == nil {
		return ""
	}
	return fmt.Sprint(v)
}
