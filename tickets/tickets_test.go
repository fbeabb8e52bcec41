package tickets_test

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shardid/shardid/tickets"
	"github.com/shardid/shardid/tools/bench"
	"github.com/shardid/shardid/tools/dbserver"
	"github.com/shardid/shardid/tools/testsrv"
)

// up creates ticket name s on db, failing t on error.
func up(t *testing.T, db *sql.DB, s tickets.Counter) tickets.ServerSettings {
	t.Helper()
	_, got, err := tickets.Up(context.Background(), db, s)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// TestUpReadDraw on MariaDB and TiDB (table) and TiDB (sequence): Up
// applies once and reruns as a no-op; asked for other settings it changes
// nothing and says what the server holds; the first ticket is the first
// of the class at or above Start, and the next ones follow by the
// increment.
func TestUpReadDraw(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	maria, _ := testsrv.MariaDBDB(t)
	ti, _ := testsrv.TiDBDB(t)
	for _, c := range []struct {
		name string
		db   *sql.DB
		kind tickets.Kind
	}{
		{"mariadb", maria, tickets.KindTable},
		{"tidb", ti, tickets.KindTable},
		{"tidb-sequence", ti, tickets.KindSequence},
	} {
		t.Run(c.name, func(t *testing.T) {
			name := strings.ReplaceAll(c.name, "-", "_")
			want := tickets.Counter{Name: name, Increment: 3, Offset: 2, Start: 100, Kind: c.kind}
			ran, got, err := tickets.Up(ctx, c.db, want)
			if err != nil || len(ran) != 2 || got.Kind != c.kind || got.Increment != 3 || got.Offset != 2 {
				t.Fatalf("up: ran %v, %+v, %v", ran, got, err)
			}
			if ran, _, err := tickets.Up(ctx, c.db, want); err != nil || len(ran) != 0 {
				t.Fatalf("rerun: ran %v, %v", ran, err)
			}
			other := want
			other.Offset = 3
			if _, got, err := tickets.Up(ctx, c.db, other); !errors.Is(err, tickets.ErrSettingsDiffer) || got.Offset != 2 ||
				!strings.Contains(err.Error(), "with increment 3, offset 2; asked for a "+string(c.kind)+" with increment 3, offset 3: left as it is") {
				t.Fatalf("other offset: %+v, %v", got, err)
			}
			cl, err := tickets.NewClient(ctx, []tickets.Server{{Name: c.name, DB: c.db}}, tickets.Settings{Name: name, Timeout: patient})
			if err != nil {
				t.Fatal(err)
			}
			for _, wantID := range []int64{101, 104, 107} {
				if id, err := cl.Next(ctx); err != nil || id != wantID {
					t.Fatalf("Next: %d, %v; want %d", id, err, wantID)
				}
			}
			if c.kind == tickets.KindTable {
				if got, err := tickets.Read(ctx, c.db, name); err != nil || got.Last != 107 {
					t.Errorf("read after three draws: %+v, %v", got, err)
				}
			}
		})
	}
	if _, err := tickets.Read(ctx, maria, "nothing"); !errors.Is(err, tickets.ErrNoTickets) {
		t.Errorf("read a name never created: %v", err)
	}
	if _, _, err := tickets.Up(ctx, maria, tickets.Counter{Name: "seq", Kind: tickets.KindSequence}); !errors.Is(err, tickets.ErrNotTiDB) || strings.Contains(err.Error(), "not a MySQL-family") {
		t.Errorf("sequence on MariaDB: %v", err)
	}
	pg, _ := testsrv.PGDB(t)
	if _, _, err := tickets.Up(ctx, pg, tickets.Counter{Name: "t"}); !errors.Is(err, tickets.ErrNotMySQL) {
		t.Errorf("PostgreSQL: %v", err)
	}
}

// TestNewClientRefusesOverlap: servers whose settings, read from the
// servers, share a class or differ in increment are refused before any
// draw; so is one server listed twice.
func TestNewClientRefusesOverlap(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, _ := testsrv.MariaDBDB(t)
	b, _ := testsrv.MariaDBDB(t)
	c, _ := testsrv.MariaDBDB(t)
	up(t, a, tickets.Counter{Name: "t", Increment: 2, Offset: 1})
	up(t, b, tickets.Counter{Name: "t", Increment: 2, Offset: 1})
	up(t, c, tickets.Counter{Name: "t", Increment: 3, Offset: 2})
	for _, cs := range []struct {
		servers []tickets.Server
		want    error
	}{
		{[]tickets.Server{{Name: "a", DB: a}, {Name: "b", DB: b}}, tickets.ErrOverlap},
		{[]tickets.Server{{Name: "a", DB: a}, {Name: "a again", DB: a}}, tickets.ErrOverlap},
		{[]tickets.Server{{Name: "a", DB: a}, {Name: "c", DB: c}}, tickets.ErrIncrementMismatch},
	} {
		if _, err := tickets.NewClient(ctx, cs.servers, tickets.Settings{Name: "t"}); !errors.Is(err, cs.want) {
			t.Errorf("%s + %s: %v; want %v", cs.servers[0].Name, cs.servers[1].Name, err, cs.want)
		}
	}
}

// drawLoop draws from cl in goroutines until stopped, keeping every
// ticket, and when each call ended and how long it took.
type drawLoop struct {
	stop  chan struct{}
	wg    sync.WaitGroup
	total atomic.Int64
	mu    sync.Mutex
	ids   []int64
	calls []call
	errs  []error
}

// call is one Next: when it ended and how long it took.
type call struct {
	end  time.Time
	took time.Duration
}

func startLoop(cl *tickets.Client, goroutines int) *drawLoop {
	l := &drawLoop{stop: make(chan struct{})}
	for range goroutines {
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			var ids []int64
			var calls []call
			defer func() {
				l.mu.Lock()
				l.ids, l.calls = append(l.ids, ids...), append(l.calls, calls...)
				l.mu.Unlock()
			}()
			for {
				select {
				case <-l.stop:
					return
				default:
				}
				start := time.Now()
				id, err := cl.Next(context.Background())
				calls = append(calls, call{time.Now(), time.Since(start)})
				if err != nil {
					l.mu.Lock()
					l.errs = append(l.errs, err)
					l.mu.Unlock()
					time.Sleep(time.Millisecond)
					continue
				}
				ids = append(ids, id)
				l.total.Add(1)
			}
		}()
	}
	return l
}

func (l *drawLoop) finish() []int64 {
	close(l.stop)
	l.wg.Wait()
	return l.ids
}

// ownPair starts a MariaDB server of the test's own for server a (the one
// the tests stop, kill or restore) and takes a fresh database on the
// shared MariaDB for server b, and creates ticket name on both, increment
// 2: a (servers[0]) offset 1, b offset 2.
func ownPair(t *testing.T, name string) (srvA *dbserver.MariaDB, servers []tickets.Server) {
	t.Helper()
	srvA = testsrv.NewMariaDB(t)
	for i, srv := range []*dbserver.MariaDB{srvA, testsrv.MariaDB(t)} {
		db := testsrv.Open(t, "mysql", testsrv.Database(t, srv))
		up(t, db, tickets.Counter{Name: name, Increment: 2, Offset: int64(i + 1)})
		servers = append(servers, tickets.Server{Name: string(rune('a' + i)), DB: db})
	}
	return srvA, servers
}

// odd counts odd tickets: server a's class of increment 2.
func odd(ids []int64) (n int) {
	for _, id := range ids {
		n += int(id & 1)
	}
	return n
}

// TestFailover: two MariaDB servers (a of the test's own), increment 2, offsets 1
// and 2, four goroutines drawing. Server a is killed mid-stream: the draws
// go on from b. A second client starts while a is down. a restarts (InnoDB
// crash recovery): the first client comes back to it within RetryAfter, the
// second reads and checks a's settings then and uses it too. Then a's row is tampered with so that its next
// tickets fall in b's class: the client refuses a for good and goes on with
// b. Across it all, no ticket twice. The negative control repeats the
// tampering with the client's checks turned off, and the same count finds
// the duplicates.
func TestFailover(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two servers of its own and kills one")
	}
	t.Parallel()
	ctx := context.Background()
	srvA, servers := ownPair(t, "tickets64")
	a, b := servers[0].DB, servers[1].DB
	cl, err := tickets.NewClient(ctx, servers, tickets.Settings{Name: "tickets64", RetryAfter: 200 * time.Millisecond, Timeout: patient})
	if err != nil {
		t.Fatal(err)
	}
	l := startLoop(cl, 4)
	testsrv.WaitFor(t, "2,000 tickets", func() bool { return l.total.Load() >= 2000 })
	srvA.Crash()
	atCrash := l.total.Load()
	testsrv.WaitFor(t, "2,000 tickets with a down", func() bool { return l.total.Load() >= atCrash+2000 })
	// A client started while a is down reads a's settings when a answers
	// again, from several goroutines at once.
	late, err := tickets.NewClient(ctx, servers, tickets.Settings{Name: "tickets64", RetryAfter: 200 * time.Millisecond, Timeout: patient})
	if err != nil {
		t.Fatal(err)
	}
	if st := late.Servers()[0]; st.Settings != nil || st.LastErr == nil {
		t.Fatalf("a client started with a down knows a: %+v", st)
	}
	ll := startLoop(late, 4)
	if err := srvA.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	drawsA := cl.Servers()[0].Draws
	testsrv.WaitFor(t, "the client back on a", func() bool { return cl.Servers()[0].Draws >= drawsA+500 })
	testsrv.WaitFor(t, "the late client on a", func() bool { st := late.Servers()[0]; return st.Draws >= 500 || st.Refused != nil })
	if st := late.Servers()[0]; st.Refused != nil {
		t.Errorf("the late client refused a: %v", st.Refused)
	}
	ids := append(l.finish(), ll.finish()...)
	if n := bench.Repeats(ids); n != 0 {
		t.Fatalf("%d duplicate tickets among %d", n, len(ids))
	}
	for _, err := range append(l.errs, ll.errs...) {
		if !errors.Is(err, tickets.ErrNoServer) {
			t.Errorf("unexpected error: %v", err)
		}
	}
	t.Logf("%d tickets, %d from a; %d draws failed on both servers at once", len(ids), odd(ids), len(l.errs))

	// a's counter is moved into b's class: a refused, b goes on.
	tamper(t, a, b)
	l = startLoop(cl, 4)
	testsrv.WaitFor(t, "a refused", func() bool { return cl.Servers()[0].Refused != nil })
	testsrv.WaitFor(t, "1,000 tickets after the tampering", func() bool { return l.total.Load() >= 1000 })
	more := l.finish()
	if st := cl.Servers()[0]; !errors.Is(st.Refused, tickets.ErrWrongClass) {
		t.Errorf("a: %+v; want refused with ErrWrongClass", st)
	}
	all := append(ids, more...)
	if n := bench.Repeats(all); n != 0 {
		t.Errorf("%d duplicate tickets after the tampering", n)
	}

	// Negative control: the same tampering, checks off.
	tamper(t, a, b)
	blind, err := tickets.NewClient(ctx, servers, tickets.Settings{Name: "tickets64", Timeout: patient})
	if err != nil {
		t.Fatal(err)
	}
	tickets.Unchecked(blind)
	var got []int64
	for range 200 {
		id, err := blind.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, id)
	}
	if n := bench.Repeats(got); n == 0 {
		t.Errorf("negative control: a client without checks drew 200 tickets from two servers in one class and the count found no duplicate")
	}
}

// tamper sets a's last ticket to b's, so a's next tickets are b's.
func tamper(t *testing.T, a, b *sql.DB) {
	t.Helper()
	var last int64
	if err := b.QueryRow("SELECT id FROM tickets64").Scan(&last); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Exec("UPDATE tickets64 SET id = ?", last); err != nil {
		t.Fatal(err)
	}
}

// TestRefuseLossyCommit: a MariaDB server that may lose acknowledged
// commits (innodb_flush_log_at_trx_commit=2) is refused by the draw itself,
// and the error says why; AllowLossyCommit (the negative control: the same
// server, the guard off) draws.
func TestRefuseLossyCommit(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server of its own")
	}
	t.Parallel()
	ctx := context.Background()
	db := testsrv.Open(t, "mysql", testsrv.Database(t, testsrv.NewMariaDB(t)))
	up(t, db, tickets.Counter{Name: "t"})
	cl, err := tickets.NewClient(ctx, []tickets.Server{{Name: "m", DB: db}}, tickets.Settings{Name: "t", Timeout: patient})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cl.Next(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("SET GLOBAL innodb_flush_log_at_trx_commit = 2"); err != nil {
		t.Fatal(err)
	}
	if _, err := cl.Next(ctx); !errors.Is(err, tickets.ErrLossyCommit) || !strings.Contains(err.Error(), "innodb_flush_log_at_trx_commit=2") {
		t.Errorf("flush at commit 2: %v", err)
	}
	lossy, err := tickets.NewClient(ctx, []tickets.Server{{Name: "m", DB: db}}, tickets.Settings{Name: "t", AllowLossyCommit: true, Timeout: patient})
	if err != nil {
		t.Fatal(err)
	}
	if id, err := lossy.Next(ctx); err != nil || id != 2 {
		t.Errorf("AllowLossyCommit: %d, %v; want 2", id, err)
	}
}
