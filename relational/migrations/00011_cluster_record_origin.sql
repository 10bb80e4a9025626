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
CREATE UNIQUE INDEX cluster_records_triage_key ON cluster_records (name_key, country) WHERE origin = 'triage';

-- +goose Down
DROP INDEX cluster_records_triage_key;
ALTER TABLE cluster_records DROP COLUMN origin;
