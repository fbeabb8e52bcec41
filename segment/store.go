package segment

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/shardid/shardid/dialect"
	"github.com/shardid/shardid/internal/gooseup"
)

// RecordStore keeps, outside the allocation table's database, the highest
// ID any client took from each tag (Settings.Records), so that a restore
// of that whole database, the record table beside the allocation table
// included, is found with no client running: the restored row is below
// the record. DBRecords keeps it in a table of another database; an
// application may name any store that outlives the allocation database
// (a configuration service, an object in a bucket).
type RecordStore interface {
	// Record returns the highest ID recorded for tag, and whether tag has
	// a record at all.
	Record(ctx context.Context, tag string) (high int64, found bool, err error)
	// Raise raises tag's record to high, creating it, never lowering it.
	Raise(ctx context.Context, tag string, high int64) error
}

// RecordsMigrationName is the file name of the goose migration that
// creates a record table in a database of its own (UpRecords).
const RecordsMigrationName = "00001_shardid_segments_records.sql"

// RecordsHistoryTable is the goose version table of a record table made
// by UpRecords: RecordTable(table) with _goose_db_version appended.
func RecordsHistoryTable(table string) string { return RecordTable(table) + historySuffix }

// dbRecords is a record table in a database of its own.
type dbRecords struct {
	db *sql.DB
	v  segmentView
}

// DBRecords returns a RecordStore over the record table of allocation
// table table (RecordTable: "" means DefaultTable's) on db, a database
// other than the allocation table's, of dialect d: the same table the
// allocation database holds beside it, made there by UpRecords. The
// drawing role needs SELECT, INSERT and UPDATE on it. It returns errors
// wrapping ErrInvalidTable and dialect.ErrUnknown.
func DBRecords(db *sql.DB, d dialect.Dialect, table string) (RecordStore, error) {
	v, err := newSegmentView(d, table)
	if err != nil {
		return nil, err
	}
	return &dbRecords{db: db, v: v}, nil
}

func (r *dbRecords) Record(ctx context.Context, tag string) (int64, bool, error) {
	high, found, tableThere, err := r.v.readRecord(ctx, r.db, tag)
	switch {
	case err != nil:
		return 0, false, fmt.Errorf("record store %s: %w", r.v.Record, err)
	case !tableThere:
		return 0, false, fmt.Errorf("record store %s: no such table (create it with `shardid segment up --records-dsn` or segment.UpRecords)", r.v.Record)
	}
	return high, found, nil
}

func (r *dbRecords) Raise(ctx context.Context, tag string, high int64) error {
	q, err := r.v.render("record_add")
	if err != nil {
		return err
	}
	if _, err := r.db.ExecContext(ctx, q, tag, high); err != nil {
		return fmt.Errorf("record store %s: raise %s to %d: %w", r.v.Record, tag, high, err)
	}
	return nil
}

// UpRecords creates the record table of allocation table table ("" means
// DefaultTable) on db, a database other than the allocation table's,
// through goose (history RecordsHistoryTable(table)), for DBRecords; a
// rerun is a no-op. It reports whether the migration ran now, and returns
// errors wrapping ErrInvalidTable, dialect.ErrUnknown and the database's
// own.
func UpRecords(ctx context.Context, db *sql.DB, d dialect.Dialect, table string) (applied bool, err error) {
	if d == "" {
		if d, err = dialect.Detect(ctx, db); err != nil {
			return false, fmt.Errorf("record table: %w", err)
		}
	}
	v, err := newSegmentView(d, table)
	if err != nil {
		return false, err
	}
	text, err := v.render("records_migration.sql.tmpl")
	if err != nil {
		return false, err
	}
	ran, err := gooseup.Up(ctx, db, d, RecordsHistoryTable(table), map[string][]byte{RecordsMigrationName: []byte(text + "\n")})
	if err != nil {
		return false, fmt.Errorf("record table %s: %w", v.Record, err)
	}
	return len(ran) > 0, nil
}

// storeRecord reads tag's record from s; nothing when s is nil.
func storeRecord(ctx context.Context, s RecordStore, tag string) (int64, bool, error) {
	if s == nil {
		return 0, false, nil
	}
	high, found, err := s.Record(ctx, tag)
	if err != nil {
		return 0, false, fmt.Errorf("segments %s: read the record store (Settings.Records): %w", tag, err)
	}
	return high, found, nil
}

// storesRecord is the highest record of tag in stores, and whether any
// has one.
func storesRecord(ctx context.Context, stores []RecordStore, tag string) (high int64, found bool, err error) {
	for _, s := range stores {
		h, f, err := storeRecord(ctx, s, tag)
		if err != nil {
			return 0, false, err
		}
		if f {
			high, found = max(high, h), true
		}
	}
	return high, found, nil
}

// raiseStores raises tag's record to high in every store.
func raiseStores(ctx context.Context, stores []RecordStore, tag string, high int64) error {
	for _, s := range stores {
		if s == nil {
			continue
		}
		if err := s.Raise(ctx, tag, high); err != nil {
			return err
		}
	}
	return nil
}
