package lease_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/shardid/shardid"
	"github.com/shardid/shardid/dialect"
	"github.com/shardid/shardid/lease"
	"github.com/shardid/shardid/tools/testsrv"
)

// leaseBackend is one database family the lease tests run against.
type leaseBackend struct {
	name    string
	dialect dialect.Dialect
	open    func(testing.TB) (*sql.DB, string) // a fresh database and its DSN
}

var leaseBackends = []leaseBackend{
	{"postgres", dialect.Postgres, testsrv.PGDB},
	{"mariadb", dialect.MySQL, testsrv.MariaDBDB},
	{"tidb", dialect.TiDB, testsrv.TiDBDB},
}

// forEachBackend runs f as a parallel subtest per database family, each on
// a fresh database holding the default lease table.
func forEachBackend(t *testing.T, f func(t *testing.T, db *sql.DB)) {
	t.Helper()
	for _, b := range leaseBackends {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			db, _ := b.open(t)
			if _, err := lease.Up(context.Background(), db, b.dialect, ""); err != nil {
				t.Fatal(err)
			}
			f(t, db)
		})
	}
}

// acquire leases a node or ends the test; the lease is closed when the
// test ends.
func acquire(t *testing.T, db *sql.DB, s lease.Settings) *lease.Lease {
	t.Helper()
	l, err := lease.Acquire(context.Background(), db, s)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

// draw returns n IDs from the lease's generator. A draw stopped because
// the lease went unrenewed for TTL-Margin (a loaded machine between the
// test's steps) renews it and draws on: the tests that are about that call
// Next themselves.
func draw(t *testing.T, l *lease.Lease, n int) []int64 {
	t.Helper()
	ids := make([]int64, n)
	renewed := 0
	for i := 0; i < n; {
		id, err := l.Next()
		if errors.Is(err, lease.ErrExpired) && renewed < 10 {
			renewed++
			if err := l.Renew(context.Background()); err != nil {
				t.Fatalf("node %d, ID %d of %d: renewing after %v: %v", l.Node(), i+1, n, err, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("node %d, ID %d of %d: %v", l.Node(), i+1, n, err)
		}
		ids[i] = id
		i++
	}
	return ids
}

// acquireOn leases a node with both of the holder's clocks on clk (its
// wall readings and its monotonic one), or ends the test.
func acquireOn(t *testing.T, db *sql.DB, clk *offsetClock, s lease.Settings) *lease.Lease {
	t.Helper()
	l, err := lease.AcquireOnClock(context.Background(), db, clk.settings(s), clk.Mono)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

// maxCouldDraw is the largest ID the lease's generator may draw as things
// stand: the last sequence number of the last tick its fence allows.
func maxCouldDraw(t *testing.T, l *lease.Lease) int64 {
	t.Helper()
	_, capTick := lease.DrawFence(l)
	layout := l.Generator().Layout()
	id, err := layout.ComposeTicks(capTick, l.Node(), layout.MaxSeq())
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// leaseRow returns the lease table's row for node.
func leaseRow(t *testing.T, db *sql.DB, node int64) lease.Info {
	t.Helper()
	rows, err := lease.List(context.Background(), db, "", "")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if r.Node == node {
			return r
		}
	}
	t.Fatalf("no lease row for node %d in %+v", node, rows)
	return lease.Info{}
}

// waitEnded polls the table until node's lease has ended by the
// database's clock.
func waitEnded(t *testing.T, db *sql.DB, node int64) {
	t.Helper()
	for leaseRow(t, db, node).Live {
		time.Sleep(50 * time.Millisecond)
	}
}

// offsetClock is the machine's clock moved by an offset that only the test
// changes; Sleep moves the offset instead of waiting.
type offsetClock struct {
	mu     sync.Mutex
	off    time.Duration
	slept  time.Duration
	frozen time.Time // when set, Now returns frozen+off (no monotonic reading)
	step   time.Duration
}

func (c *offsetClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := time.Now().Add(c.off)
	if !c.frozen.IsZero() {
		t = c.frozen.Add(c.off)
	}
	c.off += c.step
	return t
}

// Mono is a frozen clock's monotonic reading: its offset, which only the
// test, Sleep and Now's step move.
func (c *offsetClock) Mono() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.off
}

func (c *offsetClock) Sleep(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.off += d
	c.slept += d
}

func (c *offsetClock) set(off, step time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.off, c.step = off, step
}

func (c *offsetClock) settings(s lease.Settings) lease.Settings {
	s.Generator.Clock, s.Generator.Sleep = c.Now, c.Sleep
	return s
}

// acquireAll starts n acquirers at once, named prefix-000 and up, lined up
// so that all of them have read the table before any claims a node, and
// returns each one's lease or error.
func acquireAll(db *sql.DB, n int, prefix string, s lease.Settings, unchecked bool) ([]*lease.Lease, []error) {
	leases, errs := make([]*lease.Lease, n), make([]error, n)
	var ready, done sync.WaitGroup
	ready.Add(n)
	for i := range n {
		done.Go(func() {
			var arrived sync.Once
			hook := func() {
				arrived.Do(ready.Done)
				ready.Wait()
			}
			s := s
			s.Holder = fmt.Sprintf("%s-%03d", prefix, i)
			leases[i], errs[i] = lease.AcquireWithHook(context.Background(), db, s, hook, unchecked)
			arrived.Do(ready.Done) // one that failed before claiming must not hold the others up
		})
	}
	done.Wait()
	return leases, errs
}

// distinctNodes checks that every acquirer got a lease and no two got the
// same node; it returns the problems found.
func distinctNodes(leases []*lease.Lease, errs []error) []string {
	var problems []string
	holders := map[int64]int{}
	for i, l := range leases {
		if errs[i] != nil {
			problems = append(problems, fmt.Sprintf("acquirer %d: %v", i, errs[i]))
			continue
		}
		if j, dup := holders[l.Node()]; dup {
			problems = append(problems, fmt.Sprintf("acquirers %d and %d both hold node %d", j, i, l.Node()))
		}
		holders[l.Node()] = i
	}
	return problems
}

// TestLeaseConcurrentAcquirers: 40 acquirers that all read the table
// before any of them claims get 40 distinct node ids, the lowest ones:
// first on an empty table (racing INSERTs), then, after all were released,
// under new names (racing takeovers of ended leases). No ID is drawn twice
// across both rounds. The first race run with claims that are believed
// without reading the row back fails the check.
func TestLeaseConcurrentAcquirers(t *testing.T) {
	if testing.Short() {
		t.Skip("40 acquirers, twice, on each of three servers")
	}
	t.Parallel()
	// Every acquirer has read the table before any claims, so all of
	// them race for the same lowest ids: 40 race as hard as 100 (the
	// unchecked control below has all 40 believe they hold node 0).
	const n = 40
	forEachBackend(t, func(t *testing.T, db *sql.DB) {
		db.SetMaxOpenConns(30) // below PostgreSQL's max_connections of 100
		// No lease may end during a round, however slow a loaded machine
		// makes it (nothing renews them): a node held twice is then a
		// claim gone wrong, not an ended lease taken over as designed.
		s := lease.Settings{TTL: time.Hour, RenewEvery: -1}
		seen := map[int64]bool{}
		for _, round := range []string{"insert", "takeover"} {
			start := time.Now()
			leases, errs := acquireAll(db, n, round, s, false)
			if p := distinctNodes(leases, errs); len(p) > 0 {
				t.Fatalf("%s race: %d problems, first: %s", round, len(p), p[0])
			}
			t.Logf("%s race of %d acquirers: all done in %s", round, n, time.Since(start))
			var nodes []int64
			for _, l := range leases {
				nodes = append(nodes, l.Node())
				for _, id := range draw(t, l, 50) {
					if seen[id] {
						t.Fatalf("ID %d drawn twice", id)
					}
					seen[id] = true
				}
			}
			slices.Sort(nodes)
			if nodes[0] != 0 || nodes[n-1] != n-1 {
				t.Errorf("%s race: nodes %d..%d, want the lowest free ids 0..%d", round, nodes[0], nodes[n-1], n-1)
			}
			for _, l := range leases {
				if err := l.Close(); err != nil {
					t.Error(err)
				}
			}
		}

		// Negative control, on a table of its own: believing a claim
		// without reading the row back must fail the same check.
		s.Table = "broken_lease"
		if _, err := lease.Up(context.Background(), db, dialectOf(t, db), s.Table); err != nil {
			t.Fatal(err)
		}
		leases, errs := acquireAll(db, n, "unchecked", s, true)
		p := distinctNodes(leases, errs)
		if len(p) == 0 {
			t.Fatal("unchecked claims passed the check: it would not catch two acquirers sharing a node")
		}
		t.Logf("unchecked claims: %d problems, e.g. %s", len(p), p[0])
		for _, l := range leases {
			if l != nil {
				l.Close()
			}
		}
	})
}

func dialectOf(t *testing.T, db *sql.DB) dialect.Dialect {
	t.Helper()
	d, err := dialect.Detect(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestLeaseKilledHolderKeepsNode: a holder that dies without releasing
// (never renews, never closes) keeps its node until the lease ends by the
// database's clock, even against a restart under the same holder name;
// then the node goes back to that name, and the new holder's IDs all lie
// above any ID the dead one could have drawn.
func TestLeaseKilledHolderKeepsNode(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for a lease to end")
	}
	t.Parallel()
	forEachBackend(t, func(t *testing.T, db *sql.DB) {
		// The dead holder's lease must only end by the database's clock
		// (nothing renews it); how long that takes does not matter.
		s := lease.Settings{Holder: "api-1", TTL: time.Second, RenewEvery: -1}
		dead := acquire(t, db, s)
		deadIDs := draw(t, dead, 5000)
		deadMax := maxCouldDraw(t, dead)
		if last := deadIDs[len(deadIDs)-1]; last > deadMax {
			t.Fatalf("drew %d, above its own bound %d", last, deadMax)
		}

		restarted := acquire(t, db, s)
		if leaseRow(t, db, dead.Node()).Live && restarted.Node() == dead.Node() {
			t.Fatalf("node %d given out again while its lease is live", dead.Node())
		}
		waitEnded(t, db, dead.Node())
		again := acquire(t, db, s)
		if again.Node() != dead.Node() {
			t.Fatalf("after the lease ended, holder %q got node %d, want its own node %d back", s.Holder, again.Node(), dead.Node())
		}
		if first := draw(t, again, 1)[0]; first <= deadMax {
			t.Fatalf("new holder drew %d, not above %d, the most the dead holder could have drawn", first, deadMax)
		}
	})
}

// TestLeaseReleasedNodeDrawsAbove: Close records the latest time actually
// drawn at (not the later time the renewal allowed), and the next holder
// of the node draws above every ID the first one drew.
func TestLeaseReleasedNodeDrawsAbove(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, db *sql.DB) {
		first := acquire(t, db, lease.Settings{Holder: "first", RenewEvery: -1})
		ids := draw(t, first, 20000) // several ticks' worth
		allowed := leaseRow(t, db, first.Node()).LastDrawn
		if err := first.Close(); err != nil {
			t.Fatal(err)
		}
		row := leaseRow(t, db, first.Node())
		lastTick, _ := first.Generator().Layout().Decompose(ids[len(ids)-1])
		if row.Live || !row.LastDrawn.Before(allowed) || row.LastDrawn.Before(lastTick.Time) {
			t.Fatalf("after Close: live %v, last drawn %s; want ended, at or after the last ID's tick %s and before the renewal's %s",
				row.Live, row.LastDrawn, lastTick.Time, allowed)
		}
		if _, err := first.Next(); !errors.Is(err, lease.ErrClosed) {
			t.Fatalf("Next after Close: %v, want ErrLeaseClosed", err)
		}
		second := acquire(t, db, lease.Settings{Holder: "second", RenewEvery: -1})
		if second.Node() != first.Node() {
			t.Fatalf("second holder got node %d, want the lowest free %d", second.Node(), first.Node())
		}
		if got, top := draw(t, second, 1)[0], slices.Max(ids); got <= top {
			t.Fatalf("second holder drew %d, not above the first's %d", got, top)
		}
	})
}

// TestLeaseClockSkew: a local clock further than MaxClockSkew from the
// database's is refused at acquire, in either direction, and a renewal
// from a clock that has drifted away is refused without moving the fence.
func TestLeaseClockSkew(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, db *sql.DB) {
		ctx := context.Background()
		for _, c := range []struct {
			off  time.Duration
			want string
		}{{3 * time.Second, "ahead of"}, {-3 * time.Second, "behind"}} {
			clk := &offsetClock{off: c.off}
			_, err := lease.Acquire(ctx, db, clk.settings(lease.Settings{}))
			if !errors.Is(err, lease.ErrClockSkew) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("clock %s off: %v, want ErrClockSkew naming it %s", c.off, err, c.want)
			}
		}
		clk := &offsetClock{off: 300 * time.Millisecond}
		l := acquire(t, db, clk.settings(lease.Settings{RenewEvery: -1}))
		stop, capTick := lease.DrawFence(l)
		clk.set(5*time.Second, 0)
		if err := l.Renew(ctx); !errors.Is(err, lease.ErrClockSkew) {
			t.Fatalf("renewal with the clock 5s ahead: %v, want ErrClockSkew", err)
		}
		if s2, c2 := lease.DrawFence(l); s2 != stop || c2 != capTick {
			t.Fatalf("a refused renewal moved the fence from %s/%d to %s/%d", stop, capTick, s2, c2)
		}
		if rows, _ := lease.List(ctx, db, "", ""); len(rows) != 1 {
			t.Fatalf("refused acquires left rows behind: %+v", rows)
		}
	})
}

// TestLeaseClockBehind: a new holder whose clock is behind the time the
// node was last drawn at waits (on its injected clock) until it is past
// it, up to MaxClockWait, and then draws above the earlier holder; beyond
// MaxClockWait it is refused with the offset named and the node left
// free. A holder that skipped the wait and forgot the floor would draw
// inside the earlier holder's range, which the check catches.
//
// Every holder's clock is frozen at one instant plus an offset the test
// sets (Sleep moves it), so the offsets between them are exact however
// long the machine takes between the steps; MaxClockSkew is wide, since
// a frozen clock falls behind the database's as the test runs (the skew
// check has TestLeaseClockSkew).
func TestLeaseClockBehind(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, db *sql.DB) {
		ctx := context.Background()
		base := time.Now().Round(0) // no monotonic reading: the hand-driven clocks are the only ones
		frozen := func(off time.Duration) *offsetClock { return &offsetClock{frozen: base, off: off} }
		wide := func(s lease.Settings) lease.Settings {
			s.MaxClockSkew = time.Hour
			if s.MaxClockWait == 0 {
				s.MaxClockWait = 10 * time.Second
			}
			return s
		}
		ahead := frozen(800 * time.Millisecond)
		early := acquire(t, db, ahead.settings(wide(lease.Settings{Holder: "ahead", RenewEvery: -1})))
		earlier := draw(t, early, 3000)
		if err := early.Close(); err != nil {
			t.Fatal(err)
		}
		top := slices.Max(earlier)

		behind := frozen(-800 * time.Millisecond)
		_, err := lease.Acquire(ctx, db, behind.settings(wide(lease.Settings{Holder: "behind", MaxClockWait: 500 * time.Millisecond})))
		if !errors.Is(err, lease.ErrClockBehind) || !strings.Contains(err.Error(), "behind that (allowed wait 500ms)") {
			t.Fatalf("clock 1.6s behind, 500ms wait allowed: %v, want ErrClockBehind naming the offset", err)
		}
		if leaseRow(t, db, early.Node()).Live {
			t.Fatal("a refused acquire left the node held")
		}

		later := acquire(t, db, behind.settings(wide(lease.Settings{Holder: "behind", RenewEvery: -1})))
		if later.Node() != early.Node() || behind.slept < 1600*time.Millisecond || behind.slept > 1700*time.Millisecond {
			t.Fatalf("node %d after waiting %s; want node %d after waiting 1.6s (to the tick after the earlier holder's last)", later.Node(), behind.slept, early.Node())
		}
		if got := draw(t, later, 1)[0]; got <= top {
			t.Fatalf("the later holder drew %d, not above the earlier holder's %d", got, top)
		}
		if err := later.Close(); err != nil {
			t.Fatal(err)
		}

		// Negative control: the same takeover without the wait and the floor.
		broken := frozen(-800 * time.Millisecond)
		l := acquire(t, db, broken.settings(wide(lease.Settings{Holder: "broken", RenewEvery: -1})))
		lease.DropFloor(l)
		broken.set(-800*time.Millisecond, 0) // undo the wait
		if got := draw(t, l, 1)[0]; got > top {
			t.Fatalf("without wait and floor the holder drew %d, above %d: the check would not catch the overlap", got, top)
		}
	})
}

// TestLeaseFenceFromSendTime drives the clock by hand: the generator draws
// until TTL-Margin after the renewal was sent and not a tick longer, and a
// renewal whose answer comes late (the clock moves on while it runs) still
// counts from when it was sent.
func TestLeaseFenceFromSendTime(t *testing.T) {
	t.Parallel()
	db, _ := testsrv.PGDB(t)
	if _, err := lease.Up(context.Background(), db, dialect.Postgres, ""); err != nil {
		t.Fatal(err)
	}
	base := time.Now().Round(0) // no monotonic reading: the hand-driven clock is the only one
	clk := &offsetClock{frozen: base}
	const ttl, margin = 10 * time.Second, time.Second
	l := acquireOn(t, db, clk, lease.Settings{TTL: ttl, Margin: margin, RenewEvery: -1, MaxClockSkew: time.Minute})
	check := func(at time.Duration, wantOK bool) {
		t.Helper()
		clk.set(at, 0)
		_, err := l.Next()
		switch {
		case wantOK && err != nil:
			t.Fatalf("at +%s: %v", at, err)
		case !wantOK && !errors.Is(err, lease.ErrExpired):
			t.Fatalf("at +%s: %v, want ErrLeaseExpired", at, err)
		}
	}
	check(ttl-margin-time.Millisecond, true)
	check(ttl-margin, false)

	sent := 9500 * time.Millisecond
	clk.set(sent, 2*time.Second) // every reading during the renewal moves the clock on 2s
	if err := l.Renew(context.Background()); err != nil {
		t.Fatal(err)
	}
	check(sent+ttl-margin-time.Millisecond, true)
	check(sent+ttl-margin, false)
}

// TestLeaseExhausted: once every node id of the layout is held, acquiring
// fails with ErrNoFreeNode naming the layout's node bits; a released id is
// taken again.
func TestLeaseExhausted(t *testing.T) {
	t.Parallel()
	tiny := shardid.Layout{Epoch: shardid.DefaultEpoch(), TimeUnit: time.Millisecond, TimeBits: 41, ShardBits: 2, SeqBits: 12}
	forEachBackend(t, func(t *testing.T, db *sql.DB) {
		s := lease.Settings{Generator: shardid.Settings{Layout: tiny}, RenewEvery: -1}
		var held []*lease.Lease
		for range 4 {
			held = append(held, acquire(t, db, s))
		}
		_, err := lease.Acquire(context.Background(), db, s)
		if !errors.Is(err, lease.ErrNoFreeNode) || !strings.Contains(err.Error(), "all 4 node ids of the layout's 2 node bits") {
			t.Fatalf("fifth acquire: %v, want ErrNoFreeNode naming 2 node bits", err)
		}
		if err := held[2].Close(); err != nil {
			t.Fatal(err)
		}
		if l := acquire(t, db, s); l.Node() != 2 {
			t.Fatalf("after node 2 was released, got node %d", l.Node())
		}
	})
}

// TestLeaseSticky: a free node a holder held last is preferred over the
// lowest free one; other holders get the lowest.
func TestLeaseSticky(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, db *sql.DB) {
		s := func(holder string) lease.Settings {
			return lease.Settings{Holder: holder, RenewEvery: -1}
		}
		a, _, c := acquire(t, db, s("pod-a")), acquire(t, db, s("pod-b")), acquire(t, db, s("pod-c"))
		a.Close()
		c.Close()
		if got := acquire(t, db, s("pod-c")); got.Node() != c.Node() {
			t.Errorf("pod-c got node %d, want its own %d", got.Node(), c.Node())
		}
		if got := acquire(t, db, s("pod-d")); got.Node() != a.Node() {
			t.Errorf("pod-d got node %d, want the lowest free %d", got.Node(), a.Node())
		}
	})
}

// TestLeaseLost: a holder whose lease ended unrenewed and was taken over
// stops for good: Renew and Next say ErrLeaseLost, Close is quiet.
func TestLeaseLost(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for a lease to end")
	}
	t.Parallel()
	forEachBackend(t, func(t *testing.T, db *sql.DB) {
		old := acquire(t, db, lease.Settings{Holder: "old", TTL: time.Second, RenewEvery: -1})
		waitEnded(t, db, old.Node())
		taker := acquire(t, db, lease.Settings{Holder: "taker", RenewEvery: -1})
		if taker.Node() != old.Node() {
			t.Fatalf("taker got node %d, want the ended %d", taker.Node(), old.Node())
		}
		if err := old.Renew(context.Background()); !errors.Is(err, lease.ErrLost) {
			t.Fatalf("renewing a lease taken over: %v", err)
		}
		if _, err := old.Next(); !errors.Is(err, lease.ErrLost) {
			t.Fatalf("Next on a lost lease: %v", err)
		}
		if err := old.Close(); err != nil {
			t.Fatalf("Close of a lost lease: %v", err)
		}
		if !leaseRow(t, db, taker.Node()).Live {
			t.Fatal("closing the lost lease released the taker's")
		}
	})
}

// TestLeaseLayoutMismatch: a table serves one layout.
func TestLeaseLayoutMismatch(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, db *sql.DB) {
		acquire(t, db, lease.Settings{RenewEvery: -1})
		_, err := lease.Acquire(context.Background(), db, lease.Settings{Generator: shardid.Settings{Layout: shardid.JS53()}})
		if !errors.Is(err, lease.ErrLayoutMismatch) {
			t.Fatalf("a JS53 generator on a Snowflake table: %v", err)
		}
	})
}

// TestLeaseBackgroundRenewal: renewals in the background keep a
// generator drawing across many TTLs. The holder's clock is the test's:
// it moves the clock on 2s (less than TTL-Margin) at a time, each time only
// after a renewal it did not make itself has come back, and draws; 20
// steps are 4 TTLs. The negative control, a lease without background
// renewal, is stopped by the same steps once they pass TTL-Margin. How
// long a renewal takes on a loaded machine only slows the test.
func TestLeaseBackgroundRenewal(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, db *sql.DB) {
		const ttl, step, steps = 10 * time.Second, 2 * time.Second, 20
		run := func(renewEvery time.Duration) (drawn int, stopped error) {
			t.Helper()
			events := &leaseEvents{}
			clk := &offsetClock{frozen: time.Now().Round(0)}
			l := acquireOn(t, db, clk, lease.Settings{Holder: fmt.Sprint("every-", renewEvery), TTL: ttl, RenewEvery: renewEvery,
				MaxClockSkew: time.Hour, OnEvent: events.add})
			defer l.Close()
			renewed := func() int { return leaseKinds(events)[lease.Renewed] }
			for i := range steps {
				seen := renewed()
				clk.Sleep(step) // moves the holder's clock on
				if _, err := l.Next(); err != nil {
					return i, err
				}
				if renewEvery > 0 {
					testsrv.WaitFor(t, "a renewal in the background", func() bool { return renewed() > seen })
				}
			}
			return steps, nil
		}
		if n, err := run(50 * time.Millisecond); err != nil {
			t.Fatalf("renewing in the background, step %d of %d (%s on the holder's clock, TTL %s): %v", n+1, steps, time.Duration(n+1)*step, ttl, err)
		}
		n, err := run(-1)
		if !errors.Is(err, lease.ErrExpired) || time.Duration(n+1)*step < ttl*9/10 {
			t.Fatalf("negative control, no background renewal: stopped at step %d with %v; want ErrExpired once the steps pass TTL-Margin", n+1, err)
		}
	})
}

// TestLeaseSettingsErrors: bad settings are refused before the database is
// asked anything.
func TestLeaseSettingsErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		s    lease.Settings
		want error
		text string
	}{
		{lease.Settings{Generator: shardid.Settings{Node: 3}}, lease.ErrInvalidSettings, "Generator.Node is 3"},
		{lease.Settings{Table: "Leases"}, lease.ErrInvalidTable, `"Leases"`},
		{lease.Settings{Table: "a.b.c"}, lease.ErrInvalidTable, "schema.name"},
		{lease.Settings{Table: "x; drop table y"}, lease.ErrInvalidTable, "lower-case"},
		{lease.Settings{Holder: "bad\nname"}, lease.ErrInvalidSettings, "printable"},
		{lease.Settings{Holder: strings.Repeat("h", 256)}, lease.ErrInvalidSettings, "255"},
		{lease.Settings{TTL: time.Millisecond}, lease.ErrInvalidSettings, "at least 10ms"},
		{lease.Settings{TTL: time.Second, Margin: 600 * time.Millisecond}, lease.ErrInvalidSettings, "less than TTL/2"},
		{lease.Settings{TTL: time.Second, RenewEvery: 950 * time.Millisecond}, lease.ErrInvalidSettings, "TTL-Margin (900ms)"},
		{lease.Settings{MaxClockSkew: -time.Second}, lease.ErrInvalidSettings, "MaxClockSkew"},
		{lease.Settings{Generator: shardid.Settings{Layout: shardid.Layout{TimeBits: 70}}}, shardid.ErrInvalidLayout, "at least 1"},
		{lease.Settings{Dialect: "oracle"}, dialect.ErrUnknown, "oracle"},
	} {
		_, err := lease.Acquire(context.Background(), nil, c.s)
		if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.text) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%+v: %v, want %v mentioning %q", c.s, err, c.want, c.text)
		}
	}
}

// TestLeaseDatabaseDown: with the database unreachable, acquiring fails at
// once with an error that says so; nothing is cached.
func TestLeaseDatabaseDown(t *testing.T) {
	t.Parallel()
	db := testsrv.Open(t, "pgx", "postgres://postgres@127.0.0.1:1/x?connect_timeout=2")
	_, err := lease.Acquire(context.Background(), db, lease.Settings{Dialect: dialect.Postgres})
	if err == nil || !strings.Contains(err.Error(), "is the database reachable") {
		t.Fatalf("database down: %v", err)
	}
	if _, err := lease.Acquire(context.Background(), db, lease.Settings{}); err == nil || !strings.Contains(err.Error(), "detect dialect") {
		t.Fatalf("database down, dialect unknown: %v", err)
	}
}

// TestLeaseTableMissing: a missing table is reported with the way to
// create it.
func TestLeaseTableMissing(t *testing.T) {
	t.Parallel()
	db, _ := testsrv.MariaDBDB(t)
	_, err := lease.Acquire(context.Background(), db, lease.Settings{Table: "nowhere"})
	if err == nil || !strings.Contains(err.Error(), "shardid worker up") {
		t.Fatalf("missing table: %v", err)
	}
}

// TestLeaseClaimDenied: a role that may read the lease table but not
// write it gets the database's refusal, after a few retries, with the node
// named; a failed claim is never mistaken for a lost race.
func TestLeaseClaimDenied(t *testing.T) {
	t.Parallel()
	db, dsn := testsrv.MariaDBDB(t)
	ctx := context.Background()
	if _, err := lease.Up(ctx, db, dialect.MySQL, ""); err != nil {
		t.Fatal(err)
	}
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	user := testsrv.DBName(t)[:20]
	for _, stmt := range []string{
		"CREATE USER '" + user + "'@'%'",
		"GRANT SELECT ON `" + cfg.DBName + "`.shardid_worker_lease TO '" + user + "'@'%'",
	} {
		if _, err := db.ExecContext(ctx, stmt); err != nil {
			t.Fatal(err)
		}
	}
	cfg.User = user
	reader := testsrv.Open(t, "mysql", cfg.FormatDSN())
	_, err = lease.Acquire(ctx, reader, lease.Settings{})
	if err == nil || !strings.Contains(err.Error(), "claim node 0 in shardid_worker_lease") || !strings.Contains(err.Error(), "denied") {
		t.Fatalf("read-only role: %v", err)
	}
}

// TestLeaseUserDSNOptions: the lease behaves the same over a MySQL DSN as
// users write them: no parseTime, times in the local zone, a session time
// zone with daylight saving, and clientFoundRows=true (an UPDATE that
// matches counts as affected, and so does an INSERT … ON DUPLICATE KEY
// UPDATE that changed nothing).
func TestLeaseUserDSNOptions(t *testing.T) {
	if testing.Short() {
		t.Skip("two races of 30 acquirers")
	}
	t.Parallel()
	for _, b := range leaseBackends[1:] {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			_, dsn := b.open(t)
			cfg, err := mysql.ParseDSN(dsn)
			if err != nil {
				t.Fatal(err)
			}
			cfg.ParseTime, cfg.Loc, cfg.ClientFoundRows = false, time.Local, true
			cfg.Params = map[string]string{"time_zone": "'-05:00'"}
			db := testsrv.Open(t, "mysql", cfg.FormatDSN())
			if _, err := lease.Up(context.Background(), db, b.dialect, ""); err != nil {
				t.Fatal(err)
			}
			s := lease.Settings{RenewEvery: -1}
			for _, round := range []string{"insert", "takeover"} {
				leases, errs := acquireAll(db, 30, round, s, false)
				if p := distinctNodes(leases, errs); len(p) > 0 {
					t.Fatalf("%s race: %d problems, first: %s", round, len(p), p[0])
				}
				for _, l := range leases {
					if err := l.Close(); err != nil {
						t.Fatal(err)
					}
				}
			}
			row := leaseRow(t, db, 0)
			if row.Live || time.Since(row.Until).Abs() > time.Minute {
				t.Fatalf("released lease reads %+v: the lease end is not the database's UTC time", row)
			}
		})
	}
}

// TestLeaseWallClockSteps: the holder's wall clock steps an hour back,
// then an hour forward, while its monotonic clock runs on (an NTP or
// operator's step). Each step is reported at the next renewal
// (ClockStepped) and moves none of the lease's deadlines: drawing stops
// TTL-Margin after the last renewal was sent by the monotonic clock,
// stepped or not. Stepped back, the generator refuses a clock behind its
// last tick (shardid.ErrClockBackward); stepped forward, it draws only up
// to the time the table records until a renewal records the new one.
// MaxClockSkew is wide so that the renewals are taken despite the step
// (TestLeaseClockSkew refuses a skewed clock).
func TestLeaseWallClockSteps(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db *sql.DB) {
		ctx := context.Background()
		const ttl, margin = 10 * time.Second, time.Second
		events := &leaseEvents{}
		clk := &offsetClock{frozen: time.Now().Round(0)}
		wall := func(step time.Duration) { clk.mu.Lock(); clk.frozen = clk.frozen.Add(step); clk.mu.Unlock() }
		l := acquireOn(t, db, clk, lease.Settings{TTL: ttl, Margin: margin, RenewEvery: -1, MaxClockSkew: 3 * time.Hour, OnEvent: events.add})
		draw(t, l, 10)
		stop, _ := lease.DrawFence(l)

		wall(-time.Hour)
		if _, err := l.Next(); !errors.Is(err, shardid.ErrClockBackward) {
			t.Fatalf("stepped back an hour: %v; want ErrClockBackward", err)
		}
		if err := l.Renew(ctx); err != nil {
			t.Fatal(err)
		}
		steps := func() []time.Duration {
			var out []time.Duration
			for _, e := range events.all() {
				if e.Kind == lease.ClockStepped {
					out = append(out, e.Step)
				}
			}
			return out
		}
		if s := steps(); len(s) != 1 || s[0] != -time.Hour {
			t.Fatalf("steps reported after the step back: %v; want -1h", s)
		}
		if s2, _ := lease.DrawFence(l); s2 != stop {
			t.Fatalf("a renewal at the same monotonic time moved the deadline from %s to %s", stop, s2)
		}

		wall(2 * time.Hour) // an hour ahead of where it was
		if _, err := l.Next(); !errors.Is(err, lease.ErrExpired) || !strings.Contains(err.Error(), "jumped forward") {
			t.Fatalf("stepped forward an hour: %v; want ErrExpired naming the jump", err)
		}
		if err := l.Renew(ctx); err != nil {
			t.Fatal(err)
		}
		if s := steps(); len(s) != 2 || s[1] != 2*time.Hour {
			t.Fatalf("steps reported after the step forward: %v; want -1h, +2h", s)
		}
		draw(t, l, 10)
		clk.Sleep(ttl - margin - time.Millisecond) // the monotonic clock, and the wall with it
		if _, err := l.Next(); err != nil {
			t.Fatalf("just before the deadline: %v", err)
		}
		clk.Sleep(time.Millisecond)
		if _, err := l.Next(); !errors.Is(err, lease.ErrExpired) || strings.Contains(err.Error(), "jumped") {
			t.Fatalf("at the monotonic deadline: %v; want ErrExpired for want of a renewal", err)
		}
	})
}

// TestLeaseTTLMigration: a lease table made before it recorded TTLs (its
// goose history holds only the first migration) refuses an acquire with
// the way to bring it up to date; lease.Up adds the column, a live lease
// from before records no TTL (Fence counts it as unknown) and new ones
// record theirs, which a fence then waits out and a shorter fence is
// refused.
func TestLeaseTTLMigration(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db *sql.DB) {
		ctx := context.Background()
		d := dialectOf(t, db)
		for _, q := range []string{"ALTER TABLE shardid_worker_lease DROP COLUMN ttl_us", "DELETE FROM shardid_worker_lease_goose_db_version WHERE version_id = 2"} {
			if _, err := db.ExecContext(ctx, q); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := lease.Acquire(ctx, db, lease.Settings{RenewEvery: -1}); err == nil || !strings.Contains(err.Error(), "bring it up to date with `shardid worker up`") {
			t.Fatalf("acquire on a table without the TTL column: %v", err)
		}
		// A holder of an older shardid: a live row with no TTL.
		q := "INSERT INTO shardid_worker_lease (node_id, holder, token, layout, lease_end, last_ms) VALUES (5, 'old', 'tok', '41/10/12 bits, 1ms ticks since 2025-01-01T00:00:00.000Z', " +
			map[dialect.Dialect]string{dialect.Postgres: "now() + interval '1 hour'"}[d] + ", 0)"
		if d != dialect.Postgres {
			q = strings.Replace(q, ", , 0)", ", UTC_TIMESTAMP(6) + INTERVAL 1 HOUR, 0)", 1)
		}
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
		if applied, err := lease.Up(ctx, db, d, ""); err != nil || !applied {
			t.Fatalf("lease.Up on the old table: %v, %v; want the TTL migration applied", applied, err)
		}
		l := acquire(t, db, lease.Settings{TTL: 30 * time.Second, RenewEvery: -1})
		if row := leaseRow(t, db, l.Node()); row.TTL != 30*time.Second {
			t.Errorf("the new holder's row records TTL %s, want 30s", row.TTL)
		}
		if row := leaseRow(t, db, 5); row.TTL != 0 || !row.Live {
			t.Errorf("the older holder's row: %+v; want live, no TTL", row)
		}
		_, err := lease.Fence(ctx, db, d, "", lease.FenceSettings{TTL: 10 * time.Second})
		if !errors.Is(err, lease.ErrInvalidSettings) || !strings.Contains(err.Error(), "TTL 10s is below 30s") {
			t.Errorf("a fence below the holders' TTL: %v", err)
		}
		res, err := lease.Fence(ctx, db, d, "", lease.FenceSettings{MaxClockSkew: -1})
		if err != nil || res.TTL != 30*time.Second || res.Longest != 30*time.Second || res.Unknown != 1 {
			t.Errorf("fence with the TTL left 0: %+v, %v; want 30s from the table, one live row of unknown TTL", res, err)
		}
	})
}
