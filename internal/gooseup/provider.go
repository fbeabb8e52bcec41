package gooseup

import (
	"context"
	"database/sql"
	"fmt"
	"hash/fnv"

	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/database"
	"github.com/pressly/goose/v3/lock"
	"github.com/shardid/shardid/dialect"
)

// Options say how NewProvider builds a goose Provider. The zero value
// keeps goose's history in goose_db_version and, on PostgreSQL, holds a
// session lock derived from that name while migrating.
type Options struct {
	// History is the goose version table, unquoted as goose wants it:
	// name or schema.name. "" means goose's goose_db_version.
	History string
	// LockID is the PostgreSQL session-lock id held while migrating; 0
	// means one derived from History, so runs for one history wait for
	// each other and runs for others do not. Other dialects take no lock.
	LockID int64
	// TableExists, if set, replaces the PostgreSQL store's check that the
	// version table exists (goose's scans pg_tables, whose cost grows with
	// every table on the server).
	TableExists func(ctx context.Context, db database.DBTxConn) (bool, error)
	// Goose are further goose options: Go migrations, excluded names,
	// out-of-order, verbose.
	Goose []goose.ProviderOption
}

// NewProvider returns the goose Provider that applies files (name →
// content, see Files) to db in dialect d, keeping no global registry. It
// returns goose's own errors, and one wrapping dialect.ErrUnknown
// for a dialect it does not know. Every goose Provider shardid builds is
// built here.
func NewProvider(db *sql.DB, d dialect.Dialect, files Files, o Options) (*goose.Provider, error) {
	opts := append([]goose.ProviderOption{goose.WithDisableGlobalRegistry(true)}, o.Goose...)
	var gd goose.Dialect
	switch d {
	case dialect.Postgres:
		gd = goose.DialectPostgres
		id := o.LockID
		if id == 0 {
			id = LockID(o.History)
		}
		locker, err := lock.NewPostgresSessionLocker(lock.WithLockID(id))
		if err != nil {
			return nil, err
		}
		opts = append(opts, goose.WithSessionLocker(locker))
	case dialect.MySQL:
		gd = goose.DialectMySQL
	case dialect.TiDB:
		gd = goose.DialectTiDB
	default:
		return nil, fmt.Errorf("%w %q", dialect.ErrUnknown, d)
	}
	if o.TableExists != nil && d == dialect.Postgres {
		table := o.History
		if table == "" {
			table = goose.DefaultTablename
		}
		store, err := database.NewStore(database.DialectPostgres, table)
		if err != nil {
			return nil, err
		}
		return goose.NewProvider("", db, files, append(opts, goose.WithStore(existsStore{Store: store, exists: o.TableExists}))...)
	}
	if o.History != "" {
		opts = append(opts, goose.WithTableName(o.History))
	}
	return goose.NewProvider(gd, db, files, opts...)
}

// LockID is the PostgreSQL session-lock id NewProvider derives from a
// history table's name (or a shard's schema): distinct per name.
func LockID(name string) int64 {
	h := fnv.New64a()
	h.Write([]byte("shardid:" + name))
	return int64(h.Sum64() &^ (1 << 63))
}

// existsStore is a goose store whose TableExists is the caller's.
type existsStore struct {
	database.Store
	exists func(ctx context.Context, db database.DBTxConn) (bool, error)
}

// TableExists reports whether the version table exists.
func (s existsStore) TableExists(ctx context.Context, db database.DBTxConn) (bool, error) {
	return s.exists(ctx, db)
}
