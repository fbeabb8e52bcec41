package lease

import (
	"context"
	"fmt"
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

// checkSkew compares the local clock, read at before, with the database's
// and returns an error wrapping ErrClockSkew when they are further apart
// than MaxClockSkew plus half the round trip.
func (l *Lease) checkSkew(ctx context.Context, before time.Time) error {
	var dbUs int64
	if err := l.db.QueryRowContext(ctx, l.q.now).Scan(&dbUs); err != nil {
		return fmt.Errorf("lease: read the database's clock (is the database reachable?): %w", err)
	}
	after := l.clock()
	half := after.Sub(before) / 2
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
