package migrate

import (
	"context"

	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/database"

	"github.com/shardid/shardid/dialect"
	"github.com/shardid/shardid/internal/gooseup"
	"github.com/shardid/shardid/pgfunc"
	"github.com/shardid/shardid/pgfunc/internal/sqlt"
)

// LockID is the goose session-lock id for schema: distinct per schema, so
// migrating one shard never waits for another.
func LockID(schema string) int64 { return gooseup.LockID(schema) }

// Provider is the goose Provider of sh's migration rendered with o,
// its history in the schema (<schema>.goose_db_version).
func (m *Migrator) Provider(sh pgfunc.Shard, o pgfunc.Options) (*goose.Provider, error) {
	text, err := pgfunc.Render(sh, o)
	if err != nil {
		return nil, err
	}
	table := sqlt.Ident(sh.Schema) + ".goose_db_version"
	return gooseup.NewProvider(m.db, dialect.Postgres, gooseup.Files{MigrationName: text}, gooseup.Options{
		History: sh.Schema + ".goose_db_version",
		LockID:  LockID(sh.Schema),
		TableExists: func(ctx context.Context, db database.DBTxConn) (bool, error) {
			return tableExists(ctx, db, table)
		},
	})
}

// tableExists reports whether the version table (quoted schema.table)
// exists: goose's own check scans pg_tables, whose cost grows with every
// table on the server (2 ms a schema with 5,000 shards, and every schema
// asks), while to_regclass is one index lookup.
func tableExists(ctx context.Context, db database.DBTxConn, table string) (bool, error) {
	q, err := sqlt.Query("table_exists", nil)
	if err != nil {
		return false, err
	}
	var ok bool
	err = db.QueryRowContext(ctx, q, table).Scan(&ok)
	return ok, err
}
