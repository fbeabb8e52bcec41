package bench

// This file measures what an ID costs a client: IDs per second per
// client and database round trips per 1,000 IDs, for any way of drawing
// IDs (a ticket server, a segment allocator, a sequence, an INSERT), run
// by several clients at once against a real server. The project's
// benchmarks use it, each against a baseline measured in the same run.
//
// Round trips are counted on the wire: every connection of a pool opened
// with OpenMySQL or OpenPG is wrapped, and each time the client starts
// writing after it has read (or for the first time) one round trip
// begins. Messages sent without waiting for an answer (a prepared
// statement's close, a pipelined query) do not count twice.

import (
	"context"
	"database/sql"
	"fmt"
	"net"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"

	dsnpkg "github.com/shardid/shardid/internal/dsn"
)

// Counter counts round trips on the connections of one pool.
type Counter struct{ n atomic.Int64 }

// RoundTrips returns the round trips counted since the last Reset.
func (c *Counter) RoundTrips() int64 { return c.n.Load() }

// Reset starts counting from zero.
func (c *Counter) Reset() { c.n.Store(0) }

// conn counts the round trips of one connection; the driver uses a
// connection from one goroutine at a time.
type conn struct {
	net.Conn
	c       *Counter
	writing bool
}

func (k *conn) Write(p []byte) (int, error) {
	if !k.writing {
		k.writing = true
		k.c.n.Add(1)
	}
	return k.Conn.Write(p)
}

func (k *conn) Read(p []byte) (int, error) {
	k.writing = false
	return k.Conn.Read(p)
}

var dialers atomic.Int64

// OpenMySQL opens a go-sql-driver/mysql pool over dsn whose connections
// count round trips.
func OpenMySQL(dsn string) (*sql.DB, *Counter, error) {
	cfg, err := dsnpkg.MySQLConfig(dsn)
	if err != nil {
		return nil, nil, fmt.Errorf("idbench: %w", err)
	}
	return openMySQL(cfg)
}

// openMySQL opens a go-sql-driver/mysql pool with cfg (which it changes)
// whose connections count round trips.
func openMySQL(cfg *mysql.Config) (*sql.DB, *Counter, error) {
	c := &Counter{}
	network := cfg.Net
	name := fmt.Sprintf("idbench%d", dialers.Add(1))
	mysql.RegisterDialContext(name, func(ctx context.Context, addr string) (net.Conn, error) {
		nc, err := (&net.Dialer{}).DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &conn{Conn: nc, c: c}, nil
	})
	cfg.Net = name
	db, err := dsnpkg.PoolMySQL(cfg)
	if err != nil {
		return nil, nil, fmt.Errorf("idbench: %w", err)
	}
	return db, c, nil
}

// OpenPG opens a pgx (database/sql) pool over dsn whose connections count
// round trips.
func OpenPG(dsn string) (*sql.DB, *Counter, error) {
	cfg, err := dsnpkg.PGConfig(dsn)
	if err != nil {
		return nil, nil, fmt.Errorf("idbench: %w", err)
	}
	db, c := openPG(cfg)
	return db, c, nil
}

// openPG opens a pgx (database/sql) pool with a copy of cfg whose
// connections count round trips.
func openPG(cfg *pgx.ConnConfig) (*sql.DB, *Counter) {
	cfg = cfg.Copy()
	c := &Counter{}
	dial := cfg.DialFunc
	cfg.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
		nc, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &conn{Conn: nc, c: c}, nil
	}
	return dsnpkg.PoolPG(cfg), c
}

// Draw returns one ID.
type Draw func(ctx context.Context) (int64, error)

// Result is one run of Drive.
type Result struct {
	// IDs is the number of IDs drawn, by all clients.
	IDs int64
	// Errors is the number of draws that failed (and were not counted).
	Errors int64
	// Elapsed is the wall time of the run.
	Elapsed time.Duration
	// PerClient is IDs per second per client.
	PerClient float64
	// RoundTripsPer1000 is round trips per 1,000 IDs (0 without a Counter).
	RoundTripsPer1000 float64
}

// Drive runs clients goroutines at once, each drawing perClient IDs with
// its own draw (made by newDraw, outside the timed part), and counts the
// round trips on ctr (nil: none). A failed draw is counted in Errors and
// tried again; more failures than IDs asked for end the run with the last
// error.
func Drive(ctx context.Context, clients, perClient int, ctr *Counter, newDraw func() (Draw, error)) (Result, error) {
	draws := make([]Draw, clients)
	for i := range draws {
		d, err := newDraw()
		if err != nil {
			return Result{}, err
		}
		draws[i] = d
	}
	var res Result
	var ids, errs atomic.Int64
	var wg sync.WaitGroup
	var failed atomic.Value
	if ctr != nil {
		ctr.Reset()
	}
	start := time.Now()
	for _, d := range draws {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for got := 0; got < perClient; {
				if _, err := d(ctx); err != nil {
					if ctx.Err() != nil || errs.Add(1) > int64(clients*perClient) {
						failed.Store(err)
						return
					}
					continue
				}
				got++
				ids.Add(1)
			}
		}()
	}
	wg.Wait()
	res.Elapsed = time.Since(start)
	if err, ok := failed.Load().(error); ok {
		return res, err
	}
	res.IDs, res.Errors = ids.Load(), errs.Load()
	res.PerClient = float64(res.IDs) / res.Elapsed.Seconds() / float64(clients)
	if ctr != nil {
		res.RoundTripsPer1000 = float64(ctr.RoundTrips()) * 1000 / float64(res.IDs)
	}
	return res, nil
}

// Samples collects per-round figures by name, in the order first added.
type Samples struct {
	names []string
	by    map[string][]float64
}

// Add records one round's figure for name.
func (s *Samples) Add(name string, v float64) {
	if s.by == nil {
		s.by = map[string][]float64{}
	}
	if _, ok := s.by[name]; !ok {
		s.names = append(s.names, name)
	}
	s.by[name] = append(s.by[name], v)
}

// Names returns the names in the order first added.
func (s *Samples) Names() []string { return s.names }

// Median returns the median of name's figures.
func (s *Samples) Median(name string) float64 { return Median(s.by[name]) }

// Range returns the least and greatest of name's figures.
func (s *Samples) Range(name string) (lo, hi float64) {
	xs := s.by[name]
	if len(xs) == 0 {
		return 0, 0
	}
	return slices.Min(xs), slices.Max(xs)
}
