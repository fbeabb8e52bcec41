package segment

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"time"
)

// explain says why the allocation matched no row: the tag is gone, the
// guard refused the server's commit settings, or the tag is fenced or
// below high, the highest ID this client took, or below the tag's record
// (either fences it).
func (c *Segments) explain(ctx context.Context, high int64) error {
	if err := c.view.explain(ctx, c.db, c.set.Tag); err != nil {
		if errors.Is(err, ErrUnknownTag) && !c.noRecord {
			return c.missing(ctx, err)
		}
		return err
	}
	c.found()
	t, err := c.view.getTag(ctx, c.db, c.set.Tag)
	if err != nil {
		return err
	}
	if c.view.Recorded {
		// The allocation refuses a row below the tag's record too: the
		// allocation table was restored without the record table.
		if rec, _, err := c.view.record(ctx, c.db, c.set.Tag); err == nil {
			high = max(high, rec)
		}
	}
	if t.Fenced || t.MaxID < high {
		return c.fence(ctx, high)
	}
	return errors.New("allocation matched no row, yet the tag exists, is not fenced, and commits are durable")
}

// fence handles a tag found fenced, or below high, the highest ID this
// client took: it records in the table what the client took (fencing the
// tag if it was not yet), reads the row back, drops the buffered IDs at
// or below its max_id (the restored table may have handed them out again
// before the fence; IDs above it nobody took since), and returns the error
// wrapping ErrRewound that Next reports until a load succeeds. It returns
// nil when the row is neither fenced nor below high any more (a resume
// came first).
func (c *Segments) fence(ctx context.Context, high int64) error {
	c.mu.Lock()
	refused := c.refused
	high = max(high, c.high) // a load may have raised it since high was read
	c.mu.Unlock()
	if refused != nil {
		return refused // reported and dropped already
	}
	if high != math.MinInt64 {
		if err := c.view.report(ctx, c.db, c.set.Tag, high); err != nil {
			return err
		}
	}
	t, err := c.view.getTag(ctx, c.db, c.set.Tag)
	if err != nil {
		return err
	}
	if !t.Fenced && t.MaxID >= high {
		return nil
	}
	err = rewoundError(c.set.Tag, t, high)
	c.mu.Lock()
	if c.refused != nil { // another goroutine got here first
		c.mu.Unlock()
		return c.refused
	}
	c.refused = err
	// A load that took its segment from the table before the restore and
	// noted it (raising c.high) while this fence was under way saw no
	// refusal and reported nothing: report what it took too, so that a
	// resume moves past it.
	later := c.high
	c.stats.Rewinds++
	lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
	var n int64
	for _, s := range []*seg{&c.cur, c.next} {
		if s == nil || s.left() == 0 || s.first+s.used > t.MaxID {
			continue
		}
		lo, hi = min(lo, s.first+s.used), max(hi, min(t.MaxID, s.last()))
		n += s.dropThrough(t.MaxID)
	}
	c.stats.Discarded += n
	evs := []Event{{Kind: Rewound, Tag: c.set.Tag, Time: c.clock(), Seen: high, Found: t.MaxID, Err: err}}
	if n > 0 {
		evs = append(evs, Event{Kind: Discarded, Tag: c.set.Tag, Time: c.clock(), First: lo, Last: hi, Count: n, Err: err})
	}
	c.mu.Unlock()
	if later > high {
		// Best effort: if this fails, the record table (raised after each
		// load) still holds what the load took, and a resume moves past it.
		_ = c.view.report(ctx, c.db, c.set.Tag, later)
	}
	c.emit(evs...)
	return err
}

// report fences tag when its max_id is below high, the highest ID a
// client took, or it is fenced already, and records high for resume.
func (v segmentView) report(ctx context.Context, db *sql.DB, tag string, high int64) error {
	q, err := v.render("report")
	if err != nil {
		return err
	}
	if _, err := db.ExecContext(ctx, q, high, tag, high); err != nil {
		return fmt.Errorf("segments %s: record a rewind: %w", tag, err)
	}
	return nil
}

// rewoundError describes tag t, fenced or below high (the highest ID the
// client took, or math.MinInt64), as New and Next report it.
func rewoundError(tag string, t Tag, high int64) error {
	resume := "no client takes a segment until `shardid segment resume` (segment.ResumeTag) moves it past every ID handed out before"
	if t.MaxID < high {
		return fmt.Errorf("%w: tag %s: the table would hand out IDs from %d, yet IDs up to %d were taken from it before: it was restored from an older copy or lowered by hand; %s",
			ErrRewound, tag, t.MaxID+1, high, resume)
	}
	r := t.LastRewind
	return fmt.Errorf("%w: tag %s is fenced: at %s a client found the table at %d after it had taken IDs up to %d (restored from an older copy?); %s",
		ErrRewound, tag, r.Time.UTC().Format(time.RFC3339), r.Found, r.Seen, resume)
}

// checkLoop reads the tag's row every every until Close, fencing the tag
// when the row is below the highest ID taken, and dropping the buffered IDs
// it may have handed out again when it is fenced.
func (c *Segments) checkLoop(every time.Duration) {
	defer close(c.checkDone)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-c.ctx.Done():
			return
		case <-t.C:
		}
		c.watchClock()
		ctx, cancel := context.WithTimeout(c.ctx, c.set.AllocTimeout)
		tag, err := c.view.getTag(ctx, c.db, c.set.Tag)
		if err == nil {
			c.found()
		}
		c.mu.Lock()
		high, refused := c.high, c.refused
		c.mu.Unlock()
		switch {
		case err == nil && refused == nil && !c.trust && (tag.Fenced || tag.MaxID < high):
			err = c.fence(ctx, high)
		case errors.Is(err, ErrUnknownTag) && refused == nil && !c.trust && !c.noRecord:
			err = c.missing(ctx, err)
		}
		cancel()
		c.noteDatabase(err)
	}
}

// noteDatabase follows whether the database answers, from the outcome of
// a statement: an error of the database's own (not one of the package's
// refusals) after a success is the database down, a success or a refusal
// after one is the database back.
func (c *Segments) noteDatabase(err error) {
	if c.ctx.Err() != nil {
		return // closing: the error is the cancel's
	}
	failed := err != nil && !errors.Is(err, ErrRewound) && !errors.Is(err, ErrUnknownTag) && !errors.Is(err, ErrTagCase) &&
		!errors.Is(err, ErrLossyCommit) && !errors.Is(err, ErrIDSpaceUsedUp)
	var ev Event
	now, mono := c.clock(), c.mono()
	c.mu.Lock()
	switch {
	case failed && !c.down:
		c.down, c.downSince = true, mono
		ev = Event{Kind: DatabaseDown, Tag: c.set.Tag, Time: now, Err: err}
	case !failed && c.down:
		c.down = false
		ev = Event{Kind: DatabaseUp, Tag: c.set.Tag, Time: now, Outage: mono - c.downSince}
	}
	c.mu.Unlock()
	if ev.Kind != 0 {
		c.emit(ev)
	}
}
