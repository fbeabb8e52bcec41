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

// Defaults of Settings.
const (
	// DefaultRetryAfter is how long a server that failed is first passed
	// over.
	DefaultRetryAfter = 250 * time.Millisecond
	// DefaultMaxRetryAfter caps how long a failed server is passed over
	// between probes: one that answers again is drawn from within it.
	DefaultMaxRetryAfter = time.Second
	// DefaultTimeout bounds one call of Next, every server it asks
	// included.
	DefaultTimeout = 2 * time.Second
	// DefaultBudget is the least a draw waits for a silent server while
	// another server is left to ask: a hung server that had been answering
	// fast costs a call this long.
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

// Settings configures a Client, the long-lived client of a ticket name's
// servers (as lease.Settings and segment.Settings configure theirs). Only
// Name is required; the zero value of every other field means the
// documented default.
type Settings struct {
	// Name is the ticket name on every server.
	Name string
	// RetryAfter is how long a server that failed is first passed over;
	// 0 means DefaultRetryAfter. Then one caller at a time probes it (the
	// others keep drawing from the healthy servers), and each failed probe
	// doubles the wait, up to MaxRetryAfter. When no other server can
	// draw, a call asks the failed ones too.
	RetryAfter time.Duration
	// MaxRetryAfter caps the doubling of RetryAfter; 0 means
	// DefaultMaxRetryAfter (1s), or RetryAfter when that is longer.
	MaxRetryAfter time.Duration
	// Budget is the least time a draw waits for a silent server while
	// another server is left to ask; 0 means DefaultBudget; it is never
	// more than Timeout. Each server's budget adapts to how fast it has
	// been answering: four times its slowest recent answer, at least
	// Budget, at most half the Timeout (so that a call leaving it has
	// time for another). A draw leaves a server, and the call goes
	// on to the next, once the server has answered nothing for its
	// budget (no draw of this client since this one started): a server
	// slowed by load goes on answering and is waited for, a hung one
	// costs the call its budget, plus the draw on the next server. A draw
	// given up on runs on in the background up to Timeout: a server that
	// answers it was slow, not hung, and its budget grows (EventSlow);
	// its ticket is never handed out.
	Budget time.Duration
	// Timeout bounds one call of Next: the last server left to ask gets
	// what is left of it after the others' budgets, and a call with every
	// server hung returns after Timeout. 0 means DefaultTimeout.
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
	// Clock returns the wall-clock time; nil means time.Now. The client
	// takes no decision on it: when to probe a failed server, recheck a
	// rewound one, record, and how long a server has been silent are
	// measured on the monotonic clock, which a step of the wall clock (an
	// NTP or operator's correction) does not move. The wall clock is
	// watched at every record, and a step of it is reported
	// (EventClockStepped).
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
// out. A client started after a restore finds it from the records before
// it draws from the server: the counter, or for a TiDB sequence the most
// it can have handed out (NEXT_ROW_ID), below the highest ticket recorded
// from it. LIMIT: the records lag the draws by up to RecordEvery; a
// sequence whose position the role may not read is found only by the
// clients that drew from it before, and by the reports.
//
// A server that fails, or stays silent for its budget (Settings.
// Budget) while another is left to ask, is passed over, and the call goes
// on to the next; afterwards only one caller at a time probes it, with a
// backoff that doubles per failed probe. It is safe for concurrent use.
type Client struct {
	set     Settings
	servers []*server
	turn    atomic.Uint64

	mu      sync.Mutex // guards checked and class
	checked []ServerSettings
	class   map[int64]ClassRow // merged from every class table read

	mono       func() time.Duration // the monotonic clock that schedules probes, rechecks, records (monoNow; tests drive their own)
	steps      stepWatch            // the wall clock against it
	nextRecord atomic.Int64         // monotonic nanoseconds when the next record is due
	recording  atomic.Bool

	draws, failovers, abandoned, late, probes, rewinds, skipped atomic.Int64

	// tests only, for negative controls
	unchecked        bool // no class check
	noRewindCheck    bool // no high-water check
	noRejudge        bool // servers read before are not weighed against class rows merged later
	noBreaker        bool // every caller retries a failed server once RetryAfter passed
	perServerTimeout bool // each server of a call may take the whole Timeout
	fixedBudget      bool // every server's budget is Settings.Budget, whatever it answers in
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

	lat latency // how fast it answers: its budget

	down      bool          // failed; passed over until retryAt, then probed
	retryAt   time.Duration // monotonic
	backoff   time.Duration
	abandoned int64 // draws given up on since the last that drew
	probing   bool  // one caller is probing it
	lastErr   error
	refused   error // permanent: the server is never used again

	high     int64      // the highest ticket drawn from it (kind table) or recorded from it
	highRec  bool       // high is the recorded one, not drawn by this client
	inst     []instHigh // kind sequence: the highest per TiDB instance; replaced, never changed in place
	recorded int64      // the highest ticket written to the class tables

	rewound    *RewindError  // out of rotation until a resume is recorded
	resumesAt  int64         // the resumes recorded when it went out
	recheckAt  time.Duration // monotonic
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
	// Budget is how long a draw waits for the server, silent, while
	// another server is left to ask (Settings.Budget), as it has
	// been answering: a failed server and its probes get
	// Settings.Budget.
	Budget time.Duration
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
func NewClient(ctx context.Context, servers []Server, s Settings) (*Client, error) {
	return newClient(ctx, servers, s, nil)
}

// newClient is NewClient; hooks, if set, changes the client before it
// reads the servers (tests only).
func newClient(ctx context.Context, servers []Server, s Settings, hook func(*Client)) (*Client, error) {
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
		s.MaxRetryAfter = DefaultMaxRetryAfter
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
	c := &Client{set: s, class: map[int64]ClassRow{}, mono: monoNow}
	if hook != nil {
		hook(c)
	}
	c.steps.check(s.Clock(), c.mono())
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
			began := monoNow()
			if read[i] = c.load(rctx, srv, false); read[i] == nil {
				srv.lat.observe(monoNow()-began, monoNow()) // reading it: the first sample of how fast it answers
			}
		}()
	}
	wg.Wait()
	if err := Check(c.checked); err != nil {
		return nil, err
	}
	var errs []error
	now := c.mono()
	for i, srv := range c.servers {
		if read[i] != nil {
			srv.lastErr, srv.down, srv.backoff, srv.retryAt = read[i], true, s.RetryAfter, now+s.RetryAfter
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
	c.nextRecord.Store(int64(now + s.RecordEvery))
	return c, nil
}

// emit hands e to OnEvent.
func (c *Client) emit(e Event) {
	if c.set.OnEvent != nil {
		c.set.OnEvent(e)
	}
}

// Servers reports what the client knows of each server, in the order
// given to NewClient.
func (c *Client) Servers() []ServerState {
	out := make([]ServerState, len(c.servers))
	for i, srv := range c.servers {
		srv.mu.Lock()
		out[i] = ServerState{Name: srv.Name, Settings: srv.settings, Draws: srv.draws.Load(), High: srv.highest(),
			Down: srv.down, Budget: c.budgetOf(srv, false, roleReady), LastErr: srv.lastErr, Refused: srv.refused}
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
	return Stats{Draws: c.draws.Load(), Failovers: c.failovers.Load(), Abandoned: c.abandoned.Load(), Late: c.late.Load(), Probes: c.probes.Load(),
		Rewinds: c.rewinds.Load(), Skipped: c.skipped.Load(), Servers: c.Servers()}
}
