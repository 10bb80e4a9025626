package relational

import "context"

// FinishUBOGraph exposes finishUBOGraph to the external tests.
var FinishUBOGraph = (*DB).finishUBOGraph

// MigrateDownTo rolls the database's migrations back to version v (tests
// of a migration over data the code before it wrote).
func (db *DB) MigrateDownTo(ctx context.Context, v int64) error {
	p, err := db.provider(true)
	if err != nil {
		return err
	}
	_, err = p.DownTo(ctx, v)
	return err
}
