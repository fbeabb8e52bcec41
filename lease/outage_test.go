package lease_test

import (
	"context"
	"database/sql"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/shardid/shardid/dialect"
	"github.com/shardid/shardid/lease"
	"github.com/shardid/shardid/tools/dbserver"
	"github.com/shardid/shardid/tools/testsrv"
)

// crashable is a database server of the test's own that can be stopped the
// hard way and started again.
type crashable struct {
	name    string
	dialect dialect.Dialect
	start   func(t *testing.T) (db *sql.DB, crash func(), restart func() error)
}

var crashables = []crashable{
	{"postgres", dialect.Postgres, func(t *testing.T) (*sql.DB, func(), func() error) {
		srv := testsrv.NewPG(t, dbserver.PGOptions{})
		db := testsrv.Open(t, "pgx", testsrv.Database(t, srv))
		return db, func() { _ = srv.Crash() }, func() error { return srv.Restart(context.Background()) }
	}},
	{"mariadb", dialect.MySQL, func(t *testing.T) (*sql.DB, func(), func() error) {
		srv := testsrv.NewMariaDB(t)
		db := testsrv.Open(t, "mysql", testsrv.Database(t, srv))
		return db, srv.Crash, func() error { return srv.Restart(context.Background()) }
	}},
}

// outageRun is what happened to a generator drawing through an outage.
type outageRun struct {
	lastRenewed time.Time // when the last successful renewal had returned
	crashed     time.Time // when the server was killed
	lastDrawn   time.Time // when the last successful Next was called
	stopErr     error     // what Next said when it stopped
	stoppedAt   time.Time // when that Next had returned
	drawUntil   time.Time // the lease's DrawUntil read just before that Next
}

// drawThroughOutage renews l every 200ms from the test (so the test knows
// when the last renewal succeeded), draws from it continuously, kills the
// server after 600ms and keeps drawing until Next fails after the crash
// or giveUp has passed since the last successful renewal. A Next that
// fails before the crash (a renewal late on a loaded machine) is not the
// outage: the drawing goes on.
func drawThroughOutage(t *testing.T, l *lease.Lease, crash func(), giveUp time.Duration) outageRun {
	t.Helper()
	var mu sync.Mutex
	var run outageRun
	if err := l.Renew(context.Background()); err != nil {
		t.Fatal(err)
	}
	run.lastRenewed = time.Now()
	stopRenew := make(chan struct{})
	var renewer sync.WaitGroup
	renewer.Go(func() {
		for {
			select {
			case <-stopRenew:
				return
			case <-time.After(200 * time.Millisecond):
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			err := l.Renew(ctx)
			cancel()
			if err == nil {
				mu.Lock()
				run.lastRenewed = time.Now()
				mu.Unlock()
			}
		}
	})
	crashAt := time.Now().Add(600 * time.Millisecond)
	for n := 0; ; n++ {
		now := time.Now()
		if run.crashed.IsZero() && now.After(crashAt) {
			crash()
			run.crashed = time.Now()
		}
		mu.Lock()
		renewed := run.lastRenewed
		mu.Unlock()
		if now.Sub(renewed) > giveUp && !run.crashed.IsZero() {
			break
		}
		until := l.Stats().DrawUntil
		_, err := l.Next()
		if err != nil && run.crashed.IsZero() {
			time.Sleep(10 * time.Millisecond)
			continue
		}
		if err != nil {
			run.stopErr, run.stoppedAt, run.drawUntil = err, time.Now(), until
			break
		}
		run.lastDrawn = now
		if n%1000 == 0 {
			time.Sleep(100 * time.Microsecond) // leave the 2 cores some air
		}
	}
	close(stopRenew)
	renewer.Wait()
	return run
}

// TestLeaseDatabaseStopsMidRun kills the database under a drawing
// generator: it keeps drawing on its last renewal, stops with
// ErrExpired before TTL-Margin after that renewal was answered (so
// before the lease could end) and not before TTL-Margin after it was
// sent (it drew as long as the lease let it), and draws again once the
// server is back and a renewal succeeds. Both bounds are instants the
// test reads beside the draws, not durations it expects the machine to
// keep. The same run with a broken fence draws past the bound, which the
// check catches.
func TestLeaseDatabaseStopsMidRun(t *testing.T) {
	if testing.Short() {
		t.Skip("crashes and restarts database servers")
	}
	t.Parallel()
	const ttl, margin = 2 * time.Second, 500 * time.Millisecond
	for _, c := range crashables {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			db, crash, restart := c.start(t)
			ctx := context.Background()
			if _, err := lease.Up(ctx, db, c.dialect, ""); err != nil {
				t.Fatal(err)
			}
			events := &leaseEvents{}
			s := lease.Settings{TTL: ttl, Margin: margin, RenewEvery: -1, OnEvent: events.add}
			l := acquire(t, db, s)
			run := drawThroughOutage(t, l, crash, ttl)
			bound := run.lastRenewed.Add(ttl - margin)
			if !errors.Is(run.stopErr, lease.ErrExpired) {
				t.Fatalf("drawing stopped with %v, want ErrExpired", run.stopErr)
			}
			if !run.lastDrawn.Before(bound) {
				t.Fatalf("drew at %s, after the fence %s (last renewal answered at %s)", run.lastDrawn, bound, run.lastRenewed)
			}
			// The deadline only moves forward: the one read before the
			// Next that stopped is no later than the one it stopped at.
			if run.stoppedAt.Before(run.drawUntil) {
				t.Fatalf("drawing stopped %s before the deadline of the last renewal (%s): it should go on until the fence", run.drawUntil.Sub(run.stoppedAt), run.drawUntil)
			}
			t.Logf("crash +0; last renewal %s; last ID drawn %s; fence %s", run.lastRenewed.Sub(run.crashed), run.lastDrawn.Sub(run.crashed), bound.Sub(run.crashed))

			if err := restart(); err != nil {
				t.Fatal(err)
			}
			renewUntil(t, l)
			draw(t, l, 10)
			k := leaseKinds(events)
			if k[lease.DatabaseDown] == 0 || k[lease.Expired] == 0 || k[lease.DatabaseUp] == 0 || k[lease.Lost] != 0 {
				t.Errorf("events through the outage: %v; want the database down, drawing stopped, the database up, and no loss", k)
			}
			if st := l.Stats(); st.Err != nil || st.Failures == 0 || st.DatabaseDown || st.DrawUntil.IsZero() {
				t.Errorf("stats after the outage: %+v", st)
			}

			// Negative control: a generator whose fence never closes draws on.
			lease.BreakFence(l)
			run = drawThroughOutage(t, l, crash, ttl)
			if run.lastDrawn.Before(run.lastRenewed.Add(ttl - margin)) {
				t.Fatalf("with a broken fence the last draw %s is still before the bound: the check would not catch it", run.lastDrawn.Sub(run.lastRenewed))
			}
			if err := restart(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// renewUntil renews l until it succeeds (the server is coming back up),
// for up to a minute.
func renewUntil(t *testing.T, l *lease.Lease) {
	t.Helper()
	var err error
	for end := time.Now().Add(time.Minute); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		err = l.Renew(ctx)
		cancel()
		if err == nil {
			return
		}
	}
	t.Fatalf("no renewal after the restart: %v", err)
}
