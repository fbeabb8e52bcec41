package lease

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/shardid/shardid/dialect"
)

// Renew extends the lease now: it checks the clock against the database's,
// then records in the table that this holder may draw up to the tick of
// (now + TTL), and extends the lease to TTL from the database's now. On
// success the generator may draw until TTL-Margin after the moment the
// renewal was sent, by the local monotonic clock. The lease renews itself
// in the background (Settings.RenewEvery); call Renew to renew sooner
// or when background renewal is off.
//
// A renewal matches the lease's row only as this holder last left it: its
// token, and the count of writes to the row that this holder's own writes
// account for. A row that went back to an older state (the table restored
// from an older copy), was edited, fenced (Fence) or taken over
// matches nothing, and the generator stops at once.
//
// A failed renewal leaves the generator drawing until the last successful
// one runs out. Renew returns an error wrapping ErrClockSkew,
// ErrLossyCommit, ErrLost (the row is no longer this holder's: the
// generator has stopped for good; with ErrRewound too when something other
// than a holder changed it), ErrClosed, or the database's own error.
func (l *Lease) Renew(ctx context.Context) error {
	l.renewMu.Lock()
	defer l.renewMu.Unlock()
	l.mu.Lock()
	state, lostErr, prevSent := l.state, l.lostErr, l.lastSent
	l.mu.Unlock()
	if state != leaseLive {
		return l.stateError(state, lostErr)
	}
	sent := l.clock()
	l.mu.Lock()
	l.inflight = sent
	l.mu.Unlock()
	defer func() {
		l.mu.Lock()
		l.inflight = time.Time{}
		l.mu.Unlock()
	}()
	if err := l.checkSkew(ctx, sent); err != nil {
		l.renewFailed(err, !errors.Is(err, ErrClockSkew))
		return err
	}
	capTick := min(l.layout.MaxTicks(), l.tickAtMs(sent.Add(l.s.TTL).UnixMilli()))
	drawnMs := l.layout.TickTime(capTick+1).UnixMilli() - 1 // the last ms of capTick
	writes, matched, err := l.renewRow(ctx, drawnMs)
	if err != nil {
		l.unsure++ // it may have committed
		err = fmt.Errorf("lease: renew node %d: %w", l.node, err)
		l.renewFailed(err, true)
		return err
	}
	if !matched {
		return l.unmatched(ctx, sent)
	}
	l.writes, l.unsure = writes, 0
	var evs []Event
	l.mu.Lock()
	if l.state == leaseLive {
		if l.renewals > 0 && !l.stopNoted && !sent.Before(l.stopAt) {
			// Drawing stopped before this renewal, and no failed one
			// said so: say it now.
			evs = append(evs, Event{Kind: Expired, Node: l.node, Time: sent, Age: sent.Sub(prevSent), Err: l.fenceError(sent)})
		}
		if stop := sent.Add(l.s.TTL - l.s.Margin); stop.After(l.stopAt) {
			l.stopAt = stop
		}
		l.capTick = max(l.capTick, capTick)
		l.lastSent, l.renewErr, l.stopNoted = sent, nil, false
		l.renewals++
		now := l.clock()
		if l.down {
			l.down = false
			evs = append(evs, Event{Kind: DatabaseUp, Node: l.node, Time: now, Outage: now.Sub(l.downSince)})
		}
		evs = append(evs, Event{Kind: Renewed, Node: l.node, Time: now, Age: sent.Sub(prevSent), Took: now.Sub(sent)})
	}
	l.mu.Unlock()
	l.emit(evs...)
	return nil
}

// renewRow runs the renewal statement and returns the row's new write
// count, or matched false when it matched no row.
func (l *Lease) renewRow(ctx context.Context, drawnMs int64) (writes int64, matched bool, err error) {
	lo, hi := l.writes, l.writes+l.unsure
	if l.trustRow {
		lo, hi = math.MinInt64, math.MaxInt64
	}
	args := []any{l.s.TTL.Microseconds(), drawnMs, l.node, l.token, lo, hi}
	if l.s.Dialect == dialect.Postgres {
		err := l.db.QueryRowContext(ctx, l.q.renew, args...).Scan(&writes)
		if errors.Is(err, sql.ErrNoRows) {
			return 0, false, nil
		}
		return writes, err == nil, err
	}
	res, err := l.db.ExecContext(ctx, l.q.renew, args...)
	if err != nil {
		return 0, false, err
	}
	n, err := res.RowsAffected()
	if err != nil || n == 0 {
		return 0, false, err
	}
	writes, err = res.LastInsertId()
	return writes, err == nil, err
}

// unmatched handles a renewal, sent at sent, that matched no row: a server
// that may lose acknowledged commits is a failed renewal; anything else
// means the row is not this holder's any more, and the lease is lost, for
// the reason the row tells.
func (l *Lease) unmatched(ctx context.Context, sent time.Time) error {
	var durable bool
	var settings string
	var token, holder sql.NullString
	var writes sql.NullInt64
	var live sql.NullBool
	err := l.db.QueryRowContext(ctx, l.q.state, l.node).Scan(&durable, &settings, &token, &writes, &holder, &live)
	if err == nil && !durable && !l.s.AllowLossyCommit && l.s.Dialect != dialect.TiDB {
		err = fmt.Errorf("lease: renew node %d: %w", l.node, &dialect.LossyCommitError{Settings: settings, Consequence: leaseLossyConsequence})
		l.renewFailed(err, false)
		return err
	}
	l.mu.Lock()
	lastSent := l.lastSent
	l.mu.Unlock()
	// The last write this holder saw answered set the lease's end at least
	// TTL after it was sent, by the database's clock: before TTL-Margin has
	// passed since, no other holder may have taken the node.
	ended := l.clock().Sub(lastSent) >= l.s.TTL-l.s.Margin
	var cause error
	switch {
	case err != nil:
		cause = fmt.Errorf("%w: its renewal matched no row, and reading the row to say why failed: %w", ErrLost, err)
	case !token.Valid:
		cause = fmt.Errorf("%w and %w: its row is gone from the lease table (deleted, or the table restored from a copy made before this node was leased)", ErrLost, ErrRewound)
	case token.String == fenceToken:
		cause = fmt.Errorf("%w: an operator fenced every node of the table (shardid worker fence), as after a restore of it", ErrLost)
	case token.String == l.token && writes.Int64 < l.writes:
		cause = fmt.Errorf("%w and %w: its row went back to an older state (write %d; this holder had made it write %d): the table was restored from an older copy", ErrLost, ErrRewound, writes.Int64, l.writes)
	case token.String == l.token:
		cause = fmt.Errorf("%w and %w: its row was changed by something other than this holder (write %d; this holder expected %d to %d): edited by hand?", ErrLost, ErrRewound, writes.Int64, l.writes, l.writes+l.unsure)
	case !ended:
		cause = fmt.Errorf("%w and %w: holder %q has its row although this holder's lease, last renewed %s ago, had not ended: the table was restored from an older copy or edited by hand", ErrLost, ErrRewound, holder.String, l.clock().Sub(lastSent).Round(time.Millisecond))
	default:
		cause = fmt.Errorf("%w: its lease ended unrenewed (last renewed %s ago) and holder %q took it", ErrLost, l.clock().Sub(lastSent).Round(time.Millisecond), holder.String)
	}
	return l.lose(cause)
}

// lose stops the generator for good for cause (wrapping ErrLost) and
// returns the error Renew and Next report from then on.
func (l *Lease) lose(cause error) error {
	l.mu.Lock()
	if l.state != leaseLive {
		state, lostErr := l.state, l.lostErr
		l.mu.Unlock()
		return l.stateError(state, lostErr)
	}
	l.state, l.lostErr, l.stopAt = leaseLost, cause, time.Time{}
	err := l.stateError(leaseLost, cause)
	now := l.clock()
	l.mu.Unlock()
	l.emit(Event{Kind: Lost, Node: l.node, Time: now, Err: err})
	return err
}

// renewFailed records a failed renewal: its error for the generator's
// messages, the database down when dbDown (the error is the database's),
// and a Expired event once the generator has stopped drawing for want
// of a renewal.
func (l *Lease) renewFailed(err error, dbDown bool) {
	var evs []Event
	l.mu.Lock()
	l.renewErr = err
	l.failures++
	now := l.clock()
	if dbDown && !l.down {
		l.down, l.downSince = true, now
		evs = append(evs, Event{Kind: DatabaseDown, Node: l.node, Time: now, Err: err})
	}
	if l.state == leaseLive && !l.stopNoted && !now.Before(l.stopAt) {
		l.stopNoted = true
		evs = append(evs, Event{Kind: Expired, Node: l.node, Time: now, Age: now.Sub(l.lastSent), Err: l.fenceError(now)})
	}
	l.mu.Unlock()
	l.emit(evs...)
}

// stateError explains a lease that is no longer live; cause is why it was
// lost.
func (l *Lease) stateError(s leaseState, cause error) error {
	if s == leaseLost {
		if cause == nil {
			cause = ErrLost
		}
		return fmt.Errorf("lease: node %d in %s: %w; this generator has stopped", l.node, l.s.Table, cause)
	}
	return fmt.Errorf("lease: node %d in %s: %w", l.node, l.s.Table, ErrClosed)
}

// allow is the generator's fence (Settings.Fence): it lets the generator
// draw at tick, the clock reading now, while the last renewal covers both,
// and records the tick as drawn at; else it returns why not (fenceError).
func (l *Lease) allow(now time.Time, tick int64) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if tick > l.capTick || !now.Before(l.stopAt) {
		return l.fenceError(now)
	}
	l.drawn = max(l.drawn, tick)
	return nil
}

// fenceError explains why the generator may not draw at now: the lease is
// no longer live, the monotonic deadline of the last renewal has passed
// (the renewals failed, or the process was paused), or else the clock
// reads past the last tick the table allows. l.mu is held.
func (l *Lease) fenceError(now time.Time) error {
	if l.state != leaseLive {
		return l.stateError(l.state, l.lostErr)
	}
	if !now.Before(l.stopAt) {
		why := "; no renewal has failed since: the process was paused or starved of CPU past it"
		switch {
		case l.renewErr != nil && !errors.Is(l.renewErr, context.DeadlineExceeded):
			why = "; last renewal error: " + l.renewErr.Error()
		case !l.inflight.IsZero() && l.inflight.Before(now):
			why = fmt.Sprintf("; a renewal sent %s ago has had no answer yet: the database is hung or slow", now.Sub(l.inflight).Round(time.Millisecond))
		case l.renewErr != nil:
			why = "; the last renewal had no answer in time: the database is hung or slow (" + l.renewErr.Error() + ")"
		}
		return fmt.Errorf("lease: node %d: %w: the last successful renewal was sent %s ago; drawing stops %s after it, %s before the lease could end%s",
			l.node, ErrExpired, now.Sub(l.lastSent).Round(time.Millisecond), l.s.TTL-l.s.Margin, l.s.Margin, why)
	}
	why := ""
	if l.renewErr != nil {
		why = "; last renewal error: " + l.renewErr.Error()
	}
	return fmt.Errorf("lease: node %d: %w: the clock reads %s, past %s, the latest time the lease table lets this holder draw at, although the monotonic clock says the last renewal was sent only %s ago: the clock jumped forward%s",
		l.node, ErrExpired, now.UTC().Format(time.RFC3339Nano), l.layout.TickTime(l.capTick+1).Add(-time.Millisecond).Format(time.RFC3339Nano), now.Sub(l.lastSent).Round(time.Millisecond), why)
}

// renewLoop renews the lease every RenewEvery, three times as often after
// a failure, until ctx is cancelled or the lease is lost.
func (l *Lease) renewLoop(ctx context.Context) {
	defer close(l.renewDone)
	t := time.NewTimer(l.s.RenewEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		rctx, cancel := context.WithTimeout(ctx, l.s.TTL-l.s.Margin)
		err := l.Renew(rctx)
		cancel()
		switch {
		case errors.Is(err, ErrLost), errors.Is(err, ErrClosed):
			return
		case err != nil:
			t.Reset(l.s.RenewEvery / 3)
		default:
			t.Reset(l.s.RenewEvery)
		}
	}
}
