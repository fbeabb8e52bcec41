package lease

import (
	"context"
	"database/sql"
	"math"
	"time"

	"github.com/shardid/shardid"
)

// Test-only access to the lease's internals, for the external tests.

// AcquireWithHook is Acquire calling beforeClaim before every
// claim statement, so a test can line concurrent acquirers up at the worst
// moment: all have read the table, none has claimed. With unchecked it is
// the broken variant the concurrency tests must catch: it believes every
// claim statement that ran without error, without reading the row back.
func AcquireWithHook(ctx context.Context, db *sql.DB, s Settings, beforeClaim func(), unchecked bool) (*Lease, error) {
	return acquire(ctx, db, s, func(l *Lease, ctx context.Context, c candidate) (bool, claimed, error) {
		if beforeClaim != nil {
			beforeClaim()
		}
		if !unchecked {
			return l.tryClaim(ctx, c)
		}
		if _, err := l.claimStatement(ctx, c); err != nil {
			return false, claimed{}, err
		}
		_, row, err := l.readBack(ctx, c.node) // the row's counts, whoever's token it holds
		return err == nil, row, err
	}, nil)
}

// AcquireOnClock is Acquire taking the lease's decisions of when (how long
// a renewal lets the generator draw, whether the lease could have ended)
// on mono instead of the runtime's monotonic clock, so that a test drives
// both of the holder's clocks: the wall clock (Settings.Generator.Clock)
// and this one.
func AcquireOnClock(ctx context.Context, db *sql.DB, s Settings, mono func() time.Duration) (*Lease, error) {
	return acquire(ctx, db, s, (*Lease).tryClaim, mono)
}

// DrawFence returns the generator's fence: the monotonic reading at which
// it stops drawing and the last tick it may draw at.
func DrawFence(l *Lease) (time.Duration, int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.stopAt, l.capTick
}

// BreakFence is the broken variant the outage tests must catch: a
// generator that keeps drawing whatever its lease says.
func BreakFence(l *Lease) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.stopAt, l.capTick = math.MaxInt64, math.MaxInt64
}

// TrustRow is the broken variant the restore tests must catch: a holder
// that renews on its token alone, without the row's write count, so a row
// restored from an older copy with its token goes unnoticed.
func TrustRow(l *Lease) {
	l.renewMu.Lock()
	defer l.renewMu.Unlock()
	l.trustRow = true
}

// DropFloor is the broken variant the clock tests must catch: a generator
// that forgets the earlier holders' last tick. It replaces the lease's
// generator with one made without Settings.LastDrawn, behind the same
// fence.
func DropFloor(l *Lease) {
	gs := l.s.Generator
	gs.Node, gs.Clock, gs.Fence = l.node, l.clock, l.allow
	g, err := shardid.NewGenerator(gs)
	if err != nil {
		panic(err)
	}
	l.gen = g
}
