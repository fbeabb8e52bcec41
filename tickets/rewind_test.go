package tickets_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/shardid/shardid/dialect"
	"github.com/shardid/shardid/tickets"
	"github.com/shardid/shardid/tools/bench"
	"github.com/shardid/shardid/tools/dbserver"
	"github.com/shardid/shardid/tools/testsrv"
)

// events collects a client's events; safe for concurrent use.
type events struct {
	mu   sync.Mutex
	list []tickets.Event
}

func (e *events) add(ev tickets.Event) {
	e.mu.Lock()
	e.list = append(e.list, ev)
	e.mu.Unlock()
}

// of returns the events of kind about server.
func (e *events) of(kind tickets.EventKind, server string) []tickets.Event {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []tickets.Event
	for _, ev := range e.list {
		if ev.Kind == kind && ev.Server == server {
			out = append(out, ev)
		}
	}
	return out
}

// fastRecord is a client setting that records every 20 ms, so that a test
// need not wait long for the records it restores around.
func fastRecord(name string, ev *events) tickets.Settings {
	return tickets.Settings{Name: name, RetryAfter: 100 * time.Millisecond, RecordEvery: 20 * time.Millisecond, OnEvent: ev.add, Timeout: patient}
}

// classRow reads the merged class row of offset from db.
func classRow(t *testing.T, db *sql.DB, name string, offset int64) tickets.ClassRow {
	t.Helper()
	rows, err := tickets.ReadClass(context.Background(), db, name)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range tickets.MergeClass(rows) {
		if r.Offset == offset {
			return r
		}
	}
	return tickets.ClassRow{Offset: offset}
}

// checkRewindEvent: the client reported the rewind of server once at
// least, with both values in the message.
func checkRewindEvent(t *testing.T, ev *events, server string) {
	t.Helper()
	rw := ev.of(tickets.EventRewound, server)
	if len(rw) == 0 {
		t.Fatalf("no rewind event for %s", server)
	}
	var re *tickets.RewindError
	if !errors.As(rw[0].Err, &re) || !errors.Is(rw[0].Err, tickets.ErrRewound) || re.Got > re.High || re.Server != server {
		t.Fatalf("rewind event: %+v", rw[0])
	}
	if want := fmt.Sprintf("%s handed out %d, not above %d", server, re.Got, re.High); re.Recorded || !strings.Contains(re.Error(), want) {
		want = fmt.Sprintf("%s stands at %d, not above %d", server, re.Got, re.High)
		if !strings.Contains(re.Error(), want) {
			t.Errorf("rewind message %q; want %q in it", re.Error(), want)
		}
	}
	t.Logf("event: %s", rw[0])
}

// blindDraws draws n tickets from servers with a client whose rewind
// checks are off: the negative control.
func blindDraws(t *testing.T, servers []tickets.Server, name string, n int) []int64 {
	t.Helper()
	blind, err := tickets.NewClientNoRewindCheck(context.Background(), servers, tickets.Settings{Name: name, Timeout: patient})
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for range n {
		id, err := blind.Next(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	return ids
}

// TestRestoredDataDir: two MariaDB servers of the test's own, increment 2,
// four goroutines drawing. A cold copy of a's data directory is taken
// mid-run; a goes on for thousands of tickets, then its data directory is
// replaced by that copy and it starts again. The running client finds the
// first ticket not above what a handed out before, discards it, leaves a
// out and reports it; a client started after the restore leaves a out
// from the start (from the records and the report on b); not one ticket
// twice across all of it. Resume moves a past it: both clients take a
// back, still no ticket twice; a rerun of Resume moves nothing. The
// negative control restores the copy again and draws with the checks off:
// the count finds the duplicates.
func TestRestoredDataDir(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two servers of its own, copies and restores a data directory")
	}
	t.Parallel()
	ctx := context.Background()
	srvA, servers := ownPair(t, "tickets64")
	a, b := servers[0].DB, servers[1].DB
	var ev events
	cl, err := tickets.NewClient(ctx, servers, fastRecord("tickets64", &ev))
	if err != nil {
		t.Fatal(err)
	}
	l := startLoop(cl, 4)
	testsrv.WaitFor(t, "2,000 tickets", func() bool { return l.total.Load() >= 2000 })

	// The backup: a cold copy of a's data directory.
	srvA.Crash()
	backup := filepath.Join(t.TempDir(), "a")
	if err := srvA.CopyData(backup); err != nil {
		t.Fatal(err)
	}
	if err := srvA.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	atBackup, err := tickets.Read(ctx, a, "tickets64")
	if err != nil {
		t.Fatal(err)
	}
	drawsA := cl.Servers()[0].Draws
	testsrv.WaitFor(t, "3,000 tickets from a after the backup", func() bool { return cl.Servers()[0].Draws >= drawsA+3000 })
	testsrv.WaitFor(t, "a's progress recorded on b", func() bool { return classRow(t, b, "tickets64", 1).Seen > atBackup.Last+2000 })

	// The restore.
	srvA.Crash()
	if err := srvA.RestoreData(backup); err != nil {
		t.Fatal(err)
	}
	if err := srvA.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	testsrv.WaitFor(t, "the running client to find the rewind", func() bool { return cl.Servers()[0].Rewound != nil })
	var fev events
	fresh, err := tickets.NewClient(ctx, servers, fastRecord("tickets64", &fev))
	if err != nil {
		t.Fatal(err)
	}
	if st := fresh.Servers()[0]; !errors.Is(st.Rewound, tickets.ErrRewound) {
		t.Fatalf("a client started after the restore uses a: %+v", st)
	}
	fl := startLoop(fresh, 2)
	at := l.total.Load() + fl.total.Load()
	testsrv.WaitFor(t, "3,000 tickets after the restore", func() bool { return l.total.Load()+fl.total.Load() >= at+3000 })
	ids := append(l.finish(), fl.finish()...)
	if n := bench.Repeats(ids); n != 0 {
		t.Fatalf("%d duplicate tickets among %d", n, len(ids))
	}
	for _, err := range append(l.errs, fl.errs...) {
		if !errors.Is(err, tickets.ErrNoServer) {
			t.Errorf("unexpected error: %v", err)
		}
	}
	checkRewindEvent(t, &ev, "a")
	if st := cl.Stats(); st.Rewinds < 1 || !errors.Is(st.Servers[0].Rewound, tickets.ErrRewound) {
		t.Errorf("stats after the rewind: %+v", st)
	}
	if row := classRow(t, b, "tickets64", 1); !row.Pending() || row.RewoundHigh <= row.RewoundGot || row.RewoundBy == "" || row.RewoundAt.IsZero() {
		t.Errorf("b's record of a's rewind: %+v", row)
	}
	t.Logf("%d tickets, %d from a; a was copied at %d and went back to it", len(ids), odd(ids), atBackup.Last)

	// The resume.
	res, err := tickets.Resume(ctx, servers, tickets.ResumeSettings{Name: "tickets64", Offset: 1})
	if err != nil || !res.Moved || res.Target <= res.Seen || res.Target <= res.PeerLast || res.To != res.Target || res.Target%2 != 1 || len(res.Recorded) != 2 {
		t.Fatalf("resume: %+v, %v", res, err)
	}
	t.Logf("resume: %+v", res)
	l, fl = startLoop(cl, 4), startLoop(fresh, 2)
	testsrv.WaitFor(t, "both clients back on a", func() bool {
		return cl.Servers()[0].Rewound == nil && fresh.Servers()[0].Rewound == nil
	})
	drawsA, freshA := cl.Servers()[0].Draws, fresh.Servers()[0].Draws
	testsrv.WaitFor(t, "500 tickets from a in each client", func() bool {
		return cl.Servers()[0].Draws >= drawsA+500 && fresh.Servers()[0].Draws >= freshA+500
	})
	ids = append(ids, append(l.finish(), fl.finish()...)...)
	if n := bench.Repeats(ids); n != 0 {
		t.Fatalf("%d duplicate tickets after the resume", n)
	}
	if len(ev.of(tickets.EventResumed, "a")) == 0 || len(fev.of(tickets.EventResumed, "a")) == 0 {
		t.Errorf("no resumed event in one of the clients")
	}
	if again, err := tickets.Resume(ctx, servers, tickets.ResumeSettings{Name: "tickets64", Offset: 1}); err != nil || again.Moved || again.Already != res.Target {
		t.Errorf("rerun of resume: %+v, %v; want nothing moved", again, err)
	}

	// Negative control: the same restore, the checks off.
	srvA.Crash()
	if err := srvA.RestoreData(backup); err != nil {
		t.Fatal(err)
	}
	if err := srvA.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	negativeControl(t, ids, servers, "tickets64", 4000)
}

// afterRewind waits until the running client cl found a's rewind and
// reported it on b, checks that a client started then leaves a out, draws
// n more tickets with both, and returns every ticket of both loops, failing
// t on a duplicate or an error.
func afterRewind(t *testing.T, l *drawLoop, cl *tickets.Client, servers []tickets.Server, name string, n int64) []int64 {
	t.Helper()
	testsrv.WaitFor(t, "the running client to find the rewind", func() bool { return cl.Servers()[0].Rewound != nil })
	testsrv.WaitFor(t, "the report on b", func() bool { return classRow(t, servers[1].DB, name, 1).Pending() })
	fresh, err := tickets.NewClient(context.Background(), servers, tickets.Settings{Name: name, Timeout: patient})
	if err != nil {
		t.Fatal(err)
	}
	// On a loaded machine a's read at the start can miss its budget: the
	// client then reads and judges a when it first answers (its settings
	// are nil until then), and the duplicate count below holds it to that.
	if st := fresh.Servers()[0]; !errors.Is(st.Rewound, tickets.ErrRewound) && st.Settings != nil {
		t.Fatalf("a client started after the fault uses a: %+v", st)
	}
	fl := startLoop(fresh, 2)
	at := l.total.Load() + fl.total.Load()
	testsrv.WaitFor(t, "tickets after the fault", func() bool { return l.total.Load()+fl.total.Load() >= at+n })
	ids := append(l.finish(), fl.finish()...)
	if dups := bench.Repeats(ids); dups != 0 {
		t.Fatalf("%d duplicate tickets among %d; errors %v", dups, len(ids), append(l.errs, fl.errs...))
	}
	// A call fails only when no server draws. While a is out (its table
	// reloading, or rewound), a call fails when b also misses the call's
	// time: on a loaded machine b can be that slow. Such a failure names
	// b's ErrNoAnswer; any other failure is one the client should not
	// have had.
	slow := 0
	for _, err := range append(l.errs, fl.errs...) {
		switch {
		case errors.Is(err, tickets.ErrNoServer) && errors.Is(err, tickets.ErrNoAnswer):
			slow++
		default:
			t.Errorf("a call failed while a server could answer: %v", err)
		}
	}
	if slow > 0 {
		t.Logf("%d calls failed because the server left to ask did not answer in time (a loaded machine)", slow)
	}
	return ids
}

// backOnA draws with cl until it has taken server a (the first) back after
// a resume and drawn n tickets from it, and returns the tickets drawn.
func backOnA(t *testing.T, cl *tickets.Client, n int64) []int64 {
	t.Helper()
	l := startLoop(cl, 2)
	testsrv.WaitFor(t, "the client back on a", func() bool { return cl.Servers()[0].Rewound == nil })
	drawsA := cl.Servers()[0].Draws
	testsrv.WaitFor(t, "tickets from a after the resume", func() bool { return cl.Servers()[0].Draws >= drawsA+n })
	return l.finish()
}

// negativeControl draws n tickets with the rewind checks off after the
// same fault again, and fails t unless the count finds tickets of ids
// among them.
func negativeControl(t *testing.T, ids []int64, servers []tickets.Server, name string, n int) {
	t.Helper()
	dups := bench.Repeats(ids, blindDraws(t, servers, name, n))
	if dups == 0 {
		t.Errorf("negative control: a client without the rewind checks drew %d tickets after the same fault and the count found no duplicate", n)
	}
	t.Logf("negative control: %d duplicates among %d tickets drawn without the checks after the same fault", dups, n)
}

// dbName is the database of a go-sql-driver/mysql DSN.
func dbName(t *testing.T, dsn string) string {
	t.Helper()
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	return cfg.DBName
}

// TestDumpReloaded on MariaDB and TiDB: a's ticket table is dumped with
// mariadb-dump mid-run and reloaded after a has drawn on: the running
// client finds and reports the rewind, a client started afterwards leaves
// a out, no ticket twice; Resume brings a back. The negative control
// reloads the dump again and draws with the checks off.
func TestDumpReloaded(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, c := range []struct {
		name string
		srv  interface {
			CreateDatabase(context.Context, string) (string, error)
			Port() int
		}
	}{
		{"mariadb", testsrv.MariaDB(t)},
		{"tidb", testsrv.TiDB(t)},
	} {
		t.Run(c.name, func(t *testing.T) {
			dsnA, dsnB := testsrv.Database(t, c.srv), testsrv.Database(t, c.srv)
			a, b := testsrv.Open(t, "mysql", dsnA), testsrv.Open(t, "mysql", dsnB)
			up(t, a, tickets.Counter{Name: "t", Increment: 2, Offset: 1})
			up(t, b, tickets.Counter{Name: "t", Increment: 2, Offset: 2})
			servers := []tickets.Server{{Name: "a", DB: a}, {Name: "b", DB: b}}
			var ev events
			cl, err := tickets.NewClient(ctx, servers, fastRecord("t", &ev))
			if err != nil {
				t.Fatal(err)
			}
			l := startLoop(cl, 4)
			testsrv.WaitFor(t, "1,000 tickets", func() bool { return l.total.Load() >= 1000 })
			dump, err := dbserver.DumpMariaDB(ctx, c.srv.Port(), dbName(t, dsnA), "t")
			if err != nil {
				t.Fatal(err)
			}
			drawsA := cl.Servers()[0].Draws
			testsrv.WaitFor(t, "2,000 tickets from a after the dump", func() bool { return cl.Servers()[0].Draws >= drawsA+2000 })
			if err := dbserver.LoadMariaDB(ctx, c.srv.Port(), dbName(t, dsnA), dump); err != nil {
				t.Fatal(err)
			}
			ids := afterRewind(t, l, cl, servers, "t", 2000)
			checkRewindEvent(t, &ev, "a")

			res, err := tickets.Resume(ctx, servers, tickets.ResumeSettings{Name: "t", Offset: 1})
			if err != nil || !res.Moved {
				t.Fatalf("resume: %+v, %v", res, err)
			}
			ids = append(ids, backOnA(t, cl, 500)...)
			if n := bench.Repeats(ids); n != 0 {
				t.Fatalf("%d duplicate tickets after the resume", n)
			}

			// Negative control: the same reload, the checks off.
			if err := dbserver.LoadMariaDB(ctx, c.srv.Port(), dbName(t, dsnA), dump); err != nil {
				t.Fatal(err)
			}
			negativeControl(t, ids, servers, "t", 2000)
		})
	}
}

// TestSequenceRestored on TiDB, kind sequence: a's sequence is brought
// back to an older value mid-run, as reloading a dump made by Dumpling
// does (CREATE SEQUENCE … START WITH the value at dump time): the running
// client finds the first ticket not above the last it drew through that
// TiDB instance and leaves a out; a client started afterwards leaves a out
// from the report; Resume (SETVAL, only forward) brings it back; no
// ticket twice. The negative control draws after a second reload with the
// checks off.
func TestSequenceRestored(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := testsrv.TiDB(t)
	a, b := testsrv.Open(t, "mysql", testsrv.Database(t, srv)), testsrv.Open(t, "mysql", testsrv.Database(t, srv))
	up(t, a, tickets.Counter{Name: "s", Increment: 2, Offset: 1, Kind: tickets.KindSequence, Cache: 50})
	up(t, b, tickets.Counter{Name: "s", Increment: 2, Offset: 2, Kind: tickets.KindSequence, Cache: 50})
	servers := []tickets.Server{{Name: "a", DB: a}, {Name: "b", DB: b}}
	var ev events
	cl, err := tickets.NewClient(ctx, servers, fastRecord("s", &ev))
	if err != nil {
		t.Fatal(err)
	}
	l := startLoop(cl, 2)
	testsrv.WaitFor(t, "1,000 tickets", func() bool { return l.total.Load() >= 1000 })
	atDump := cl.Servers()[0].High
	drawsA := cl.Servers()[0].Draws
	testsrv.WaitFor(t, "1,000 tickets from a after the dump", func() bool { return cl.Servers()[0].Draws >= drawsA+1000 })
	reload := func() {
		files := migrationFiles(t, dialect.TiDB, tickets.Counter{Name: "s", Increment: 2, Offset: 1, Kind: tickets.KindSequence, Cache: 50, Start: atDump})
		create := upStatements(t, string(files[tickets.MigrationName("s")]))[0]
		for _, q := range []string{"DROP SEQUENCE s", create} {
			if _, err := a.ExecContext(ctx, q); err != nil {
				t.Fatal(err)
			}
		}
	}
	reload()
	ids := afterRewind(t, l, cl, servers, "s", 1000)
	checkRewindEvent(t, &ev, "a")

	res, err := tickets.Resume(ctx, servers, tickets.ResumeSettings{Name: "s", Offset: 1})
	if err != nil || !res.Moved || res.Target <= res.Seen {
		t.Fatalf("resume: %+v, %v", res, err)
	}
	ids = append(ids, backOnA(t, cl, 300)...)
	if n := bench.Repeats(ids); n != 0 {
		t.Fatalf("%d duplicate tickets after the resume", n)
	}

	reload()
	negativeControl(t, ids, servers, "s", 1000)
}

// TestNoFalseRewind: clients start again and again while another draws
// and records every millisecond. A counter read before a record written
// meanwhile must not be taken for one that went back: no client started
// during the run leaves a server out.
func TestNoFalseRewind(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, _ := testsrv.MariaDBDB(t)
	b, _ := testsrv.MariaDBDB(t)
	up(t, a, tickets.Counter{Name: "t", Increment: 2, Offset: 1})
	up(t, b, tickets.Counter{Name: "t", Increment: 2, Offset: 2})
	servers := []tickets.Server{{Name: "a", DB: a}, {Name: "b", DB: b}}
	cl, err := tickets.NewClient(ctx, servers, tickets.Settings{Name: "t", RecordEvery: time.Millisecond, Timeout: patient})
	if err != nil {
		t.Fatal(err)
	}
	l := startLoop(cl, 4)
	testsrv.WaitFor(t, "500 tickets", func() bool { return l.total.Load() >= 500 })
	for i := range 500 {
		fresh, err := tickets.NewClient(ctx, servers, tickets.Settings{Name: "t", Timeout: patient})
		if err != nil {
			t.Fatal(err)
		}
		for _, st := range fresh.Servers() {
			if st.Rewound != nil {
				t.Fatalf("client %d: %v", i, st.Rewound)
			}
		}
	}
	l.finish()
	if st := cl.Stats(); st.Rewinds != 0 {
		t.Errorf("the drawing client found %d rewinds", st.Rewinds)
	}
}

// TestSequenceRolledBackNoClient on TiDB, kind sequence: a's sequence
// goes back to its start (a TiDB cluster restored from a backup taken
// before the draws) while no client runs. A client started afterwards
// reads, before it hands anything out, how far a's sequence can have
// handed out (NEXT_ROW_ID, every instance's cache included), finds the
// ticket recorded from a above it and leaves a out: no ticket of the first
// run again. The negative control, a client without the rewind checks,
// draws them again (an outside trial: 1,000 repeated through the CLI,
// exit 0, nothing on stderr).
func TestSequenceRolledBackNoClient(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := testsrv.TiDB(t)
	a, b := testsrv.Open(t, "mysql", testsrv.Database(t, srv)), testsrv.Open(t, "mysql", testsrv.Database(t, srv))
	sa := tickets.Counter{Name: "s", Increment: 2, Offset: 1, Kind: tickets.KindSequence, Cache: 50}
	up(t, a, sa)
	up(t, b, tickets.Counter{Name: "s", Increment: 2, Offset: 2, Kind: tickets.KindSequence, Cache: 50})
	servers := []tickets.Server{{Name: "a", DB: a}, {Name: "b", DB: b}}
	first, err := tickets.NewClient(ctx, servers, tickets.Settings{Name: "s", Timeout: patient})
	if err != nil {
		t.Fatal(err)
	}
	var before []int64
	for range 1000 {
		id, err := first.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		before = append(before, id)
	}
	if err := first.Record(ctx); err != nil { // as tickets next does before it exits
		t.Fatal(err)
	}
	rollBack := func() {
		t.Helper()
		create := upStatements(t, string(migrationFiles(t, dialect.TiDB, sa)[tickets.MigrationName("s")]))[0]
		for _, q := range []string{"DROP SEQUENCE s", create} {
			if _, err := a.ExecContext(ctx, q); err != nil {
				t.Fatal(err)
			}
		}
	}
	rollBack()
	var ev events
	fresh, err := tickets.NewClient(ctx, servers, tickets.Settings{Name: "s", Timeout: patient, OnEvent: ev.add})
	if err != nil {
		t.Fatal(err)
	}
	if st := fresh.Servers()[0]; !errors.Is(st.Rewound, tickets.ErrRewound) || len(ev.of(tickets.EventRewound, "a")) != 1 {
		t.Fatalf("a client started after a's sequence went back: a %+v, %d rewind events; want a left out", st, len(ev.of(tickets.EventRewound, "a")))
	}
	var after []int64
	for range 1000 {
		id, err := fresh.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		after = append(after, id)
	}
	if n := bench.Repeats(before, after); n != 0 {
		t.Fatalf("%d tickets of the first run drawn again", n)
	}
	t.Logf("rewind found at the start: %s", ev.of(tickets.EventRewound, "a")[0])
	negativeControl(t, before, servers, "s", 1000)
}
