package pgfunc

import (
	"context"
	"hash/fnv"
	"testing/fstest"

	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/database"
	"github.com/pressly/goose/v3/lock"
)

// LockID is the goose session-lock id for schema: distinct per schema, so
// migrating one shard never waits for another.
func LockID(schema string) int64 {
	h := fnv.New64a()
	h.Write([]byte("shardid:" + schema))
	return int64(h.Sum64() &^ (1 << 63))
}

func (m *Migrator) provider(sh Shard) (*goose.Provider, error) {
	return m.providerFor(sh, m.opts)
}

// providerFor is the goose Provider of sh's migration rendered with o.
func (m *Migrator) providerFor(sh Shard, o Options) (*goose.Provider, error) {
	text, err := Render(sh, o)
	if err != nil {
		return nil, err
	}
	locker, err := lock.NewPostgresSessionLocker(lock.WithLockID(LockID(sh.Schema)))
	if err != nil {
		return nil, err
	}
	table := sh.Schema + ".goose_db_version"
	store, err := database.NewStore(database.DialectPostgres, table)
	if err != nil {
		return nil, err
	}
	fsys := fstest.MapFS{MigrationName: {Data: text, Mode: 0o644}}
	return goose.NewProvider("", m.db, fsys,
		goose.WithStore(indexedStore{Store: store, table: quoteIdent(sh.Schema) + ".goose_db_version"}),
		goose.WithSessionLocker(locker),
		goose.WithDisableGlobalRegistry(true),
	)
}

// indexedStore is goose's PostgreSQL store with a cheaper TableExists:
// goose's own scans pg_tables, whose cost grows with every table on the
// server (2 ms a schema with 5,000 shards, and every schema asks), while
// to_regclass is one index lookup.
type indexedStore struct {
	database.Store
	table string // quoted schema.table
}

// TableExists reports whether the version table exists.
func (s indexedStore) TableExists(ctx context.Context, db database.DBTxConn) (bool, error) {
	q, err := query("table_exists", nil)
	if err != nil {
		return false, err
	}
	var ok bool
	err = db.QueryRowContext(ctx, q, s.table).Scan(&ok)
	return ok, err
}
