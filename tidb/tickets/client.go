package tickets

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// Defaults of ClientSettings.
const (
	// DefaultRetryAfter is how long a server that failed is first passed
	// over.
	DefaultRetryAfter = time.Second
	// DefaultTimeout bounds one draw on the last server left to ask.
	DefaultTimeout = 2 * time.Second
	// DefaultBudget bounds one draw on a server while another server is
	// left to ask: a hung server costs a call at most this long.
	DefaultBudget = 250 * time.Millisecond
	// DefaultRecordEvery is how often a client records the highest
	// tickets it drew in the class tables.
	DefaultRecordEvery = time.Second
	// DefaultMaxLag is the lag, in tickets, past which a server behind the
	// furthest of its name is reported (EventBehind).
	DefaultMaxLag = 1_000_000
)

// More sentinel errors of the Client; check them with errors.Is.
var (
	// ErrNoServer is returned by Client.Next when no server could draw; it
	// wraps every server's error.
	ErrNoServer = errors.New("no ticket server could draw")
	// ErrWrongClass is returned (as a server's error) when a server hands
	// out a ticket outside its residue class: its settings changed after
	// they were checked. The client never uses that server again.
	ErrWrongClass = errors.New("ticket outside the server's class")
)

// Server is one ticket server: a pool over a MySQL, MariaDB or TiDB
// database holding the ticket name.
type Server struct {
	// Name names the server in messages; never put a password in it.
	Name string
	// DB is the server's connection pool.
	DB *sql.DB
}

// ClientSettings configures a Client. Only Name is required; the zero value
// of every other field means the documented default.
type ClientSettings struct {
	// Name is the ticket name on every server.
	Name string
	// RetryAfter is how long a server that failed is first passed over;
	// 0 means DefaultRetryAfter. Then one caller at a time probes it (the
	// others keep drawing from the healthy servers), and each failed probe
	// doubles the wait, up to MaxRetryAfter. When no other server can
	// draw, a call asks the failed ones too.
	RetryAfter time.Duration
	// MaxRetryAfter caps the doubling of RetryAfter; 0 means 8 times
	// RetryAfter.
	MaxRetryAfter time.Duration
	// Budget bounds one draw on one server while another server is left
	// to ask: a server that has not answered by then is given up (and
	// passed over), and the call goes on to the next. 0 means
	// DefaultBudget; it is never more than Timeout. A hung server thus
	// costs a call at most Budget, plus the draw on the next server.
	Budget time.Duration
	// Timeout bounds one draw on the last server left to ask; 0 means
	// DefaultTimeout.
	Timeout time.Duration
	// RecordEvery is how often the client records, in the class table of
	// every server it draws from, the highest ticket it drew from each
	// server, so that a client started later finds a server whose counter
	// went back below it; 0 means DefaultRecordEvery. The record runs
	// beside the draws, by one goroutine at a time.
	RecordEvery time.Duration
	// MaxLag is how many tickets a server's counter may lag the furthest
	// of its name, when the client reads them, before it is reported
	// (EventBehind); 0 means DefaultMaxLag. Kind table only.
	MaxLag int64
	// AllowLossyCommit accepts MySQL and MariaDB servers that may lose
	// acknowledged commits in a crash (see ErrLossyCommit). LIMIT: a
	// ticket drawn just before such a crash can be drawn again after it.
	AllowLossyCommit bool
	// OnEvent, if set, is called with every Event: servers going down and
	// up, failovers, rewinds, gaps. It is called synchronously, from the
	// goroutine the event happened in (a caller of Next, or the client's
	// own record and recheck goroutines), possibly from several at once:
	// it must be safe for concurrent use and must not block, or draws
	// wait for it. Nil means no events.
	OnEvent func(Event)
	// Clock returns the current time, for RetryAfter and RecordEvery; nil
	// means time.Now. Budget and Timeout are measured by the real clock.
	Clock func() time.Time
}

// Client draws tickets from several servers of one name, spreading draws
// over them in turn.
//
// Before a server is used its settings are read from it and checked
// against the others' (Check); every ticket is then verified to lie in its
// server's residue class, so no two servers' tickets can ever be equal
// within or across clients.
//
// Each server's counter must only rise. The client remembers the highest
// ticket it drew from each server (per TiDB instance for a sequence) and
// records it, every RecordEvery, in the class table of each server
// (ClassTable). A server that hands out a ticket not above one it handed
// out before, or whose counter is below the highest ticket recorded from
// it, went back (its data was restored from an older copy): the ticket is
// discarded, the server is left out (ErrRewound), the rewind is reported
// in the class tables so that every client leaves it out, and it comes
// back once Resume (shardid tickets resume) moved it past what it handed
// out. LIMIT: a client started after a restore finds it from the records,
// which lag the draws by up to RecordEvery; a TiDB sequence's position
// cannot be read without drawing, so there only the clients that drew from
// it before, and the reports, find it.
//
// A server that fails or does not answer within Budget is passed over, and
// the call goes on to the next; afterwards only one caller at a time
// probes it, with a backoff that doubles per failed probe. It is safe for
// concurrent use.
type Client struct {
	set     ClientSettings
	servers []*server
	turn    atomic.Uint64

	mu      sync.Mutex // guards checked and class
	checked []ServerSettings
	class   map[int64]ClassRow // merged from every class table read

	nextRecord atomic.Int64 // Clock's UnixNano when the next record is due
	recording  atomic.Bool

	draws, failovers, abandoned, probes, rewinds, skipped atomic.Int64

	// tests only, for negative controls
	unchecked     bool // no class check
	noRewindCheck bool // no high-water check
	noBreaker     bool // every caller retries a failed server once RetryAfter passed
}

// server is one Server and what the client knows of it.
type server struct {
	Server
	draws atomic.Int64

	mu       sync.Mutex
	settings *ServerSettings // nil until read and checked
	draw     string          // the draw statement for its kind and dialect
	explain  string
	hasClass bool  // the server has a class table the client can read
	classErr error // why not

	down    bool // failed; passed over until retryAt, then probed
	retryAt time.Time
	backoff time.Duration
	probing bool // one caller is probing it
	lastErr error
	refused error // permanent: the server is never used again

	high     int64      // the highest ticket drawn from it (kind table) or recorded from it
	highRec  bool       // high is the recorded one, not drawn by this client
	inst     []instHigh // kind sequence: the highest per TiDB instance; replaced, never changed in place
	recorded int64      // the highest ticket written to the class tables

	rewound    *RewindError // out of rotation until a resume is recorded
	resumesAt  int64        // the resumes recorded when it went out
	recheckAt  time.Time
	rechecking bool
}

// instHigh is the highest ticket drawn through one TiDB instance.
type instHigh struct {
	inst string
	high int64
}

// ServerState is what a Client knows of one server.
type ServerState struct {
	// Name is the server's name.
	Name string
	// Settings are the server's, once read (nil before).
	Settings *ServerSettings
	// Draws is the number of tickets drawn from it.
	Draws int64
	// High is the highest ticket drawn from it, or recorded from it in the
	// class tables.
	High int64
	// Down is true while the server is passed over after an error.
	Down bool
	// LastErr is the server's last error (nil after a successful draw).
	LastErr error
	// Rewound is set (a *RewindError) while the server is out of rotation
	// because its counter went back.
	Rewound error
	// Refused is set when the client will never use the server again.
	Refused error
}

// NewClient reads the settings and class table of ticket name s.Name from
// every server and checks them (Check), then returns a client over them. A
// server that does not answer now is read and checked when it first
// answers, and is refused for good if it overlaps. It returns errors
// wrapping ErrInvalidSettings, ErrIncrementMismatch, ErrOverlap, and
// ErrNoServer when no server answers.
func NewClient(ctx context.Context, servers []Server, s ClientSettings) (*Client, error) {
	return newClient(ctx, servers, s, nil)
}

// newClient is NewClient; hooks, if set, changes the client before it
// reads the servers (tests only).
func newClient(ctx context.Context, servers []Server, s ClientSettings, hook func(*Client)) (*Client, error) {
	if err := CheckName(s.Name); err != nil {
		return nil, err
	}
	if len(servers) == 0 {
		return nil, fmt.Errorf("%w: no servers given", ErrNoServer)
	}
	if s.RetryAfter <= 0 {
		s.RetryAfter = DefaultRetryAfter
	}
	if s.MaxRetryAfter <= 0 {
		s.MaxRetryAfter = 8 * s.RetryAfter
	}
	s.MaxRetryAfter = max(s.MaxRetryAfter, s.RetryAfter)
	if s.Timeout <= 0 {
		s.Timeout = DefaultTimeout
	}
	if s.Budget <= 0 {
		s.Budget = DefaultBudget
	}
	s.Budget = min(s.Budget, s.Timeout)
	if s.RecordEvery <= 0 {
		s.RecordEvery = DefaultRecordEvery
	}
	if s.MaxLag <= 0 {
		s.MaxLag = DefaultMaxLag
	}
	if s.Clock == nil {
		s.Clock = time.Now
	}
	c := &Client{set: s, class: map[int64]ClassRow{}}
	if hook != nil {
		hook(c)
	}
	read := make([]error, len(servers))
	var wg sync.WaitGroup
	for i, sv := range servers {
		srv := &server{Server: sv}
		c.servers = append(c.servers, srv)
		wg.Add(1)
		go func() {
			defer wg.Done()
			rctx, cancel := context.WithTimeout(ctx, s.Timeout)
			defer cancel()
			read[i] = c.load(rctx, srv, false)
		}()
	}
	wg.Wait()
	if err := Check(c.checked); err != nil {
		return nil, err
	}
	var errs []error
	now := s.Clock()
	for i, srv := range c.servers {
		if read[i] != nil {
			srv.lastErr, srv.down, srv.backoff, srv.retryAt = read[i], true, s.RetryAfter, now.Add(s.RetryAfter)
			errs = append(errs, fmt.Errorf("%s: %w", srv.Name, read[i]))
		}
	}
	if len(errs) == len(servers) {
		return nil, fmt.Errorf("%w: %w", ErrNoServer, errors.Join(errs...))
	}
	for i, srv := range c.servers {
		switch {
		case read[i] != nil:
			c.emit(Event{Kind: EventServerDown, Server: srv.Name, Backoff: s.RetryAfter, Err: read[i]})
		case !srv.hasClass:
			c.emit(Event{Kind: EventRecordFailed, Server: srv.Name, Err: fmt.Errorf("%w: rewinds are not recorded there", srv.classErr)})
			fallthrough
		default:
			jctx, cancel := context.WithTimeout(ctx, s.Timeout)
			c.judge(jctx, srv)
			cancel()
		}
	}
	c.compareLag()
	c.nextRecord.Store(now.Add(s.RecordEvery).UnixNano())
	return c, nil
}

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
	v := newView(got.Dialect, Settings{Name: c.set.Name, Kind: got.Kind})
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
	case set.Kind == KindTable && row.Seen > 0 && set.Last < row.Seen:
		// The counter was read before some of the records (other clients
		// draw and record meanwhile): only a counter read after them all
		// may be held against them. If it cannot be read now, the draws'
		// own check, whose floor is the record, finds a rewind instead.
		if now, err := Read(ctx, srv.DB, c.set.Name); err == nil && now.Last < row.Seen {
			e = &RewindError{Server: srv.Name, Got: now.Last, High: row.Seen, Recorded: true}
		}
	}
	srv.mu.Lock()
	if set.Kind == KindTable && row.Seen > srv.high {
		srv.high, srv.highRec = row.Seen, true
	}
	srv.recorded = max(srv.recorded, row.Seen)
	if e != nil && srv.rewound == nil {
		srv.rewound, srv.resumesAt, srv.recheckAt = e, row.Resumes, c.set.Clock().Add(c.set.RetryAfter)
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

// admission is what a call may do with a server.
type admission int

const (
	admitReady admission = iota // healthy: draw
	admitProbe                  // down and due: this call probes it
	admitDown                   // down: ask only if nothing else draws
	admitOut                    // refused or rewound: never
)

// admit says what a call at now may do with srv; mayProbe is false once
// the call holds a probe. It returns whether this call should start a
// recheck of a rewound server, and the server's error when it is out.
func (c *Client) admit(srv *server, now time.Time, mayProbe bool) (admission, bool, error) {
	srv.mu.Lock()
	defer srv.mu.Unlock()
	switch {
	case srv.refused != nil:
		return admitOut, false, srv.refused
	case srv.rewound != nil:
		recheck := !srv.rechecking && !now.Before(srv.recheckAt)
		srv.rechecking = srv.rechecking || recheck
		return admitOut, recheck, srv.rewound
	case !srv.down:
		return admitReady, false, nil
	case now.Before(srv.retryAt):
		return admitDown, false, nil
	case c.noBreaker:
		return admitReady, false, nil
	case mayProbe && !srv.probing:
		srv.probing = true
		return admitProbe, false, nil
	}
	return admitDown, false, nil
}

// attempt is one server a call tried and left.
type attempt struct {
	srv  *server
	wait time.Duration
	err  error
}

// Next draws one ticket. It asks the servers in turn, starting with the
// next one: first the healthy ones (and, for one caller at a time, a
// failed one whose wait is over), each for at most Budget while another
// is left to ask, the last for at most Timeout; when none of them draws,
// the failed ones too. It returns ctx's error when ctx ends, and an error
// wrapping ErrNoServer and every server's error when no server could draw.
func (c *Client) Next(ctx context.Context) (int64, error) {
	n := len(c.servers)
	first := int(c.turn.Add(1) % uint64(n))
	now := c.set.Clock()
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
	for pass, list := range [][]*server{order, down} {
		for i, srv := range list {
			limit := c.set.Timeout
			if i < len(list)-1 {
				limit = c.set.Budget
			}
			role := roleReady
			switch {
			case srv == probe:
				role = roleProbe
			case pass == 1:
				role = roleLastResort
			}
			start := time.Now()
			id, err := c.drawFrom(ctx, srv, limit, role)
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
			left = append(left, attempt{srv, time.Since(start), err})
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

// drawFrom draws one ticket from srv within limit, reading and checking
// its settings first if that has not happened yet, and records the
// outcome: a server that failed goes down (events and backoff), one that
// drew comes up.
func (c *Client) drawFrom(ctx context.Context, srv *server, limit time.Duration, r role) (int64, error) {
	if r == roleProbe {
		c.probes.Add(1)
	}
	dctx, cancel := context.WithTimeout(ctx, limit)
	id, err := c.try(dctx, srv, r)
	timedOut := err != nil && ctx.Err() == nil && dctx.Err() != nil
	cancel()
	if timedOut {
		c.abandoned.Add(1)
		which := "the budget, with another server left to ask"
		if limit == c.set.Timeout {
			which = "the timeout"
		}
		err = fmt.Errorf("%w: waited %s (%s)", ErrNoAnswer, limit, which)
	}
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
		srv.lastErr, srv.down, srv.backoff = nil, false, 0
		srv.draws.Add(1)
		if wasDown {
			events = append(events, Event{Kind: EventServerUp, Server: srv.Name})
		}
	case rewound != nil:
		if srv.rewound == nil {
			srv.rewound, srv.resumesAt, srv.recheckAt = rewound, resumes, c.set.Clock().Add(c.set.RetryAfter)
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
		now := c.set.Clock()
		switch {
		case r == roleProbe:
			srv.backoff = min(2*srv.backoff, c.set.MaxRetryAfter)
			srv.backoff = max(srv.backoff, c.set.RetryAfter)
			srv.retryAt = now.Add(srv.backoff)
			events = append(events, Event{Kind: EventServerDown, Server: srv.Name, Backoff: srv.backoff, Err: err})
		case !srv.down:
			srv.down, srv.backoff, srv.retryAt = true, c.set.RetryAfter, now.Add(c.set.RetryAfter)
			events = append(events, Event{Kind: EventServerDown, Server: srv.Name, Backoff: srv.backoff, Err: err})
		case c.noBreaker:
			srv.retryAt = now.Add(c.set.RetryAfter)
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
			skipped = &Event{Kind: EventSkipped, Server: srv.Name, Ticket: id, High: prev, Count: (id-prev)/set.Increment - 1}
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

// emit hands e to OnEvent.
func (c *Client) emit(e Event) {
	if c.set.OnEvent != nil {
		c.set.OnEvent(e)
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
// due and none runs.
func (c *Client) maybeRecord() {
	now := c.set.Clock().UnixNano()
	due := c.nextRecord.Load()
	if now < due || !c.nextRecord.CompareAndSwap(due, c.set.Clock().Add(c.set.RecordEvery).UnixNano()) {
		return
	}
	if !c.recording.CompareAndSwap(false, true) {
		return
	}
	go func() {
		defer c.recording.Store(false)
		ctx, cancel := context.WithTimeout(context.Background(), c.set.Timeout)
		defer cancel()
		_ = c.record(ctx) // failures are events
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
	var rows [][]ClassRow
	for _, from := range c.classServers() {
		ctx, cancel := context.WithTimeout(context.Background(), c.set.Timeout)
		r, err := ReadClass(ctx, from.DB, c.set.Name)
		cancel()
		if err == nil {
			rows = append(rows, r)
		}
	}
	c.mu.Lock()
	for _, r := range MergeClass(rows...) {
		c.class[r.Offset] = mergeRow(c.class[r.Offset], r)
	}
	c.mu.Unlock()
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
		srv.recheckAt = c.set.Clock().Add(c.set.RetryAfter)
	}
	srv.rechecking = false
	srv.mu.Unlock()
	if back {
		c.emit(Event{Kind: EventResumed, Server: srv.Name})
	}
}

// Servers reports what the client knows of each server, in the order
// given to NewClient.
func (c *Client) Servers() []ServerState {
	out := make([]ServerState, len(c.servers))
	for i, srv := range c.servers {
		srv.mu.Lock()
		out[i] = ServerState{Name: srv.Name, Settings: srv.settings, Draws: srv.draws.Load(), High: srv.highest(),
			Down: srv.down, LastErr: srv.lastErr, Refused: srv.refused}
		if srv.rewound != nil {
			out[i].Rewound = srv.rewound
		}
		srv.mu.Unlock()
	}
	return out
}

// Stats returns a snapshot of the client's counters and servers. The
// client holds no tickets of its own: nothing is lost when it is dropped.
func (c *Client) Stats() Stats {
	return Stats{Draws: c.draws.Load(), Failovers: c.failovers.Load(), Abandoned: c.abandoned.Load(), Probes: c.probes.Load(),
		Rewinds: c.rewinds.Load(), Skipped: c.skipped.Load(), Servers: c.Servers()}
}
