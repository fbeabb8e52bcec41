package lease_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/shardid/shardid/dialect"
	"github.com/shardid/shardid/lease"
	"github.com/shardid/shardid/tools/dbserver"
	"github.com/shardid/shardid/tools/testsrv"
)

// TestRiderWaitsOutAnOutage on PostgreSQL: the server is killed under a
// drawing lease. A Rider with Wait 0 (the negative control) stops with
// ErrExpired; one with a short Wait stops with a *WaitError wrapping it; one
// with a long Wait says it stopped once, draws again once the server is
// back and a background renewal succeeded, and says after how long. No ID
// repeats across the stop.
func TestRiderWaitsOutAnOutage(t *testing.T) {
	if testing.Short() {
		t.Skip("crashes and restarts a database server")
	}
	t.Parallel()
	srv := testsrv.NewPG(t, dbserver.PGOptions{})
	db := testsrv.Open(t, "pgx", testsrv.Database(t, srv))
	ctx := context.Background()
	if _, err := lease.Up(ctx, db, dialect.Postgres, ""); err != nil {
		t.Fatal(err)
	}
	l := acquire(t, db, lease.Settings{TTL: time.Second, Margin: 300 * time.Millisecond, RenewEvery: 100 * time.Millisecond})
	seen := map[int64]bool{}
	drawUntilStop := func(r *lease.Rider) error {
		for {
			id, err := r.Next(ctx)
			if err != nil {
				return err
			}
			if seen[id] {
				t.Fatalf("ID %d twice", id)
			}
			seen[id] = true
		}
	}
	if err := srv.Crash(); err != nil {
		t.Fatal(err)
	}
	if err := drawUntilStop(&lease.Rider{Lease: l}); !errors.Is(err, lease.ErrExpired) {
		t.Fatalf("Wait 0 through an outage: %v, want ErrExpired", err)
	}
	var we *lease.WaitError
	if err := drawUntilStop(&lease.Rider{Lease: l, Wait: 100 * time.Millisecond}); !errors.As(err, &we) || !errors.Is(err, lease.ErrExpired) {
		t.Fatalf("a short Wait: %v, want a WaitError wrapping ErrExpired", err)
	}
	stops, resumes := 0, 0
	r := &lease.Rider{Lease: l, Wait: time.Minute, OnStop: func(error) { stops++ }, OnResume: func(time.Duration) { resumes++ }}
	restarted := make(chan error, 1)
	go func() {
		time.Sleep(300 * time.Millisecond)
		restarted <- srv.Restart(context.Background())
	}()
	before := len(seen)
	for resumes == 0 {
		id, err := r.Next(ctx)
		if err != nil {
			t.Fatalf("a long Wait: %v", err)
		}
		if seen[id] {
			t.Fatalf("ID %d twice", id)
		}
		seen[id] = true
	}
	if err := <-restarted; err != nil {
		t.Fatal(err)
	}
	if stops != 1 || resumes != 1 || len(seen) != before+1 {
		t.Errorf("a long Wait: %d stops, %d resumes, %d IDs; want 1, 1, 1", stops, resumes, len(seen)-before)
	}
}
