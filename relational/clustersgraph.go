package relational

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/tradecompliance/compliance/graph/cluster"
)

// The registry itself answers the cluster graph's reads when the graph
// database cannot (cluster.Networks.Fallback): the same nodes and edges,
// computed from the source of truth.
var _ cluster.GraphStore = (*DB)(nil)

const recordFrom = ` FROM cluster_records r LEFT JOIN cluster_groups g ON g.id = r.group_id `

// ClusterEntity returns the record with id; false when there is none.
func (db *DB) ClusterEntity(ctx context.Context, id string) (cluster.Record, bool, error) {
	rs, err := queryRecords(ctx, db.Pool, `SELECT `+recordColumns+recordFrom+`WHERE r.id = $1`, id)
	if err != nil {
		return cluster.Record{}, false, fmt.Errorf("cluster entity: %w", err)
	}
	if len(rs) == 0 {
		return cluster.Record{}, false, nil
	}
	return rs[0].Record, true, nil
}

// EntityGroups returns the group of the record with id, if any.
func (db *DB) EntityGroups(ctx context.Context, id string) ([]cluster.GroupRef, error) {
	rec, ok, err := db.ClusterEntity(ctx, id)
	if err != nil || !ok || rec.GroupID == "" {
		return nil, err
	}
	return []cluster.GroupRef{{ID: rec.GroupID, Slug: rec.Group}}, nil
}

// GroupMembers returns the records of the group with id, ordered by slug.
func (db *DB) GroupMembers(ctx context.Context, groupID string) ([]cluster.Record, error) {
	rs, err := queryRecords(ctx, db.Pool, `SELECT `+recordColumns+recordFrom+`WHERE r.group_id = $1 ORDER BY r.slug`, groupID)
	if err != nil {
		return nil, fmt.Errorf("cluster group members: %w", err)
	}
	return records(rs), nil
}

// AliasNeighbours returns the records sharing a normalized name or alias
// with the record with id, with the shared name as the graph mirror holds
// it, ordered by the other record's slug.
func (db *DB) AliasNeighbours(ctx context.Context, id string) ([]cluster.AliasLink, error) {
	rs, err := queryRecords(ctx, db.Pool, `WITH k AS (
			SELECT name_key AS key FROM cluster_records WHERE id = $1
			UNION SELECT alias_key FROM cluster_aliases WHERE record_id = $1
		), o AS (
			SELECT r.id FROM cluster_records r JOIN k ON r.name_key = k.key
			UNION SELECT a.record_id FROM cluster_aliases a JOIN k ON a.alias_key = k.key
		)
		SELECT `+recordColumns+recordFrom+`WHERE r.id IN (SELECT id FROM o) OR r.id = $1 ORDER BY r.slug`, id)
	if err != nil {
		return nil, fmt.Errorf("cluster alias neighbours: %w", err)
	}
	i := slices.IndexFunc(rs, func(r storedRecord) bool { return r.ID == id })
	if i < 0 {
		return nil, nil
	}
	me := rs[i].Record
	var out []cluster.AliasLink
	for _, o := range rs {
		if o.ID == id {
			continue
		}
		from, to := me, o.Record
		if strings.Compare(from.ID, to.ID) > 0 {
			from, to = to, from
		}
		key, name, ok := cluster.SharedName(from, to)
		if !ok {
			continue
		}
		other := o.Record
		other.Aliases = []string{}
		out = append(out, cluster.AliasLink{From: from.ID, To: to.ID, Other: other, Key: key, Name: name})
	}
	return out, nil
}
