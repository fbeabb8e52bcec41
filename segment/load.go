package segment

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/shardid/shardid/dialect"
)

// pastThreshold reports whether Threshold of the current segment is used.
func (c *Segments) pastThreshold() bool {
	return float64(c.cur.used) >= c.set.Threshold*float64(c.cur.size)
}

// startLoad starts taking the next segment in the background. c.mu is held.
func (c *Segments) startLoad() {
	done := make(chan struct{})
	c.loading = done
	now := c.mono()
	if c.stats.Loads > 0 {
		c.step = nextStep(c.step, now-c.loadedAt, c.set.MinStep, c.set.MaxStep, c.set.TargetInterval)
	}
	step, high := c.step, c.high
	go func() {
		defer close(done)
		start := c.mono()
		last, size, err := c.take(step, high)
		took := c.mono() - start
		if err == nil && !c.trust && last-size+1 <= high {
			// The statement cannot do this; a table without the
			// statement's condition (a broken take) can.
			err = c.fence(c.ctx, high)
			if err == nil {
				err = fmt.Errorf("%w: tag %s: the table handed out %d-%d, not above %d, the highest ID this client took", ErrRewound, c.set.Tag, last-size+1, last, high)
			}
		}
		if err == nil {
			err = c.noteTaken(last, size)
		}
		if err == nil {
			if err = c.noteRecord(last); err != nil {
				c.mu.Lock()
				c.stats.Discarded += size
				c.mu.Unlock()
			}
		}
		c.noteDatabase(err)
		var evs []Event
		c.mu.Lock()
		if err != nil {
			c.lastErr, c.failedAt = err, c.mono()
			c.stats.Failures++
			if refusal(err) && (c.refusal == nil || c.refusal.Error() != err.Error()) && c.ctx.Err() == nil {
				evs = append(evs, Event{Kind: LoadRefused, Tag: c.set.Tag, Time: c.clock(), Err: err})
			}
			if refusal(err) {
				c.refusal = err
			}
		} else {
			c.refusal = nil
			c.lastErr, c.loadedAt = nil, now
			c.stats.Loads++
			seg := seg{first: last - size + 1, size: size}
			c.next = &seg
			evs = append(evs, Event{Kind: Loaded, Tag: c.set.Tag, Time: c.clock(), First: seg.first, Last: last, Step: size, Took: took})
		}
		c.loading = nil
		c.mu.Unlock()
		c.emit(evs...)
	}()
}

// takeDB runs one allocation for step IDs and returns the segment's last
// ID and its size. When max_id + step would pass the largest bigint, it
// takes what the tag has left instead (a grown step must not strand the
// last IDs), and once nothing is left it says the tag's ID space is used
// up instead of the server's overflow error.
func (c *Segments) takeDB(step, high int64) (last, size int64, err error) {
	ctx, cancel := context.WithTimeout(c.ctx, c.set.AllocTimeout)
	defer cancel()
	last, err = c.allocate(ctx, step, high)
	if err == nil || ctx.Err() != nil || errors.Is(err, ErrRewound) {
		return last, step, err
	}
	t, terr := c.view.getTag(ctx, c.db, c.set.Tag)
	if terr != nil || t.MaxID <= math.MaxInt64-step {
		return 0, 0, err // not the end of the ID space
	}
	if left := math.MaxInt64 - t.MaxID; left > 0 {
		last, err := c.allocate(ctx, left, high)
		if err == nil {
			return last, left, nil
		}
		// Used up only if another client took them first; any other
		// failure (the server gone, say) is the failure.
		if t, terr = c.view.getTag(ctx, c.db, c.set.Tag); terr != nil || t.MaxID < math.MaxInt64 {
			return 0, 0, err
		}
	}
	return 0, 0, fmt.Errorf("%w: IDs handed out up to %d, and a segment of %d more would pass %d, the largest ID", ErrIDSpaceUsedUp, t.MaxID, step, int64(math.MaxInt64))
}

// allocate runs the allocation statement for step IDs above high and
// returns the segment's last ID.
func (c *Segments) allocate(ctx context.Context, step, high int64) (int64, error) {
	var last int64
	args := []any{step, c.set.Tag, high}
	if c.view.Recorded {
		args = append(args, c.set.Tag)
	}
	if c.view.Dialect == dialect.Postgres {
		err := c.alloc.QueryRowContext(ctx, args...).Scan(&last)
		if errors.Is(err, sql.ErrNoRows) {
			return 0, c.explain(ctx, high)
		}
		return last, err
	}
	res, err := c.alloc.ExecContext(ctx, args...)
	if err != nil {
		return 0, err
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		return 0, c.explain(ctx, high)
	}
	return res.LastInsertId()
}

// noteTaken raises the client's memory to last, the end of a segment of
// size IDs just taken. When the client found the tag fenced while the
// statement ran (it was taken from the table before the restore, or after
// a resume), it reports last to the table, so a resume moves past it too,
// and keeps refusing while the tag is fenced. If the report fails, the
// segment is dropped unused (counted as discarded) and the error returned:
// a resume that knew nothing of it could hand its IDs out again.
func (c *Segments) noteTaken(last, size int64) error {
	c.mu.Lock()
	c.high = max(c.high, last)
	refused := c.refused
	c.mu.Unlock()
	if refused == nil {
		return nil
	}
	err := c.view.report(c.ctx, c.db, c.set.Tag, last)
	var t Tag
	if err == nil {
		t, err = c.view.getTag(c.ctx, c.db, c.set.Tag)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err != nil {
		c.stats.Discarded += size
		return err
	}
	if !t.Fenced {
		c.refused = nil // resumed
	}
	return nil
}

// refusal reports whether err is a load the package refused though the
// database answered, other than a rewind (which has its own event).
func refusal(err error) bool {
	return errors.Is(err, ErrLossyCommit) || errors.Is(err, ErrUnknownTag) || errors.Is(err, ErrTagCase) || errors.Is(err, ErrIDSpaceUsedUp)
}

// nextStep is the size of the next segment when the previous one, of size
// step, lasted lasted: doubled when it lasted less than target, halved when
// it lasted 2×target or more, else the same; always within [lo, hi].
func nextStep(step int64, lasted time.Duration, lo, hi int64, target time.Duration) int64 {
	switch {
	case lasted < target && step > hi/2:
		step = hi
	case lasted < target:
		step *= 2
	case lasted >= 2*target:
		step /= 2
	}
	return max(lo, min(step, hi))
}
