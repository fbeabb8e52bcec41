package lease_test

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shardid/shardid"
	"github.com/shardid/shardid/lease"
	"github.com/shardid/shardid/tools/bench"
	"github.com/shardid/shardid/tools/dbserver"
	"github.com/shardid/shardid/tools/testsrv"
)

// drawer draws from a lease in a goroutine until Next fails for good (a
// lost or closed lease) or it is stopped, keeping its IDs and the error
// that stopped it.
type drawer struct {
	stop chan struct{}
	done chan struct{}
	mu   sync.Mutex
	ids  []int64
	err  error
}

func startDrawer(l *lease.Lease) *drawer {
	d := &drawer{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(d.done)
		for n := 0; ; n++ {
			select {
			case <-d.stop:
				return
			default:
			}
			id, err := l.Next()
			if errors.Is(err, lease.ErrExpired) {
				// A renewal late on a busy machine: the next one says
				// whether the lease is lost.
				time.Sleep(10 * time.Millisecond)
				continue
			}
			d.mu.Lock()
			if err != nil {
				d.err = err
				d.mu.Unlock()
				return
			}
			d.ids = append(d.ids, id)
			d.mu.Unlock()
			if n%64 == 0 {
				time.Sleep(50 * time.Microsecond) // leave the 2 cores some air
			}
		}
	}()
	return d
}

func (d *drawer) count() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.ids)
}

// stopped reports whether the drawer ended by itself (Next failed).
func (d *drawer) stopped() bool {
	select {
	case <-d.done:
		return true
	default:
		return false
	}
}

// finish stops the drawer and returns its IDs and error.
func (d *drawer) finish() ([]int64, error) {
	select {
	case <-d.stop:
	default:
		close(d.stop)
	}
	<-d.done
	return d.ids, d.err
}

// leaseEvents keeps a lease's events.
type leaseEvents = recorder[lease.Event]

// leaseKinds counts events by kind.
func leaseKinds(r *leaseEvents) map[lease.EventKind]int {
	m := map[lease.EventKind]int{}
	for _, e := range r.all() {
		m[e.Kind]++
	}
	return m
}

// leaseRestoreDB is a fresh database with the lease table, and its DSN.
func leaseRestoreDB(t *testing.T, b leaseBackend) (*sql.DB, string) {
	t.Helper()
	db, dsn := b.open(t)
	if _, err := lease.Up(context.Background(), db, b.dialect, ""); err != nil {
		t.Fatal(err)
	}
	return db, dsn
}

// renewEvery renews l every 200ms from the test until the returned stop is
// called or a renewal says the lease is lost.
func renewEvery(l *lease.Lease) (stop func()) {
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-quit:
				return
			case <-time.After(200 * time.Millisecond):
			}
			if err := l.Renew(context.Background()); errors.Is(err, lease.ErrLost) {
				return
			}
		}
	}()
	return func() { close(quit); <-done }
}

// restoreTTL is the lease lifetime of the restore tests that wait for a
// fence to end; newcomerTTL that of the holder that must hold its lease
// throughout a restore and a newcomer's draws, however slowly a loaded
// machine runs them.
const restoreTTL, newcomerTTL = 2 * time.Second, time.Hour

// snapshot returns the IDs the drawer has drawn so far.
func (d *drawer) snapshot() []int64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]int64(nil), d.ids...)
}

// TestLeaseRestoredTableNewcomer: the lease table is restored from a copy
// made before holder a took node 0, when an earlier holder had just
// released it; so newcomer b takes node 0 at once and draws beside a. a's
// next renewal finds its row changed while its lease could not have
// ended: it stops, saying the table was restored or edited (ErrRewound),
// not that its lease ended unrenewed. The IDs a and b drew in between
// repeat: nothing in the restored table can tell b, which is why the
// restore needs Fence (TestLeaseRestoredTableFenced); this is that
// test's negative control. a's lease lasts an hour, so no pace of the
// machine ends it on the way.
func TestLeaseRestoredTableNewcomer(t *testing.T) {
	if testing.Short() {
		t.Skip("restores tables on three servers")
	}
	t.Parallel()
	for _, b := range leaseBackends {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			db, dsn := leaseRestoreDB(t, b)
			z := acquire(t, db, lease.Settings{Holder: "z", RenewEvery: -1})
			draw(t, z, 100)
			if err := z.Close(); err != nil {
				t.Fatal(err)
			}
			dump, err := dbserver.TakeTable(ctx, b.dialect, dsn, lease.DefaultTable)
			if err != nil {
				t.Fatal(err)
			}
			a := acquire(t, db, lease.Settings{Holder: "a", TTL: newcomerTTL, RenewEvery: -1})
			if a.Node() != z.Node() {
				t.Fatalf("a got node %d, not the released %d", a.Node(), z.Node())
			}
			da := startDrawer(a)
			testsrv.WaitFor(t, "a drawing", func() bool { return da.count() >= 200 })
			if err := dbserver.RestoreTable(ctx, dsn, dump); err != nil {
				t.Fatal(err)
			}
			nb := acquire(t, db, lease.Settings{Holder: "b", TTL: newcomerTTL, RenewEvery: -1})
			if nb.Node() != a.Node() {
				t.Fatalf("newcomer got node %d, not a's %d: the restore did not rewind the table", nb.Node(), a.Node())
			}
			db2 := startDrawer(nb)
			testsrv.WaitFor(t, "a and b drawing the same IDs", func() bool { return bench.Repeats(da.snapshot(), db2.snapshot()) > 0 })
			err = a.Renew(ctx)
			if !errors.Is(err, lease.ErrLost) || !errors.Is(err, lease.ErrRewound) || strings.Contains(err.Error(), "unrenewed") ||
				!strings.Contains(err.Error(), "restored from an older copy") || !strings.Contains(err.Error(), `holder "b"`) {
				t.Errorf("a's renewal after the restore: %v; want ErrLost and ErrRewound, naming the restore and b", err)
			}
			testsrv.WaitFor(t, "a's generator to stop", da.stopped)
			aIDs, aErr := da.finish()
			bIDs, _ := db2.finish()
			if !errors.Is(aErr, lease.ErrRewound) {
				t.Errorf("a's generator stopped with %v, want the restore named", aErr)
			}
			t.Logf("%s: without a fence, %d of %d+%d IDs repeat; a stopped with: %v", b.name, bench.Repeats(aIDs, bIDs), len(aIDs), len(bIDs), aErr)
		})
	}
}

// TestLeaseRestoredTableFenced: the lease table is restored from a copy
// made before holder a leased its node (so the restored table has no row
// for it), then fenced (FenceLeases, `shardid worker fence`) as the runbook
// says. a, renewing in the background, stops at its next renewal, saying
// it was fenced; a newcomer is refused until the fence ends, then gets a
// node and draws: no ID repeats.
func TestLeaseRestoredTableFenced(t *testing.T) {
	if testing.Short() {
		t.Skip("waits out lease lifetimes on three servers")
	}
	t.Parallel()
	for _, b := range leaseBackends {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			db, dsn := leaseRestoreDB(t, b)
			dump, err := dbserver.TakeTable(ctx, b.dialect, dsn, lease.DefaultTable)
			if err != nil {
				t.Fatal(err)
			}
			events := &leaseEvents{}
			a := acquire(t, db, lease.Settings{Holder: "a", TTL: restoreTTL, OnEvent: events.add})
			da := startDrawer(a)
			testsrv.WaitFor(t, "a drawing", func() bool { return da.count() >= 1000 })
			if err := dbserver.RestoreTable(ctx, dsn, dump); err != nil {
				t.Fatal(err)
			}
			res, err := lease.Fence(ctx, db, b.dialect, "", lease.FenceSettings{Layout: shardid.Snowflake(), TTL: restoreTTL}) // the restored table has no row to read it from
			if err != nil || res.Added != 1024 || res.Fenced != 1024 {
				t.Fatalf("fence: %+v, %v; want all 1,024 node ids fenced, every row new", res, err)
			}
			early, err := lease.Acquire(ctx, db, lease.Settings{Holder: "early", TTL: restoreTTL})
			if early != nil {
				early.Close()
			}
			// Judged while the fence is still on after the acquire, by the
			// database's clock: on a loaded machine the steps above can
			// outlast it.
			rows, lerr := lease.List(ctx, db, b.dialect, "")
			if lerr != nil || len(rows) != 1024 || !rows[0].Fenced {
				t.Errorf("the table after the fence: %d rows, %v; first %+v; fence %+v", len(rows), lerr, rows[0], res)
			}
			if rows[1023].Live && (!errors.Is(err, lease.ErrNoFreeNode) || !strings.Contains(err.Error(), "fenced")) {
				t.Errorf("a newcomer during the fence: %v; want ErrNoFreeNode naming the fence", err)
			}
			testsrv.WaitFor(t, "a's generator to stop at its next renewal", da.stopped)
			aIDs, aErr := da.finish()
			// a's renewal names the fence, or, when it came between the
			// restore and the fence, the row the restore took away.
			if !errors.Is(aErr, lease.ErrLost) || !strings.Contains(aErr.Error(), "fenced") && !errors.Is(aErr, lease.ErrRewound) || strings.Contains(aErr.Error(), "unrenewed") {
				t.Errorf("a stopped with %v; want ErrLeaseLost naming the fence or the restore", aErr)
			}
			if k := leaseKinds(events); k[lease.Lost] != 1 || k[lease.Renewed] == 0 {
				t.Errorf("a's events: %v; want renewals and one loss", k)
			}
			var nb *lease.Lease
			testsrv.WaitFor(t, "the fence to end", func() bool {
				l, err := lease.Acquire(ctx, db, lease.Settings{Holder: "b", TTL: restoreTTL})
				if err == nil {
					nb = l
					return true
				}
				if !errors.Is(err, lease.ErrNoFreeNode) && !errors.Is(err, lease.ErrClockBehind) {
					t.Fatalf("newcomer: %v", err)
				}
				time.Sleep(100 * time.Millisecond)
				return false
			})
			defer nb.Close()
			if time.Now().Before(res.Until) {
				t.Errorf("newcomer got node %d before the fence's end %s", nb.Node(), res.Until)
			}
			bIDs := draw(t, nb, 20_000)
			if n := bench.Repeats(aIDs, bIDs); n != 0 || nb.Node() != a.Node() {
				t.Errorf("newcomer on node %d (a had %d): %d of its IDs repeat a's", nb.Node(), a.Node(), n)
			}
			t.Logf("%s: a drew %d IDs and stopped (%v); the newcomer drew %d on node %d after the fence: 0 repeats", b.name, len(aIDs), aErr, len(bIDs), nb.Node())
		})
	}
}

// TestLeaseRowRewound: the table is restored from a copy made after holder
// a leased its node: the row carries a's token but fewer writes than a
// made. a's next renewal notices and stops (ErrRewound), though nobody
// took the node. The negative control renews on the token alone, as a
// holder without the write count would, and notices nothing.
func TestLeaseRowRewound(t *testing.T) {
	t.Parallel()
	for _, b := range leaseBackends {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			db, dsn := leaseRestoreDB(t, b)
			for _, broken := range []bool{false, true} {
				a := acquire(t, db, lease.Settings{Holder: "a", RenewEvery: -1})
				if broken {
					lease.TrustRow(a)
				}
				dump, err := dbserver.TakeTable(ctx, b.dialect, dsn, lease.DefaultTable)
				if err != nil {
					t.Fatal(err)
				}
				for range 3 {
					if err := a.Renew(ctx); err != nil {
						t.Fatal(err)
					}
				}
				if err := dbserver.RestoreTable(ctx, dsn, dump); err != nil {
					t.Fatal(err)
				}
				err = a.Renew(ctx)
				switch {
				case broken && err != nil:
					t.Errorf("renewing on the token alone: %v", err)
				case broken:
				case !errors.Is(err, lease.ErrRewound) || !errors.Is(err, lease.ErrLost) || !strings.Contains(err.Error(), "went back to an older state"):
					t.Errorf("renewal of a rewound row: %v; want ErrLeaseLost and ErrRewound", err)
				default:
					if _, err := a.Next(); !errors.Is(err, lease.ErrRewound) {
						t.Errorf("Next after the rewound renewal: %v", err)
					}
				}
				a.Close()
			}
		})
	}
}
