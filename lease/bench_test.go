package lease_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/shardid/shardid"
	"github.com/shardid/shardid/lease"
	"github.com/shardid/shardid/tools/bench"
)

// The lease benchmarks run against the test servers (CI=true makes a
// missing one fail):
//
//	go test -run '^$' -bench 'LeaseAcquire' -benchtime 200x .
//	go test -run '^$' -bench 'Leased' -benchtime 2s .
//	go test -run '^$' -bench 'LeasedVsPlain' -benchtime 9x .

// BenchmarkLeaseAcquire measures acquiring and releasing a node id per
// database: "restart" takes the holder's released node back (an UPDATE),
// "new" claims a node nobody leased before (an INSERT) and keeps it.
func BenchmarkLeaseAcquire(b *testing.B) {
	ctx := context.Background()
	for _, be := range leaseBackends {
		b.Run(be.name+"/restart", func(b *testing.B) {
			db, _ := be.open(b)
			if _, err := lease.Up(ctx, db, be.dialect, ""); err != nil {
				b.Fatal(err)
			}
			var lat bench.Latency
			for b.Loop() {
				l, err := bench.Cycle(ctx, db, lease.Settings{Holder: "bench", RenewEvery: -1}, 1)
				if err != nil {
					b.Fatal(err)
				}
				lat.Acquire, lat.Release = append(lat.Acquire, l.Acquire...), append(lat.Release, l.Release...)
			}
			b.ReportMetric(float64(bench.Median(lat.Acquire).Microseconds()), "µs/acquire")
			b.ReportMetric(float64(bench.Median(lat.Release).Microseconds()), "µs/release")
		})
		b.Run(be.name+"/new", func(b *testing.B) {
			db, _ := be.open(b)
			if _, err := lease.Up(ctx, db, be.dialect, ""); err != nil {
				b.Fatal(err)
			}
			s := lease.Settings{Generator: shardid.Settings{Layout: shardid.Instagram()}, RenewEvery: -1}
			var acq []time.Duration
			var held []*lease.Lease
			for i := 0; b.Loop(); i++ {
				s.Holder = fmt.Sprintf("bench-%d", i)
				start := time.Now()
				l, err := lease.Acquire(ctx, db, s)
				if err != nil {
					b.Fatal(err)
				}
				acq = append(acq, time.Since(start))
				held = append(held, l)
			}
			b.ReportMetric(float64(bench.Median(acq).Microseconds()), "µs/acquire")
			for _, l := range held {
				l.Close()
			}
		})
	}
}

// leasedGenerator acquires a lease on a fresh PostgreSQL database for a
// benchmark; the database only renews it, drawing never waits for it.
func leasedGenerator(b *testing.B, s lease.Settings) *lease.Lease {
	b.Helper()
	be := leaseBackends[0]
	db, _ := be.open(b)
	if _, err := lease.Up(context.Background(), db, be.dialect, ""); err != nil {
		b.Fatal(err)
	}
	l, err := lease.Acquire(context.Background(), db, s)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { l.Close() })
	return l
}

// BenchmarkLeasedNext is BenchmarkNext with the generator bound to a lease
// that renews itself in the background: IDs per millisecond against the
// 4096 ceiling of a Snowflake node.
func BenchmarkLeasedNext(b *testing.B) {
	benchNext(b, leasedGenerator(b, lease.Settings{}).Generator())
}

// BenchmarkLeasedNextCost is BenchmarkNextCost with a lease: the
// generator's own cost per ID, fence check included, on a clock that moves
// 1µs per reading so the sequence never runs out.
func BenchmarkLeasedNextCost(b *testing.B) {
	var t time.Time // from the first reading: the lease checks it against the database's clock
	clock := func() time.Time {
		if t.IsZero() {
			t = time.Now().Round(0)
		}
		t = t.Add(time.Microsecond)
		return t
	}
	g := leasedGenerator(b, lease.Settings{Generator: shardid.Settings{Clock: clock}, TTL: time.Hour, RenewEvery: -1}).Generator()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := g.Next(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLeasedVsPlain alternates 200ms of a plain generator and 200ms
// of a leased one per iteration on the real clock and reports the medians
// and their ratio, so both see the same load.
func BenchmarkLeasedVsPlain(b *testing.B) {
	leased := leasedGenerator(b, lease.Settings{}).Generator()
	plain, err := shardid.NewGenerator(shardid.Settings{Node: 1})
	if err != nil {
		b.Fatal(err)
	}
	var p, l []float64
	for b.Loop() {
		pr, lr, err := bench.Rates(plain.Next, leased.Next, 200*time.Millisecond, 1)
		if err != nil {
			b.Fatal(err)
		}
		p, l = append(p, pr...), append(l, lr...)
	}
	b.ReportMetric(bench.Median(p), "plain-ids/ms")
	b.ReportMetric(bench.Median(l), "leased-ids/ms")
	b.ReportMetric(bench.Median(l)/bench.Median(p), "leased/plain")
}

// benchNext draws from g on one goroutine for the benchmark's duration and
// reports the rate: IDs per millisecond, and the share of the 4096 a
// Snowflake node may hand out per millisecond (BenchmarkNext's figures).
func benchNext(b *testing.B, g *shardid.Generator) {
	b.ReportAllocs()
	start := time.Now()
	n := 0
	for b.Loop() {
		if _, err := g.Next(); err != nil {
			b.Fatal(err)
		}
		n++
	}
	ms := float64(time.Since(start)) / float64(time.Millisecond)
	b.ReportMetric(float64(n)/ms, "ids/ms")
	b.ReportMetric(100*float64(n)/ms/4096, "%ceiling")
}
