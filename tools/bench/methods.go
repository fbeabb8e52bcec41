package bench

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"sync/atomic"

	"github.com/shardid/shardid/dialect"
	"github.com/shardid/shardid/lease"
	"github.com/shardid/shardid/segment"
	"github.com/shardid/shardid/tickets"
)

// Method is one way to get IDs, measured by Run.
type Method struct {
	// Name names the method in results.
	Name string
	// IDs is the number of IDs each client draws per run.
	IDs int
	// Vs names the method whose rate this one's is compared with; ""
	// means the first method of the list it is in.
	Vs string
	// New makes one client's draw and what to close after the run; it runs
	// outside the timed part.
	New func(ctx context.Context) (Draw, io.Closer, error)
}

// Run drives m with clients clients at once (Drive), counting round trips
// on ctr (nil: none), closes what m.New made, and returns the result and
// how many of the IDs drawn, across all clients, repeated an earlier one.
func (m Method) Run(ctx context.Context, clients int, ctr *Counter) (Result, int64, error) {
	// Drive calls the constructor once per client, before any draw.
	var closers []io.Closer
	var drawn [][]int64 // per client, by its index
	defer func() {
		for _, c := range closers {
			c.Close()
		}
	}()
	r, err := Drive(ctx, clients, m.IDs, ctr, func() (Draw, error) {
		d, c, err := m.New(ctx)
		if err != nil {
			return nil, err
		}
		closers = append(closers, c)
		i := len(drawn)
		drawn = append(drawn, make([]int64, 0, m.IDs))
		return func(ctx context.Context) (int64, error) {
			id, err := d(ctx)
			if err == nil {
				drawn[i] = append(drawn[i], id)
			}
			return id, err
		}, nil
	})
	if err != nil {
		return r, 0, fmt.Errorf("%s: %w", m.Name, err)
	}
	return r, int64(Repeats(drawn...)), nil
}

// Repeats counts the IDs that occur more than once across all lists (an
// ID seen k times counts k-1).
func Repeats(lists ...[]int64) int {
	n := 0
	for _, l := range lists {
		n += len(l)
	}
	seen := make(map[int64]struct{}, n)
	repeats := 0
	for _, l := range lists {
		for _, id := range l {
			if _, ok := seen[id]; ok {
				repeats++
			}
			seen[id] = struct{}{}
		}
	}
	return repeats
}

// nopCloser closes nothing.
type nopCloser struct{}

func (nopCloser) Close() error { return nil }

// ExecLastID draws with an INSERT or UPDATE whose OK packet carries the ID
// (MySQL family: LAST_INSERT_ID).
func ExecLastID(db *sql.DB, q string) func(context.Context) (Draw, io.Closer, error) {
	return func(context.Context) (Draw, io.Closer, error) {
		return func(ctx context.Context) (int64, error) {
			res, err := db.ExecContext(ctx, q)
			if err != nil {
				return 0, err
			}
			return res.LastInsertId()
		}, nopCloser{}, nil
	}
}

// QueryID draws with a statement that returns the ID as a row.
func QueryID(db *sql.DB, q string) func(context.Context) (Draw, io.Closer, error) {
	return func(context.Context) (Draw, io.Closer, error) {
		return func(ctx context.Context) (int64, error) {
			var id int64
			err := db.QueryRowContext(ctx, q).Scan(&id)
			return id, err
		}, nopCloser{}, nil
	}
}

// SegmentDraws draws from a Segments client of the client's own, as a
// separate process would: it starts at the tag's step and adapts.
func SegmentDraws(db *sql.DB, s segment.Settings) func(context.Context) (Draw, io.Closer, error) {
	return func(ctx context.Context) (Draw, io.Closer, error) {
		c, err := segment.New(ctx, db, s)
		if err != nil {
			return nil, nil, err
		}
		return c.Next, c, nil
	}
}

// SegmentTag applies the allocation table table ("" for the default) and
// creates tag with step 1000, for SegmentDraws.
func SegmentTag(ctx context.Context, db *sql.DB, d dialect.Dialect, table, tag string) error {
	if _, err := segment.Up(ctx, db, d, table); err != nil {
		return err
	}
	_, _, err := segment.EnsureTag(ctx, db, d, table, segment.Tag{Tag: tag}, 0)
	return err
}

// TicketDraws draws from a tickets client over one server.
func TicketDraws(db *sql.DB, name string) func(context.Context) (Draw, io.Closer, error) {
	return func(ctx context.Context) (Draw, io.Closer, error) {
		c, err := tickets.NewClient(ctx, []tickets.Server{{Name: "bench", DB: db}}, tickets.Settings{Name: name})
		if err != nil {
			return nil, nil, err
		}
		return c.Next, nopCloser{}, nil
	}
}

// LeasedDraws draws from an app-side generator whose node id each client
// leases for itself from the lease table of s (holder name holder, a
// number appended per client), as separate processes would; the lease is
// released after the run. Drawing asks the database nothing: only the
// lease's background renewals make round trips.
func LeasedDraws(db *sql.DB, s lease.Settings, holder string) func(context.Context) (Draw, io.Closer, error) {
	var n atomic.Int64
	return func(ctx context.Context) (Draw, io.Closer, error) {
		ls := s
		ls.Holder = fmt.Sprintf("%s-%d", holder, n.Add(1))
		l, err := lease.Acquire(ctx, db, ls)
		if err != nil {
			return nil, nil, err
		}
		return func(context.Context) (int64, error) { return l.Next() }, l, nil
	}
}
