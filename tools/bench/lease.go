package bench

// This file measures worker-id leases: how long acquiring and
// releasing a node id take on a database, and how fast a generator bound
// to a lease draws next to the same generator without one. The root
// package's benchmarks report these figures; a command that benchmarks a
// user's own database can call the same functions. It needs a database
// with the lease table for Cycle, nothing for Rates.

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"time"

	"github.com/shardid/shardid/lease"
)

// Latency holds the duration of each acquire and each release of Cycle,
// in order.
type Latency struct {
	Acquire, Release []time.Duration
}

// Cycle acquires a lease with s and closes it again, rounds times, and
// returns how long each step took. With a fixed s.Holder every acquire
// after the first takes the holder's released node back (a restart); with
// fresh holders and nothing released it would insert new rows instead.
func Cycle(ctx context.Context, db *sql.DB, s lease.Settings, rounds int) (Latency, error) {
	var lat Latency
	for range rounds {
		start := time.Now()
		l, err := lease.Acquire(ctx, db, s)
		if err != nil {
			return lat, err
		}
		mid := time.Now()
		err = l.Close()
		lat.Acquire, lat.Release = append(lat.Acquire, mid.Sub(start)), append(lat.Release, time.Since(mid))
		if err != nil {
			return lat, err
		}
	}
	return lat, nil
}

// Rate draws from next for d on the real clock and returns IDs per
// millisecond.
func Rate(next func() (int64, error), d time.Duration) (float64, error) {
	n := 0
	start := time.Now()
	for end := start.Add(d); time.Now().Before(end); {
		for range 256 {
			if _, err := next(); err != nil {
				return 0, fmt.Errorf("after %d IDs: %w", n, err)
			}
		}
		n += 256
	}
	return float64(n) / (float64(time.Since(start)) / float64(time.Millisecond)), nil
}

// Rates alternates rounds of d between base and other (base first) and
// returns each one's IDs per millisecond per round, so the two are compared
// under the same load.
func Rates(base, other func() (int64, error), d time.Duration, rounds int) (baseRates, otherRates []float64, err error) {
	for range rounds {
		r, err := Rate(base, d)
		if err != nil {
			return nil, nil, err
		}
		baseRates = append(baseRates, r)
		if r, err = Rate(other, d); err != nil {
			return nil, nil, err
		}
		otherRates = append(otherRates, r)
	}
	return baseRates, otherRates, nil
}

// Median returns the median of xs (the mean of the middle two for an even
// count), or zero for none.
func Median[T ~int64 | ~float64](xs []T) T {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
