package lease

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"

	"github.com/shardid/shardid/dialect"
	"github.com/shardid/shardid/internal/gooseup"
)

// The file names of the lease table's goose migrations, in the file
// system Migrations returns.
const (
	// MigrationName creates the table.
	MigrationName = "00001_create_lease_table.sql"
	// TTLMigrationName adds the column that records each holder's TTL
	// (Info.TTL), which Fence waits out; a table made by the first
	// migration alone is brought up to date by it.
	TTLMigrationName = "00002_lease_table_ttl.sql"
)

// HistoryTable returns the goose version table that records the lease
// table's migration: table's name ("" means DefaultTable) with
// _goose_db_version appended, unquoted as goose wants it, so it never
// mixes with the application's or the shards' goose histories in the same
// database.
func HistoryTable(table string) string {
	if table == "" {
		table = DefaultTable
	}
	return table + historySuffix
}

// Migrations returns the goose migrations of lease table table ("" means
// DefaultTable) for dialect d, at the root of the file system: the one
// that creates it (MigrationName) and the one that adds each holder's TTL
// (TTLMigrationName), ready for a goose Provider whose version table is
// HistoryTable(table), or for a migration directory of your own. Up applies
// them. It returns errors wrapping ErrInvalidTable and dialect.ErrUnknown.
func Migrations(d dialect.Dialect, table string) (fs.FS, error) {
	files, err := migrationFiles(d, table)
	if err != nil {
		return nil, err
	}
	return gooseup.Files(files), nil
}

// migrationFiles renders the migration, keyed by file name.
func migrationFiles(d dialect.Dialect, table string) (map[string][]byte, error) {
	s, err := renderLease(d, table, false, "migration", "ttl_migration")
	if err != nil {
		return nil, err
	}
	return map[string][]byte{MigrationName: []byte(s[0]), TTLMigrationName: []byte(s[1])}, nil
}

// Up creates lease table table ("" means DefaultTable) on db through goose,
// or brings it up to date, keeping the goose history in
// HistoryTable(table), and reports whether a migration ran now. d "" asks the
// server (dialect.Detect). On PostgreSQL concurrent runs wait for each
// other; the MySQL-family migration is one CREATE TABLE IF NOT EXISTS,
// which concurrent runs may both execute. It returns errors wrapping
// ErrInvalidTable, dialect.ErrUnknown and the database's own.
func Up(ctx context.Context, db *sql.DB, d dialect.Dialect, table string) (applied bool, err error) {
	if d == "" {
		if d, err = dialect.Detect(ctx, db); err != nil {
			return false, fmt.Errorf("create lease table: %w", err)
		}
	}
	files, err := migrationFiles(d, table)
	if err != nil {
		return false, err
	}
	ran, err := gooseup.Up(ctx, db, d, HistoryTable(table), files)
	if err != nil {
		return false, fmt.Errorf("create lease table: %w", err)
	}
	return len(ran) > 0, nil
}
