package pgfunc_test

import (
	"context"
	"database/sql"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/shardid/shardid/pgfunc"
	"github.com/shardid/shardid/pgfunc/migrate"
	"github.com/shardid/shardid/pgfunc/resume"
	"github.com/shardid/shardid/tools/testsrv"
)

// TestRunOnHungServer: a server that stops answering in the middle of an
// up or a resume (hung, not down: its processes stopped, its connections
// open) holds the run only until the run is cancelled, as SIGTERM cancels
// the CLI's: the run then ends, reporting no success, although the
// server-wide lock's release cannot reach the server. (Before: the release
// waited for the server without end, and the run with it; an outside
// trial's pg resume --map outlived SIGTERM by more than five minutes.)
// The server stops just after the run's second connection opens, which is
// after the server-wide lock is taken.
func TestRunOnHungServer(t *testing.T) {
	if testing.Short() {
		t.Skip("stops a server")
	}
	t.Parallel()
	srv := ownServer(t)
	t.Cleanup(func() { _ = srv.Continue() }) // before the server is stopped
	dsn := testsrv.Database(t, srv)
	if r := up(migrator(t, dsn, pgfunc.Options{}, migrate.Options{}), pgfunc.Shard{Schema: "insta1", ID: 1}); r.Err != nil {
		t.Fatal(r.Err)
	}
	for _, run := range []struct {
		name string
		do   func(ctx context.Context, m *migrate.Migrator) error
	}{
		{"up", func(ctx context.Context, m *migrate.Migrator) error {
			for _, r := range results(m.Up(ctx, []pgfunc.Shard{{Schema: "insta2", ID: 2}}, nil)) {
				if r.Err != nil {
					return r.Err
				}
			}
			return nil
		}},
		{"resume", func(ctx context.Context, m *migrate.Migrator) error {
			res, err := resume.Run(ctx, m, nil, resume.Options{Lead: 5 * time.Second}, nil)
			for _, r := range res {
				err = errors.Join(err, r.Err)
			}
			return err
		}},
	} {
		ctx, cancel := context.WithCancel(context.Background())
		var once sync.Once
		var mu sync.Mutex
		calls := 0
		connect := func(cctx context.Context, name string) (*sql.DB, error) {
			db := testsrv.Open(t, "pgx", srv.DSN(name))
			if err := db.PingContext(cctx); err != nil {
				return nil, err
			}
			mu.Lock()
			calls++
			second := calls == 2
			mu.Unlock()
			if second {
				once.Do(func() {
					if err := srv.Pause(); err != nil {
						t.Error(err)
					}
					time.AfterFunc(time.Second, cancel)
				})
			}
			return db, nil
		}
		m := migrator(t, dsn, pgfunc.Options{}, migrate.Options{Connect: connect})
		done := make(chan error, 1)
		go func() { done <- run.do(ctx, m) }()
		select {
		case err := <-done:
			if err == nil {
				t.Errorf("%s on a server that stopped answering: reported success", run.name)
			}
			t.Logf("%s on a server that stopped answering, cancelled: %v", run.name, err)
		case <-time.After(3 * time.Minute):
			t.Fatalf("%s on a server that stopped answering: still running 3 minutes after it was cancelled", run.name)
		}
		cancel()
		if err := srv.Continue(); err != nil {
			t.Fatal(err)
		}
		if calls < 2 {
			t.Fatalf("%s opened %d connection through Connect; the server was never stopped under it", run.name, calls)
		}
	}
}
