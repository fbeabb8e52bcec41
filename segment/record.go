package segment

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"

	"github.com/shardid/shardid/dialect"
)

// record reads the record of tag (RecordTable): the highest ID any client
// recorded taking from it, and whether the tag has a record at all (it was
// created once). An allocation table without a record table (its third
// migration not applied) has no record: 0, false, nil.
func (v segmentView) record(ctx context.Context, q dialect.Querier, tag string) (high int64, found bool, err error) {
	high, found, _, err = v.readRecord(ctx, q, tag)
	return high, found, err
}

// readRecord is record, and whether the record table exists.
func (v segmentView) readRecord(ctx context.Context, q dialect.Querier, tag string) (high int64, found, table bool, err error) {
	text, err := v.render("record_get")
	if err != nil {
		return 0, false, false, err
	}
	switch err := q.QueryRowContext(ctx, text, tag).Scan(&high); {
	case noTable(err):
		return 0, false, false, nil
	case errors.Is(err, sql.ErrNoRows):
		return 0, false, true, nil
	case err != nil:
		return 0, false, false, fmt.Errorf("read the record of segment tag %s: %w", tag, err)
	}
	return high, true, true, nil
}

// noTable reports whether err is the server's "no such table".
func noTable(err error) bool {
	switch dialect.ErrorCode(err) {
	case "42P01", "1146": // undefined_table; ER_NO_SUCH_TABLE
		return true
	}
	return false
}

// raiseRecord raises the record of tag to high, never down.
func (v segmentView) raiseRecord(ctx context.Context, db *sql.DB, tag string, high int64) error {
	q, err := v.render("record_raise")
	if err != nil {
		return err
	}
	if _, err := db.ExecContext(ctx, q, high, tag, high); err != nil {
		return fmt.Errorf("record the highest ID taken from segment tag %s in %s: %w", tag, v.Record, err)
	}
	return nil
}

// addRecord creates the record of tag at high, or raises it, never down.
// A missing record table (the third migration not applied) is left so.
func (v segmentView) addRecord(ctx context.Context, db *sql.DB, tag string, high int64) error {
	q, err := v.render("record_add")
	if err != nil {
		return err
	}
	if _, err := db.ExecContext(ctx, q, tag, high); err != nil && !noTable(err) {
		return fmt.Errorf("record segment tag %s in %s: %w", tag, v.Record, err)
	}
	return nil
}

// Records lists the record table of allocation table table (DefaultTable
// when ""): every tag ever created, with the highest ID any client
// recorded taking from it. A tag listed here and missing from Tags was
// lost with a restore of the allocation table (or deleted by hand). It
// returns nil and no error when there is no record table.
func Records(ctx context.Context, db *sql.DB, d dialect.Dialect, table string) (map[string]int64, error) {
	v, err := newSegmentView(d, table)
	if err != nil {
		return nil, err
	}
	q, err := v.render("record_list")
	if err != nil {
		return nil, err
	}
	rows, err := db.QueryContext(ctx, q)
	if noTable(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list segment records: %w", err)
	}
	defer rows.Close()
	out := map[string]int64{}
	for rows.Next() {
		var tag string
		var high int64
		if err := rows.Scan(&tag, &high); err != nil {
			return nil, fmt.Errorf("list segment records: %w", err)
		}
		out[tag] = high
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list segment records: %w", err)
	}
	return out, nil
}

// missingError says that tag, recorded up to high (math.MinInt64: only
// known to have existed), is missing from the allocation table.
func missingError(v segmentView, tag string, high int64) error {
	upTo := "it was created before"
	start := int64(1)
	if high != math.MinInt64 && high > 0 {
		upTo = fmt.Sprintf("IDs up to %d were taken from it before", high)
		start = high + 1
	}
	return fmt.Errorf("%w: tag %s is missing from %s, yet %s: the table was restored from an older copy (or the row deleted by hand); no client takes a segment until it is created again above them (shardid segment up --tag %s --start %d or more, with room for IDs no client recorded)",
		ErrRewound, tag, v.Table, upTo, tag, start)
}

// missing handles the tag gone from the table (err wraps ErrUnknownTag)
// in a client that took IDs from it, or whose record says it existed: a
// rewind. The buffered IDs stay usable (a tag created again starts above
// the record and this client's IDs); no segment is taken until a load
// succeeds. It returns the error Next reports, or err itself when nothing
// says the tag existed.
func (c *Segments) missing(ctx context.Context, err error) error {
	c.mu.Lock()
	high, refused := c.high, c.refused
	c.mu.Unlock()
	if refused != nil {
		return refused
	}
	rec, found, rerr := c.view.record(ctx, c.db, c.set.Tag)
	if rerr == nil && found {
		high = max(high, rec)
	}
	if high == math.MinInt64 && !found {
		return err
	}
	rw := missingError(c.view, c.set.Tag, high)
	c.mu.Lock()
	if c.refused != nil {
		c.mu.Unlock()
		return c.refused
	}
	c.refused, c.missingErr = rw, rw
	c.stats.Rewinds++
	c.mu.Unlock()
	c.emit(Event{Kind: Rewound, Tag: c.set.Tag, Time: c.clock(), Seen: high, Found: 0, Err: rw})
	return rw
}

// found lifts a refusal for a missing tag once the tag is back (a reload
// shows the table empty for a moment; or the tag was created again): from
// then on the row is judged as any other, by the allocation's condition
// and the fence.
func (c *Segments) found() {
	c.mu.Lock()
	if c.missingErr != nil && c.refused == c.missingErr {
		c.refused = nil
	}
	c.missingErr = nil
	c.mu.Unlock()
}

// noteRecord raises the record of the tag to last, the end of a segment
// just taken: in the record table beside the allocation table, telling a
// failure once per cause (RecordFailed), and in the record store
// (Settings.Records), whose failure it returns: a segment the store does
// not cover is not handed out.
func (c *Segments) noteRecord(last int64) error {
	if c.noRecord {
		return nil
	}
	ctx, cancel := context.WithTimeout(c.ctx, c.set.AllocTimeout)
	err := c.view.raiseRecord(ctx, c.db, c.set.Tag, last)
	storeErr := raiseStores(ctx, []RecordStore{c.set.Records}, c.set.Tag, last)
	cancel()
	if storeErr != nil {
		storeErr = fmt.Errorf("segments %s: the record store (Settings.Records) did not take the segment's end, so its IDs are not handed out: %w", c.set.Tag, storeErr)
	}
	defer func() {
		if storeErr != nil && c.ctx.Err() == nil {
			c.emit(Event{Kind: RecordFailed, Tag: c.set.Tag, Time: c.clock(), Err: storeErr})
		}
	}()
	c.mu.Lock()
	tell := err != nil && (c.recordErr == nil || c.recordErr.Error() != err.Error())
	c.recordErr = err
	c.mu.Unlock()
	if tell && c.ctx.Err() == nil {
		c.emit(Event{Kind: RecordFailed, Tag: c.set.Tag, Time: c.clock(), Err: err})
	}
	return storeErr
}

// prepareAlloc prepares the allocation statement. With Recorded, an
// allocation table whose record table was never made (its migration not
// applied) gets the statement without the record: v.Recorded is cleared.
func (v *segmentView) prepareAlloc(ctx context.Context, db *sql.DB) (*sql.Stmt, error) {
	for {
		q, err := v.render("alloc")
		if err != nil {
			return nil, err
		}
		stmt, err := db.PrepareContext(ctx, q)
		if err != nil && v.Recorded && noTable(err) {
			v.Recorded = false
			continue
		}
		return stmt, err
	}
}
