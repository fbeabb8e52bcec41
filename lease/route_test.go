package lease_test

import (
	"context"
	"database/sql"
	"errors"
	"testing"

	"github.com/shardid/shardid"
	"github.com/shardid/shardid/lease"
)

// TestLeaseRouteLayout: a leased generator of a layout with route bits
// draws with NextFor under its lease (and stops with it); the table
// records the route bits, so a generator of the same widths without them,
// whose IDs could meet these, is refused the table.
func TestLeaseRouteLayout(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, db *sql.DB) {
		l, err := shardid.ParseLayout("time:41,node:6,seq:12,route:4")
		if err != nil {
			t.Fatal(err)
		}
		held := acquire(t, db, lease.Settings{Generator: shardid.Settings{Layout: l}, RenewEvery: -1})
		g := held.Generator()
		seen := map[int64]bool{}
		for k := int64(-5000); k < 5000; k++ {
			id, err := g.NextFor(k * 1820)
			if err != nil {
				t.Fatal(err)
			}
			p, err := l.Decompose(id)
			if err != nil || seen[id] || p.Shard != held.Node() || p.Route != l.RouteOf(k*1820) {
				t.Fatalf("NextFor(%d) = %d: %+v, %v (or a repeat); want node %d, route %d", k*1820, id, p, err, held.Node(), l.RouteOf(k*1820))
			}
			seen[id] = true
		}
		noRoute := l
		noRoute.RouteBits = 0
		_, err = lease.Acquire(context.Background(), db, lease.Settings{Generator: shardid.Settings{Layout: noRoute}})
		if !errors.Is(err, lease.ErrLayoutMismatch) {
			t.Fatalf("a generator without the route bits on the same table: %v; want ErrLayoutMismatch", err)
		}
		if err := held.Close(); err != nil {
			t.Fatal(err)
		}
		if _, err := g.NextFor(1); !errors.Is(err, lease.ErrClosed) {
			t.Fatalf("NextFor after Close: %v; want ErrLeaseClosed", err)
		}
	})
}
