package lease

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/shardid/shardid"
)

// tickAtMs is the layout's tick at Unix millisecond ms, or -1 before the
// epoch. For a node's last_ms it is the last tick an earlier holder may
// have drawn at.
func (l *Lease) tickAtMs(ms int64) int64 {
	if ms < l.layout.EpochMillis() {
		return -1
	}
	return (ms - l.layout.EpochMillis()) / l.layout.UnitMillis()
}

// waitNeeded returns how long the local clock must advance before it may
// draw on a node whose last_ms is lastMs: until the tick after the last
// one an earlier holder may have drawn at. It returns ErrClockBehind when
// that is more than MaxClockWait.
func (l *Lease) waitNeeded(lastMs int64) (time.Duration, error) {
	floor := l.tickAtMs(lastMs)
	if floor < 0 {
		return 0, nil
	}
	now := l.clock()
	wait := l.layout.TickTime(floor + 1).Sub(now)
	if wait > max(l.s.MaxClockWait, 0) {
		return 0, fmt.Errorf("lease: %w: node ids here were drawn on up to %s by their holders' clocks; the local clock (%s) is %s behind that (allowed wait %s)",
			ErrClockBehind, time.UnixMilli(lastMs).UTC().Format(time.RFC3339Nano), now.UTC().Format(time.RFC3339Nano), wait, max(l.s.MaxClockWait, 0))
	}
	return wait, nil
}

// waitPast sleeps until the local clock is past lastMs's tick, for at most
// MaxClockWait in all, and returns that tick (-1 for none).
func (l *Lease) waitPast(lastMs int64) (int64, error) {
	if l.tickAtMs(lastMs) > l.layout.MaxTicks() {
		return 0, fmt.Errorf("lease: node %d: %w: drawn on up to %s, past the layout's end", l.node, shardid.ErrTimeRange, time.UnixMilli(lastMs).UTC().Format(time.RFC3339Nano))
	}
	var waited time.Duration
	for {
		wait, err := l.waitNeeded(lastMs)
		if err == nil && waited+wait > max(l.s.MaxClockWait, 0) {
			err = fmt.Errorf("lease: node %d: %w: still %s to go after waiting %s (allowed wait %s)", l.node, ErrClockBehind, wait, waited, l.s.MaxClockWait)
		}
		if err != nil || wait <= 0 {
			return l.tickAtMs(lastMs), err
		}
		l.sleep(wait)
		waited += wait
	}
}

// checkSkew compares the local clock, read at before (beforeMono on the
// monotonic clock), with the database's and returns an error wrapping
// ErrClockSkew when they are further apart than MaxClockSkew plus half the
// round trip.
func (l *Lease) checkSkew(ctx context.Context, before time.Time, beforeMono time.Duration) error {
	var dbUs int64
	if err := l.db.QueryRowContext(ctx, l.q.now).Scan(&dbUs); err != nil {
		return fmt.Errorf("lease: read the database's clock (is the database reachable?): %w", err)
	}
	half := (l.mono() - beforeMono) / 2
	skew := time.UnixMicro(dbUs).Sub(before.Add(half)) // > 0: the local clock is behind
	if skew.Abs()-half > l.s.MaxClockSkew {
		way := "behind"
		if skew < 0 {
			way = "ahead of"
		}
		return fmt.Errorf("lease: %w: the local clock is %s %s the database's (±%s round trip; allowed %s)",
			ErrClockSkew, skew.Abs(), way, half, l.s.MaxClockSkew)
	}
	return nil
}

// The lease's clocks. The wall clock (Settings.Generator.Clock) is what
// IDs carry and what the lease table records for other holders (last_ms);
// it is compared with the database's at every renewal. Every decision of
// when (how long a renewal lets the generator draw, whether a lease could
// have ended, how long a renewal has been under way) is taken on the
// monotonic clock, which no step of the wall clock moves; a step of the
// wall clock is reported (ClockStepped).

// monoBase anchors the monotonic clock: a reading of time.Now, which
// carries the runtime's monotonic reading.
var monoBase = time.Now()

// monoNow is the monotonic clock: how long since monoBase.
func monoNow() time.Duration { return time.Since(monoBase) }

// Steps of the wall clock smaller than stepMin plus 1/stepRate of the
// monotonic time between two renewals are not reported: the two readings
// are not taken at one instant, and NTP slews a clock by up to 500 ppm
// without stepping it.
const (
	stepMin  = 10 * time.Millisecond
	stepRate = 1000
)

// stepWatch finds steps of a wall clock against the monotonic clock.
type stepWatch struct {
	mu   sync.Mutex
	wall time.Time     // the wall reading at the last check (no monotonic reading)
	mono time.Duration // the monotonic reading then
	set  bool
}

// check compares a wall reading with a monotonic one taken with it and
// returns how far the wall clock stepped since the last check (forward
// positive, back negative), or 0 for none.
func (w *stepWatch) check(wall time.Time, mono time.Duration) time.Duration {
	wall = wall.Round(0) // the wall reading alone
	w.mu.Lock()
	defer w.mu.Unlock()
	prevWall, prevMono, set := w.wall, w.mono, w.set
	w.wall, w.mono, w.set = wall, mono, true
	if !set {
		return 0
	}
	elapsed := mono - prevMono
	step := wall.Sub(prevWall) - elapsed
	if step.Abs() <= stepMin+elapsed/stepRate {
		return 0
	}
	return step
}

// monoAt is the monotonic time of now, a reading of the lease's wall clock
// just taken: from now's own monotonic reading when the clock is
// time.Now's (no second clock read), else from the lease's monotonic clock.
func (l *Lease) monoAt(now time.Time) time.Duration {
	if l.monoOfNow {
		return now.Sub(monoBase)
	}
	return l.mono()
}
