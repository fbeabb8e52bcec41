package shardid_test

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing/fstest"

	_ "github.com/jackc/pgx/v5/stdlib" // driver "pgx"; go-sql-driver/mysql for MySQL, MariaDB, TiDB
	"github.com/pressly/goose/v3"

	"github.com/shardid/shardid"
)

// The allocation table's migrations, for a goose Provider of your own.
func ExampleSegmentMigrations() {
	files, err := shardid.SegmentMigrations(shardid.DialectPostgres, "")
	if err != nil {
		panic(err)
	}
	for _, name := range slices.Sorted(maps.Keys(files)) {
		fmt.Println(name, "→ goose version table", shardid.SegmentHistoryTable(""))
		fmt.Println(strings.Split(string(files[name]), "\n")[3])
	}
	// Output:
	// 00001_shardid_segments.sql → goose version table shardid_segments_goose_db_version
	// CREATE TABLE "shardid_segments" (
	// 00002_shardid_segments_fence.sql → goose version table shardid_segments_goose_db_version
	// ALTER TABLE "shardid_segments"
}

// Apply the table, create a tag, and draw. (shardid segment up does the
// first two from a shell.)
func ExampleNewSegments() {
	ctx := context.Background()
	db, err := sql.Open("pgx", "postgres://app@db1:5432/app")
	if err != nil {
		panic(err)
	}
	files, err := shardid.SegmentMigrations(shardid.DialectPostgres, "")
	if err != nil {
		panic(err)
	}
	fsys := fstest.MapFS{}
	for name, text := range files {
		fsys[name] = &fstest.MapFile{Data: text}
	}
	p, err := goose.NewProvider(goose.DialectPostgres, db, fsys, goose.WithTableName(shardid.SegmentHistoryTable("")))
	if err != nil {
		panic(err)
	}
	if _, err := p.Up(ctx); err != nil {
		panic(err)
	}
	if _, _, err := shardid.EnsureSegmentTag(ctx, db, shardid.DialectPostgres, "", shardid.SegmentTag{Tag: "orders", Step: 1000}, 0); err != nil {
		panic(err)
	}
	ids, err := shardid.NewSegments(ctx, db, shardid.SegmentSettings{Tag: "orders"})
	if err != nil {
		panic(err)
	}
	defer ids.Close()
	id, err := ids.Next(ctx) // from memory; the next segment loads in the background
	if err != nil {
		panic(err) // wraps ErrSegmentsExhausted once the database has been away longer than the buffered IDs last
	}
	fmt.Println(id)
}
