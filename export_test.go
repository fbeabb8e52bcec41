package shardid

import (
	"context"
	"database/sql"
	"math"
	"time"
)

// Test-only access to the lease's internals, for the external tests.

// AcquireLeaseWithHook is AcquireLease calling beforeClaim before every
// claim statement, so a test can line concurrent acquirers up at the worst
// moment: all have read the table, none has claimed. With unchecked it is
// the broken variant the concurrency tests must catch: it believes every
// claim statement that ran without error, without reading the row back.
func AcquireLeaseWithHook(ctx context.Context, db *sql.DB, s LeaseSettings, beforeClaim func(), unchecked bool) (*Lease, error) {
	return acquire(ctx, db, s, func(l *Lease, ctx context.Context, c candidate) (bool, int64, error) {
		if beforeClaim != nil {
			beforeClaim()
		}
		if !unchecked {
			return l.tryClaim(ctx, c)
		}
		_, err := l.claimStatement(ctx, c)
		return err == nil, c.lastMs, err
	})
}

// LeaseFence returns the generator's fence: the instant it stops drawing
// and the last tick it may draw at.
func LeaseFence(l *Lease) (time.Time, int64) {
	l.gen.mu.Lock()
	defer l.gen.mu.Unlock()
	return l.gen.stopAt, l.gen.capTick
}

// BreakFence is the broken variant the outage tests must catch: a
// generator that keeps drawing whatever its lease says.
func BreakFence(l *Lease) {
	l.gen.mu.Lock()
	defer l.gen.mu.Unlock()
	l.gen.stopAt, l.gen.capTick = time.Unix(1<<40, 0), math.MaxInt64
}

// DropFloor is the broken variant the clock tests must catch: a generator
// that forgets the earlier holders' last tick.
func DropFloor(l *Lease) {
	l.gen.mu.Lock()
	defer l.gen.mu.Unlock()
	l.gen.lastTick, l.gen.seq = -1, 0
}

// BenchNext is BenchmarkNext's loop over any generator: IDs per
// millisecond and the share of the Snowflake ceiling.
var BenchNext = benchNext
