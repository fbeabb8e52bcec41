// Package segmenttest is the conformance suite of package segment, in the
// manner of golang-migrate's database/testing: the checks a database must
// pass for the segment allocator to keep its guarantees on it. Package
// segment's tests run it on PostgreSQL, MariaDB and TiDB; run it on the
// database you bring before trusting segments to it:
//
//	func TestSegments(t *testing.T) {
//		db, err := sql.Open("mysql", os.Getenv("SEGMENT_TEST_DSN"))
//		if err != nil {
//			t.Fatal(err)
//		}
//		segmenttest.Test(t, db, "")
//	}
//
// It creates allocation tables named segmenttest_* (and their goose
// histories) in db's database and drops them when done, so the role needs
// CREATE and DROP there besides what the allocator needs (SELECT and
// UPDATE, INSERT for tags).
package segmenttest

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/shardid/shardid/dialect"
	"github.com/shardid/shardid/internal/suite"
	"github.com/shardid/shardid/segment"
)

// Test runs every check on db, a database of dialect d ("" asks the
// server), each as a subtest of t with an allocation table of its own.
func Test(t *testing.T, db *sql.DB, d dialect.Dialect) {
	t.Helper()
	if d == "" {
		var err error
		if d, err = dialect.Detect(context.Background(), db); err != nil {
			t.Fatal(err)
		}
	}
	suite.Run(t, "segmenttest_", checks, func(t *testing.T, table string) *env {
		e := &env{t: t, db: db, d: d, table: table}
		e.up()
		return e
	})
}

// checks are the conformance checks, each a property the allocator needs
// of the database.
var checks = []suite.Check[*env]{
	{Name: "Durable", Run: checkDurable},
	{Name: "Tags", Run: checkTags},
	{Name: "ConcurrentClients", Run: checkConcurrentClients},
	{Name: "RestartAbove", Run: checkRestartAbove},
	{Name: "RestoreFound", Run: checkRestoreFound},
	{Name: "IDSpaceEnd", Run: checkIDSpaceEnd},
}

// env is one check's database, dialect and allocation table.
type env struct {
	t     *testing.T
	db    *sql.DB
	d     dialect.Dialect
	table string
}

// up drops what an earlier run left, creates the check's table through
// segment.Up (a rerun must apply nothing) and drops it when the check
// ends.
func (e *env) up() {
	e.t.Helper()
	tables := []string{e.table, segment.RecordTable(e.table), segment.HistoryTable(e.table)}
	suite.Fresh(e.t, []*sql.DB{e.db}, tables, func(run int) {
		if applied, err := segment.Up(context.Background(), e.db, e.d, e.table); err != nil || applied != (run == 1) {
			e.t.Fatalf("segment.Up run %d: applied %v, %v; want %v", run, applied, err, run == 1)
		}
	})
}

// tag creates tag with base step step and first ID start (0: 1).
func (e *env) tag(tag string, step, start int64) segment.Tag {
	e.t.Helper()
	_, after, err := segment.EnsureTag(context.Background(), e.db, e.d, e.table, segment.Tag{Tag: tag, Step: step}, start)
	if err != nil {
		e.t.Fatal(err)
	}
	return after
}

// client returns a client of tag, closed when the check ends.
func (e *env) client(s segment.Settings) *segment.Segments {
	e.t.Helper()
	s.Table, s.Dialect = e.table, e.d
	if s.AllocTimeout == 0 {
		s.AllocTimeout = time.Minute // a safety net: none of the checks is about timeouts
	}
	c, err := segment.New(context.Background(), e.db, s)
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { c.Close() })
	return c
}

// draw returns n IDs from c, or ends the check.
func (e *env) draw(c *segment.Segments, n int) []int64 {
	e.t.Helper()
	ids := make([]int64, n)
	for i := range ids {
		id, err := c.Next(context.Background())
		if err != nil {
			e.t.Fatalf("ID %d of %d: %v", i+1, n, err)
		}
		ids[i] = id
	}
	return ids
}

// checkDurable: the server keeps the commits it acknowledges, or a
// segment handed out just before a crash could be handed out again after
// it (New refuses such a server).
func checkDurable(e *env) {
	if err := dialect.CheckCommit(context.Background(), e.db, e.d, "a crash could hand out the same IDs again"); err != nil {
		e.t.Fatal(err)
	}
}

// checkTags: a tag is created once, raised but never lowered, and tags
// that differ only in case are two ID spaces.
func checkTags(e *env) {
	ctx := context.Background()
	if got := e.tag("orders", 100, 0); got.MaxID != 0 || got.Step != 100 {
		e.t.Fatalf("created: %+v; want max_id 0, step 100", got)
	}
	before, after, err := segment.EnsureTag(ctx, e.db, e.d, e.table, segment.Tag{Tag: "orders"}, 0)
	if err != nil || before == nil || *before != after {
		e.t.Fatalf("again: %+v → %+v, %v; want it unchanged", before, after, err)
	}
	if got := e.tag("orders", 0, 5001); got.MaxID != 5000 {
		e.t.Fatalf("raised to start 5001: max_id %d", got.MaxID)
	}
	if got := e.tag("orders", 0, 10); got.MaxID != 5000 {
		e.t.Fatalf("a lower start lowered max_id to %d", got.MaxID)
	}
	if got := e.tag("Orders", 0, 0); got.MaxID != 0 {
		e.t.Fatalf("tag Orders: max_id %d; want a counter of its own from 0", got.MaxID)
	}
	tags, err := segment.Tags(ctx, e.db, e.d, e.table)
	if err != nil || len(tags) != 2 {
		e.t.Fatalf("tags %+v, %v; want Orders and orders", tags, err)
	}
	first := e.draw(e.client(segment.Settings{Tag: "orders"}), 1)[0]
	if first != 5001 {
		e.t.Fatalf("orders' first ID %d; want 5001", first)
	}
}

// checkConcurrentClients: clients drawing at once on one tag, with small
// segments so that they allocate often, never hand out an ID twice, and
// each client's IDs increase.
func checkConcurrentClients(e *env) {
	const clients, each = 4, 3000
	e.tag("t", 10, 0)
	out := make([][]int64, clients)
	var wg sync.WaitGroup
	for i := range clients {
		c := e.client(segment.Settings{Tag: "t", MaxStep: 40})
		wg.Go(func() {
			for range each {
				id, err := c.Next(context.Background())
				if err != nil {
					e.t.Error(err)
					return
				}
				out[i] = append(out[i], id)
			}
		})
	}
	wg.Wait()
	for i, ids := range out {
		if !slices.IsSorted(ids) {
			e.t.Fatalf("client %d's IDs do not increase", i)
		}
	}
	if n := suite.Repeats(out...); n > 0 {
		e.t.Fatalf("%d IDs handed out twice by %d concurrent clients", n, clients)
	}
}

// checkRestartAbove: a client started after another closed, and one that
// runs beside it, start above every segment taken before.
func checkRestartAbove(e *env) {
	e.tag("t", 100, 0)
	a := e.client(segment.Settings{Tag: "t"})
	first := e.draw(a, 150)
	b := e.client(segment.Settings{Tag: "t"})
	beside := e.draw(b, 150)
	if err := a.Close(); err != nil {
		e.t.Fatal(err)
	}
	c := e.client(segment.Settings{Tag: "t"})
	after := e.draw(c, 150)
	if slices.Min(beside) <= slices.Max(first[:100]) || slices.Min(after) <= max(slices.Max(first), slices.Max(beside)) {
		e.t.Fatalf("a client started later drew %d (beside) or %d (after), not above what the earlier ones took", slices.Min(beside), slices.Min(after))
	}
	if n := suite.Repeats(first, beside, after); n > 0 {
		e.t.Fatalf("%d IDs handed out twice across restarts", n)
	}
}

// checkRestoreFound: a tag's row put back below what clients took (a
// restore from an older copy) is found by a running client within
// CheckEvery, which fences the tag: no client hands out an ID twice, a new
// client is refused, and after ResumeTag clients draw above everything.
func checkRestoreFound(e *env) {
	ctx := context.Background()
	e.tag("t", 100, 0)
	a := e.client(segment.Settings{Tag: "t", CheckEvery: 20 * time.Millisecond})
	taken := e.draw(a, 250)
	arg := func(n int) string {
		if e.d == dialect.Postgres {
			return fmt.Sprintf("$%d", n)
		}
		return "?"
	}
	q := fmt.Sprintf("UPDATE %s SET max_id = %s WHERE tag = %s", e.table, arg(1), arg(2))
	if _, err := e.db.ExecContext(ctx, q, 100, "t"); err != nil {
		e.t.Fatal(err)
	}
	seen := map[int64]bool{}
	for _, id := range taken {
		seen[id] = true
	}
	deadline := time.Now().Add(time.Minute) // a safety net: the client checks every 20ms
	for {
		id, err := a.Next(ctx)
		if errors.Is(err, segment.ErrRewound) {
			e.t.Logf("the client refuses: %v", err)
			break
		}
		switch {
		case err != nil:
			e.t.Fatalf("a client whose tag was put back: %v; want ErrRewound", err)
		case seen[id]:
			e.t.Fatalf("ID %d handed out again after the tag was put back", id)
		case time.Now().After(deadline):
			e.t.Fatalf("a client still draws (%d) a minute after its tag was put back below what it took", id)
		}
		seen[id] = true
		taken = append(taken, id)
	}
	tags, err := segment.Tags(ctx, e.db, e.d, e.table)
	if err != nil || len(tags) != 1 || !tags[0].Fenced {
		e.t.Fatalf("tags %+v, %v; want t fenced", tags, err)
	}
	if _, err := segment.New(ctx, e.db, segment.Settings{Tag: "t", Table: e.table, Dialect: e.d}); !errors.Is(err, segment.ErrRewound) {
		e.t.Fatalf("a new client of the fenced tag: %v; want ErrRewound", err)
	}
	if _, _, err := segment.ResumeTag(ctx, e.db, e.d, e.table, "t", segment.Resume{}); err != nil {
		e.t.Fatal(err)
	}
	after := e.draw(e.client(segment.Settings{Tag: "t"}), 250)
	if slices.Min(after) <= slices.Max(taken) {
		e.t.Fatalf("after the resume a client drew %d, not above %d, the highest taken before", slices.Min(after), slices.Max(taken))
	}
	if n := suite.Repeats(taken, after); n > 0 {
		e.t.Fatalf("%d IDs handed out twice around the restore", n)
	}
}

// checkIDSpaceEnd: at the last step below the largest int64 a client
// hands out IDs up to it, then says the tag's ID space is used up, and
// never wraps around.
func checkIDSpaceEnd(e *env) {
	e.tag("t", 10, segment.MaxTagStart(10))
	c := e.client(segment.Settings{Tag: "t"})
	ids := e.draw(c, 10)
	if ids[0] != math.MaxInt64-9 || ids[9] != math.MaxInt64 {
		e.t.Fatalf("the last step: %d..%d; want %d..%d", ids[0], ids[9], int64(math.MaxInt64-9), int64(math.MaxInt64))
	}
	if id, err := c.Next(context.Background()); !errors.Is(err, segment.ErrExhausted) || !errors.Is(err, segment.ErrIDSpaceUsedUp) {
		e.t.Fatalf("past the largest ID: %d, %v; want ErrExhausted and ErrIDSpaceUsedUp", id, err)
	}
}
