package lease_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/shardid/shardid"
	"github.com/shardid/shardid/internal/testsrv"
	"github.com/shardid/shardid/lease"
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
