package tickets

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// admission is what a call may do with a server.
type admission int

const (
	admitReady admission = iota // healthy: draw
	admitProbe                  // down and due: this call probes it
	admitDown                   // down: ask only if nothing else draws
	admitOut                    // refused or rewound: never
)

// admit says what a call at monotonic time now may do with srv;
// mayProbe is false once the call holds a probe. It returns whether this
// call should start a recheck of a rewound server, and the server's error
// when it is out.
func (c *Client) admit(srv *server, now time.Duration, mayProbe bool) (admission, bool, error) {
	srv.mu.Lock()
	defer srv.mu.Unlock()
	switch {
	case srv.refused != nil:
		return admitOut, false, srv.refused
	case srv.rewound != nil:
		recheck := !srv.rechecking && now >= srv.recheckAt
		srv.rechecking = srv.rechecking || recheck
		return admitOut, recheck, srv.rewound
	case !srv.down:
		return admitReady, false, nil
	case now < srv.retryAt:
		return admitDown, false, nil
	case c.noBreaker:
		return admitReady, false, nil
	case mayProbe && !srv.probing:
		srv.probing = true
		return admitProbe, false, nil
	}
	return admitDown, false, nil
}

// budgetOf is how long a draw waits for srv, silent, while another server
// is left to ask: its adaptive budget (budget.go), or Settings.Budget
// for a server that failed (down) and its probes, whose history says
// nothing of how it answers now. srv.mu need not be held; down is its
// state.
func (c *Client) budgetOf(srv *server, down bool, r role) time.Duration {
	if down || r != roleReady || c.fixedBudget {
		return c.set.Budget
	}
	return srv.lat.budget(c.set.Budget, max(c.set.Budget, c.set.Timeout/2), monoNow())
}

// attempt is one server a call tried and left.
type attempt struct {
	srv  *server
	wait time.Duration
	err  error
}

// Next draws one ticket within Timeout. It asks the servers in turn,
// starting with the next one: first the healthy ones (and, for one caller
// at a time, a failed one whose wait is over), each until it has been
// silent for its budget while another is left to ask, the last for what is
// left of Timeout; when none of them draws, the failed ones too, in what is
// left of it. A call thus never waits longer than Timeout (plus the time
// to notice), however many servers hang. It returns ctx's error when ctx
// ends, and an error wrapping ErrNoServer and every server's error when no
// server could draw.
func (c *Client) Next(ctx context.Context) (int64, error) {
	n := len(c.servers)
	first := int(c.turn.Add(1) % uint64(n))
	now := c.mono()
	order := make([]*server, 0, n)
	var probe *server
	var down, recheck []*server
	var errs []error
	for i := range n {
		srv := c.servers[(first+i)%n]
		adm, again, err := c.admit(srv, now, probe == nil)
		switch adm {
		case admitReady:
			order = append(order, srv)
		case admitProbe:
			probe = srv
		case admitDown:
			down = append(down, srv)
		case admitOut:
			errs = append(errs, fmt.Errorf("%s: %w", srv.Name, err))
		}
		if again {
			recheck = append(recheck, srv)
		}
	}
	for _, srv := range recheck {
		go c.recheck(srv)
	}
	if probe != nil {
		order = append([]*server{probe}, order...)
	}
	var left []attempt
	// A call's time is the runtime's monotonic clock, like its timers'
	// (the injectable c.mono schedules probes, rechecks and records).
	deadline := monoNow() + c.set.Timeout // the whole call's
	for pass, list := range [][]*server{order, down} {
		for i, srv := range list {
			limit := deadline - monoNow()
			if c.perServerTimeout {
				limit = c.set.Timeout
			}
			if limit <= 0 {
				errs = append(errs, fmt.Errorf("%s: %w", srv.Name, &NoAnswerError{Server: srv.Name, Timeout: c.set.Timeout}))
				continue
			}
			role := roleReady
			switch {
			case srv == probe:
				role = roleProbe
			case pass == 1:
				role = roleLastResort
			}
			silence := limit // the last server left may be silent for all that is left
			if i < len(list)-1 {
				srv.mu.Lock()
				isDown := srv.down
				srv.mu.Unlock()
				silence = min(limit, c.budgetOf(srv, isDown, role))
			}
			start := monoNow()
			id, err := c.drawFrom(ctx, srv, limit, silence, role)
			if err == nil {
				c.draws.Add(1)
				if len(left) > 0 {
					c.failovers.Add(1)
					for _, a := range left {
						c.emit(Event{Kind: EventFailover, Server: a.srv.Name, To: srv.Name, Wait: a.wait, Err: a.err})
					}
				}
				c.maybeRecord()
				return id, nil
			}
			if ctx.Err() != nil {
				return 0, ctx.Err()
			}
			left = append(left, attempt{srv, monoNow() - start, err})
			errs = append(errs, fmt.Errorf("%s: %w", srv.Name, err))
		}
	}
	return 0, fmt.Errorf("%w %s: %w", ErrNoServer, c.set.Name, errors.Join(errs...))
}

// role is why a call asks a server.
type role int

const (
	roleReady      role = iota // a healthy server
	roleProbe                  // the one probe of a failed server
	roleLastResort             // a failed server, asked because nothing else drew
)

// drawn is what one draw on a server came to, and how long it took.
type drawn struct {
	id   int64
	err  error
	took time.Duration
}

// drawFrom draws one ticket from srv within limit, reading and checking
// its settings first if that has not happened yet, and records the
// outcome: a server that failed goes down (events and backoff), one that
// drew comes up. It leaves srv early, with a *NoAnswerError, once srv has
// been silent for silence (less than limit when another server is left):
// neither this draw nor another of the client's answered in that time.
// The draw left runs on until limit, and an answer it gets is learned
// from (lateAnswer).
func (c *Client) drawFrom(ctx context.Context, srv *server, limit, silence time.Duration, r role) (int64, error) {
	if r == roleProbe {
		c.probes.Add(1)
	}
	// The draw's own context is the call's without its cancel, so that a
	// draw left for another server can run on: a caller that cancels its
	// context once Next returned does not end it.
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), limit)
	done := make(chan drawn, 1)
	began := monoNow()
	go func() {
		id, err := c.try(dctx, srv, r)
		done <- drawn{id, err, monoNow() - began}
	}()
	var quiet <-chan time.Time
	var timer *time.Timer
	if silence < limit {
		timer = time.NewTimer(silence)
		defer timer.Stop()
		quiet = timer.C
	}
	for {
		select {
		case d := <-done:
			timedOut := d.err != nil && ctx.Err() == nil && errors.Is(dctx.Err(), context.DeadlineExceeded)
			cancel()
			if d.err == nil {
				srv.lat.observe(d.took, monoNow())
			} else if timedOut {
				c.abandoned.Add(1)
				d.err = &NoAnswerError{Server: srv.Name, Wait: limit, Silent: limit, Budget: false, Timeout: c.set.Timeout}
			}
			return c.settle(ctx, srv, d.id, d.err, r)
		case <-ctx.Done():
			cancel()
			return c.settle(ctx, srv, 0, ctx.Err(), r)
		case <-quiet:
			now := monoNow()
			from := max(began, srv.lat.lastAnswer()) // the server has been silent since
			if left := from + silence - now; left > 0 && now-began < limit && !c.fixedBudget {
				timer.Reset(left) // it answered another draw meanwhile: slow, not hung
				continue
			}
			c.abandoned.Add(1)
			srv.mu.Lock()
			srv.abandoned++
			srv.mu.Unlock()
			err := &NoAnswerError{Server: srv.Name, Wait: from + silence - began, Silent: silence, Budget: true, Timeout: c.set.Timeout}
			if c.fixedBudget {
				cancel()
			} else {
				go c.lateAnswer(srv, done, cancel, silence)
			}
			return c.settle(ctx, srv, 0, err, r)
		}
	}
}

// lateAnswer waits for a draw left after silence: when it answers, the
// server is slow, not gone. Its ticket is never handed out (the call went
// on to another server); its time raises the server's budget, and the
// server, passed over as failed when the draw was left, is back in
// rotation (EventSlow, and EventServerUp when it was down).
func (c *Client) lateAnswer(srv *server, done <-chan drawn, cancel context.CancelFunc, silence time.Duration) {
	d := <-done
	cancel()
	if d.err != nil {
		return // hung or failed: it stays passed over
	}
	c.late.Add(1)
	srv.lat.observe(d.took, monoNow())
	srv.mu.Lock()
	back := srv.down && srv.refused == nil && srv.rewound == nil
	if back {
		srv.down, srv.backoff, srv.lastErr = false, 0, nil
	}
	srv.mu.Unlock()
	c.emit(Event{Kind: EventSlow, Server: srv.Name, Wait: d.took, Backoff: c.budgetOf(srv, false, roleReady), Ticket: d.id,
		Err: fmt.Errorf("answered after %s, past the %s it was silent for", d.took.Round(time.Millisecond), silence)})
	if back {
		c.emit(Event{Kind: EventServerUp, Server: srv.Name})
	}
}

// settle records the outcome of a draw on srv: a server that failed goes
// down (events and backoff), one that drew comes up; a rewind is
// reported, a server whose tickets leave its class refused.
func (c *Client) settle(ctx context.Context, srv *server, id int64, err error, r role) (int64, error) {
	var events []Event
	var rewound *RewindError
	var resumes int64
	if errors.As(err, &rewound) {
		srv.mu.Lock()
		offset := srv.settings.Offset
		srv.mu.Unlock()
		c.mu.Lock()
		resumes = c.class[offset].Resumes
		c.mu.Unlock()
	}
	srv.mu.Lock()
	wasDown := srv.down
	if r == roleProbe {
		srv.probing = false
	}
	switch {
	case err == nil:
		srv.lastErr, srv.down, srv.backoff, srv.abandoned = nil, false, 0, 0
		srv.draws.Add(1)
		if wasDown {
			events = append(events, Event{Kind: EventServerUp, Server: srv.Name})
		}
	case rewound != nil:
		if srv.rewound == nil {
			srv.rewound, srv.resumesAt, srv.recheckAt = rewound, resumes, c.mono()+c.set.RetryAfter
			c.rewinds.Add(1)
			events = append(events, Event{Kind: EventRewound, Server: srv.Name, Ticket: rewound.Got, High: rewound.High, Err: err})
		} else {
			rewound = nil // another call found it first and reports it
		}
	case errors.Is(err, ErrWrongClass) || srv.refused != nil:
		// load sets refused itself when the settings clash
		if first := srv.refused == nil || srv.refused == err; first {
			srv.refused = err
			events = append(events, Event{Kind: EventRefused, Server: srv.Name, Err: err})
		}
	case ctx.Err() != nil:
		// the caller left: nothing learned about the server
	default:
		srv.lastErr = err
		now := c.mono()
		switch {
		case r == roleProbe:
			srv.backoff = min(2*srv.backoff, c.set.MaxRetryAfter)
			srv.backoff = max(srv.backoff, c.set.RetryAfter)
			srv.retryAt = now + srv.backoff
			events = append(events, Event{Kind: EventServerDown, Server: srv.Name, Backoff: srv.backoff, Err: err})
		case !srv.down:
			srv.down, srv.backoff, srv.retryAt = true, c.set.RetryAfter, now+c.set.RetryAfter
			events = append(events, Event{Kind: EventServerDown, Server: srv.Name, Backoff: srv.backoff, Err: err})
		case c.noBreaker:
			srv.retryAt = now + c.set.RetryAfter
		}
	}
	var offset int64
	if srv.settings != nil {
		offset = srv.settings.Offset
	}
	srv.mu.Unlock()
	for _, e := range events {
		c.emit(e)
	}
	if rewound != nil {
		go c.report(srv, rewound, offset)
	}
	return id, err
}

// try runs one draw on srv, checks the ticket's class and that it rises,
// and raises srv's high-water mark.
func (c *Client) try(ctx context.Context, srv *server, r role) (int64, error) {
	srv.mu.Lock()
	set, draw, explain := srv.settings, srv.draw, srv.explain
	srv.mu.Unlock()
	if set == nil {
		if err := c.load(ctx, srv, true); err != nil {
			return 0, err
		}
		c.judge(ctx, srv)
		srv.mu.Lock()
		set, draw, explain = srv.settings, srv.draw, srv.explain
		rewound := srv.rewound
		srv.mu.Unlock()
		if rewound != nil {
			return 0, rewound
		}
	}
	// The floor is what was drawn before this draw started: a draw that
	// overlaps this one may return a higher ticket first.
	srv.mu.Lock()
	high, highRecorded, insts := srv.high, srv.highRec, srv.inst
	srv.mu.Unlock()
	var id int64
	var inst string
	if set.Kind == KindSequence {
		if err := srv.DB.QueryRowContext(ctx, draw).Scan(&id, &inst); err != nil {
			return 0, err
		}
		high, highRecorded = 0, false
		for _, h := range insts {
			if h.inst == inst {
				high = h.high
			}
		}
	} else {
		res, err := srv.DB.ExecContext(ctx, draw)
		if err != nil {
			return 0, err
		}
		if n, err := res.RowsAffected(); err != nil || n != 1 {
			return 0, c.whyNoRow(ctx, srv.DB, explain)
		}
		if id, err = res.LastInsertId(); err != nil {
			return 0, err
		}
	}
	if !c.unchecked && (id < 1 || id%set.Increment != set.Offset%set.Increment) {
		return 0, fmt.Errorf("%w: %d is not %d modulo %d", ErrWrongClass, id, set.Offset%set.Increment, set.Increment)
	}
	if id <= high && !c.noRewindCheck {
		return 0, &RewindError{Server: srv.Name, Got: id, High: high, Recorded: highRecorded}
	}
	var skipped *Event
	srv.mu.Lock()
	if set.Kind == KindSequence {
		prev := srv.setInstHigh(inst, id)
		if (r != roleReady || srv.down) && prev > 0 && id-prev > set.Increment {
			skipped = &Event{Kind: EventSkipped, Server: srv.Name, Ticket: id, High: prev, Count: (id-prev)/set.Increment - 1, Abandoned: srv.abandoned}
		}
	} else if id > srv.high {
		srv.high, srv.highRec = id, false
	}
	srv.mu.Unlock()
	if skipped != nil {
		c.skipped.Add(skipped.Count)
		c.emit(*skipped)
	}
	return id, nil
}

// setInstHigh raises the high-water mark of TiDB instance inst to id
// and returns the mark before. srv.mu is held.
func (srv *server) setInstHigh(inst string, id int64) int64 {
	for i, h := range srv.inst {
		if h.inst == inst {
			if id > h.high {
				next := append([]instHigh(nil), srv.inst...)
				next[i].high = id
				srv.inst = next
			}
			return h.high
		}
	}
	srv.inst = append(append([]instHigh(nil), srv.inst...), instHigh{inst, id})
	return 0
}

// highest is the highest ticket drawn from srv (over every instance).
// srv.mu is held.
func (srv *server) highest() int64 {
	h := srv.high
	for _, i := range srv.inst {
		h = max(h, i.high)
	}
	return h
}

// whyNoRow says why a draw matched no row: the row is gone, or the server
// may lose acknowledged commits.
func (c *Client) whyNoRow(ctx context.Context, db *sql.DB, explain string) error {
	var rows int
	var settings string
	if err := db.QueryRowContext(ctx, explain).Scan(&rows, &settings); err != nil {
		return fmt.Errorf("draw matched no row: %w", err)
	}
	if rows == 0 {
		return fmt.Errorf("%w: table %s has no ticket row (stub 'a')", ErrNoTickets, c.set.Name)
	}
	return fmt.Errorf("%w (%s): a crash could hand out the same tickets again; set innodb_flush_log_at_trx_commit=1 and, with a binary log, sync_binlog=1, or accept the risk with AllowLossyCommit", ErrLossyCommit, settings)
}
