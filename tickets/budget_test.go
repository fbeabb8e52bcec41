package tickets_test

import (
	"context"
	"database/sql"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/shardid/shardid/tickets"
	"github.com/shardid/shardid/tools/bench"
	"github.com/shardid/shardid/tools/testsrv"
)

// slowRow makes db's ticket row slow to draw from while it runs: it holds
// the row's lock for 400ms at a time in a transaction of its own, so every
// draw on db waits for it, and db answers, slowly, as a loaded server
// does. stop ends it.
func slowRow(t *testing.T, db *sql.DB, name string) (stop func()) {
	t.Helper()
	quit := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-quit:
				return
			default:
			}
			tx, err := db.Begin()
			if err != nil {
				t.Error(err)
				return
			}
			if _, err := tx.Exec("SELECT id FROM " + name + " WHERE stub = 'a' FOR UPDATE"); err != nil {
				t.Error(err)
				tx.Rollback()
				return
			}
			time.Sleep(400 * time.Millisecond)
			if err := tx.Commit(); err != nil {
				t.Error(err)
				return
			}
		}
	})
	return func() { close(quit); wg.Wait() }
}

// TestSlowServerNotFailedOver: server b answers every draw, but slowly
// (its ticket row is locked 400ms at a time by another session, beyond the
// 250ms budget). One caller draws, in turn from a and b, until b has
// handed out 20 tickets. The client leaves b at most a few times: a draw
// left after b's budget answers later, b is back at once with a budget
// grown to what it answers in, and from then on its draws are waited for.
// The negative control, a client whose budget is fixed and whose draws
// are given up on at once, fails over from b at a good part of its turns
// (b's lock is held past the budget for most of the time) and passes b
// over between probes: more often for 5 tickets than the client for 20.
func TestSlowServerNotFailedOver(t *testing.T) {
	if testing.Short() {
		t.Skip("draws from a server slowed to 400ms a draw")
	}
	t.Parallel()
	ctx := context.Background()
	srv := testsrv.MariaDB(t)
	a, b := testsrv.Open(t, "mysql", testsrv.Database(t, srv)), testsrv.Open(t, "mysql", testsrv.Database(t, srv))
	up(t, a, tickets.Counter{Name: "t", Increment: 2, Offset: 1})
	up(t, b, tickets.Counter{Name: "t", Increment: 2, Offset: 2})
	servers := []tickets.Server{{Name: "a", DB: a}, {Name: "b", DB: b}}
	// The timeout is long enough for b's budget to grow past its slowest
	// draw on a loaded machine (a budget is at most half of it); the
	// budget is the default.
	set := tickets.Settings{Name: "t", Timeout: 20 * time.Second}
	run := func(newClient func(context.Context, []tickets.Server, tickets.Settings) (*tickets.Client, error), fromB int64) (failovers, slow int, cl *tickets.Client) {
		t.Helper()
		var ev events
		s := set
		s.OnEvent = ev.add
		cl, err := newClient(ctx, servers, s)
		if err != nil {
			t.Fatal(err)
		}
		stop := slowRow(t, b, "t")
		defer stop()
		var ids []int64
		testsrv.WaitFor(t, "tickets from b", func() bool {
			id, err := cl.Next(ctx)
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, id)
			return cl.Servers()[1].Draws >= fromB
		})
		if n := bench.Repeats(ids); n != 0 {
			t.Errorf("%d tickets twice", n)
		}
		return len(ev.of(tickets.EventFailover, "b")), len(ev.of(tickets.EventSlow, "b")), cl
	}
	failovers, slow, cl := run(tickets.NewClient, 20)
	st := cl.Servers()[1]
	t.Logf("adaptive budget: %d failovers from b, %d late answers; b's budget now %s, %d draws from b", failovers, slow, st.Budget, st.Draws)
	if failovers > 3 || slow < failovers || st.Budget <= tickets.DefaultBudget {
		t.Errorf("a slow server answering every draw was failed over %d times for 20 tickets (%d late answers); its budget is %s", failovers, slow, st.Budget)
	}
	cFailovers, _, _ := run(tickets.NewClientFixedBudget, 5)
	t.Logf("negative control, a fixed budget: %d failovers from b for 5 tickets", cFailovers)
	if cFailovers <= 3 {
		t.Errorf("negative control: a client with a fixed %s budget failed over from the slow server only %d times", tickets.DefaultBudget, cFailovers)
	}
}

// TestFailedServerProbedWithinASecond: with the default settings, a
// server that keeps failing is probed again at most a second after its
// last probe (each EventServerDown's Backoff), however long it stays
// down: one that answers again is drawn from within a second.
func TestFailedServerProbedWithinASecond(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b, _ := testsrv.MariaDBDB(t)
	up(t, b, tickets.Counter{Name: "t", Increment: 2, Offset: 2})
	dead := testsrv.Open(t, "mysql", "root@tcp(127.0.0.1:1)/x?timeout=1s")
	var ev events
	cl, err := tickets.NewClient(ctx, []tickets.Server{{Name: "a", DB: dead}, {Name: "b", DB: b}}, tickets.Settings{Name: "t", Timeout: patient, OnEvent: ev.add})
	if err != nil {
		t.Fatal(err)
	}
	testsrv.WaitFor(t, "five failed probes of a", func() bool {
		if _, err := cl.Next(ctx); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Millisecond)
		return len(ev.of(tickets.EventServerDown, "a")) >= 6
	})
	var backoffs []time.Duration
	for _, e := range ev.of(tickets.EventServerDown, "a") {
		backoffs = append(backoffs, e.Backoff)
	}
	if slices.Max(backoffs) > time.Second || !slices.IsSorted(backoffs) {
		t.Errorf("a down server passed over for %v between probes; want doubling up to 1s", backoffs)
	}
}
