package segment

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"

	"github.com/shardid/shardid/dialect"
	"github.com/shardid/shardid/internal/gooseup"
)

// The file names of the allocation table's goose migrations, in the file
// system Migrations returns.
const (
	// MigrationName creates the table.
	MigrationName = "00001_shardid_segments.sql"
	// FenceMigrationName adds what a client needs to fence a tag
	// it finds rewound, and what status shows of it.
	FenceMigrationName = "00002_shardid_segments_fence.sql"
	// RecordMigrationName creates the record table (RecordTable) and
	// copies the existing tags into it.
	RecordMigrationName = "00003_shardid_segments_record.sql"
)

// HistoryTable returns the goose version table that records the
// migrations of allocation table table (DefaultTable when ""): its
// own, beside it, so it never mixes with another goose history in the same
// database.
func HistoryTable(table string) string {
	if table == "" {
		table = DefaultTable
	}
	return table + historySuffix
}

// Migrations returns the goose migrations of allocation table table
// (DefaultTable when "") for dialect d, at the root of the file system:
// the one that creates it (MigrationName), the one that adds the fence
// (FenceMigrationName) and the one that adds the record table
// (RecordMigrationName). Hand them to a goose Provider whose version table
// is HistoryTable(table) and whose dialect matches d (postgres, mysql or
// tidb), or copy them into a migration directory of your own; Up applies
// them. A table made by the first alone is brought up to date by the
// others. It returns errors wrapping ErrInvalidTable and
// dialect.ErrUnknown.
func Migrations(d dialect.Dialect, table string) (fs.FS, error) {
	files, err := migrationFiles(d, table)
	if err != nil {
		return nil, err
	}
	return gooseup.Files(files), nil
}

// migrationFiles renders the migrations, keyed by file name.
func migrationFiles(d dialect.Dialect, table string) (map[string][]byte, error) {
	v, err := newSegmentView(d, table)
	if err != nil {
		return nil, err
	}
	out := map[string][]byte{}
	for name, tmpl := range map[string]string{MigrationName: "migration.sql.tmpl", FenceMigrationName: "fence_migration.sql.tmpl",
		RecordMigrationName: "record_migration.sql.tmpl"} {
		text, err := v.render(tmpl)
		if err != nil {
			return nil, err
		}
		out[name] = []byte(text + "\n")
	}
	return out, nil
}

// Up creates allocation table table (DefaultTable when "") on db through
// goose, or brings it up to date, keeping the goose history in
// HistoryTable(table), and reports whether any migration ran now. d ""
// asks the server (dialect.Detect). A rerun is a no-op; on PostgreSQL
// concurrent runs wait for each other. Tags are created with EnsureTag.
// It returns errors wrapping ErrInvalidTable, dialect.ErrUnknown and the
// database's own.
func Up(ctx context.Context, db *sql.DB, d dialect.Dialect, table string) (applied bool, err error) {
	if table == "" {
		table = DefaultTable
	}
	if d == "" {
		if d, err = dialect.Detect(ctx, db); err != nil {
			return false, fmt.Errorf("allocation table %s: %w", table, err)
		}
	}
	files, err := migrationFiles(d, table)
	if err != nil {
		return false, err
	}
	ran, err := gooseup.Up(ctx, db, d, HistoryTable(table), files)
	if err != nil {
		return false, fmt.Errorf("allocation table %s: %w", table, err)
	}
	return len(ran) > 0, nil
}
