package segment_test

import (
	"context"
	"database/sql"
	"expvar"
	"fmt"
	"io/fs"
	"log"
	"strings"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // driver "pgx"; go-sql-driver/mysql for MySQL, MariaDB, TiDB
	"github.com/pressly/goose/v3"

	"github.com/shardid/shardid/dialect"
	"github.com/shardid/shardid/segment"
)

// The allocation table's migrations, for a goose Provider of your own:
// an fs.FS with the files at its root.
func ExampleMigrations() {
	fsys, err := segment.Migrations(dialect.Postgres, "")
	if err != nil {
		panic(err)
	}
	names, err := fs.Glob(fsys, "*.sql")
	if err != nil {
		panic(err)
	}
	for _, name := range names {
		text, err := fs.ReadFile(fsys, name)
		if err != nil {
			panic(err)
		}
		fmt.Println(name, "→ goose version table", segment.HistoryTable(""))
		fmt.Println(strings.Split(string(text), "\n")[3])
	}
	// Output:
	// 00001_shardid_segments.sql → goose version table shardid_segments_goose_db_version
	// CREATE TABLE "shardid_segments" (
	// 00002_shardid_segments_fence.sql → goose version table shardid_segments_goose_db_version
	// ALTER TABLE "shardid_segments"
	// 00003_shardid_segments_record.sql → goose version table shardid_segments_goose_db_version
	// CREATE TABLE "shardid_segments_record" (
}

// With goose's own Provider over the migrations (Up does the same).
func ExampleMigrations_goose() {
	db, err := sql.Open("pgx", "postgres://app@db1:5432/app")
	if err != nil {
		panic(err)
	}
	fsys, err := segment.Migrations(dialect.Postgres, "")
	if err != nil {
		panic(err)
	}
	p, err := goose.NewProvider(goose.DialectPostgres, db, fsys, goose.WithTableName(segment.HistoryTable("")))
	if err != nil {
		panic(err)
	}
	if _, err := p.Up(context.Background()); err != nil {
		panic(err)
	}
}

// Apply the table, create a tag, and draw. (shardid segment up does the
// first two from a shell.)
func ExampleNew() {
	ctx := context.Background()
	db, err := sql.Open("pgx", "postgres://app@db1:5432/app")
	if err != nil {
		panic(err)
	}
	if _, err := segment.Up(ctx, db, dialect.Postgres, ""); err != nil {
		panic(err)
	}
	if _, _, err := segment.EnsureTag(ctx, db, dialect.Postgres, "", segment.Tag{Tag: "orders", Step: 1000}, 0); err != nil {
		panic(err)
	}
	ids, err := segment.New(ctx, db, segment.Settings{Tag: "orders"})
	if err != nil {
		panic(err)
	}
	defer ids.Close()
	id, err := ids.Next(ctx) // from memory; the next segment loads in the background
	if err != nil {
		panic(err) // wraps ErrExhausted once the database has been away longer than the buffered IDs last
	}
	fmt.Println(id)
}

// OnEvent feeds a log or metrics: segments loaded with their step, IDs
// discarded unused (at Close, or after a rewind), a restored table found,
// the database going and coming back. It is called synchronously: keep it
// quick.
func ExampleSettings_onEvent() {
	ctx := context.Background()
	db, err := sql.Open("pgx", "postgres://app@db1:5432/app")
	if err != nil {
		panic(err)
	}
	loads := expvar.NewInt("orders_segments_loaded") // on /debug/vars
	discarded := expvar.NewInt("orders_ids_discarded")
	ids, err := segment.New(ctx, db, segment.Settings{
		Tag: "orders",
		OnEvent: func(e segment.Event) {
			switch e.Kind {
			case segment.Loaded:
				loads.Add(1)
			case segment.Discarded:
				discarded.Add(e.Count)
				log.Print(e) // "tag orders: 942 buffered IDs (…) discarded unused at close; …"
			case segment.Rewound, segment.DatabaseDown, segment.DatabaseUp:
				log.Print(e)
			}
		},
	})
	if err != nil {
		panic(err) // wraps ErrRewound while the tag is fenced after a restore
	}
	defer ids.Close()
	st := ids.Stats() // buffered, discarded, the highest ID taken (HighWater), why refused
	fmt.Println(st.Buffered, st.HighWater)
}

// An event prints as one line.
func ExampleEvent_String() {
	fmt.Println(segment.Event{Kind: segment.Loaded, Tag: "orders", First: 1001, Last: 3000, Step: 2000, Took: 412 * time.Microsecond})
	fmt.Println(segment.Event{Kind: segment.Discarded, Tag: "orders", First: 2058, Last: 3000, Count: 943})
	fmt.Println(segment.Event{Kind: segment.DatabaseUp, Tag: "orders", Outage: 12 * time.Second})
	// Output:
	// tag orders: segment 1001-3000 loaded (step 2000, 412µs)
	// tag orders: 943 buffered IDs (2058-3000) discarded unused at close; nobody hands them out
	// tag orders: database up again after 12s
}

// After restoring the allocation table from a backup, move every tag past
// what the old table could have handed out before clients start
// (`shardid segment resume --skip N` from a shell). Clients that ran
// through the restore report what they had taken, and the resume moves past
// that too.
func ExampleResumeTag() {
	ctx := context.Background()
	db, err := sql.Open("pgx", "postgres://app@db1:5432/app")
	if err != nil {
		panic(err)
	}
	tags, err := segment.Tags(ctx, db, dialect.Postgres, "")
	if err != nil {
		panic(err)
	}
	for _, t := range tags {
		before, after, err := segment.ResumeTag(ctx, db, dialect.Postgres, "", t.Tag, segment.Resume{Skip: 10_000_000})
		if err != nil {
			panic(err)
		}
		fmt.Println(t.Tag, before.MaxID, "→", after.MaxID)
	}
}
