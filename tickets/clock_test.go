package tickets_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shardid/shardid/tickets"
	"github.com/shardid/shardid/tools/bench"
	"github.com/shardid/shardid/tools/dbserver"
	"github.com/shardid/shardid/tools/testsrv"
)

// TestClockStepKeepsRecords: the client's wall clock steps an hour back,
// or an hour forward, while it draws. It records on as before (by the
// monotonic clock) and reports the step; so when server a's ticket table
// is then reloaded from a dump taken after the step, a client started
// after the reload finds a below the records and leaves it out: no ticket
// twice. A client that timed its records on the wall clock stopped
// recording at the step back: the records stayed below the dump's counter,
// the new client drew a's tickets again (1,529 repeats in an outside
// trial).
func TestClockStepKeepsRecords(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		step time.Duration
	}{{"back", -time.Hour}, {"forward", time.Hour}} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			srv := testsrv.MariaDB(t)
			dsnA := testsrv.Database(t, srv)
			a, b := testsrv.Open(t, "mysql", dsnA), testsrv.Open(t, "mysql", testsrv.Database(t, srv))
			up(t, a, tickets.Counter{Name: "t", Increment: 2, Offset: 1})
			up(t, b, tickets.Counter{Name: "t", Increment: 2, Offset: 2})
			servers := []tickets.Server{{Name: "a", DB: a}, {Name: "b", DB: b}}
			var off atomic.Int64 // the wall clock's step
			var ev events
			set := fastRecord("t", &ev)
			set.Clock = func() time.Time { return time.Now().Add(time.Duration(off.Load())) }
			cl, err := tickets.NewClient(ctx, servers, set)
			if err != nil {
				t.Fatal(err)
			}
			l := startLoop(cl, 2)
			testsrv.WaitFor(t, "500 tickets", func() bool { return l.total.Load() >= 500 })
			off.Store(int64(c.step))
			at := l.total.Load()
			testsrv.WaitFor(t, "500 tickets after the step", func() bool { return l.total.Load() >= at+500 })
			dump, err := dbserver.DumpMariaDB(ctx, srv.Port(), dbName(t, dsnA), "t")
			if err != nil {
				t.Fatal(err)
			}
			afterDump, err := tickets.Read(ctx, a, "t") // at or past the dump's counter
			if err != nil {
				t.Fatal(err)
			}
			drawsA := cl.Servers()[0].Draws
			testsrv.WaitFor(t, "1,000 tickets from a after the dump", func() bool { return cl.Servers()[0].Draws >= drawsA+1000 })
			// The records go on: a's is past the dump's counter.
			testsrv.WaitFor(t, "a's record past the dump", func() bool { return classRow(t, b, "t", 1).Seen > afterDump.Last })
			ids := l.finish()
			steps := ev.of(tickets.EventClockStepped, "")
			if len(steps) != 1 || (steps[0].Step-c.step).Abs() > time.Second {
				t.Errorf("clock step events: %+v; want one of %s", steps, c.step)
			}

			if err := dbserver.LoadMariaDB(ctx, srv.Port(), dbName(t, dsnA), dump); err != nil {
				t.Fatal(err)
			}
			fresh, err := tickets.NewClient(ctx, servers, tickets.Settings{Name: "t", Timeout: patient})
			if err != nil {
				t.Fatal(err)
			}
			if st := fresh.Servers()[0]; !errors.Is(st.Rewound, tickets.ErrRewound) {
				t.Fatalf("a client started after a reload below the records uses a: %+v", st)
			}
			for range 1000 {
				id, err := fresh.Next(ctx)
				if err != nil {
					t.Fatal(err)
				}
				ids = append(ids, id)
			}
			if n := bench.Repeats(ids); n != 0 {
				t.Errorf("%d tickets repeated after the wall clock stepped %s", n, c.name)
			}
		})
	}
}
