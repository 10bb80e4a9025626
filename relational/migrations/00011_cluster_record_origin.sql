-- +goose Up
-- Where a cluster record comes from: 'import' (a source file, keyed by its
-- slug) or 'triage' (an accepted submission, attributed to the service's
-- investigator). An import only ever updates import records: a triage
-- record whose slug an imported line claims is moved to a free slug, never
-- overwritten, so no import can lower or remove what the investigator
-- confirmed. There is one triage record per normalized name and country.
ALTER TABLE cluster_records ADD COLUMN origin text NOT NULL DEFAULT 'import'
    CHECK (origin IN ('import', 'triage'));
-- Records created by an accepted triage before this migration (their
-- source names the investigator), the oldest per name and country.
UPDATE cluster_records SET origin = 'triage' WHERE id IN (
    SELECT DISTINCT ON (r.name_key, r.country) r.id
    FROM cluster_records r
    WHERE r.source LIKE 'Accepted cluster submission; attributed to %'
      AND EXISTS (SELECT 1 FROM cluster_submissions s WHERE s.linked_blocklist_id = r.id AND s.triage_status = 'accepted')
    ORDER BY r.name_key, r.country, r.added_at, r.id);
-- Imported records an accepted submission confirmed before this migration
-- (the old acceptance reused an imported record of the same name or alias
-- and raised it): each becomes the investigator's record for its name and
-- country, confirmed (an import since may have lowered it) and attributed
-- to the investigator who accepted, so that no import lowers it again; the
-- next import of its source adds its own record beside it (the slug is
-- moved aside, as for any investigator record).
-- Every instance reloads its check index when one changed.
WITH relabeled AS (
    UPDATE cluster_records r SET origin = 'triage', severity = 'confirmed',
        source = 'Accepted cluster submission; attributed to ' || coalesce(a.triaged_by, 'the service''s investigator')
    FROM (
        SELECT DISTINCT ON (r.name_key, r.country) r.id, s.triaged_by
        FROM cluster_records r JOIN cluster_submissions s ON s.linked_blocklist_id = r.id AND s.triage_status = 'accepted'
        WHERE r.origin = 'import'
          AND NOT EXISTS (SELECT 1 FROM cluster_records t WHERE t.origin = 'triage' AND t.name_key = r.name_key AND t.country = r.country)
        ORDER BY r.name_key, r.country, r.added_at, r.id, s.triaged_at
    ) a WHERE r.id = a.id
    RETURNING r.id
)
UPDATE cluster_registry_version SET version = version + 1, changed_at = now() WHERE EXISTS (SELECT 1 FROM relabeled);
CREATE UNIQUE INDEX cluster_records_triage_key ON cluster_records (name_key, country) WHERE origin = 'triage';

-- +goose Down
DROP INDEX cluster_records_triage_key;
ALTER TABLE cluster_records DROP COLUMN origin;
