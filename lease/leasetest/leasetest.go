// Package leasetest is the conformance suite of package lease, in the
// manner of golang-migrate's database/testing: the checks a database must
// pass for worker-id leases to keep their guarantees on it. Package
// lease's tests run it on PostgreSQL, MariaDB and TiDB; run it on the
// database you bring (a managed MySQL, a PostgreSQL-compatible service, a
// proxy in between) before trusting leases to it:
//
//	func TestLeases(t *testing.T) {
//		db, err := sql.Open("pgx", os.Getenv("LEASE_TEST_DSN"))
//		if err != nil {
//			t.Fatal(err)
//		}
//		leasetest.Test(t, db, "")
//	}
//
// It creates lease tables named leasetest_* (and their goose histories)
// in db's database and drops them when done, so the role needs CREATE and
// DROP there besides what leases need (SELECT, INSERT, UPDATE). It takes
// a few seconds: some checks wait for a short lease to end by the
// database's clock.
package leasetest

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

	"github.com/shardid/shardid"
	"github.com/shardid/shardid/dialect"
	"github.com/shardid/shardid/internal/suite"
	"github.com/shardid/shardid/lease"
)

// Test runs every check on db, a database of dialect d ("" asks the
// server), each as a subtest of t with a lease table of its own.
func Test(t *testing.T, db *sql.DB, d dialect.Dialect) {
	t.Helper()
	if d == "" {
		var err error
		if d, err = dialect.Detect(context.Background(), db); err != nil {
			t.Fatal(err)
		}
	}
	suite.Run(t, "leasetest_", checks, func(t *testing.T, table string) *env {
		e := &env{t: t, db: db, d: d, table: table}
		e.up()
		return e
	})
}

// checks are the conformance checks, each a property the lease needs of
// the database.
var checks = []suite.Check[*env]{
	{Name: "Durable", Run: checkDurable},
	{Name: "OneHolderPerNode", Run: checkOneHolderPerNode},
	{Name: "NextHolderDrawsAbove", Run: checkNextHolderDrawsAbove},
	{Name: "TakeoverAfterEnd", Run: checkTakeoverAfterEnd},
	{Name: "Fence", Run: checkFence},
	{Name: "RowRewound", Run: checkRowRewound},
}

// twoNodes and fourNodes are layouts with two and four node ids, so
// holders meet on the same ids.
var twoNodes, fourNodes = mustLayout("time:41,node:1,seq:12"), mustLayout("time:41,node:2,seq:12")

func mustLayout(spec string) shardid.Layout {
	l, err := shardid.ParseLayout(spec)
	if err != nil {
		panic(err)
	}
	return l
}

// env is one check's database, dialect and lease table.
type env struct {
	t     *testing.T
	db    *sql.DB
	d     dialect.Dialect
	table string
}

// up drops what an earlier run left, creates the check's table through
// lease.Up (a rerun must apply nothing) and drops it when the check ends.
func (e *env) up() {
	e.t.Helper()
	suite.Fresh(e.t, []*sql.DB{e.db}, []string{e.table, lease.HistoryTable(e.table)}, func(run int) {
		if applied, err := lease.Up(context.Background(), e.db, e.d, e.table); err != nil || applied != (run == 1) {
			e.t.Fatalf("lease.Up run %d: applied %v, %v; want %v", run, applied, err, run == 1)
		}
	})
}

// settings are lease settings on the check's table with the layout l.
func (e *env) settings(holder string, l shardid.Layout) lease.Settings {
	return lease.Settings{Generator: shardid.Settings{Layout: l}, Table: e.table, Dialect: e.d, Holder: holder, RenewEvery: -1}
}

// acquire leases a node or ends the check; the lease is closed when the
// check ends.
func (e *env) acquire(s lease.Settings) *lease.Lease {
	e.t.Helper()
	l, err := lease.Acquire(context.Background(), e.db, s)
	if err != nil {
		e.t.Fatalf("acquire as %s: %v", s.Holder, err)
	}
	e.t.Cleanup(func() { l.Close() })
	return l
}

// draw returns n IDs from l's generator, or ends the check. A draw
// stopped because the lease went unrenewed for TTL-Margin (a short lease
// on a loaded machine) renews it and draws on: the checks that are about
// that call Next themselves.
func (e *env) draw(l *lease.Lease, n int) []int64 {
	e.t.Helper()
	ids := make([]int64, n)
	renewed := 0
	for i := 0; i < n; {
		id, err := l.Next()
		if errors.Is(err, lease.ErrExpired) && renewed < 10 {
			renewed++
			if err := l.Renew(context.Background()); err != nil {
				e.t.Fatalf("node %d, ID %d of %d: renewing: %v", l.Node(), i+1, n, err)
			}
			continue
		}
		if err != nil {
			e.t.Fatalf("node %d, ID %d of %d: %v", l.Node(), i+1, n, err)
		}
		ids[i] = id
		i++
	}
	return ids
}

// waitEnded waits until node's lease has ended by the database's clock,
// failing the check if that takes more than within: a safety net for a
// lease that never ends, far above what the database's clock needs.
func (e *env) waitEnded(node int64, within time.Duration) {
	e.t.Helper()
	deadline := time.Now().Add(within)
	for {
		rows, err := lease.List(context.Background(), e.db, e.d, e.table)
		if err != nil {
			e.t.Fatal(err)
		}
		live := false
		for _, r := range rows {
			live = live || r.Node == node && r.Live
		}
		if !live {
			return
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("node %d still leased %s after its lease should have ended", node, within)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// checkDurable: the server keeps the commits it acknowledges, or a claim
// or renewal a crash forgot could give a node id to a second holder while
// the first still draws (Acquire refuses such a server).
func checkDurable(e *env) {
	if err := dialect.CheckCommit(context.Background(), e.db, e.d, "a crash could give a node id to a second holder while the first still draws"); err != nil {
		e.t.Fatal(err)
	}
}

// checkOneHolderPerNode: acquirers that start together get distinct node
// ids, as many as the layout has, and the others are told none is free;
// the table lists each holder on its own node. They race twice: for node
// ids nobody leased yet (each claim an INSERT), then, once all are
// released, for ended leases (each claim an UPDATE).
func checkOneHolderPerNode(e *env) {
	for _, round := range []string{"new node ids", "released node ids"} {
		leases := e.race(6, fourNodes) // six acquirers for four node ids
		held := map[int64]string{}
		for _, l := range leases {
			if other, ok := held[l.Node()]; ok {
				e.t.Fatalf("%s: node %d leased to %s and to %s at once", round, l.Node(), other, l.Holder())
			}
			held[l.Node()] = l.Holder()
		}
		if len(held) != 4 {
			e.t.Fatalf("%s: %d of 6 acquirers got a node; want all 4 node ids leased", round, len(held))
		}
		rows, err := lease.List(context.Background(), e.db, e.d, e.table)
		if err != nil {
			e.t.Fatal(err)
		}
		for _, r := range rows {
			if r.Live && held[r.Node] != r.Holder {
				e.t.Errorf("%s: the table lists node %d held by %q; %q holds it", round, r.Node, r.Holder, held[r.Node])
			}
		}
		for _, l := range leases {
			if err := l.Close(); err != nil {
				e.t.Fatal(err)
			}
		}
	}
}

// race starts n acquirers at once with layout l and returns the leases
// they got; the others must have been told no node id is free.
func (e *env) race(n int, l shardid.Layout) []*lease.Lease {
	e.t.Helper()
	var wg sync.WaitGroup
	start := make(chan struct{})
	leases := make([]*lease.Lease, n)
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			<-start
			leases[i], errs[i] = lease.Acquire(context.Background(), e.db, e.settings(fmt.Sprintf("h%d", i), l))
		})
	}
	close(start)
	wg.Wait()
	var got []*lease.Lease
	for i, l := range leases {
		if errs[i] == nil {
			e.t.Cleanup(func() { l.Close() })
			got = append(got, l)
		} else if !errors.Is(errs[i], lease.ErrNoFreeNode) {
			e.t.Fatalf("acquirer h%d: %v; want a node or ErrNoFreeNode", i, errs[i])
		}
	}
	return got
}

// checkNextHolderDrawsAbove: a holder draws and closes; the next holder
// of the same node id, its clock behind the first one's, draws above
// every ID drawn before, and the closed holder's generator draws no more.
func checkNextHolderDrawsAbove(e *env) {
	a := e.acquire(e.settings("a", twoNodes))
	before := e.draw(a, 5000)
	node := a.Node()
	if err := a.Close(); err != nil {
		e.t.Fatal(err)
	}
	if _, err := a.Next(); !errors.Is(err, lease.ErrClosed) {
		e.t.Fatalf("Next after Close: %v; want ErrClosed", err)
	}
	s := e.settings("b", twoNodes)
	behind := &behindClock{off: -300 * time.Millisecond}
	s.Generator.Clock, s.Generator.Sleep = behind.now, behind.sleep
	b := e.acquire(s)
	if b.Node() != node {
		e.t.Fatalf("the next holder got node %d; want %d, the lowest free", b.Node(), node)
	}
	after := e.draw(b, 5000)
	if top := slices.Max(before); slices.Min(after) <= top {
		e.t.Fatalf("the next holder of node %d, its clock 300ms behind, drew %d, not above %d, the earlier holder's highest", node, slices.Min(after), top)
	}
}

// behindClock is the machine's clock behind by off; sleeping moves it
// forward instead of waiting.
type behindClock struct {
	mu  sync.Mutex
	off time.Duration
}

func (c *behindClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().Add(c.off)
}

func (c *behindClock) sleep(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.off += d
}

// handClock is a clock that moves only when slept on: a holder on it
// never draws past the time its lease table records, however slowly the
// machine runs the check, until the check moves it there.
type handClock struct {
	mu  sync.Mutex
	now time.Time
}

func newHandClock() *handClock { return &handClock{now: time.Now().Round(0)} }

func (c *handClock) read() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *handClock) sleep(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// onHandClock returns s with its holder's clock (and sleep) on c, and a
// MaxClockSkew wide enough for a clock that stands still while the
// database's runs on.
func onHandClock(s lease.Settings, c *handClock) lease.Settings {
	s.Generator.Clock, s.Generator.Sleep = c.read, c.sleep
	s.MaxClockSkew = time.Hour
	return s
}

// checkTakeoverAfterEnd: a holder whose lease is not renewed stops
// drawing before it ends; once it has ended by the database's clock a new
// holder takes the node id and draws above the old one, and the old one
// is told its lease is lost.
func checkTakeoverAfterEnd(e *env) {
	ctx := context.Background()
	clk := newHandClock()
	s := e.settings("old", twoNodes)
	s.TTL = 300 * time.Millisecond
	old := e.acquire(onHandClock(s, clk))
	before := e.draw(old, 1000)
	e.waitEnded(old.Node(), time.Minute) // by then its monotonic deadline has passed too
	clk.sleep(s.TTL)
	if _, err := old.Next(); !errors.Is(err, lease.ErrExpired) {
		e.t.Fatalf("a holder past its lease drew: %v; want ErrExpired", err)
	}
	s.Holder = "new"
	taker := e.acquire(s)
	if taker.Node() != old.Node() {
		e.t.Fatalf("the new holder got node %d; want the ended lease's node %d", taker.Node(), old.Node())
	}
	after := e.draw(taker, 1000)
	if top := slices.Max(before); slices.Min(after) <= top {
		e.t.Fatalf("the new holder drew %d, not above %d, the old holder's highest", slices.Min(after), top)
	}
	if err := old.Renew(ctx); !errors.Is(err, lease.ErrLost) {
		e.t.Fatalf("the old holder's renewal after the takeover: %v; want ErrLost", err)
	}
	if _, err := old.Next(); !errors.Is(err, lease.ErrLost) {
		e.t.Fatalf("the old holder drew after losing its lease: %v; want ErrLost", err)
	}
}

// checkFence: fencing the table stops a live holder at its next renewal
// and keeps every node id from new holders until the fence ends; the next
// holder then draws above the fenced one.
func checkFence(e *env) {
	ctx := context.Background()
	s := e.settings("a", twoNodes)
	s.TTL = 300 * time.Millisecond // the fence lasts at least as long as the lease
	a := e.acquire(onHandClock(s, newHandClock()))
	before := e.draw(a, 1000)
	res, err := lease.Fence(ctx, e.db, e.d, e.table, lease.FenceSettings{Layout: twoNodes, TTL: 2 * time.Second, MaxClockSkew: -1})
	if err != nil || res.Fenced != 2 {
		e.t.Fatalf("fence: %+v, %v; want both node ids fenced", res, err)
	}
	if err := a.Renew(ctx); !errors.Is(err, lease.ErrLost) || !strings.Contains(err.Error(), "fenced") {
		e.t.Fatalf("a fenced holder's renewal: %v; want ErrLost naming the fence", err)
	}
	early, err := lease.Acquire(ctx, e.db, e.settings("early", twoNodes))
	if early != nil {
		early.Close()
	}
	// Judged when the fence was still on after the acquire, by the
	// database's clock: on a loaded machine the steps above can outlast
	// it.
	rows, lerr := lease.List(ctx, e.db, e.d, e.table)
	if lerr != nil {
		e.t.Fatal(lerr)
	}
	during := false
	for _, r := range rows {
		during = during || r.Fenced && r.Live
	}
	if during && !errors.Is(err, lease.ErrNoFreeNode) {
		e.t.Fatalf("acquire during the fence: %v; want ErrNoFreeNode", err)
	}
	e.waitEnded(a.Node(), time.Minute)
	b := e.acquire(e.settings("b", twoNodes))
	if b.Node() == a.Node() {
		if after := e.draw(b, 1000); slices.Min(after) <= slices.Max(before) {
			e.t.Fatalf("after the fence node %d drew %d, not above %d", b.Node(), slices.Min(after), slices.Max(before))
		}
	}
}

// checkRowRewound: a lease row put back as it was a few renewals ago (a
// restore of the table, a hand edit) is found by the holder's next
// renewal, which stops its generator.
func checkRowRewound(e *env) {
	ctx := context.Background()
	a := e.acquire(e.settings("a", twoNodes))
	arg := func(n int) string {
		if e.d == dialect.Postgres {
			return fmt.Sprintf("$%d", n)
		}
		return "?"
	}
	var token string
	var lastMs, renewals int64
	q := fmt.Sprintf("SELECT token, last_ms, renewals FROM %s WHERE node_id = %s", e.table, arg(1))
	if err := e.db.QueryRowContext(ctx, q, a.Node()).Scan(&token, &lastMs, &renewals); err != nil {
		e.t.Fatal(err)
	}
	for range 3 {
		if err := a.Renew(ctx); err != nil {
			e.t.Fatal(err)
		}
	}
	q = fmt.Sprintf("UPDATE %s SET token = %s, last_ms = %s, renewals = %s WHERE node_id = %s", e.table, arg(1), arg(2), arg(3), arg(4))
	if _, err := e.db.ExecContext(ctx, q, token, lastMs, renewals, a.Node()); err != nil {
		e.t.Fatal(err)
	}
	if err := a.Renew(ctx); !errors.Is(err, lease.ErrLost) || !errors.Is(err, lease.ErrRewound) {
		e.t.Fatalf("renewal of a row put back: %v; want ErrLost and ErrRewound", err)
	}
	if _, err := a.Next(); !errors.Is(err, lease.ErrRewound) {
		e.t.Fatalf("Next after the rewound row: %v; want ErrRewound", err)
	}
}
