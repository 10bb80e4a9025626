package relational

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/tradecompliance/compliance/graph"
	"github.com/tradecompliance/compliance/graph/cluster"
)

var _ cluster.SubmissionStore = (*DB)(nil)

// submissionLockKey namespaces the per-email advisory lock that makes the
// daily count exact under concurrent submissions.
const submissionLockKey int32 = 740231183

// storageAbsent maps a missing table (the environment has no submission
// storage) to unavailable; the spec's 503.
func storageAbsent(err error) error {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "42P01" {
		return &graph.Error{Code: graph.CodeUnavailable, Message: "cluster submission storage is not present in this environment", Err: err}
	}
	return err
}

// CreateSubmission stores s with req's details unless req's submitter
// email has cluster.EmailLimit submissions in the last cluster.EmailWindow
// (rate_limited, naming the limit). The count and the insert are one
// transaction under a per-email lock.
func (db *DB) CreateSubmission(ctx context.Context, s cluster.Submission, req cluster.SubmissionRequest) error {
	details, err := json.Marshal(map[string]any{
		"submitter_role": req.SubmitterRole, "submitter_affiliation": req.SubmitterAffiliation,
		"entity_country": req.EntityCountry, "entity_linkedin_url": req.EntityLinkedInURL,
		"entity_email_domains": req.EntityEmailDomains, "contact_channels": req.ContactChannels,
		"evidence_urls": req.EvidenceURLs, "evidence_notes": req.EvidenceNotes, "pitch_summary_chars": len([]rune(req.PitchSummary)),
	})
	if err != nil {
		return graph.Invalid("evidence_notes", "evidence_notes must be a JSON object")
	}
	email := strings.ToLower(req.SubmitterEmail)
	err = pgx.BeginFunc(ctx, db.Pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1, hashtext($2))`, submissionLockKey, email); err != nil {
			return err
		}
		var n int
		var oldest *time.Time
		if err := tx.QueryRow(ctx, `SELECT count(*), min(submitted_at) FROM cluster_submissions
			WHERE submitter_email = $1 AND submitted_at > $2`, email, s.SubmittedAt.Add(-cluster.EmailWindow)).Scan(&n, &oldest); err != nil {
			return err
		}
		if n >= cluster.EmailLimit {
			wait := time.Minute
			if oldest != nil {
				wait = oldest.Add(cluster.EmailWindow).Sub(s.SubmittedAt)
			}
			return graph.RateLimited(fmt.Sprintf("daily submission limit reached: %d submissions per 24 hours per submitter email", cluster.EmailLimit), wait)
		}
		_, err := tx.Exec(ctx, `INSERT INTO cluster_submissions (id, member_id, key_id, submitter_email, entity_name, pitch_summary,
				details, triage_status, submitted_at) VALUES ($1, $2, $3, $4, $5, $6, $7, 'pending', $8)`,
			s.ID, s.MemberID, s.KeyID, email, s.EntityName, req.PitchSummary, details, s.SubmittedAt)
		return err
	})
	if err != nil {
		if graph.ErrorCode(err) == graph.CodeRateLimited {
			return err
		}
		return storageAbsent(fmt.Errorf("create submission: %w", err))
	}
	return nil
}

const submissionColumns = `id::text, member_id::text, key_id::text, entity_name, triage_status, submitted_at, triaged_at, triaged_by,
	triage_note, linked_blocklist_id::text`

func scanSubmission(row pgx.Row) (cluster.Submission, error) {
	var s cluster.Submission
	err := row.Scan(&s.ID, &s.MemberID, &s.KeyID, &s.EntityName, &s.Status, &s.SubmittedAt, &s.TriagedAt, &s.TriagedBy,
		&s.TriageNote, &s.LinkedBlocklistID)
	s.SubmittedAt = s.SubmittedAt.UTC()
	s.TriagedAt = utcPtr(s.TriagedAt)
	return s, err
}

func utcPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

// Submission returns the submission with id, or not_found.
func (db *DB) Submission(ctx context.Context, id string) (cluster.Submission, error) {
	s, err := scanSubmission(db.Pool.QueryRow(ctx, `SELECT `+submissionColumns+` FROM cluster_submissions WHERE id = $1`, id))
	if errNoRows(err) {
		return s, graph.Errorf(graph.CodeNotFound, "no such cluster submission")
	}
	if err != nil {
		return s, storageAbsent(fmt.Errorf("submission: %w", err))
	}
	return s, nil
}

// ListSubmissions returns the submissions with status ("" for all), oldest
// first.
func (db *DB) ListSubmissions(ctx context.Context, status string) ([]cluster.Submission, error) {
	rows, err := db.Pool.Query(ctx, `SELECT `+submissionColumns+` FROM cluster_submissions
		WHERE $1 = '' OR triage_status = $1 ORDER BY submitted_at, id`, status)
	if err != nil {
		return nil, storageAbsent(fmt.Errorf("list submissions: %w", err))
	}
	return pgx.CollectRows(rows, scanned(scanSubmission))
}

// TriageSubmission moves the pending submission id to t.Status in one
// transaction under the registry lock. Accepted makes the submission a
// confirmed investigator record (origin 'triage') for the submitted name
// and the submitted country: the existing one with the same normalized name
// and country, raised to confirmed when it was not
// (cluster.entity_severity_changed), or a new one attributed to t.By
// (cluster.entity_added); records imported from a source are never changed
// by a triage, and an import never changes an investigator record. Accepted
// bumps the registry version when it changed a record; accepted and
// duplicate set linked_blocklist_id. Duplicate links to t.Link, or to the
// one record matching the submitted name (see duplicateOfTx; invalid naming
// link when there is none or more than one). It fails with not_found for an
// unknown id and conflict when the submission is not pending.
func (db *DB) TriageSubmission(ctx context.Context, id string, t cluster.Triage, now time.Time) (cluster.Submission, error) {
	switch t.Status {
	case cluster.StatusAccepted, cluster.StatusRejected, cluster.StatusDuplicate:
	default:
		return cluster.Submission{}, graph.Invalid("status", "status must be accepted, rejected or duplicate")
	}
	if strings.TrimSpace(t.By) == "" {
		return cluster.Submission{}, graph.Invalid("by", "the investigator's name is required")
	}
	now = now.UTC().Truncate(time.Microsecond)
	var out cluster.Submission
	err := pgx.BeginFunc(ctx, db.Pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1, 0)`, clusterLockKey); err != nil {
			return err
		}
		var country string
		sub, err := scanSubmission(tx.QueryRow(ctx, `SELECT `+submissionColumns+` FROM cluster_submissions WHERE id = $1 FOR UPDATE`, id))
		if errNoRows(err) {
			return graph.Errorf(graph.CodeNotFound, "no such cluster submission")
		}
		if err != nil {
			return err
		}
		if sub.Status != cluster.StatusPending {
			return &graph.Error{Code: graph.CodeConflict, Message: "only a pending submission can be triaged; this one is " + sub.Status,
				Details: map[string]any{"triage_status": sub.Status}}
		}
		if err := tx.QueryRow(ctx, `SELECT COALESCE(details->>'entity_country', '') FROM cluster_submissions WHERE id = $1`, id).Scan(&country); err != nil {
			return err
		}
		var link *string
		switch t.Status {
		case cluster.StatusDuplicate:
			rid, err := duplicateOfTx(ctx, tx, sub.EntityName, country, t.Link)
			if err != nil {
				return err
			}
			link = &rid
		case cluster.StatusAccepted:
			rid, err := db.acceptTx(ctx, tx, sub, country, t.By, now)
			if err != nil {
				return err
			}
			link = &rid
		}
		var note *string
		if t.Note != "" {
			note = &t.Note
		}
		out, err = scanSubmission(tx.QueryRow(ctx, `UPDATE cluster_submissions SET triage_status = $2, triaged_at = $3, triaged_by = $4,
				triage_note = $5, linked_blocklist_id = $6 WHERE id = $1 RETURNING `+submissionColumns, id, t.Status, now, t.By, note, link))
		return err
	})
	if err != nil {
		if ge := (*graph.Error)(nil); errors.As(err, &ge) {
			return cluster.Submission{}, err
		}
		return cluster.Submission{}, storageAbsent(fmt.Errorf("triage submission: %w", err))
	}
	return out, nil
}

// duplicateOfTx returns the id of the record a duplicate links to: link
// (a uuid of an existing record), or the one record matching name as an
// acceptance would name it: by normalized entity name or alias, among the
// records of the submitted country when any of those match, records matched
// by entity name before those matched only by an alias. It fails with
// invalid naming link when no record matches or the best matches are more
// than one (naming their slugs and ids, for --link).
func duplicateOfTx(ctx context.Context, tx pgx.Tx, name, country, link string) (string, error) {
	if link != "" {
		id, err := graph.ParseID("link", "", link)
		if err != nil {
			return "", err
		}
		var exists bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM cluster_records WHERE id = $1)`, id).Scan(&exists); err != nil {
			return "", err
		}
		if !exists {
			return "", graph.Invalid("link", "no blocklist record has id %s", id)
		}
		return id, nil
	}
	cands, err := recordsByNameOrAliasTx(ctx, tx, cluster.Normalize(name))
	if err != nil {
		return "", err
	}
	if len(cands) == 0 {
		return "", graph.Invalid("link", "no blocklist record has this entity name or alias; give the record's id with --link")
	}
	if iso, _ := cluster.ParseCountry("entity_country", country); iso != "" {
		var same []nameMatch
		for _, c := range cands {
			if c.country == iso {
				same = append(same, c)
			}
		}
		if len(same) > 0 {
			cands = same
		}
	}
	var best []nameMatch
	for _, c := range cands {
		if c.byAlias == cands[0].byAlias {
			best = append(best, c)
		}
	}
	if len(best) == 1 {
		return best[0].id, nil
	}
	how := "entity name"
	if best[0].byAlias {
		how = "alias"
	}
	list := make([]string, len(best))
	for i, c := range best {
		list[i] = c.slug + " (" + c.id + ")"
	}
	return "", graph.Invalid("link", "%d blocklist records have this %s: %s; give the record's id with --link", len(best), how, strings.Join(list, ", "))
}

// nameMatch is a record matched by a normalized name.
type nameMatch struct {
	id, slug, country string
	byAlias           bool // matched by an alias only, not by its entity name
}

// recordsByNameOrAliasTx returns the records whose normalized name or one
// of whose aliases is key, each once: records matched by name first, then
// those matched only by an alias, each oldest first.
func recordsByNameOrAliasTx(ctx context.Context, tx pgx.Tx, key string) ([]nameMatch, error) {
	rows, err := tx.Query(ctx, `SELECT id::text, slug, country, by_alias FROM (
			SELECT DISTINCT ON (r.id) r.id, r.slug, r.country, m.by_alias, r.added_at FROM (
				SELECT id AS record_id, false AS by_alias FROM cluster_records WHERE name_key = $1
				UNION ALL
				SELECT record_id, true FROM cluster_aliases WHERE alias_key = $1
			) m JOIN cluster_records r ON r.id = m.record_id ORDER BY r.id, m.by_alias
		) d ORDER BY by_alias, added_at, id`, key)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (nameMatch, error) {
		var m nameMatch
		err := row.Scan(&m.id, &m.slug, &m.country, &m.byAlias)
		return m, err
	})
}

// acceptTx makes the accepted submission a confirmed investigator record
// for its normalized name and country (a free-text country that names none
// is unknown, ""), and returns its id: the investigator record with that
// name and country (raised to confirmed when it was not), or a new one
// attributed to the investigator by. Imported records are left as their
// source says, even when they have the same name.
func (db *DB) acceptTx(ctx context.Context, tx pgx.Tx, sub cluster.Submission, country, by string, now time.Time) (string, error) {
	iso, _ := cluster.ParseCountry("entity_country", country)
	key := cluster.Normalize(sub.EntityName)
	old, err := queryRecords(ctx, tx, `SELECT `+recordColumns+` FROM cluster_records r LEFT JOIN cluster_groups g ON g.id = r.group_id
		WHERE r.origin = 'triage' AND r.name_key = $1 AND r.country = $2 FOR UPDATE OF r`, key, iso)
	if err != nil {
		return "", fmt.Errorf("accept: investigator record: %w", err)
	}
	var ev graph.Event
	var rid string
	if len(old) > 0 {
		rec := old[0].Record
		rid = rec.ID
		if rec.Severity == cluster.Confirmed {
			return rid, nil
		}
		if _, err := tx.Exec(ctx, `UPDATE cluster_records SET severity = 'confirmed', updated_at = $2 WHERE id = $1`, rid, now); err != nil {
			return "", err
		}
		prev := rec.Severity
		rec.Severity = cluster.Confirmed
		ev = clusterEvent(graph.EventClusterEntitySeverityChanged, rec.GroupID, rec, prev, now)
	} else {
		slug, err := freeSlugTx(ctx, tx, cluster.Slugify(sub.EntityName))
		if err != nil {
			return "", err
		}
		rec := cluster.Record{ID: graph.NewID(), Slug: slug, EntityName: sub.EntityName, Severity: cluster.Confirmed, Country: iso,
			AddedAt: now, Source: "Accepted cluster submission; attributed to " + by, Aliases: []string{}}
		_, err = tx.Exec(ctx, `INSERT INTO cluster_records (id, slug, entity_name, name_key, severity, country, added_at, updated_at, source, origin)
			VALUES ($1, $2, $3, $4, 'confirmed', $5, $6, $6, $7, 'triage')`, rec.ID, rec.Slug, rec.EntityName, key, rec.Country, now, rec.Source)
		if err != nil {
			return "", err
		}
		rid = rec.ID
		ev = clusterEvent(graph.EventClusterEntityAdded, "", rec, "", now)
	}
	if _, err := bumpVersionTx(ctx, tx, true); err != nil {
		return "", err
	}
	return rid, db.publishTx(ctx, tx, ev)
}

// freeSlugTx returns base, or base-2, base-3 ... when a record or a group
// holds it (a record on a group's slug would hide the group's graph).
func freeSlugTx(ctx context.Context, tx pgx.Tx, base string) (string, error) {
	for i := 1; ; i++ {
		slug := base
		if i > 1 {
			suffix := fmt.Sprintf("-%d", i)
			slug = strings.TrimRight(base[:min(len(base), cluster.MaxSlugLen-len(suffix))], "-") + suffix
		}
		var taken bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM cluster_records WHERE slug = $1)
			OR EXISTS (SELECT 1 FROM cluster_groups WHERE slug = $1)`, slug).Scan(&taken); err != nil {
			return "", err
		}
		if !taken {
			return slug, nil
		}
	}
}
