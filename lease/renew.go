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
	state, lostErr, prevSent := l.state, l.lostErr, l.lastSentMono
	l.mu.Unlock()
	if state != leaseLive {
		return l.stateError(state, lostErr)
	}
	sentMono, sent := l.mono(), l.clock() // the deadline counts from before the wall clock is read
	l.mu.Lock()
	l.inflight, l.beatGap, l.lastBeat = sentMono, 0, sentMono
	l.mu.Unlock()
	stopBeat := l.heartbeat(sentMono)
	defer func() {
		stopBeat()
		l.mu.Lock()
		l.inflight, l.beatGap = 0, 0
		l.mu.Unlock()
	}()
	if step := l.steps.check(sent, sentMono); step != 0 {
		l.emit(Event{Kind: ClockStepped, Node: l.node, Time: sent, Step: step})
	}
	if err := l.checkSkew(ctx, sent, sentMono); err != nil {
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
		return l.unmatched(ctx)
	}
	l.writes, l.unsure = writes, 0
	var evs []Event
	l.mu.Lock()
	if l.state == leaseLive {
		if l.renewals > 0 && !l.stopNoted && sentMono >= l.stopAt {
			// Drawing stopped before this renewal, and no failed one
			// said so: say it now.
			evs = append(evs, Event{Kind: Expired, Node: l.node, Time: sent, Age: sentMono - prevSent, Err: l.fenceError(sent, sentMono)})
		}
		l.stopAt = max(l.stopAt, sentMono+l.s.TTL-l.s.Margin)
		l.capTick = max(l.capTick, capTick)
		l.lastSent, l.lastSentMono, l.renewErr, l.stopNoted = sent, sentMono, nil, false
		l.renewals++
		now, nowMono := l.clock(), l.mono()
		if l.down {
			l.down = false
			evs = append(evs, Event{Kind: DatabaseUp, Node: l.node, Time: now, Outage: nowMono - l.downSince})
		}
		evs = append(evs, Event{Kind: Renewed, Node: l.node, Time: now, Age: sentMono - prevSent, Took: nowMono - sentMono})
	}
	l.mu.Unlock()
	l.emit(evs...)
	return nil
}

// heartbeatEvery is how often a lease notes, while a renewal is under
// way, that its process runs: a renewal under way that the heartbeat kept
// up with is the database's delay; one for more than half of whose time
// the heartbeat went unheard is this process's (paused, or starved of
// CPU).
const heartbeatEvery = 25 * time.Millisecond

// unheard is the longest the heartbeat went unheard while the renewal
// under way ran, the time since its last beat included. l.mu is held.
func (l *Lease) unheard(mono time.Duration) time.Duration {
	return max(l.beatGap, mono-l.lastBeat)
}

// heartbeat notes, every heartbeatEvery until stop is called, the
// longest gap between two of its beats since from (beatGap).
func (l *Lease) heartbeat(from time.Duration) (stop func()) {
	quit := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(heartbeatEvery)
		defer t.Stop()
		last := from
		for {
			select {
			case <-quit:
				return
			case <-t.C:
			}
			now := l.mono()
			l.mu.Lock()
			l.beatGap, l.lastBeat = max(l.beatGap, now-last), now
			l.mu.Unlock()
			last = now
		}
	}()
	return func() { close(quit); <-done }
}

// renewRow runs the renewal statement and returns the row's new write
// count, or matched false when it matched no row.
func (l *Lease) renewRow(ctx context.Context, drawnMs int64) (writes int64, matched bool, err error) {
	lo, hi := l.writes, l.writes+l.unsure
	if l.trustRow {
		lo, hi = math.MinInt64, math.MaxInt64
	}
	ttl := l.s.TTL.Microseconds()
	args := []any{ttl, drawnMs, ttl, l.node, l.token, lo, hi}
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

// unmatched handles a renewal that matched no row: a server that may lose
// acknowledged commits is a failed renewal; anything else means the row
// is not this holder's any more, and the lease is lost, for the reason the
// row tells.
func (l *Lease) unmatched(ctx context.Context) error {
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
	lastSent := l.lastSentMono
	l.mu.Unlock()
	// The last write this holder saw answered set the lease's end at least
	// TTL after it was sent, by the database's clock: before TTL-Margin has
	// passed since (by the monotonic clock), no other holder may have taken
	// the node.
	since := l.mono() - lastSent
	ended := since >= l.s.TTL-l.s.Margin
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
		cause = fmt.Errorf("%w and %w: holder %q has its row although this holder's lease, last renewed %s ago, had not ended: the table was restored from an older copy or edited by hand", ErrLost, ErrRewound, holder.String, since.Round(time.Millisecond))
	default:
		cause = fmt.Errorf("%w: its lease ended unrenewed (last renewed %s ago) and holder %q took it", ErrLost, since.Round(time.Millisecond), holder.String)
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
	l.state, l.lostErr, l.stopAt = leaseLost, cause, 0
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
	now, mono := l.clock(), l.mono()
	l.mu.Lock()
	l.renewErr = err
	l.failures++
	if dbDown && !l.down {
		l.down, l.downSince = true, mono
		evs = append(evs, Event{Kind: DatabaseDown, Node: l.node, Time: now, Err: err})
	}
	if l.state == leaseLive && !l.stopNoted && mono >= l.stopAt {
		l.stopNoted = true
		evs = append(evs, Event{Kind: Expired, Node: l.node, Time: now, Age: mono - l.lastSentMono, Err: l.fenceError(now, mono)})
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
// draw at tick, the wall clock reading now, while the last renewal covers
// both (the monotonic clock before stopAt, the tick up to capTick), and
// records the tick as drawn at; else it returns why not (fenceError).
func (l *Lease) allow(now time.Time, tick int64) error {
	mono := l.monoAt(now)
	l.mu.Lock()
	defer l.mu.Unlock()
	if tick > l.capTick || mono >= l.stopAt {
		return l.fenceError(now, mono)
	}
	l.drawn = max(l.drawn, tick)
	return nil
}

// fenceError explains why the generator may not draw at now (mono on the
// monotonic clock): the lease is no longer live, the monotonic deadline
// of the last renewal has passed (the renewals failed, the database did
// not answer one, or the process was paused), or else the wall clock reads
// past the last tick the table allows. l.mu is held.
func (l *Lease) fenceError(now time.Time, mono time.Duration) error {
	if l.state != leaseLive {
		return l.stateError(l.state, l.lostErr)
	}
	since := (mono - l.lastSentMono).Round(time.Millisecond)
	if mono >= l.stopAt {
		return fmt.Errorf("lease: node %d: %w: the last successful renewal was sent %s ago; drawing stops %s after it, %s before the lease could end%s",
			l.node, ErrExpired, since, l.s.TTL-l.s.Margin, l.s.Margin, l.stopCause(mono))
	}
	why := ""
	if l.renewErr != nil {
		why = "; last renewal error: " + l.renewErr.Error()
	}
	return fmt.Errorf("lease: node %d: %w: the clock reads %s, past %s, the latest time the lease table lets this holder draw at, although the monotonic clock says the last renewal was sent only %s ago: the clock jumped forward%s",
		l.node, ErrExpired, now.UTC().Format(time.RFC3339Nano), l.layout.TickTime(l.capTick+1).Add(-time.Millisecond).Format(time.RFC3339Nano), since, why)
}

// stopCause says, for an error, why no renewal succeeded before the
// deadline (stopAt) that mono is past: the last one failed with the
// database's error; one was under way at the deadline and the database has
// not answered it (or did not in time); or the renewals did not run: this
// process was paused or starved of CPU (a renewal under way during which
// the lease's heartbeat went unheard says so too, and one sent only after
// the deadline did not cause the stop). l.mu is held.
func (l *Lease) stopCause(mono time.Duration) string {
	switch {
	case l.renewErr != nil && !errors.Is(l.renewErr, context.DeadlineExceeded):
		return "; last renewal error: " + l.renewErr.Error()
	case l.inflight > 0 && l.unheard(mono) > max(4*heartbeatEvery, (mono-l.inflight)/2):
		return fmt.Sprintf("; the process was paused or starved of CPU for %s while a renewal sent %s ago was under way", l.unheard(mono).Round(time.Millisecond), (mono - l.inflight).Round(time.Millisecond))
	case l.renewErr != nil:
		return "; the last renewal had no answer in time: the database is hung or slow (" + l.renewErr.Error() + ")"
	case l.inflight > 0 && l.inflight < l.stopAt:
		// Under way when drawing stopped: the database's answer is late.
		// (One sent after the stop did not cause it.)
		return fmt.Sprintf("; a renewal sent %s ago has had no answer yet: the database is hung or slow", (mono - l.inflight).Round(time.Millisecond))
	}
	return "; no renewal has failed since: the process was paused or starved of CPU past it"
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
