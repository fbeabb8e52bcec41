package bench_test

import (
	"context"
	"database/sql"
	"sync/atomic"
	"testing"

	"github.com/shardid/shardid/tools/bench"
	"github.com/shardid/shardid/tools/testsrv"
)

// TestRoundTripsCounted: the counter sees what the wire does. A plain
// query is one round trip on either driver; go-sql-driver/mysql sends a
// query with arguments as prepare, execute and close, two round trips (the
// close needs no answer); pgx caches the prepared statement, so after the
// first call one.
func TestRoundTripsCounted(t *testing.T) {
	_, mdsn := testsrv.MariaDBDB(t)
	_, pdsn := testsrv.PGDB(t)
	my, myCtr, err := bench.OpenMySQL(mdsn)
	if err != nil {
		t.Fatal(err)
	}
	defer my.Close()
	pg, pgCtr, err := bench.OpenPG(pdsn)
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close()
	for _, c := range []struct {
		name string
		db   *sql.DB
		ctr  *bench.Counter
		q    string
		args []any
		want int64
	}{
		{"mysql plain", my, myCtr, "SELECT 1", nil, 10},
		{"mysql with an argument", my, myCtr, "SELECT ?", []any{1}, 20},
		{"pgx plain", pg, pgCtr, "SELECT 1", nil, 10},
		{"pgx with an argument", pg, pgCtr, "SELECT $1::int", []any{1}, 10},
	} {
		// One connection throughout: database/sql resets a pooled pgx
		// connection idle for over a second with a ping of its own.
		conn, err := c.db.Conn(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		var v int
		if err := conn.QueryRowContext(context.Background(), c.q, c.args...).Scan(&v); err != nil { // warm the cache
			t.Fatal(err)
		}
		c.ctr.Reset()
		for range 10 {
			if err := conn.QueryRowContext(context.Background(), c.q, c.args...).Scan(&v); err != nil {
				t.Fatal(err)
			}
		}
		conn.Close()
		if got := c.ctr.RoundTrips(); got != c.want {
			t.Errorf("%s: %d round trips for 10 queries, want %d", c.name, got, c.want)
		}
	}
}

// TestDrive: every client draws its share, and the rate and round trips
// are per client and per 1,000 IDs.
func TestDrive(t *testing.T) {
	var n atomic.Int64
	r, err := bench.Drive(context.Background(), 3, 100, nil, func() (bench.Draw, error) {
		return func(context.Context) (int64, error) { return n.Add(1), nil }, nil
	})
	if err != nil || r.IDs != 300 || r.Errors != 0 || r.PerClient <= 0 {
		t.Errorf("%+v, %v", r, err)
	}
	if m := bench.Median([]float64{5, 1, 3, 2}); m != 2.5 {
		t.Errorf("median %v", m)
	}
}
