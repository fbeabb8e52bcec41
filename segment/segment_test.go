package segment_test

import (
	"context"
	"database/sql"
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pingcap/tidb/pkg/parser"
	_ "github.com/pingcap/tidb/pkg/parser/test_driver" // value expressions for the parser

	"github.com/shardid/shardid/dialect"
	"github.com/shardid/shardid/internal/gooseup"
	"github.com/shardid/shardid/segment"
	"github.com/shardid/shardid/tools/testsrv"
)

var dialects = []dialect.Dialect{dialect.Postgres, dialect.MySQL, dialect.TiDB}

// backends are the database families the allocator serves, each with a
// fresh database on its shared test server.
var backends = []struct {
	name    string
	dialect dialect.Dialect
	open    func(testing.TB) (*sql.DB, string) // a fresh database and its DSN
}{
	{"postgres", dialect.Postgres, testsrv.PGDB},
	{"mariadb", dialect.MySQL, testsrv.MariaDBDB},
	{"tidb", dialect.TiDB, testsrv.TiDBDB},
}

// TestSegmentMigrationsGolden pins the allocation table's migrations for
// each dialect (go test . -run SegmentMigrationsGolden -update rewrites).
func TestSegmentMigrationsGolden(t *testing.T) {
	t.Parallel()
	for _, d := range dialects {
		files := migrationFiles(t, d, "")
		if len(files) != 3 {
			t.Errorf("%s: %d migrations, want 3", d, len(files))
		}
		testsrv.CheckGolden(t, filepath.Join("testdata", string(d)+".sql"), files[segment.MigrationName])
		testsrv.CheckGolden(t, filepath.Join("testdata", string(d)+"_fence.sql"), files[segment.FenceMigrationName])
		testsrv.CheckGolden(t, filepath.Join("testdata", string(d)+"_record.sql"), files[segment.RecordMigrationName])
	}
}

// TestSegmentStatementsParseWithTiDB hands every statement the allocator
// sends to TiDB, the migration's included, to TiDB's own parser.
func TestSegmentStatementsParseWithTiDB(t *testing.T) {
	t.Parallel()
	files := migrationFiles(t, dialect.TiDB, "app.ids")
	stmts := []string{upStatements(t, string(files[segment.MigrationName])), upStatements(t, string(files[segment.FenceMigrationName]))}
	stmts = append(stmts, strings.SplitAfter(upStatements(t, string(files[segment.RecordMigrationName])), ";\n")...) // two statements
	records, err := segment.Statement(dialect.TiDB, "app.ids", "records_migration.sql.tmpl")                         // a record store's table (UpRecords)
	if err != nil {
		t.Fatal(err)
	}
	stmts = append(stmts, upStatements(t, records))
	for _, name := range []string{"alloc", "explain", "get", "list", "add", "raise", "setstep", "report", "resume", "record_get", "record_list", "record_raise", "record_add"} {
		s, err := segment.Statement(dialect.TiDB, "app.ids", name)
		if err != nil {
			t.Fatal(err)
		}
		stmts = append(stmts, s)
	}
	p := parser.New()
	for _, s := range stmts {
		if nodes, _, err := p.Parse(s, "", ""); err != nil || len(nodes) != 1 {
			t.Errorf("TiDB's parser: %d statements, %v:\n%s", len(nodes), err, s)
		}
	}
}

// upStatements returns the text between "-- +goose Up" and "-- +goose
// Down" without comment lines.
func upStatements(t *testing.T, migration string) string {
	t.Helper()
	_, up, ok := strings.Cut(migration, "-- +goose Up\n")
	up, _, ok2 := strings.Cut(up, "-- +goose Down")
	if !ok || !ok2 {
		t.Fatalf("no Up/Down sections:\n%s", migration)
	}
	var keep []string
	for _, l := range strings.Split(up, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "--") {
			keep = append(keep, l)
		}
	}
	return strings.TrimSpace(strings.Join(keep, "\n"))
}

// TestSegmentNamesChecked: bad table names and tags are refused with the
// rule, before any SQL is rendered.
func TestSegmentNamesChecked(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"Segments", "a.b.c", "x-y", "pg_ids", "1ids", strings.Repeat("a", 40), "ids; DROP TABLE t", ""} {
		if name == "" {
			continue // "" means the default
		}
		if _, err := segment.Migrations(dialect.Postgres, name); !errors.Is(err, segment.ErrInvalidTable) {
			t.Errorf("table %q: %v, want ErrInvalidTable", name, err)
		}
	}
	for _, ok := range []string{"ids", "app.ids", strings.Repeat("a", 39)} {
		if _, err := segment.Migrations(dialect.MySQL, ok); err != nil {
			t.Errorf("table %q: %v", ok, err)
		}
	}
	for _, tag := range []string{"", "a b", "x'y", strings.Repeat("t", 129), "ünï"} {
		if err := segment.CheckTag(tag); !errors.Is(err, segment.ErrInvalidTag) {
			t.Errorf("tag %q: %v, want ErrInvalidTag", tag, err)
		}
	}
	if _, err := segment.Migrations("oracle", ""); !errors.Is(err, dialect.ErrUnknown) {
		t.Errorf("dialect oracle: %v", err)
	}
}

// TestSegmentStepRule: the step doubles while segments last less than the
// target, halves when they last twice as long, and stays within bounds.
func TestSegmentStepRule(t *testing.T) {
	t.Parallel()
	const lo, hi, target = 100, 1000, time.Minute
	for _, c := range []struct {
		step   int64
		lasted time.Duration
		want   int64
	}{
		{100, 0, 200},
		{400, 59 * time.Second, 800},
		{800, time.Second, 1000}, // bounded above
		{1000, time.Second, 1000},
		{400, time.Minute, 400}, // within [target, 2×target): unchanged
		{400, 119 * time.Second, 400},
		{400, 2 * time.Minute, 200},
		{150, time.Hour, 100}, // bounded below
		{100, time.Hour, 100},
		{400, -time.Hour, 800}, // a clock stepped back counts as fast
	} {
		if got := segment.NextStep(c.step, c.lasted, lo, hi, target); got != c.want {
			t.Errorf("step %d lasted %v: %d, want %d", c.step, c.lasted, got, c.want)
		}
	}
	if got := segment.NextStep(1<<62+1, 0, 1, 1<<63-1, target); got != 1<<63-1 {
		t.Errorf("doubling past MaxInt64: %d", got)
	}
}

// segDB is a fresh database with the allocation table applied.
type segDB struct {
	dialect dialect.Dialect
	db      *sql.DB
	dsn     string
}

// migrationFiles returns the allocation table's migrations for d and
// table, file name → content.
func migrationFiles(t *testing.T, d dialect.Dialect, table string) map[string][]byte {
	t.Helper()
	fsys, err := segment.Migrations(d, table)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	names, err := fs.Glob(fsys, "*.sql")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		if files[name], err = fs.ReadFile(fsys, name); err != nil {
			t.Fatal(err)
		}
	}
	return files
}

// newSegDB creates a database on srv, opens it with driver and applies the
// allocation table's migration through goose.
func newSegDB(t *testing.T, d dialect.Dialect, driver, dsn string) segDB {
	t.Helper()
	db := testsrv.Open(t, driver, dsn)
	files := migrationFiles(t, d, "")
	if _, err := gooseup.Up(context.Background(), db, d, segment.HistoryTable(""), files); err != nil {
		t.Fatal(err)
	}
	return segDB{dialect: d, db: db, dsn: dsn}
}

// sharedSegDBs returns a fresh database with the allocation table on each
// shared server: PostgreSQL, MariaDB, TiDB.
func sharedSegDBs(t *testing.T) map[string]segDB {
	t.Helper()
	return map[string]segDB{
		"postgres": newSegDB(t, dialect.Postgres, "pgx", testsrv.Database(t, testsrv.PG(t))),
		"mariadb":  newSegDB(t, dialect.MySQL, "mysql", testsrv.Database(t, testsrv.MariaDB(t))),
		"tidb":     newSegDB(t, dialect.TiDB, "mysql", testsrv.Database(t, testsrv.TiDB(t))),
	}
}

// TestSegmentTagsAndDraws: the migration reruns as a no-op; a tag is
// created, found again unchanged, raised but never lowered, its step
// changed; a client hands out consecutive IDs from 1 through several
// segments; a new client starts above every segment taken before and above
// a raised start.
func TestSegmentTagsAndDraws(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for name, s := range sharedSegDBs(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			files := migrationFiles(t, s.dialect, "")
			if ran, err := gooseup.Up(ctx, s.db, s.dialect, segment.HistoryTable(""), files); err != nil || len(ran) != 0 {
				t.Fatalf("rerun: ran %v, %v", ran, err)
			}
			before, after, err := segment.EnsureTag(ctx, s.db, s.dialect, "", segment.Tag{Tag: "orders", Step: 100}, 0)
			if err != nil || before != nil || after.MaxID != 0 || after.Step != 100 {
				t.Fatalf("create: %+v %+v %v", before, after, err)
			}
			before, after, err = segment.EnsureTag(ctx, s.db, s.dialect, "", segment.Tag{Tag: "orders", Step: 100}, 0)
			if err != nil || before == nil || *before != after {
				t.Fatalf("rerun: %+v %+v %v", before, after, err)
			}
			c, err := segment.New(ctx, s.db, segment.Settings{Tag: "orders"})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			for want := int64(1); want <= 1000; want++ {
				id, err := c.Next(ctx)
				if err != nil || id != want {
					t.Fatalf("Next: %d, %v; want %d", id, err, want)
				}
			}
			if st := c.Stats(); st.Loads < 4 || st.Step <= 100 {
				t.Errorf("stats %+v: want several loads and a grown step", st)
			}
			c.Close() // no background load from here on: max_id stays put
			tags, err := segment.Tags(ctx, s.db, s.dialect, "")
			if err != nil || len(tags) != 1 || tags[0].MaxID < 1000 || tags[0].UpdateTime.IsZero() {
				t.Fatalf("tags %+v, %v", tags, err)
			}
			allocated := tags[0].MaxID
			_, after, err = segment.EnsureTag(ctx, s.db, s.dialect, "", segment.Tag{Tag: "orders", Step: 50}, 10)
			if err != nil || after.MaxID != allocated || after.Step != 50 {
				t.Fatalf("lower start, new step: %+v %v; want max_id %d kept, step 50", after, err, allocated)
			}
			_, after, err = segment.EnsureTag(ctx, s.db, s.dialect, "", segment.Tag{Tag: "orders"}, allocated+5001)
			if err != nil || after.MaxID != allocated+5000 || after.Step != 50 {
				t.Fatalf("raise, step 0 keeps the step: %+v %v", after, err)
			}
			c2, err := segment.New(ctx, s.db, segment.Settings{Tag: "orders"})
			if err != nil {
				t.Fatal(err)
			}
			defer c2.Close()
			if id, err := c2.Next(ctx); err != nil || id != allocated+5001 {
				t.Fatalf("second client: %d, %v; want %d", id, err, allocated+5001)
			}
		})
	}
}

// TestSegmentsRefuse: an unknown tag, bad settings, and a closed client.
func TestSegmentsRefuse(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newSegDB(t, dialect.Postgres, "pgx", testsrv.Database(t, testsrv.PG(t)))
	if _, err := segment.New(ctx, s.db, segment.Settings{Tag: "nope"}); !errors.Is(err, segment.ErrUnknownTag) {
		t.Errorf("unknown tag: %v", err)
	}
	if _, _, err := segment.EnsureTag(ctx, s.db, s.dialect, "", segment.Tag{Tag: "t"}, 0); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []segment.Settings{
		{Tag: "t", Threshold: 1},
		{Tag: "t", Threshold: -0.5},
		{Tag: "t", MinStep: 10, MaxStep: 5},
		{Tag: "t", MinStep: -1},
		{Tag: "t", TargetInterval: -time.Second},
		{Tag: "t", Table: "Bad"},
		{Tag: "t t"},
	} {
		if _, err := segment.New(ctx, s.db, bad); err == nil {
			t.Errorf("%+v: accepted", bad)
		}
	}
	c, err := segment.New(ctx, s.db, segment.Settings{Tag: "t"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.db.ExecContext(ctx, "DELETE FROM shardid_segments"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Next(ctx); !errors.Is(err, segment.ErrExhausted) || !errors.Is(err, segment.ErrRewound) || !strings.Contains(err.Error(), "tag t is missing from ") {
		t.Errorf("tag deleted under a client: %v; want ErrRewound, the tag missing", err)
	}
	c.Close()
	if _, err := c.Next(ctx); !errors.Is(err, segment.ErrClosed) {
		t.Errorf("after Close: %v", err)
	}
}

// TestSegmentsStepAdapts drives the step with a test clock (the client's
// wall and monotonic clocks both): frozen, every
// segment runs out at once and the step doubles up to MaxStep; moved ten
// minutes per ID, every segment lasts far beyond the one-minute target and
// the step halves down to MinStep. The database's max_id moves by exactly
// the steps the client chose.
func TestSegmentsStepAdapts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newSegDB(t, dialect.Postgres, "pgx", testsrv.Database(t, testsrv.PG(t)))
	if _, _, err := segment.EnsureTag(ctx, s.db, s.dialect, "", segment.Tag{Tag: "t", Step: 10}, 0); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	now := start
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	mono := func() time.Duration { return clock().Sub(start) }
	c, err := segment.NewOnClock(ctx, s.db, segment.Settings{Tag: "t", MaxStep: 80, TargetInterval: time.Minute, Clock: clock}, mono)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var steps []int64 // the step after each change
	draw := func(n int, tick time.Duration) {
		for range n {
			mu.Lock()
			now = now.Add(tick)
			mu.Unlock()
			if _, err := c.Next(ctx); err != nil {
				t.Fatal(err)
			}
			if st := c.Stats().Step; len(steps) == 0 || steps[len(steps)-1] != st {
				steps = append(steps, st)
			}
		}
	}
	draw(400, 0)
	draw(400, 10*time.Minute)
	// The first segment has MinStep (10); the step shown is the next one's.
	want := []int64{20, 40, 80, 40, 20, 10}
	if len(steps) != len(want) {
		t.Fatalf("steps %v, want %v", steps, want)
	}
	for i := range want {
		if steps[i] != want[i] {
			t.Fatalf("steps %v, want %v", steps, want)
		}
	}
	c.Close()
	tags, err := segment.Tags(ctx, s.db, s.dialect, "")
	if err != nil {
		t.Fatal(err)
	}
	st := c.Stats()
	if tags[0].MaxID < 800 || tags[0].MaxID > 800+2*80 {
		t.Errorf("max_id %d after 800 IDs with steps ≤ 80 (stats %+v)", tags[0].MaxID, st)
	}
}

// TestSegmentIDSpaceEnd on PostgreSQL, MariaDB and TiDB: a start that
// leaves less than one step below the largest int64 is refused (new tag,
// and raising an existing one), naming the largest start allowed; at that
// largest start a client hands out the last step of IDs, up to
// math.MaxInt64, then says the tag's ID space is used up rather than
// passing on the server's bigint overflow.
func TestSegmentIDSpaceEnd(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const maxID = 1<<63 - 1
	if got := segment.MaxTagStart(0); got != maxID-999 {
		t.Fatalf("MaxSegmentStart(0) = %d, want %d", got, int64(maxID-999))
	}
	for name, s := range sharedSegDBs(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, _, err := segment.EnsureTag(ctx, s.db, s.dialect, "", segment.Tag{Tag: "big"}, 9223372036854775000)
			if !errors.Is(err, segment.ErrStartOutOfRange) || !strings.Contains(err.Error(), "the largest start for step 1000 is 9223372036854774808") {
				t.Fatalf("start past the last step: %v", err)
			}
			if tags, err := segment.Tags(ctx, s.db, s.dialect, ""); err != nil || len(tags) != 0 {
				t.Fatalf("refused, yet tags %+v, %v", tags, err)
			}
			if _, _, err := segment.EnsureTag(ctx, s.db, s.dialect, "", segment.Tag{Tag: "small", Step: 10}, 0); err != nil {
				t.Fatal(err)
			}
			_, _, err = segment.EnsureTag(ctx, s.db, s.dialect, "", segment.Tag{Tag: "small"}, maxID-8)
			if !errors.Is(err, segment.ErrStartOutOfRange) || !strings.Contains(err.Error(), "the largest start for step 10 is 9223372036854775798") {
				t.Fatalf("raising an existing tag of step 10 past its last step: %v", err)
			}
			_, after, err := segment.EnsureTag(ctx, s.db, s.dialect, "", segment.Tag{Tag: "big"}, segment.MaxTagStart(0))
			if err != nil || after.MaxID != maxID-1000 {
				t.Fatalf("the largest start: %+v, %v", after, err)
			}
			c, err := segment.New(ctx, s.db, segment.Settings{Tag: "big"})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			var last int64
			for range 1000 {
				if last, err = c.Next(ctx); err != nil {
					t.Fatalf("after %d: %v", last, err)
				}
			}
			if last != maxID {
				t.Fatalf("last ID %d, want %d", last, int64(maxID))
			}
			id, err := c.Next(ctx)
			if !errors.Is(err, segment.ErrExhausted) || !errors.Is(err, segment.ErrIDSpaceUsedUp) || strings.Contains(err.Error(), "out of range") {
				t.Fatalf("past the end: %d, %v; want the ID space used up, not the server's overflow", id, err)
			}
		})
	}
}

// TestSegmentTagsCompareExactly on PostgreSQL, MariaDB and TiDB: Orders and
// orders are two tags with two counters, each created anew and drawn from
// 1. On a MariaDB table made with a case-insensitive tag column (as before
// the migration said utf8mb4_bin) the other spelling is refused with
// ErrTagCase, never served from the first spelling's counter.
func TestSegmentTagsCompareExactly(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for name, s := range sharedSegDBs(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			for _, tag := range []string{"Orders", "orders"} {
				before, after, err := segment.EnsureTag(ctx, s.db, s.dialect, "", segment.Tag{Tag: tag}, 0)
				if err != nil || before != nil || after.Tag != tag {
					t.Fatalf("%s: before %+v, after %+v, %v; want a new tag", tag, before, after, err)
				}
				c, err := segment.New(ctx, s.db, segment.Settings{Tag: tag})
				if err != nil {
					t.Fatal(err)
				}
				id, err := c.Next(ctx)
				c.Close()
				if err != nil || id != 1 {
					t.Fatalf("%s: first ID %d, %v; want 1 from a counter of its own", tag, id, err)
				}
			}
			if tags, err := segment.Tags(ctx, s.db, s.dialect, ""); err != nil || len(tags) != 2 {
				t.Fatalf("tags %+v, %v; want 2", tags, err)
			}
		})
	}
	t.Run("case-insensitive table", func(t *testing.T) {
		t.Parallel()
		db := testsrv.Open(t, "mysql", testsrv.Database(t, testsrv.MariaDB(t)))
		// The tag column as the migration made it before it said
		// utf8mb4_bin; the fence columns as the second migration adds them.
		if _, err := db.ExecContext(ctx, "CREATE TABLE shardid_segments (tag varchar(128) NOT NULL PRIMARY KEY, max_id bigint NOT NULL, step bigint NOT NULL, description varchar(256) NOT NULL DEFAULT '', update_time timestamp(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6), "+
			"fenced boolean NOT NULL DEFAULT FALSE, rewind_time timestamp(6) NULL DEFAULT NULL, rewind_seen bigint NOT NULL DEFAULT 0, rewind_found bigint NOT NULL DEFAULT 0) COLLATE utf8mb4_general_ci"); err != nil {
			t.Fatal(err)
		}
		if _, _, err := segment.EnsureTag(ctx, db, dialect.MySQL, "", segment.Tag{Tag: "Orders"}, 0); err != nil {
			t.Fatal(err)
		}
		if _, _, err := segment.EnsureTag(ctx, db, dialect.MySQL, "", segment.Tag{Tag: "orders"}, 0); !errors.Is(err, segment.ErrTagCase) || !strings.Contains(err.Error(), `the table holds "Orders"`) {
			t.Errorf("up orders beside Orders: %v; want ErrTagCase", err)
		}
		if _, err := segment.New(ctx, db, segment.Settings{Tag: "orders"}); !errors.Is(err, segment.ErrTagCase) {
			t.Errorf("draw orders beside Orders: %v; want ErrTagCase", err)
		}
		if c, err := segment.New(ctx, db, segment.Settings{Tag: "Orders"}); err != nil {
			t.Errorf("the table's own spelling: %v", err)
		} else {
			c.Close()
		}
	})
}

// TestSegmentFenceMigrationUpgrades: a table made by the first migration
// alone (as shardid made it before the fence) is read with an error that
// says to bring it up to date; the second migration does, keeping every
// tag's counter, and clients draw on above it.
func TestSegmentFenceMigrationUpgrades(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			db, _ := b.open(t)
			files := migrationFiles(t, b.dialect, "")
			first := map[string][]byte{segment.MigrationName: files[segment.MigrationName]}
			if _, err := gooseup.Up(ctx, db, b.dialect, segment.HistoryTable(""), first); err != nil {
				t.Fatal(err)
			}
			// A tag that counted up to 5000 before the upgrade.
			if _, err := db.ExecContext(ctx, "INSERT INTO shardid_segments (tag, max_id, step) VALUES ('orders', 5000, 1000)"); err != nil {
				t.Fatal(err)
			}
			_, _, err := segment.EnsureTag(ctx, db, b.dialect, "", segment.Tag{Tag: "orders"}, 0)
			if err == nil || !strings.Contains(err.Error(), "shardid segment up") {
				t.Fatalf("a table without the fence columns: %v; want the advice to bring it up to date", err)
			}
			ran, err := gooseup.Up(ctx, db, b.dialect, segment.HistoryTable(""), files)
			if err != nil || len(ran) != 2 {
				t.Fatalf("the fence and record migrations: ran %v, %v", ran, err)
			}
			if recs, err := segment.Records(ctx, db, b.dialect, ""); err != nil || recs["orders"] != 5000 {
				t.Fatalf("the record after the upgrade: %v, %v; want orders at 5000", recs, err)
			}
			_, tag, err := segment.EnsureTag(ctx, db, b.dialect, "", segment.Tag{Tag: "orders"}, 0)
			if err != nil || tag.MaxID != 5000 || tag.Fenced || !tag.LastRewind.IsZero() {
				t.Fatalf("after the upgrade: %+v, %v; want the counter kept at 5000, no fence", tag, err)
			}
			c, err := segment.New(ctx, db, segment.Settings{Tag: "orders"})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if id, err := c.Next(ctx); err != nil || id != 5001 {
				t.Errorf("first ID after the upgrade: %d, %v; want 5001", id, err)
			}
		})
	}
}

// TestSegmentEvents: OnEvent hears every segment loaded (consecutive, of
// the step the stats show) and, at Close, the IDs dropped unused, as many
// as were buffered; Stats counts them too. The kinds print their names.
func TestSegmentEvents(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for name, s := range sharedSegDBs(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if _, _, err := segment.EnsureTag(ctx, s.db, s.dialect, "", segment.Tag{Tag: "orders", Step: 100}, 0); err != nil {
				t.Fatal(err)
			}
			log := &eventLog{}
			c, err := segment.New(ctx, s.db, segment.Settings{Tag: "orders", OnEvent: log.add})
			if err != nil {
				t.Fatal(err)
			}
			for range 1000 {
				if _, err := c.Next(ctx); err != nil {
					t.Fatal(err)
				}
			}
			testsrv.WaitFor(t, "the background load", func() bool { return c.Stats().Buffered > 0 })
			buffered := c.Stats().Buffered
			if err := c.Close(); err != nil {
				t.Fatal(err)
			}
			if err := c.Close(); err != nil {
				t.Errorf("a second Close: %v", err)
			}
			// A background load may land between the read of Buffered
			// and Close: the discard is then larger than that reading,
			// never smaller, and every ID loaded is either drawn or
			// reported discarded.
			loads, _ := countKind(log, segment.Loaded)
			var loaded int64
			for _, e := range log.all() {
				if e.Kind == segment.Loaded {
					loaded += e.Last - e.First + 1
				}
			}
			n, ids := countKind(log, segment.Discarded)
			st := c.Stats()
			if n != 1 || ids != st.Discarded || st.Discarded < buffered || st.Buffered != 0 || int64(loads) != st.Loads || loaded != st.Drawn+st.Discarded {
				t.Errorf("%d loads of %d IDs seen, stats %+v; %d discard events of %d IDs; want one of at least %d, loads = drawn + discarded", loads, loaded, st, n, ids, buffered)
			}
			next := int64(1)
			for _, e := range log.all() {
				if e.Kind == segment.Loaded && (e.First != next || e.Last-e.First+1 != e.Step || e.Tag != "orders") {
					t.Errorf("segment event %+v; want one from %d", e, next)
				}
				if e.Kind == segment.Loaded {
					next = e.Last + 1
				}
			}
			evs := log.all()
			last := evs[len(evs)-1]
			if last.Kind != segment.Discarded || last.Last != next-1 || !strings.Contains(last.String(), "discarded unused at close") {
				t.Errorf("last event %+v (%s); want the discard, up to %d", last, last, next-1)
			}
		})
	}
	for k, want := range map[segment.EventKind]string{segment.Loaded: "loaded", segment.Discarded: "discarded",
		segment.Rewound: "rewound", segment.DatabaseDown: "database down", segment.DatabaseUp: "database up", 0: "SegmentEventKind(0)"} {
		if k.String() != want {
			t.Errorf("kind %d: %q, want %q", int(k), k, want)
		}
	}
}
