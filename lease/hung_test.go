package lease_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/shardid/shardid"
	"github.com/shardid/shardid/lease"
	"github.com/shardid/shardid/tools/testsrv"
)

// TestHungDatabaseMessage: the database is stopped (SIGSTOP: it keeps its
// connections and answers nothing) under a holder renewing in the
// background. The generator stops drawing once the last renewal's
// deadline passes, and says why: a renewal under way has had no answer,
// the database is hung; not that this process was paused.
func TestHungDatabaseMessage(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server of its own and stops it")
	}
	t.Parallel()
	ctx := context.Background()
	srv := testsrv.NewMariaDB(t)
	db := testsrv.Open(t, "mysql", testsrv.Database(t, srv))
	if _, err := lease.Up(ctx, db, "", ""); err != nil {
		t.Fatal(err)
	}
	l, err := lease.Acquire(ctx, db, lease.Settings{Holder: "h", Generator: shardid.Settings{Layout: shardid.JS53()},
		TTL: time.Second, RenewEvery: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if err := srv.Pause(); err != nil {
		t.Fatal(err)
	}
	defer srv.Continue()
	var stop error
	testsrv.WaitFor(t, "the generator to stop", func() bool {
		_, stop = l.Next()
		return stop != nil
	})
	// While a renewal hangs it "has had no answer yet"; once its context
	// ends it "had no answer in time": either way the database is hung.
	if !errors.Is(stop, lease.ErrExpired) || !strings.Contains(stop.Error(), "no answer") || !strings.Contains(stop.Error(), "the database is hung or slow") || strings.Contains(stop.Error(), "paused") {
		t.Errorf("the generator stopped with %v; want ErrExpired saying the database does not answer", stop)
	}
}

// TestPausedHolderMessage: the holder's process is paused past its
// deadline (both of its clocks jump a TTL while nothing of it runs), and
// on waking its renewal is slow to come back (the test holds the lease
// row's lock). Drawing has stopped, and the generator says why: the
// process was paused, not the database hung, although a renewal is under
// way: it was sent after the stop. The Expired event the renewal reports
// once it succeeds says the same. (An outside trial's paused holder was
// told both.)
func TestPausedHolderMessage(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db *sql.DB) {
		ctx := context.Background()
		events := &leaseEvents{}
		clk := &offsetClock{frozen: time.Now().Round(0)}
		l := acquireOn(t, db, clk, lease.Settings{TTL: 2 * time.Second, RenewEvery: -1, MaxClockSkew: time.Hour, OnEvent: events.add})
		draw(t, l, 10)
		clk.Sleep(2 * time.Second) // paused: nothing ran, both clocks moved on

		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback()
		if _, err := tx.ExecContext(ctx, "SELECT token FROM shardid_worker_lease WHERE node_id = "+fmt.Sprint(l.Node())+" FOR UPDATE"); err != nil {
			t.Fatal(err)
		}
		renewed := make(chan error, 1)
		go func() { renewed <- l.Renew(ctx) }()
		time.Sleep(200 * time.Millisecond) // room for the renewal to start and wait on the lock
		_, err = l.Next()
		if !errors.Is(err, lease.ErrExpired) || !strings.Contains(err.Error(), "paused") || strings.Contains(err.Error(), "hung") {
			t.Errorf("drawing after the pause, a renewal under way: %v; want ErrExpired naming the pause, not the database", err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		if err := <-renewed; err != nil {
			t.Fatal(err)
		}
		for _, e := range events.all() {
			if e.Kind == lease.Expired && (!strings.Contains(e.Err.Error(), "paused") || strings.Contains(e.Err.Error(), "hung")) {
				t.Errorf("the Expired event: %v; want the pause named", e)
			}
		}
		draw(t, l, 10)
	})
}
