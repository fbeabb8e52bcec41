// Package leasemig applies the worker-id lease table's goose migration
// (shardid.LeaseMigrations) to PostgreSQL, MySQL, MariaDB or TiDB, keeping
// its goose history in a table of its own (<table>_goose_db_version), so it
// never mixes with the application's or the shards' goose histories in the
// same database. The CLI's `shardid worker up` and the tests use it.
package leasemig

import (
	"context"
	"database/sql"
	"fmt"
	"testing/fstest"

	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"

	"github.com/shardid/shardid"
	"github.com/shardid/shardid/pgfunc"
)

// HistoryTable is the goose version table of lease table table ("" means
// shardid.DefaultLeaseTable), unquoted as goose wants it.
func HistoryTable(table string) string {
	if table == "" {
		table = shardid.DefaultLeaseTable
	}
	return table + "_goose_db_version"
}

// Provider returns a goose Provider that creates lease table table on db.
// On PostgreSQL it migrates under a session lock of its own, so concurrent
// runs wait for each other; the MySQL-family migration is one CREATE TABLE
// IF NOT EXISTS, which concurrent runs may both execute.
func Provider(db *sql.DB, d shardid.Dialect, table string) (*goose.Provider, error) {
	files, err := shardid.LeaseMigrations(d, table)
	if err != nil {
		return nil, err
	}
	fsys := fstest.MapFS{}
	for name, text := range files {
		fsys[name] = &fstest.MapFile{Data: text, Mode: 0o644}
	}
	opts := []goose.ProviderOption{goose.WithTableName(HistoryTable(table)), goose.WithDisableGlobalRegistry(true)}
	var gd goose.Dialect
	switch d {
	case shardid.DialectPostgres:
		gd = goose.DialectPostgres
		locker, err := lock.NewPostgresSessionLocker(lock.WithLockID(pgfunc.LockID(HistoryTable(table))))
		if err != nil {
			return nil, err
		}
		opts = append(opts, goose.WithSessionLocker(locker))
	case shardid.DialectMySQL:
		gd = goose.DialectMySQL
	case shardid.DialectTiDB:
		gd = goose.DialectTiDB
	}
	p, err := goose.NewProvider(gd, db, fsys, opts...)
	if err != nil {
		return nil, fmt.Errorf("goose provider: %w", err)
	}
	return p, nil
}

// Up creates lease table table on db if its migration has not run yet and
// reports whether it ran now.
func Up(ctx context.Context, db *sql.DB, d shardid.Dialect, table string) (applied bool, err error) {
	p, err := Provider(db, d, table)
	if err != nil {
		return false, err
	}
	res, err := p.Up(ctx)
	if err != nil {
		return false, fmt.Errorf("create lease table: %w", err)
	}
	return len(res) > 0, nil
}
