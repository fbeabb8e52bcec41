package tickets_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/shardid/shardid/tickets"
	"github.com/shardid/shardid/tools/dbserver"
	"github.com/shardid/shardid/tools/testsrv"
)

// newTiDBOnDisk starts a TiDB server of the test's own whose data survives
// a restart, with the harness's policy: fail under CI=true, skip on a
// laptop without TiDB.
func newTiDBOnDisk(t *testing.T) *dbserver.TiDBOnDisk {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s, err := dbserver.StartTiDBOnDisk(ctx, dbserver.TiDBOptions{})
	switch {
	case errors.Is(err, dbserver.ErrTiDBNotInstalled) && !testsrv.InCI():
		t.Skipf("no TiDB on this machine: %v", err)
	case err != nil:
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Stop() })
	return s
}

// drawThrough draws from cl until a draw succeeds, through an outage.
func drawThrough(t *testing.T, cl *tickets.Client) int64 {
	t.Helper()
	deadline := time.Now().Add(3 * time.Minute)
	for {
		id, err := cl.Next(context.Background())
		if err == nil {
			return id
		}
		if time.Now().After(deadline) {
			t.Fatalf("no ticket within three minutes: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestSequenceRestartRemarked: a TiDB server with its data on disk is
// killed and restarted. A sequence's next ticket then jumps past the
// values the dead process had cached; the client remarks the gap
// (EventSkipped: the last ticket before, the first after, the count) and
// counts it in Stats. A ticket table on the same server, drawn across the
// same restart, has no gap and no such event: the control that the remark
// is about the sequence's cache, not about any outage.
func TestSequenceRestartRemarked(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server of its own and restarts it")
	}
	t.Parallel()
	ctx := context.Background()
	srv := newTiDBOnDisk(t)
	db := testsrv.Open(t, "mysql", testsrv.Database(t, srv))
	up(t, db, tickets.Counter{Name: "s", Kind: tickets.KindSequence, Cache: 100})
	up(t, db, tickets.Counter{Name: "t"})
	var seqEv, tabEv events
	seq, err := tickets.NewClient(ctx, []tickets.Server{{Name: "tidb", DB: db}}, tickets.Settings{Name: "s", RetryAfter: 50 * time.Millisecond, OnEvent: seqEv.add, Timeout: patient})
	if err != nil {
		t.Fatal(err)
	}
	tab, err := tickets.NewClient(ctx, []tickets.Server{{Name: "tidb", DB: db}}, tickets.Settings{Name: "t", RetryAfter: 50 * time.Millisecond, OnEvent: tabEv.add, Timeout: patient})
	if err != nil {
		t.Fatal(err)
	}
	for range 10 {
		drawThrough(t, seq)
		drawThrough(t, tab)
	}
	srv.Crash()
	for _, cl := range []*tickets.Client{seq, tab} {
		if _, err := cl.Next(ctx); err == nil {
			t.Fatal("a draw succeeded on a killed server")
		}
	}
	if err := srv.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	first, firstTab := drawThrough(t, seq), drawThrough(t, tab)
	sk := seqEv.of(tickets.EventSkipped, "tidb")
	if len(sk) != 1 || sk[0].High != 10 || sk[0].Ticket != first || first <= 11 || sk[0].Count != first-11 ||
		!strings.Contains(sk[0].String(), "a TiDB restart dropping its cache of the sequence") || seq.Stats().Skipped != sk[0].Count {
		t.Errorf("sequence across a restart: first ticket %d; skip events %+v; stats %+v", first, sk, seq.Stats())
	}
	t.Logf("sequence: %s", sk)
	if firstTab != 11 || len(tabEv.of(tickets.EventSkipped, "tidb")) != 0 || len(tabEv.of(tickets.EventServerUp, "tidb")) != 1 {
		t.Errorf("table across the same restart: first ticket %d, events %+v; want 11, no skip event, one up event", firstTab, tabEv.list)
	}
}
