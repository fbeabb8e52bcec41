// Package ticketstest is the conformance suite of package tickets, in the
// manner of golang-migrate's database/testing: the checks the databases of
// a ticket name must pass for ticket servers to keep their guarantees on
// them. Package tickets' tests run it on MariaDB and TiDB; run it on the
// servers you bring (a managed MySQL, a proxy in between) before trusting
// tickets to them:
//
//	func TestTickets(t *testing.T) {
//		var dbs []*sql.DB
//		for _, dsn := range strings.Fields(os.Getenv("TICKETS_TEST_DSNS")) {
//			db, err := sql.Open("mysql", dsn)
//			if err != nil {
//				t.Fatal(err)
//			}
//			dbs = append(dbs, db)
//		}
//		ticketstest.Test(t, dbs...)
//	}
//
// Each database stands for one ticket server (two databases of one server
// will do); the suite needs two at least. It creates ticket names
// ticketstest_* (their tables, class tables and goose histories) in each
// and drops them when done, so the role needs CREATE and DROP there
// besides what draws need.
package ticketstest

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/shardid/shardid/dialect"
	"github.com/shardid/shardid/internal/suite"
	"github.com/shardid/shardid/tickets"
)

// Test runs every check on dbs, two or more MySQL, MariaDB or TiDB
// databases that each stand for one ticket server, each check as a
// subtest of t with a ticket name of its own.
func Test(t *testing.T, dbs ...*sql.DB) {
	t.Helper()
	if len(dbs) < 2 {
		t.Fatalf("ticketstest: %d databases; want two or more, one per ticket server", len(dbs))
	}
	var ds []dialect.Dialect
	for i, db := range dbs {
		d, err := dialect.Detect(context.Background(), db)
		if err != nil {
			t.Fatalf("database %d: %v", i+1, err)
		}
		if d != dialect.MySQL && d != dialect.TiDB {
			t.Fatalf("database %d is %s; ticket servers are MySQL, MariaDB or TiDB", i+1, d)
		}
		ds = append(ds, d)
	}
	suite.Run(t, "ticketstest_", checks, func(t *testing.T, name string) *env {
		e := &env{t: t, dbs: dbs, dialects: ds, name: name}
		e.up()
		return e
	})
}

// checks are the conformance checks, each a property ticket servers need
// of their databases.
var checks = []suite.Check[*env]{
	{Name: "Durable", Run: checkDurable},
	{Name: "Settings", Run: checkSettings},
	{Name: "ResidueClasses", Run: checkResidueClasses},
	{Name: "ServerPassedOver", Run: checkServerPassedOver},
	{Name: "RestoreFound", Run: checkRestoreFound},
}

// env is one check's servers and ticket name.
type env struct {
	t        *testing.T
	dbs      []*sql.DB
	dialects []dialect.Dialect
	name     string
}

// up drops what an earlier run left, creates the check's ticket name on
// every server through tickets.Up (server i gets offset i+1 of
// len(dbs)), a rerun applying nothing, and drops it when the check ends.
func (e *env) up() {
	e.t.Helper()
	tables := []string{e.name, tickets.ClassTable(e.name), tickets.HistoryTable(e.name)}
	suite.Fresh(e.t, e.dbs, tables, func(run int) {
		for i, db := range e.dbs {
			s := e.settings(i)
			want := map[int]int{1: 2, 2: 0}[run] // the ticket's and the class table's migrations, then none
			ran, got, err := tickets.Up(context.Background(), db, s)
			if err != nil || len(ran) != want || got.Offset != s.Offset || got.Increment != s.Increment {
				e.t.Fatalf("tickets.Up on server %d, run %d: ran %v, %+v, %v; want %d migrations", i+1, run, ran, got, err, want)
			}
		}
	})
}

// settings are server i's settings of the check's name.
func (e *env) settings(i int) tickets.Counter {
	return tickets.Counter{Name: e.name, Increment: int64(len(e.dbs)), Offset: int64(i + 1)}
}

// servers names the databases s1, s2, …
func (e *env) servers() []tickets.Server {
	out := make([]tickets.Server, len(e.dbs))
	for i, db := range e.dbs {
		out[i] = tickets.Server{Name: fmt.Sprintf("s%d", i+1), DB: db}
	}
	return out
}

// client returns a client over every server. Its call timeout is a
// minute: a safety net for a server that never answers, so that a loaded
// machine only slows the checks (none of them is about timeouts).
func (e *env) client() *tickets.Client {
	e.t.Helper()
	c, err := tickets.NewClient(context.Background(), e.servers(), tickets.Settings{
		Name: e.name, RetryAfter: 50 * time.Millisecond, RecordEvery: 20 * time.Millisecond, Timeout: time.Minute})
	if err != nil {
		e.t.Fatal(err)
	}
	return c
}

// draw returns n tickets from c, drawn by workers goroutines at once, or
// ends the check.
func (e *env) draw(c *tickets.Client, workers, n int) []int64 {
	e.t.Helper()
	out := make([][]int64, workers)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for range n / workers {
				id, err := c.Next(context.Background())
				if err != nil {
					errs[w] = err
					return
				}
				out[w] = append(out[w], id)
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		e.t.Fatal(err)
	}
	return slices.Concat(out...)
}

// checkDurable: a MySQL or MariaDB server keeps the commits it
// acknowledges, or a ticket drawn just before a crash could be drawn again
// after it (draws refuse such a server). TiDB commits through Raft.
func checkDurable(e *env) {
	for i, db := range e.dbs {
		if err := dialect.CheckCommit(context.Background(), db, e.dialects[i], "a crash could hand out the same tickets again"); err != nil {
			e.t.Errorf("server %d: %v", i+1, err)
		}
	}
}

// checkSettings: a server keeps the increment and offset its name was
// created with: asked for another offset, Up changes nothing and says so,
// and Read reads them back.
func checkSettings(e *env) {
	ctx := context.Background()
	for i, db := range e.dbs {
		other := e.settings(i)
		other.Offset = other.Offset%other.Increment + 1
		if _, got, err := tickets.Up(ctx, db, other); !errors.Is(err, tickets.ErrSettingsDiffer) || got.Offset != int64(i+1) {
			e.t.Fatalf("server %d asked for offset %d: %+v, %v; want ErrSettingsDiffer and offset %d kept", i+1, other.Offset, got, err, i+1)
		}
		if got, err := tickets.Read(ctx, db, e.name); err != nil || got.Offset != int64(i+1) || got.Increment != int64(len(e.dbs)) {
			e.t.Fatalf("server %d reads back %+v, %v", i+1, got, err)
		}
	}
}

// checkResidueClasses: concurrent draws over every server never give a
// ticket twice, every server draws, and each server's counter stays in
// its residue class.
func checkResidueClasses(e *env) {
	c := e.client()
	ids := e.draw(c, 4, 2000)
	if n := suite.Repeats(ids); n > 0 {
		e.t.Fatalf("%d tickets drawn twice", n)
	}
	n := int64(len(e.dbs))
	for i, st := range c.Servers() {
		got, err := tickets.Read(context.Background(), e.dbs[i], e.name)
		switch {
		case err != nil:
			e.t.Fatal(err)
		case st.Draws == 0:
			e.t.Errorf("server %d drew nothing", i+1)
		case (got.Last-got.Offset)%n != 0:
			e.t.Errorf("server %d's counter %d is outside its class (offset %d of %d)", i+1, got.Last, got.Offset, n)
		}
	}
}

// checkServerPassedOver: when one server's ticket table is gone, draws go
// on from the others, in their classes, and no ticket repeats.
func checkServerPassedOver(e *env) {
	c := e.client()
	before := e.draw(c, 2, 200)
	if _, err := e.dbs[0].ExecContext(context.Background(), "DROP TABLE "+e.name); err != nil {
		e.t.Fatal(err)
	}
	drawsBefore := c.Servers()[0].Draws
	after := e.draw(c, 2, 1000)
	if st := c.Servers()[0]; st.Draws != drawsBefore || st.LastErr == nil && st.Refused == nil {
		e.t.Fatalf("server 1 without its ticket table: %+v; want it passed over", st)
	}
	n := int64(len(e.dbs))
	for _, id := range after {
		if (id-1)%n == 0 {
			e.t.Fatalf("ticket %d is in server 1's class, drawn after its table was gone", id)
		}
	}
	if k := suite.Repeats(before, after); k > 0 {
		e.t.Fatalf("%d tickets drawn twice", k)
	}
}

// checkRestoreFound: a server whose counter is put back below tickets it
// handed out (a restore from an older copy) is left out by the client that
// drew them, no ticket repeats, and after tickets.Resume it is used again.
func checkRestoreFound(e *env) {
	ctx := context.Background()
	c := e.client()
	before := e.draw(c, 2, 1000)
	var last int64
	q := fmt.Sprintf("SELECT `id` FROM %s WHERE `stub` = 'a'", e.name)
	if err := e.dbs[0].QueryRowContext(ctx, q).Scan(&last); err != nil {
		e.t.Fatal(err)
	}
	n := int64(len(e.dbs))
	q = fmt.Sprintf("UPDATE %s SET `id` = ? WHERE `stub` = 'a'", e.name)
	if _, err := e.dbs[0].ExecContext(ctx, q, last-100*n); err != nil {
		e.t.Fatal(err)
	}
	during := e.draw(c, 2, 1000)
	if st := c.Servers()[0]; !errors.Is(st.Rewound, tickets.ErrRewound) {
		e.t.Fatalf("server 1, put back 100 tickets: %+v; want it left out as rewound", st)
	}
	res, err := tickets.Resume(ctx, e.servers(), tickets.ResumeSettings{Name: e.name, Offset: 1})
	if err != nil || !res.Moved {
		e.t.Fatalf("resume: %+v, %v", res, err)
	}
	deadline := time.Now().Add(time.Minute) // a safety net: the client rechecks every RetryAfter
	drawsAt := c.Servers()[0].Draws
	var after []int64
	for c.Servers()[0].Draws < drawsAt+100 {
		if time.Now().After(deadline) {
			e.t.Fatalf("server 1 not used again a minute after the resume: %+v", c.Servers()[0])
		}
		after = append(after, e.draw(c, 2, 100)...)
	}
	if k := suite.Repeats(before, during, after); k > 0 {
		e.t.Fatalf("%d tickets drawn twice around the restore", k)
	}
}
