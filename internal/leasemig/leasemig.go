// Package leasemig applies the worker-id lease table's goose migration
// (shardid.LeaseMigrations) to PostgreSQL, MySQL, MariaDB or TiDB through
// internal/gooseup, keeping its goose history in a table of its own
// (<table>_goose_db_version), so it never mixes with the application's or
// the shards' goose histories in the same database. The CLI's
// `shardid worker up`, the bench and the tests use it.
package leasemig

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/shardid/shardid"
	"github.com/shardid/shardid/dialect"
	"github.com/shardid/shardid/internal/gooseup"
)

// HistoryTable is the goose version table of lease table table ("" means
// shardid.DefaultLeaseTable), unquoted as goose wants it.
func HistoryTable(table string) string {
	if table == "" {
		table = shardid.DefaultLeaseTable
	}
	return table + "_goose_db_version"
}

// Up creates lease table table on db if its migration has not run yet and
// reports whether it ran now. On PostgreSQL concurrent runs wait for each
// other; the MySQL-family migration is one CREATE TABLE IF NOT EXISTS,
// which concurrent runs may both execute.
func Up(ctx context.Context, db *sql.DB, d dialect.Dialect, table string) (applied bool, err error) {
	files, err := shardid.LeaseMigrations(d, table)
	if err != nil {
		return false, err
	}
	ran, err := gooseup.Up(ctx, db, d, HistoryTable(table), files)
	if err != nil {
		return false, fmt.Errorf("create lease table: %w", err)
	}
	return len(ran) > 0, nil
}
