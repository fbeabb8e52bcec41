package tickets_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/shardid/shardid/tickets"
	"github.com/shardid/shardid/tools/bench"
	"github.com/shardid/shardid/tools/dbserver"
	"github.com/shardid/shardid/tools/testsrv"
)

// TestPeerDownAtStart: server b's ticket table and class table are dumped
// mid-run and reloaded after b has drawn on, while server a (the only
// other holder of b's records) is down. A client started then cannot know
// (b's own records went back with its counter) and draws from b: those
// tickets repeat, the documented limit. Once a answers again the client
// reads a's records, finds b below the highest ticket recorded from it and
// leaves b out: no ticket drawn after it has read a repeats any ticket
// before, and b's rewind is an event. The negative control, a client that
// judges each server once, draws b's old tickets again after it read a.
func TestPeerDownAtStart(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server of its own and kills it")
	}
	t.Parallel()
	ctx := context.Background()
	srvA, srvB := testsrv.NewMariaDB(t), testsrv.MariaDB(t)
	dsnB := testsrv.Database(t, srvB)
	a, b := testsrv.Open(t, "mysql", testsrv.Database(t, srvA)), testsrv.Open(t, "mysql", dsnB)
	up(t, a, tickets.Counter{Name: "t", Increment: 2, Offset: 1})
	up(t, b, tickets.Counter{Name: "t", Increment: 2, Offset: 2})
	servers := []tickets.Server{{Name: "a", DB: a}, {Name: "b", DB: b}}

	cl, err := tickets.NewClient(ctx, servers, tickets.Settings{Name: "t", RecordEvery: 20 * time.Millisecond, Timeout: patient})
	if err != nil {
		t.Fatal(err)
	}
	l := startLoop(cl, 2)
	testsrv.WaitFor(t, "500 tickets", func() bool { return l.total.Load() >= 500 })
	before := l.finish()
	if err := cl.Record(ctx); err != nil {
		t.Fatal(err)
	}
	// The dump is taken at rest: mariadb-dump reads the two tables one
	// after the other, and a record written between would be newer than
	// the counter.
	dump, err := dbserver.DumpMariaDB(ctx, srvB.Port(), dbName(t, dsnB), "t", tickets.ClassTable("t"))
	if err != nil {
		t.Fatal(err)
	}
	l = startLoop(cl, 2)
	drawsB := cl.Servers()[1].Draws
	testsrv.WaitFor(t, "1,000 tickets from b after the dump", func() bool { return cl.Servers()[1].Draws >= drawsB+1000 })
	before = append(before, l.finish()...)
	if err := cl.Record(ctx); err != nil {
		t.Fatal(err)
	}

	// a goes down, b goes back to the dump, a client starts; a comes back.
	restore := func() {
		t.Helper()
		srvA.Crash()
		if err := dbserver.LoadMariaDB(ctx, srvB.Port(), dbName(t, dsnB), dump); err != nil {
			t.Fatal(err)
		}
	}
	run := func(newClient func(context.Context, []tickets.Server, tickets.Settings) (*tickets.Client, error), ev *events) (window, after []int64, fresh *tickets.Client) {
		t.Helper()
		fresh, err := newClient(ctx, servers, tickets.Settings{Name: "t", RetryAfter: 50 * time.Millisecond, MaxRetryAfter: 100 * time.Millisecond, Timeout: patient,
			RecordEvery: 20 * time.Millisecond, OnEvent: ev.add})
		if err != nil {
			t.Fatal(err)
		}
		if st := fresh.Servers(); !st[0].Down || st[1].Rewound != nil {
			t.Fatalf("client started with a down: %+v", st)
		}
		for range 50 {
			id, err := fresh.Next(ctx)
			if err != nil {
				t.Fatal(err)
			}
			window = append(window, id)
		}
		if err := srvA.Restart(ctx); err != nil {
			t.Fatal(err)
		}
		// Draw until the client has read a; the tickets drawn by calls
		// that started before are the window's.
		deadline := time.Now().Add(2 * time.Minute)
		for fresh.Servers()[0].Settings == nil {
			if time.Now().After(deadline) {
				t.Fatal("the client never read a after it came back")
			}
			if id, err := fresh.Next(ctx); err == nil {
				window = append(window, id)
			}
		}
		for range 500 {
			id, err := fresh.Next(ctx)
			if err != nil {
				t.Fatal(err)
			}
			after = append(after, id)
		}
		return window, after, fresh
	}

	restore()
	var ev events
	window, after, fresh := run(tickets.NewClient, &ev)
	t.Logf("%d tickets drawn while a was down, %d of them repeats (the documented limit)", len(window), bench.Repeats(before, window))
	if n := bench.Repeats(append(append(before, window...), after...)) - bench.Repeats(before, window); n != 0 {
		t.Fatalf("%d tickets drawn after the client read a repeat earlier ones", n)
	}
	if st := fresh.Servers()[1]; !errors.Is(st.Rewound, tickets.ErrRewound) {
		t.Errorf("b after the client read a: %+v", st)
	}
	if odd(after) != len(after) {
		t.Errorf("%d of %d tickets after the client read a came from b", len(after)-odd(after), len(after))
	}
	if len(ev.of(tickets.EventRewound, "b")) == 0 {
		t.Errorf("no rewind event for b")
	}

	// Negative control: the same restore, a client judging each server once.
	restore()
	var cev events
	_, cAfter, _ := run(tickets.NewClientNoRejudge, &cev)
	if n := bench.Repeats(before, cAfter); n == 0 {
		t.Errorf("negative control: a client judging each server once drew no repeat after it read a")
	} else {
		t.Logf("negative control: %d of %d tickets after the client read a repeat the first run's", n, len(cAfter))
	}
}
