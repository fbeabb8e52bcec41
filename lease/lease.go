package lease

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/shardid/shardid"
	"github.com/shardid/shardid/dialect"
)

// Lease defaults.
const (
	// DefaultTTL is how long a lease lasts without renewal when
	// Settings.TTL is zero.
	DefaultTTL = 10 * time.Second
	// DefaultMaxClockSkew is how far the local clock may be from the
	// database's when Settings.MaxClockSkew is zero.
	DefaultMaxClockSkew = time.Second
)

// Settings configures Acquire. The zero value of every field means
// the documented default, so Settings{} leases a Snowflake node id
// from DefaultTable.
type Settings struct {
	// Generator configures the generator the lease binds (Lease.Generator).
	// Its Layout decides how many node ids there are (2^ShardBits; the zero
	// Layout is Snowflake's 10 bits), and its Clock and Sleep serve the
	// lease too. Node must be zero: the lease picks it.
	Generator shardid.Settings
	// Table is the lease table: name or schema.name, in lower-case letters,
	// digits and _. "" means DefaultTable. One table serves one ID
	// space: every generator leasing from it must use the same layout.
	Table string
	// Dialect is the database's dialect; "" asks the server
	// (dialect.Detect).
	Dialect dialect.Dialect
	// Holder names this process in the table (up to 255 characters). A
	// free node id this holder held last is preferred over the lowest free
	// one, so a stable name (a host or pod name) gets its own id back after
	// a restart. "" means hostname:pid.
	Holder string
	// TTL is how long a lease lasts without renewal, by the database's
	// clock. Zero means DefaultTTL (10s).
	TTL time.Duration
	// Margin is how long before the lease could end the generator stops
	// drawing: a renewal sent at local time t lets it draw until t+TTL-
	// Margin on the local monotonic clock, so a slow answer only shortens
	// the time. It must cover the rate difference between the local and
	// the database's clocks and, on TiDB with several tidb-servers or
	// after a failover, the skew between database servers. Zero means
	// TTL/10; it must be less than TTL/2.
	Margin time.Duration
	// RenewEvery is how often the lease renews itself in the background;
	// after a failed renewal it retries three times as often. Zero means
	// TTL/3; it must be less than TTL-Margin. A negative value means no
	// background renewal: call Lease.Renew yourself.
	RenewEvery time.Duration
	// MaxClockSkew is how far the local clock may be from the database's,
	// beyond the uncertainty of one round trip, at acquire and at each
	// renewal. Zero means DefaultMaxClockSkew (1s).
	MaxClockSkew time.Duration
	// MaxClockWait is how long Acquire waits for the local clock to
	// pass the latest time the node id was drawn at. Zero means twice
	// MaxClockSkew (two clocks each within MaxClockSkew of the database's
	// can be that far apart); a negative value means never wait.
	MaxClockWait time.Duration
	// AllowLossyCommit accepts a server that may lose acknowledged commits
	// in a crash (see ErrLossyCommit). LIMIT: a claim or renewal
	// acknowledged just before such a crash can be lost, and the node id
	// given to a second holder while the first still draws: IDs repeat.
	AllowLossyCommit bool
	// OnEvent, when not nil, is called with what happens to the lease:
	// acquired, renewed (with the lease's age), drawing stopped for want of
	// a renewal, lost, released, the database lost and back (Event).
	// It is called synchronously from Acquire, the renewing goroutine,
	// Renew and Close, one call at a time and never with the lease's locks
	// held; it must return quickly (a slow OnEvent delays the next
	// renewal) and may call Stats.
	OnEvent func(Event)
}

// Errors of the lease API; the generator's own are returned too. Check
// them with errors.Is.
var (
	// ErrInvalidSettings is returned by Acquire when a setting is
	// out of range.
	ErrInvalidSettings = errors.New("invalid lease settings")
	// ErrNoFreeNode is returned by Acquire when every node id of the
	// layout is held by a live lease.
	ErrNoFreeNode = errors.New("no free node id")
	// ErrLayoutMismatch is returned by Acquire when the lease table
	// holds a node leased with another layout.
	ErrLayoutMismatch = errors.New("lease table serves another layout")
	// ErrClockSkew is returned by Acquire and Lease.Renew when the
	// local clock is further than MaxClockSkew from the database's.
	ErrClockSkew = errors.New("clock too far from the database's")
	// ErrClockBehind is returned by Acquire when the local clock is
	// further than MaxClockWait behind the latest time the node id was
	// drawn at.
	ErrClockBehind = errors.New("clock behind the node's last drawn time")
	// ErrExpired is returned by a leased generator's Next when no
	// renewal has succeeded recently enough for the lease to still cover
	// the time, or the clock has jumped past the time the lease table lets
	// it draw up to. A later successful renewal lets it draw again.
	ErrExpired = errors.New("lease not renewed in time")
	// ErrLost is returned by Lease.Renew and a leased generator's Next
	// once the lease's row is no longer this holder's: another holder took
	// the node id over after the lease ended, an operator fenced the table
	// (Fence), or the row was changed by something other than its
	// holder (a restore from an older copy, a hand edit: the error wraps
	// ErrRewound too). The generator has stopped for good.
	ErrLost = errors.New("lease lost")
	// ErrClosed is returned by a leased generator's Next and by
	// Lease.Renew after Lease.Close.
	ErrClosed = errors.New("lease closed")
	// ErrLossyCommit (dialect.ErrLossyCommit, which segments return too)
	// is returned by Acquire and Lease.Renew when the server may lose
	// acknowledged commits in a crash, unless Settings.AllowLossyCommit:
	// a claim or renewal it forgot could give the node id to a second
	// holder while the first still draws.
	ErrLossyCommit = dialect.ErrLossyCommit
	// ErrRewound (dialect.ErrRewound, which segments return too) is
	// wrapped with ErrLost by Lease.Renew and a leased generator's Next
	// when the lease's row was changed by something other than its
	// holder: the table restored from an older copy, or edited by hand.
	ErrRewound = dialect.ErrRewound
)

// leaseState is where a lease is in its life.
type leaseState int

const (
	leaseLive leaseState = iota
	leaseLost
	leaseClosed
)

// Lease is a node id leased from the database. Its Generator draws IDs
// only while the lease covers them; it renews itself in the background and
// gives the id back on Close.
//
// The rules it keeps, so that no two holders of a node id ever draw the
// same ID:
//   - a node id is held by one live lease at a time: every claim is a
//     single statement the database decides (a primary key, or an UPDATE
//     whose WHERE requires the lease to have ended by the database's clock);
//   - the generator stops drawing before the lease could end: a renewal
//     sent at local time t covers drawing until t+TTL-Margin on the local
//     monotonic clock;
//   - before the generator draws up to a time, the table records that time
//     (last_ms), and a later holder of the id draws only at later ticks,
//     waiting up to MaxClockWait for its clock to get there;
//   - the local clock is within MaxClockSkew of the database's at acquire
//     and at every renewal.
type Lease struct {
	db         *sql.DB
	q          *leaseSQL
	s          Settings // with defaults filled in
	layout     shardid.Layout
	layoutText string
	clock      func() time.Time     // the wall clock: the generator's
	mono       func() time.Duration // the monotonic clock every decision of when is taken on (monoNow; tests drive their own)
	monoOfNow  bool                 // clock is time.Now: a reading's own monotonic reading is mono's (monoAt)
	steps      stepWatch            // the wall clock against mono, at each renewal
	sleep      func(time.Duration)  // the waits of Acquire
	node       int64
	token      string
	floorMs    int64 // the node's last_ms when acquired
	gen        *shardid.Generator
	emitMu     sync.Mutex // one OnEvent call at a time

	renewMu sync.Mutex // one renewal, or the release, at a time
	// Guarded by renewMu: the row's write count as this holder's last
	// answered write left it, and how many writes were sent since whose
	// answer never came. A renewal matches only a count in between.
	writes, unsure int64
	trustRow       bool // tests only: renew on the token alone, as a holder without the write count would

	// mu guards the fence (the generator asks allow before each draw,
	// with its own lock held: the generator's lock comes first, and the
	// lease never calls the generator holding mu) and the lease's state.
	mu sync.Mutex
	// The fence: the generator draws only while the monotonic clock
	// reads before stopAt and at ticks up to capTick. Renewals move both
	// forward; a lost or closed lease clears stopAt. drawn is the highest
	// tick allow let through (the node's last_ms tick before that, -1 for
	// none): the latest the generator drew at. Every time.Duration here is
	// a monotonic reading (mono); 0 is none.
	stopAt       time.Duration
	capTick      int64
	drawn        int64
	state        leaseState
	lostErr      error         // why the lease was lost
	renewErr     error         // why the last renewal failed, if it did
	inflight     time.Duration // when the renewal under way was sent; 0 when none is
	beatGap      time.Duration // the longest the lease's heartbeat went unheard while that renewal was under way
	lastBeat     time.Duration // its last beat
	lastSent     time.Time     // when the last successful renewal (or the claim) was sent, by the wall clock
	lastSentMono time.Duration // the same by the monotonic clock
	renewals     int64         // successful renewals
	failures     int64         // failed renewals
	down         bool          // the last renewal failed with the database's error
	downSince    time.Duration
	stopNoted    bool // a Expired event went out for the current gap

	stopRenew context.CancelFunc
	renewDone chan struct{}
	closeOnce sync.Once
	closeErr  error
}

// normalize fills in defaults and checks the settings.
func (s Settings) normalize() (Settings, error) {
	bad := func(format string, args ...any) (Settings, error) {
		return s, fmt.Errorf("lease: %w: "+format, append([]any{ErrInvalidSettings}, args...)...)
	}
	if s.Generator.Node != 0 {
		return bad("Generator.Node is %d; leave it 0, the lease picks the node id", s.Generator.Node)
	}
	if s.Generator.Layout == (shardid.Layout{}) {
		s.Generator.Layout = shardid.Snowflake()
	}
	if err := s.Generator.Layout.Validate(); err != nil {
		return s, fmt.Errorf("lease: %w", err)
	}
	if s.Table == "" {
		s.Table = DefaultTable
	}
	if err := CheckTable(s.Table); err != nil {
		return s, fmt.Errorf("lease: %w", err)
	}
	if s.Holder == "" {
		s.Holder = defaultHolder()
	}
	if n := utf8.RuneCountInString(s.Holder); n > 255 || !utf8.ValidString(s.Holder) || !printable(s.Holder) {
		return bad("holder %q: want up to 255 printable UTF-8 characters", s.Holder)
	}
	if s.TTL == 0 {
		s.TTL = DefaultTTL
	}
	if s.TTL < 10*time.Millisecond {
		return bad("TTL %s: want at least 10ms", s.TTL)
	}
	if s.Margin == 0 {
		s.Margin = s.TTL / 10
	}
	if s.Margin < 0 || s.Margin >= s.TTL/2 {
		return bad("Margin %s: want more than 0 and less than TTL/2 (%s)", s.Margin, s.TTL/2)
	}
	if s.RenewEvery == 0 {
		s.RenewEvery = s.TTL / 3
	}
	if s.RenewEvery >= s.TTL-s.Margin {
		return bad("RenewEvery %s: want less than TTL-Margin (%s), or negative for no background renewal", s.RenewEvery, s.TTL-s.Margin)
	}
	if s.MaxClockSkew == 0 {
		s.MaxClockSkew = DefaultMaxClockSkew
	}
	if s.MaxClockSkew < 0 {
		return bad("MaxClockSkew %s: want 0 (default %s) or more", s.MaxClockSkew, DefaultMaxClockSkew)
	}
	if s.MaxClockWait == 0 {
		s.MaxClockWait = 2 * s.MaxClockSkew
	}
	return s, nil
}

func printable(s string) bool {
	for _, r := range s {
		if !unicode.IsPrint(r) {
			return false
		}
	}
	return true
}

// defaultHolder is hostname:pid.
func defaultHolder() string {
	h, err := os.Hostname()
	if err != nil || h == "" {
		h = "unknown-host"
	}
	return h + ":" + strconv.Itoa(os.Getpid())
}

// Node is the leased node id.
func (l *Lease) Node() int64 { return l.node }

// Holder is the name the lease table shows for this lease.
func (l *Lease) Holder() string { return l.s.Holder }

// Table is the lease table's name.
func (l *Lease) Table() string { return l.s.Table }

// Generator returns the generator bound to the lease: node Node, drawing
// only while the lease covers it. Do not make another generator for the
// node with shardid.NewGenerator: it would draw without a lease.
func (l *Lease) Generator() *shardid.Generator { return l.gen }

// Next is l.Generator().Next().
func (l *Lease) Next() (int64, error) { return l.gen.Next() }

// Close stops the generator, stops renewing and gives the node id back,
// recording the latest time actually drawn at, so the next holder need not
// wait for the time the last renewal allowed. After Close the generator's
// Next returns ErrClosed. It returns the release's error, if any (the
// lease then ends by itself within TTL); a lease already lost is not an
// error. Close is safe to call more than once.
func (l *Lease) Close() error {
	l.closeOnce.Do(func() {
		l.mu.Lock()
		prev := l.state
		l.state, l.stopAt = leaseClosed, 0
		lastTick := l.drawn
		l.mu.Unlock()
		l.stopRenew()
		<-l.renewDone
		if prev == leaseLost {
			return
		}
		l.renewMu.Lock()
		defer l.renewMu.Unlock()
		lastMs := l.floorMs
		if lastTick >= 0 {
			lastMs = max(lastMs, l.layout.TickTime(lastTick+1).UnixMilli()-1)
		}
		ctx, cancel := context.WithTimeout(context.Background(), l.s.TTL)
		defer cancel()
		if _, err := l.db.ExecContext(ctx, l.q.release, lastMs, l.node, l.token); err != nil {
			l.closeErr = fmt.Errorf("lease: release node %d in %s (it ends by itself within %s): %w", l.node, l.s.Table, l.s.TTL, err)
		}
		l.emit(Event{Kind: Released, Node: l.node, Time: l.clock(), Err: l.closeErr})
	})
	return l.closeErr
}

// Stats returns a snapshot of the lease.
func (l *Lease) Stats() Stats {
	now, mono := l.clock(), l.mono()
	l.mu.Lock()
	defer l.mu.Unlock()
	st := Stats{Node: l.node, Renewals: l.renewals, Failures: l.failures, LastRenewal: l.lastSent,
		Err: l.renewErr, DatabaseDown: l.down}
	if l.stopAt > 0 {
		st.DrawUntil = now.Add(l.stopAt - mono)
	}
	if l.state != leaseLive {
		st.Err = l.stateError(l.state, l.lostErr)
	}
	return st
}

// emit hands evs to OnEvent, one call at a time. No lock of the lease is
// held.
func (l *Lease) emit(evs ...Event) {
	if l.s.OnEvent == nil || len(evs) == 0 {
		return
	}
	l.emitMu.Lock()
	defer l.emitMu.Unlock()
	for _, e := range evs {
		e.Holder = l.s.Holder
		l.s.OnEvent(e)
	}
}
