package lease

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pingcap/tidb/pkg/parser"
	_ "github.com/pingcap/tidb/pkg/parser/test_driver" // value expressions for the parser

	"github.com/shardid/shardid"
	"github.com/shardid/shardid/dialect"
	"github.com/shardid/shardid/tools/testsrv"
)

// fakeClock is a clock that moves only when set or slept on.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Sleep(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func (c *fakeClock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t
}

// fencedGen is a generator bound to a lease that no database backs: the
// tests move its fence by hand. The fake clock is both of the lease's
// clocks: its monotonic reading is how far it moved from its start.
func fencedGen(t *testing.T, c *fakeClock) (*shardid.Generator, *Lease) {
	t.Helper()
	start := c.Now()
	l := &Lease{node: 7, s: Settings{Table: "t", TTL: 10 * time.Second, Margin: time.Second}, layout: shardid.Snowflake(), capTick: -1, drawn: -1,
		clock: c.Now, mono: func() time.Duration { return c.Now().Sub(start) }}
	g, err := shardid.NewGenerator(shardid.Settings{Clock: c.Now, Sleep: c.Sleep, Fence: l.allow})
	if err != nil {
		t.Fatal(err)
	}
	l.gen = g
	return g, l
}

// TestGeneratorFence: a leased generator draws only before stopAt and up
// to capTick, and says which bound stopped it; a closed or lost lease
// stops it for good.
func TestGeneratorFence(t *testing.T) {
	t.Parallel()
	c := newFakeClock()
	g, l := fencedGen(t, c)
	if _, err := g.Next(); !errors.Is(err, ErrExpired) {
		t.Fatalf("before the first renewal: %v", err)
	}
	sent := c.Now()
	at := func(t time.Time) time.Duration { return l.mono() + t.Sub(c.Now()) } // t on the monotonic clock
	l.mu.Lock()
	l.stopAt, l.capTick, l.lastSent, l.lastSentMono = at(sent.Add(9*time.Second)), g.Layout().MaxTicks(), sent, at(sent)
	l.mu.Unlock()
	c.Set(sent.Add(9*time.Second - time.Millisecond))
	if _, err := g.Next(); err != nil {
		t.Fatalf("inside the fence: %v", err)
	}
	c.Set(sent.Add(9 * time.Second))
	if _, err := g.Next(); !errors.Is(err, ErrExpired) || !strings.Contains(err.Error(), "sent 9s ago") {
		t.Fatalf("at the fence: %v", err)
	}

	// The wall clock jumps past the tick the table allows while the
	// monotonic deadline is still ahead.
	tick, _ := g.Layout().Ticks(sent.Add(9 * time.Second))
	l.mu.Lock()
	l.stopAt, l.capTick = at(sent.Add(time.Hour)), tick+100
	l.mu.Unlock()
	c.Set(g.Layout().TickTime(tick + 100))
	if _, err := g.Next(); err != nil {
		t.Fatalf("at the last allowed tick: %v", err)
	}
	c.Set(g.Layout().TickTime(tick + 101))
	if _, err := g.Next(); !errors.Is(err, ErrExpired) || !strings.Contains(err.Error(), "jumped forward") {
		t.Fatalf("past the last allowed tick: %v", err)
	}

	// A process paused past its renewals: both bounds passed. It is told
	// what happened (the deadline, no renewal failed), not that the clock
	// jumped.
	l.mu.Lock()
	l.stopAt, l.capTick, l.lastSent, l.lastSentMono = at(sent.Add(9*time.Second)), tick, sent, at(sent)
	l.mu.Unlock()
	c.Set(sent.Add(time.Minute))
	if _, err := g.Next(); !errors.Is(err, ErrExpired) || strings.Contains(err.Error(), "jumped") || !strings.Contains(err.Error(), "paused") {
		t.Fatalf("after a pause of a minute: %v", err)
	}
	// A renewal sent after the pause, still under way, did not stop the
	// drawing: still the pause, not the database.
	l.mu.Lock()
	l.inflight = l.mono()
	l.mu.Unlock()
	c.Set(sent.Add(time.Minute + time.Second))
	if _, err := g.Next(); !errors.Is(err, ErrExpired) || strings.Contains(err.Error(), "hung") || !strings.Contains(err.Error(), "paused") {
		t.Fatalf("a renewal under way sent after the pause: %v", err)
	}
	// One under way since before the deadline is the database's delay,
	// unless the lease's heartbeat went unheard meanwhile.
	l.mu.Lock()
	l.inflight, l.lastBeat = at(sent.Add(8*time.Second)), l.mono()
	l.mu.Unlock()
	if _, err := g.Next(); !errors.Is(err, ErrExpired) || !strings.Contains(err.Error(), "has had no answer yet: the database is hung or slow") {
		t.Fatalf("a renewal under way since before the deadline: %v", err)
	}
	l.mu.Lock()
	l.beatGap = 50 * time.Second
	l.mu.Unlock()
	if _, err := g.Next(); !errors.Is(err, ErrExpired) || strings.Contains(err.Error(), "hung") || !strings.Contains(err.Error(), "paused or starved of CPU for 50s while a renewal") {
		t.Fatalf("a renewal under way while the heartbeat went unheard: %v", err)
	}
	l.mu.Lock()
	l.inflight, l.beatGap = 0, 0
	l.mu.Unlock()

	for _, st := range []struct {
		state leaseState
		want  error
	}{{leaseLost, ErrLost}, {leaseClosed, ErrClosed}} {
		l.mu.Lock()
		l.state, l.stopAt = st.state, 0
		l.mu.Unlock()
		c.Set(g.Layout().TickTime(tick + 100))
		if _, err := g.Next(); !errors.Is(err, st.want) || !strings.Contains(err.Error(), "node 7") {
			t.Fatalf("state %d: %v, want %v", st.state, err, st.want)
		}
	}
}

// leaseSQLText renders the migration and every statement for d, as the
// golden files hold them.
func leaseSQLText(t *testing.T, d dialect.Dialect, table string) (migration string, stmts map[string]string) {
	t.Helper()
	files, err := migrationFiles(d, table)
	if err != nil {
		t.Fatal(err)
	}
	q, err := leaseStatements(d, table, true)
	if err != nil {
		t.Fatal(err)
	}
	return string(files[MigrationName]) + "\n" + string(files[TTLMigrationName]), map[string]string{
		"now": q.now, "list": q.list, "insert": q.insert, "takeover": q.takeover,
		"readback": q.readback, "renew": q.renew, "state": q.state, "release": q.release,
		"fence": q.fence, "fence_insert": q.fenceInsert,
	}
}

// TestLeaseSQLGolden pins the rendered SQL per dialect family
// (go test -run TestLeaseSQLGolden -update . rewrites it).
func TestLeaseSQLGolden(t *testing.T) {
	t.Parallel()
	for _, d := range []dialect.Dialect{dialect.Postgres, dialect.MySQL} {
		mig, stmts := leaseSQLText(t, d, "app.shardid_worker_lease")
		var b strings.Builder
		b.WriteString(mig)
		for _, name := range []string{"now", "list", "insert", "takeover", "readback", "renew", "state", "release", "fence", "fence_insert"} {
			b.WriteString("\n-- statement " + name + "\n" + stmts[name] + ";\n")
		}
		testsrv.CheckGolden(t, filepath.Join("testdata", string(d)+".sql"), []byte(b.String()))
	}
	if _, err := Migrations(dialect.TiDB, "Bad-Name"); !errors.Is(err, ErrInvalidTable) {
		t.Errorf("bad table name: %v", err)
	}
}

// TestLeaseSQLParsesOnTiDB: TiDB's own parser reads every statement the
// lease API sends to TiDB, one statement each.
func TestLeaseSQLParsesOnTiDB(t *testing.T) {
	t.Parallel()
	mig, stmts := leaseSQLText(t, dialect.TiDB, "app.shardid_worker_lease")
	for i, part := range strings.Split(mig, "-- +goose Up\n")[1:] {
		up, _, _ := strings.Cut(part, "-- +goose Down")
		stmts[fmt.Sprintf("migration %d up", i+1)] = up
	}
	for name, s := range stmts {
		nodes, _, err := parser.New().Parse(s, "", "")
		if err != nil || len(nodes) != 1 {
			t.Errorf("%s: %d statements, %v\n%s", name, len(nodes), err, s)
		}
	}
}
