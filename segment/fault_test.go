package segment_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shardid/shardid/dialect"
	"github.com/shardid/shardid/segment"
	"github.com/shardid/shardid/tools/bench"
	"github.com/shardid/shardid/tools/dbserver"
	"github.com/shardid/shardid/tools/testsrv"
)

// draws runs goroutines that draw IDs from clients until stopped, each
// goroutine keeping its IDs in order.
type draws struct {
	stop      chan struct{}
	wg        sync.WaitGroup
	total     atomic.Int64
	exhausted atomic.Int64 // ErrSegmentsExhausted seen
	mu        sync.Mutex
	streams   [][]int64 // per goroutine, in the order drawn
	client    []int     // streams[i] came from clients[client[i]]
	others    []error   // any other error
}

// startDraws starts perClient goroutines on each client.
func startDraws(clients []*segment.Segments, perClient int) *draws {
	d := &draws{stop: make(chan struct{})}
	for ci, c := range clients {
		for range perClient {
			d.wg.Add(1)
			go func() {
				defer d.wg.Done()
				var ids []int64
				defer func() {
					d.mu.Lock()
					d.streams, d.client = append(d.streams, ids), append(d.client, ci)
					d.mu.Unlock()
				}()
				for {
					select {
					case <-d.stop:
						return
					default:
					}
					id, err := c.Next(context.Background())
					switch {
					case err == nil:
						ids = append(ids, id)
						d.total.Add(1)
					case errors.Is(err, segment.ErrExhausted):
						d.exhausted.Add(1)
						time.Sleep(2 * time.Millisecond)
					default:
						d.mu.Lock()
						d.others = append(d.others, err)
						d.mu.Unlock()
						return
					}
				}
			}()
		}
	}
	return d
}

// finish stops the goroutines and returns their streams.
func (d *draws) finish() [][]int64 {
	close(d.stop)
	d.wg.Wait()
	return d.streams
}

// span returns the lowest and highest ID each client handed out.
func (d *draws) span(clients int) (lo, hi []int64) {
	lo, hi = make([]int64, clients), make([]int64, clients)
	for i := range lo {
		lo[i] = 1<<63 - 1
	}
	for i, st := range d.streams {
		for _, id := range st {
			lo[d.client[i]], hi[d.client[i]] = min(lo[d.client[i]], id), max(hi[d.client[i]], id)
		}
	}
	return lo, hi
}

// notIncreasing counts places where a stream does not increase.
func notIncreasing(streams ...[]int64) int {
	n := 0
	for _, s := range streams {
		for i := 1; i < len(s); i++ {
			if s[i] <= s[i-1] {
				n++
			}
		}
	}
	return n
}

// TestStreamChecks: the order check the fault tests rely on catches what
// it looks for (tools/bench tests the repeat count).
func TestStreamChecks(t *testing.T) {
	t.Parallel()
	if notIncreasing([]int64{1, 2, 5}) != 0 || notIncreasing([]int64{1, 3, 2, 2}) != 2 {
		t.Error("notIncreasing miscounts")
	}
}

// faultServer is a server of the test's own that can crash and restart.
type faultServer struct {
	name    string
	dialect dialect.Dialect
	driver  string
	create  func(t *testing.T) (dsn string, crash func(), restart func(context.Context) error)
}

var faultServers = []faultServer{
	{"postgres", dialect.Postgres, "pgx", func(t *testing.T) (string, func(), func(context.Context) error) {
		srv := testsrv.NewPG(t, dbserver.PGOptions{})
		return testsrv.Database(t, srv), func() {
			if err := srv.Crash(); err != nil {
				t.Error(err)
			}
		}, srv.Restart
	}},
	{"mariadb", dialect.MySQL, "mysql", func(t *testing.T) (string, func(), func(context.Context) error) {
		srv := testsrv.NewMariaDB(t)
		return testsrv.Database(t, srv), srv.Crash, srv.Restart
	}},
}

// TestSegmentsSurviveOutage: 4 clients, 3 goroutines each, draw; the
// server is killed (SIGKILL for MariaDB, an immediate shutdown for
// PostgreSQL); the draws go on for at least the IDs the clients had
// buffered, then fail with ErrSegmentsExhausted (and nothing else); the
// server restarts and the draws resume, each client above its IDs from
// before; a client started after the restart begins above every segment
// taken before it. Across all of it: no ID twice, and every goroutine's
// IDs increase.
func TestSegmentsSurviveOutage(t *testing.T) {
	if testing.Short() {
		t.Skip("starts its own servers and kills them")
	}
	t.Parallel()
	for _, fs := range faultServers {
		t.Run(fs.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			dsn, crash, restart := fs.create(t)
			s := newSegDB(t, fs.dialect, fs.driver, dsn)
			if _, _, err := segment.EnsureTag(ctx, s.db, s.dialect, "", segment.Tag{Tag: "orders", Step: 50}, 0); err != nil {
				t.Fatal(err)
			}
			var clients []*segment.Segments
			var logs []*eventLog
			for range 4 {
				log := &eventLog{}
				logs = append(logs, log)
				c, err := segment.New(ctx, s.db, segment.Settings{Tag: "orders", MaxStep: 400, AllocTimeout: 2 * time.Second, OnEvent: log.add})
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				clients = append(clients, c)
			}
			before := startDraws(clients, 3)
			testsrv.WaitFor(t, "20,000 IDs before the crash", func() bool { return before.total.Load() >= 20_000 })
			streams := before.finish()
			var buffered int64
			for _, c := range clients {
				buffered += c.Stats().Buffered
			}
			crash()
			after := startDraws(clients, 3)
			testsrv.WaitFor(t, "every buffered ID used", func() bool { return after.exhausted.Load() >= 100 })
			duringOutage := after.total.Load()
			if buffered == 0 || duringOutage < buffered {
				t.Errorf("%d IDs drawn while the server was down; the clients had %d buffered", duringOutage, buffered)
			}
			if err := restart(ctx); err != nil {
				t.Fatal(err)
			}
			testsrv.WaitFor(t, "20,000 IDs after the restart", func() bool { return after.total.Load() >= duringOutage+20_000 })
			testsrv.WaitFor(t, "every client to reach the database again", func() bool {
				for _, c := range clients {
					if c.Stats().DatabaseDown {
						return false
					}
				}
				return true
			})
			streams = append(streams, after.finish()...)
			if len(before.others)+len(after.others) > 0 {
				t.Fatalf("errors other than ErrSegmentsExhausted: %v %v", before.others, after.others)
			}
			_, hiBefore := before.span(len(clients))
			loAfter, _ := after.span(len(clients))
			for i := range clients {
				if loAfter[i] <= hiBefore[i] {
					t.Errorf("client %d: after the outage from %d, not above its %d from before", i, loAfter[i], hiBefore[i])
				}
			}
			var prior int64
			for _, st := range streams {
				for _, id := range st {
					prior = max(prior, id)
				}
			}
			late, err := segment.New(ctx, s.db, segment.Settings{Tag: "orders"})
			if err != nil {
				t.Fatal(err)
			}
			defer late.Close()
			var lateIDs []int64
			for range 1000 {
				id, err := late.Next(ctx)
				if err != nil {
					t.Fatal(err)
				}
				lateIDs = append(lateIDs, id)
			}
			if lateIDs[0] <= prior {
				t.Errorf("a client started after the restart begins at %d, not above %d", lateIDs[0], prior)
			}
			streams = append(streams, lateIDs)
			total := 0
			for _, st := range streams {
				total += len(st)
			}
			t.Logf("%d IDs; %d drawn while the server was down (%d buffered); %d ErrSegmentsExhausted", total, duringOutage, buffered, after.exhausted.Load())
			if n := bench.Repeats(streams...); n != 0 {
				t.Errorf("%d duplicate IDs among %d", n, total)
			}
			if n := notIncreasing(streams...); n != 0 {
				t.Errorf("%d places where a goroutine's IDs do not increase", n)
			}
			for i, log := range logs {
				down, _ := countKind(log, segment.DatabaseDown)
				up, _ := countKind(log, segment.DatabaseUp)
				if down == 0 || up == 0 {
					t.Errorf("client %d reported the database down %d times and up %d times; want both", i, down, up)
				}
			}
		})
	}
}

// TestSegmentsBrokenAllocationCaught is the negative control of the two
// tests above: an allocation that reads max_id without moving it hands two
// clients, and a client and its restarted self, the same segment, and the
// same checks find the duplicates.
func TestSegmentsBrokenAllocationCaught(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for name, s := range map[string]segDB{
		"postgres": newSegDB(t, dialect.Postgres, "pgx", testsrv.Database(t, testsrv.PG(t))),
		"mariadb":  newSegDB(t, dialect.MySQL, "mysql", testsrv.Database(t, testsrv.MariaDB(t))),
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if _, _, err := segment.EnsureTag(ctx, s.db, s.dialect, "", segment.Tag{Tag: "t", Step: 50}, 0); err != nil {
				t.Fatal(err)
			}
			draw := func(n int) []int64 {
				c, err := segment.New(ctx, s.db, segment.Settings{Tag: "t"})
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				segment.BreakSegments(c, "no-write")
				var ids []int64
				for range n {
					id, err := c.Next(ctx)
					if err != nil {
						t.Fatal(err)
					}
					ids = append(ids, id)
				}
				return ids
			}
			first, restarted := draw(100), draw(100)
			if n := bench.Repeats(first, restarted); n == 0 {
				t.Errorf("a broken allocation went unnoticed: %v… and %v…", first[:3], restarted[:3])
			}
		})
	}
}

// TestSegmentsRefuseLossyCommit: a PostgreSQL database with
// synchronous_commit=off is refused when the client starts and, set after
// it started, by the allocation statement itself; AllowLossyCommit (the
// negative control: the same setup, the guard off) draws.
func TestSegmentsRefuseLossyCommit(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newSegDB(t, dialect.Postgres, "pgx", testsrv.Database(t, testsrv.PG(t)))
	if _, _, err := segment.EnsureTag(ctx, s.db, s.dialect, "", segment.Tag{Tag: "t"}, 0); err != nil {
		t.Fatal(err)
	}
	started, err := segment.New(ctx, s.db, segment.Settings{Tag: "t"})
	if err != nil {
		t.Fatal(err)
	}
	defer started.Close()
	var dbname string
	if err := s.db.QueryRowContext(ctx, "SELECT current_database()").Scan(&dbname); err != nil {
		t.Fatal(err)
	}
	if _, err := s.db.ExecContext(ctx, fmt.Sprintf("ALTER DATABASE %q SET synchronous_commit = off", dbname)); err != nil {
		t.Fatal(err)
	}
	s.db.SetMaxIdleConns(0) // new sessions pick the setting up
	s.db.SetMaxIdleConns(2)
	if _, err := started.Next(ctx); !errors.Is(err, segment.ErrLossyCommit) || !errors.Is(err, segment.ErrExhausted) {
		t.Errorf("a client started before: %v; want ErrLossyCommit", err)
	}
	if _, err := segment.New(ctx, s.db, segment.Settings{Tag: "t"}); !errors.Is(err, segment.ErrLossyCommit) {
		t.Errorf("a new client: %v; want ErrLossyCommit", err)
	}
	c, err := segment.New(ctx, s.db, segment.Settings{Tag: "t", AllowLossyCommit: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Next(ctx); err != nil {
		t.Errorf("with AllowLossyCommit: %v", err)
	}
}

// TestSegmentsRefuseLossyCommitMariaDB: the same on MariaDB, whose setting
// is global, so on a server of the test's own: innodb_flush_log_at_trx_commit=2
// is refused, 1 is not, and AllowLossyCommit accepts 2.
func TestSegmentsRefuseLossyCommitMariaDB(t *testing.T) {
	if testing.Short() {
		t.Skip("starts its own server")
	}
	t.Parallel()
	ctx := context.Background()
	s := newSegDB(t, dialect.MySQL, "mysql", testsrv.Database(t, testsrv.NewMariaDB(t)))
	if _, _, err := segment.EnsureTag(ctx, s.db, s.dialect, "", segment.Tag{Tag: "t"}, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := s.db.ExecContext(ctx, "SET GLOBAL innodb_flush_log_at_trx_commit = 2"); err != nil {
		t.Fatal(err)
	}
	if _, err := segment.New(ctx, s.db, segment.Settings{Tag: "t"}); !errors.Is(err, segment.ErrLossyCommit) {
		t.Errorf("flush at commit 2: %v; want ErrLossyCommit", err)
	}
	c, err := segment.New(ctx, s.db, segment.Settings{Tag: "t", AllowLossyCommit: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Next(ctx); err != nil {
		t.Errorf("with AllowLossyCommit: %v", err)
	}
	c.Close()
	if _, err := s.db.ExecContext(ctx, "SET GLOBAL innodb_flush_log_at_trx_commit = 1"); err != nil {
		t.Fatal(err)
	}
	c, err = segment.New(ctx, s.db, segment.Settings{Tag: "t"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Next(ctx); err != nil {
		t.Errorf("flush at commit 1: %v", err)
	}
}
