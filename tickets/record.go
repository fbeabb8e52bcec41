package tickets

import (
	"context"
	"errors"
	"fmt"
)

// load reads srv's settings and class table; with check, it checks the
// settings against the servers read before and refuses srv for good when
// they clash.
func (c *Client) load(ctx context.Context, srv *server, check bool) error {
	got, err := Read(ctx, srv.DB, c.set.Name)
	if err != nil {
		return err
	}
	got.Server = srv.Name
	// A class table that is missing (set up before class tables existed)
	// or cannot be read (a role without SELECT on it) costs the records,
	// not the draws: this client still finds a rewind in its own draws.
	rows, classErr := ReadClass(ctx, srv.DB, c.set.Name)
	hasClass := classErr == nil
	v := newView(got.Dialect, Counter{Name: c.set.Name, Kind: got.Kind})
	v.Guard = v.Guard && !c.set.AllowLossyCommit
	draw, err := v.render("draw")
	if err != nil {
		return err
	}
	explain, err := v.render("explain")
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	srv.mu.Lock()
	loaded := srv.settings != nil
	srv.mu.Unlock()
	if loaded {
		return nil // another draw read it first; it must not be checked against itself
	}
	if check && !c.unchecked {
		if err := Check(append(c.checked[:len(c.checked):len(c.checked)], got)); err != nil {
			srv.mu.Lock()
			srv.refused = err
			srv.mu.Unlock()
			return err
		}
	}
	c.checked = append(c.checked, got)
	for _, r := range rows {
		c.class[r.Offset] = mergeRow(c.class[r.Offset], r)
	}
	if check {
		// Read late: its class table may hold what the servers read
		// before did not (a report, or a record of a server restored
		// while srv was down); they are weighed against it before srv
		// can be drawn from.
		c.rejudgeLocked()
	}
	srv.mu.Lock()
	srv.settings, srv.draw, srv.explain, srv.hasClass, srv.classErr = &got, draw, explain, hasClass, classErr
	srv.mu.Unlock()
	return nil
}

// judge weighs a freshly read server against the class tables: a rewind
// reported and not resumed, or a counter below the highest ticket recorded
// from it, leaves it out of rotation; the recorded ticket becomes the
// floor of its draws (kind table: a TiDB sequence rises only per instance,
// so a class-wide floor does not apply to it).
func (c *Client) judge(ctx context.Context, srv *server) {
	srv.mu.Lock()
	set := srv.settings
	srv.mu.Unlock()
	if set == nil {
		return
	}
	c.mu.Lock()
	row := c.class[set.Offset]
	c.mu.Unlock()
	var e *RewindError
	switch {
	case c.noRewindCheck:
	case row.Pending():
		e = &RewindError{Server: srv.Name, Got: row.RewoundGot, High: row.RewoundHigh, Reported: true}
	case set.LastKnown && row.Seen > 0 && set.Last < row.Seen:
		// The counter was read before some of the records (other clients
		// draw and record meanwhile): only a counter read after them all
		// may be held against them. If it cannot be read now, the draws'
		// own check, whose floor is the record, finds a rewind instead
		// (kind table). A sequence's Last is the most it may have handed
		// out (NEXT_ROW_ID): a record at or above it was handed out before
		// the sequence went back.
		if now, err := Read(ctx, srv.DB, c.set.Name); err == nil && now.LastKnown && now.Last < row.Seen {
			e = &RewindError{Server: srv.Name, Got: now.Last, High: row.Seen, Recorded: true}
		}
	}
	c.hold(srv, *set, row, e)
}

// hold applies the class row of srv's offset to srv: the recorded ticket
// becomes the floor of its draws (kind table), and srv goes out of
// rotation with e, if e is set and it is not out already. A rewind this
// client found itself (not Reported) is reported in the class tables.
func (c *Client) hold(srv *server, set ServerSettings, row ClassRow, e *RewindError) {
	srv.mu.Lock()
	if set.Kind == KindTable && row.Seen > srv.high {
		srv.high, srv.highRec = row.Seen, true
	}
	srv.recorded = max(srv.recorded, row.Seen)
	if e != nil && srv.rewound == nil {
		srv.rewound, srv.resumesAt, srv.recheckAt = e, row.Resumes, c.mono()+c.set.RetryAfter
	} else {
		e = nil
	}
	srv.mu.Unlock()
	if e == nil {
		return
	}
	c.rewinds.Add(1)
	c.emit(Event{Kind: EventRewound, Server: srv.Name, Ticket: e.Got, High: e.High, Err: e})
	if !e.Reported {
		go c.report(srv, e, set.Offset)
	}
}

// rejudge weighs every server read before against the class rows merged
// since (from a server read late, a recheck or a refresh), without asking
// the servers: a rewind reported and not resumed leaves a server out, and
// a ticket recorded from it raises the floor of its draws, so that its
// next draw below the record is found a rewind. A server read while its
// peers were down was judged only against the records it held itself.
func (c *Client) rejudge() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.rejudgeLocked()
}

// rejudgeLocked is rejudge with c.mu held.
func (c *Client) rejudgeLocked() {
	if c.noRewindCheck || c.noRejudge {
		return
	}
	for _, srv := range c.servers {
		srv.mu.Lock()
		set := srv.settings
		out := srv.rewound != nil || srv.refused != nil
		srv.mu.Unlock()
		if set == nil || out {
			continue
		}
		row := c.class[set.Offset]
		var e *RewindError
		if row.Pending() {
			e = &RewindError{Server: srv.Name, Got: row.RewoundGot, High: row.RewoundHigh, Reported: true}
		}
		c.hold(srv, *set, row, e)
	}
}

// refresh reads the class table of every server that can be read now,
// merges it into what the client knows and rejudges the servers: a rewind
// another client reported, or a record written on a server read late,
// reaches this client within RecordEvery.
func (c *Client) refresh(ctx context.Context) {
	var rows [][]ClassRow
	for _, from := range c.classServers() {
		if r, err := ReadClass(ctx, from.DB, c.set.Name); err == nil {
			rows = append(rows, r)
		}
	}
	c.merge(MergeClass(rows...))
	c.rejudge()
}

// loadLate reads and judges the servers not read yet (down when the
// client started), each within Budget, beside the draws: a server that
// answers again is weighed against the records, and its records weighed
// against the others, without waiting for a caller's probe.
func (c *Client) loadLate(ctx context.Context) {
	for _, srv := range c.servers {
		srv.mu.Lock()
		skip := srv.settings != nil || srv.refused != nil
		srv.mu.Unlock()
		if skip {
			continue
		}
		lctx, cancel := context.WithTimeout(ctx, c.set.Budget)
		if c.load(lctx, srv, true) == nil {
			c.judge(lctx, srv)
		}
		cancel()
	}
}

// merge merges class rows into what the client knows.
func (c *Client) merge(rows []ClassRow) {
	c.mu.Lock()
	for _, r := range rows {
		c.class[r.Offset] = mergeRow(c.class[r.Offset], r)
	}
	c.mu.Unlock()
}

// compareLag reports the table servers far behind the furthest of the
// name that no resume moved ahead (EventBehind).
func (c *Client) compareLag() {
	type pos struct {
		name      string
		last, inc int64
	}
	var all []pos
	var top int64
	for _, srv := range c.servers {
		srv.mu.Lock()
		set := srv.settings
		srv.mu.Unlock()
		if set == nil || set.Kind != KindTable {
			continue
		}
		c.mu.Lock()
		row := c.class[set.Offset]
		c.mu.Unlock()
		all = append(all, pos{srv.Name, set.Last, set.Increment})
		if !Resumed(*set, row) {
			top = max(top, set.Last)
		}
	}
	for _, p := range all {
		if lag := (top - p.last) / p.inc; lag > c.set.MaxLag {
			c.emit(Event{Kind: EventBehind, Server: p.name, Ticket: p.last, High: top, Count: lag})
		}
	}
}

// classServers returns the servers whose class tables can be written now:
// read, with a class table, not down.
func (c *Client) classServers() []*server {
	var out []*server
	for _, srv := range c.servers {
		srv.mu.Lock()
		if srv.settings != nil && srv.hasClass && !srv.down && srv.refused == nil {
			out = append(out, srv)
		}
		srv.mu.Unlock()
	}
	return out
}

// maybeRecord starts a record of the highest tickets drawn when one is
// due (by the monotonic clock) and none runs, and watches the wall clock.
func (c *Client) maybeRecord() {
	now := c.mono()
	due := c.nextRecord.Load()
	if int64(now) < due || !c.nextRecord.CompareAndSwap(due, int64(now+c.set.RecordEvery)) {
		return
	}
	if step := c.steps.check(c.set.Clock(), now); step != 0 {
		c.emit(Event{Kind: EventClockStepped, Step: step})
	}
	if !c.recording.CompareAndSwap(false, true) {
		return
	}
	go func() {
		defer c.recording.Store(false)
		ctx, cancel := context.WithTimeout(context.Background(), c.set.Timeout)
		defer cancel()
		_ = c.record(ctx) // failures are events
		c.loadLate(ctx)
		c.refresh(ctx)
	}()
}

// Record writes the highest ticket drawn from each server to the class
// tables now, as the client does every RecordEvery beside the draws. Call
// it before a short-lived process exits, so that clients started later
// know how far it drew. It returns an error when no class table took the
// record.
func (c *Client) Record(ctx context.Context) error {
	return c.record(ctx)
}

// record writes the highest ticket drawn from each server, where it rose
// since the last record, to the class table of every server that can
// take it.
func (c *Client) record(ctx context.Context) error {
	type pending struct {
		srv  *server
		high int64
	}
	var marks []mark
	var raised []pending
	for _, srv := range c.servers {
		srv.mu.Lock()
		if srv.settings != nil {
			if h := srv.highest(); h > srv.recorded {
				marks = append(marks, mark{srv.settings.Offset, h})
				raised = append(raised, pending{srv, h})
			}
		}
		srv.mu.Unlock()
	}
	if len(marks) == 0 {
		return nil
	}
	var errs []error
	wrote := false
	for _, to := range c.classServers() {
		err := recordSeen(ctx, to.DB, c.set.Name, marks)
		if err != nil {
			c.emit(Event{Kind: EventRecordFailed, Server: to.Name, Err: err})
			errs = append(errs, fmt.Errorf("%s: %w", to.Name, err))
			continue
		}
		wrote = true
	}
	switch {
	case !wrote && len(errs) == 0:
		return fmt.Errorf("%w: no server that answers has one to record the highest tickets drawn", ErrNoClassTable)
	case !wrote:
		return fmt.Errorf("no server took the record of the highest tickets drawn: %w", errors.Join(errs...))
	}
	for _, p := range raised {
		p.srv.mu.Lock()
		p.srv.recorded = max(p.srv.recorded, p.high)
		p.srv.mu.Unlock()
	}
	return nil
}

// report records a rewind of srv (of offset) in the class table of every
// server that can take it, srv's own included.
func (c *Client) report(srv *server, e *RewindError, offset int64) {
	targets := c.classServers()
	seenSrv := false
	for _, to := range targets {
		seenSrv = seenSrv || to == srv
	}
	srv.mu.Lock()
	if !seenSrv && srv.hasClass {
		targets = append(targets, srv)
	}
	srv.mu.Unlock()
	if len(targets) == 0 {
		c.emit(Event{Kind: EventRecordFailed, Server: srv.Name,
			Err: fmt.Errorf("%w: no server with a class table can take the report of the rewind; clients started later will not know it", ErrNoClassTable)})
		return
	}
	for _, to := range targets {
		ctx, cancel := context.WithTimeout(context.Background(), c.set.Timeout)
		err := recordRewind(ctx, to.DB, c.set.Name, e, offset)
		cancel()
		if err != nil {
			c.emit(Event{Kind: EventRecordFailed, Server: to.Name, Err: err})
		}
	}
}

// recheck reads the class tables again for a rewound server and puts it
// back in rotation once a resume was recorded after it went out.
func (c *Client) recheck(srv *server) {
	ctx, cancel := context.WithTimeout(context.Background(), c.set.Timeout)
	c.refresh(ctx)
	cancel()
	srv.mu.Lock()
	offset := srv.settings.Offset
	srv.mu.Unlock()
	c.mu.Lock()
	row := c.class[offset]
	c.mu.Unlock()
	srv.mu.Lock()
	back := srv.rewound != nil && row.Resumes > srv.resumesAt
	if back {
		srv.rewound = nil
		srv.lastErr = nil
	} else {
		srv.recheckAt = c.mono() + c.set.RetryAfter
	}
	srv.rechecking = false
	srv.mu.Unlock()
	if back {
		c.emit(Event{Kind: EventResumed, Server: srv.Name})
	}
}
