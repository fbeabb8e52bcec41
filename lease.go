package shardid

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/shardid/shardid/dialect"
)

// Lease defaults.
const (
	// DefaultLeaseTTL is how long a lease lasts without renewal when
	// LeaseSettings.TTL is zero.
	DefaultLeaseTTL = 10 * time.Second
	// DefaultMaxClockSkew is how far the local clock may be from the
	// database's when LeaseSettings.MaxClockSkew is zero.
	DefaultMaxClockSkew = time.Second
)

// claimRounds bounds how often AcquireLease reads the table again after
// other acquirers took the candidates it tried; claimErrors bounds the
// claim statements in a row that fail on an id nobody else took.
const (
	claimRounds = 1000
	claimErrors = 5
	// claimBatch is how many candidates one round tries before reading
	// the table again.
	claimBatch = 64
)

// LeaseSettings configures AcquireLease. The zero value of every field means
// the documented default, so LeaseSettings{} leases a Snowflake node id
// from DefaultLeaseTable.
type LeaseSettings struct {
	// Generator configures the generator the lease binds (Lease.Generator).
	// Its Layout decides how many node ids there are (2^ShardBits; the zero
	// Layout is Snowflake's 10 bits), and its Clock and Sleep serve the
	// lease too. Node must be zero: the lease picks it.
	Generator Settings
	// Table is the lease table: name or schema.name, in lower-case letters,
	// digits and _. "" means DefaultLeaseTable. One table serves one ID
	// space: every generator leasing from it must use the same layout.
	Table string
	// Dialect is the database's dialect; "" asks the server
	// (DetectDialect).
	Dialect dialect.Dialect
	// Holder names this process in the table (up to 255 characters). A
	// free node id this holder held last is preferred over the lowest free
	// one, so a stable name (a host or pod name) gets its own id back after
	// a restart. "" means hostname:pid.
	Holder string
	// TTL is how long a lease lasts without renewal, by the database's
	// clock. Zero means DefaultLeaseTTL (10s).
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
	// MaxClockWait is how long AcquireLease waits for the local clock to
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
	// a renewal, lost, released, the database lost and back (LeaseEvent).
	// It is called synchronously from AcquireLease, the renewing goroutine,
	// Renew and Close, one call at a time and never with the lease's locks
	// held; it must return quickly (a slow OnEvent delays the next
	// renewal) and may call Stats.
	OnEvent func(LeaseEvent)
}

// Errors of the lease API; the generator's own are returned too. Check
// them with errors.Is.
var (
	// ErrInvalidLeaseSettings is returned by AcquireLease when a setting is
	// out of range.
	ErrInvalidLeaseSettings = errors.New("invalid lease settings")
	// ErrNoFreeNode is returned by AcquireLease when every node id of the
	// layout is held by a live lease.
	ErrNoFreeNode = errors.New("no free node id")
	// ErrLayoutMismatch is returned by AcquireLease when the lease table
	// holds a node leased with another layout.
	ErrLayoutMismatch = errors.New("lease table serves another layout")
	// ErrClockSkew is returned by AcquireLease and Lease.Renew when the
	// local clock is further than MaxClockSkew from the database's.
	ErrClockSkew = errors.New("clock too far from the database's")
	// ErrClockBehind is returned by AcquireLease when the local clock is
	// further than MaxClockWait behind the latest time the node id was
	// drawn at.
	ErrClockBehind = errors.New("clock behind the node's last drawn time")
	// ErrLeaseExpired is returned by a leased generator's Next when no
	// renewal has succeeded recently enough for the lease to still cover
	// the time, or the clock has jumped past the time the lease table lets
	// it draw up to. A later successful renewal lets it draw again.
	ErrLeaseExpired = errors.New("lease not renewed in time")
	// ErrLeaseLost is returned by Lease.Renew and a leased generator's Next
	// once the lease's row is no longer this holder's: another holder took
	// the node id over after the lease ended, an operator fenced the table
	// (FenceLeases), or the row was changed by something other than its
	// holder (a restore from an older copy, a hand edit: the error wraps
	// ErrRewound too). The generator has stopped for good.
	ErrLeaseLost = errors.New("lease lost")
	// ErrLeaseClosed is returned by a leased generator's Next and by
	// Lease.Renew after Lease.Close.
	ErrLeaseClosed = errors.New("lease closed")
	// ErrLossyCommit is dialect.ErrLossyCommit.
	ErrLossyCommit = dialect.ErrLossyCommit
	// ErrRewound is dialect.ErrRewound.
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
	s          LeaseSettings // with defaults filled in
	layout     Layout
	layoutText string
	clock      func() time.Time
	sleep      func(time.Duration) // the waits of AcquireLease
	node       int64
	token      string
	floorMs    int64 // the node's last_ms when acquired
	gen        *Generator
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
	// The fence: the generator draws only while the clock reads before
	// stopAt and at ticks up to capTick. Renewals move both forward; a
	// lost or closed lease clears stopAt. drawn is the highest tick allow
	// let through (the node's last_ms tick before that, -1 for none): the
	// latest the generator drew at.
	stopAt    time.Time
	capTick   int64
	drawn     int64
	state     leaseState
	lostErr   error     // why the lease was lost
	renewErr  error     // why the last renewal failed, if it did
	lastSent  time.Time // when the last successful renewal (or the claim) was sent
	renewals  int64     // successful renewals
	failures  int64     // failed renewals
	down      bool      // the last renewal failed with the database's error
	downSince time.Time
	stopNoted bool // a LeaseExpired event went out for the current gap

	stopRenew context.CancelFunc
	renewDone chan struct{}
	closeOnce sync.Once
	closeErr  error
}

// normalize fills in defaults and checks the settings.
func (s LeaseSettings) normalize() (LeaseSettings, error) {
	bad := func(format string, args ...any) (LeaseSettings, error) {
		return s, fmt.Errorf("lease: %w: "+format, append([]any{ErrInvalidLeaseSettings}, args...)...)
	}
	if s.Generator.Node != 0 {
		return bad("Generator.Node is %d; leave it 0, the lease picks the node id", s.Generator.Node)
	}
	if s.Generator.Layout == (Layout{}) {
		s.Generator.Layout = Snowflake()
	}
	if err := s.Generator.Layout.Validate(); err != nil {
		return s, fmt.Errorf("lease: %w", err)
	}
	if s.Table == "" {
		s.Table = DefaultLeaseTable
	}
	if err := CheckLeaseTable(s.Table); err != nil {
		return s, fmt.Errorf("lease: %w", err)
	}
	if s.Holder == "" {
		s.Holder = defaultHolder()
	}
	if n := utf8.RuneCountInString(s.Holder); n > 255 || !utf8.ValidString(s.Holder) || !printable(s.Holder) {
		return bad("holder %q: want up to 255 printable UTF-8 characters", s.Holder)
	}
	if s.TTL == 0 {
		s.TTL = DefaultLeaseTTL
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

// AcquireLease leases a node id from the lease table on db and returns the
// lease with its generator bound to it. It takes the free id Holder held
// last, else the lowest free id: one no live lease holds, by the database's
// clock. Before returning it renews the lease once, which records the time
// the generator may draw up to, and starts renewing in the background.
// Close the lease to stop drawing and give the id back.
//
// It returns errors wrapping ErrInvalidLeaseSettings, ErrInvalidLeaseTable,
// ErrLossyCommit, the layout's errors, ErrClockSkew (the local clock is too far from the
// database's), ErrClockBehind (too far behind the node's last drawn time),
// ErrLayoutMismatch, ErrNoFreeNode (every id held, or fenced by
// FenceLeases; the message says which and names the layout's node bits),
// dialect.ErrUnknown, and the database's own errors
// (the table missing, the database unreachable). No id is cached locally:
// without the database there is no knowing who holds an id or how far it
// was drawn, so an unreachable database is an error.
func AcquireLease(ctx context.Context, db *sql.DB, s LeaseSettings) (*Lease, error) {
	return acquire(ctx, db, s, (*Lease).tryClaim)
}

// claimed is the row of a node a claim made the lease's: its last_ms and
// its write count.
type claimed struct{ lastMs, writes int64 }

// claimFunc runs one claim statement for a candidate and reports whether
// the node is now the lease's, with its row. Tests wrap tryClaim.
type claimFunc func(l *Lease, ctx context.Context, c candidate) (bool, claimed, error)

func acquire(ctx context.Context, db *sql.DB, s LeaseSettings, try claimFunc) (*Lease, error) {
	s, err := s.normalize()
	if err != nil {
		return nil, err
	}
	if s.Dialect == "" {
		if s.Dialect, err = dialect.Detect(ctx, db); err != nil {
			return nil, fmt.Errorf("lease: %w", err)
		}
	}
	q, err := leaseStatements(s.Dialect, s.Table, !s.AllowLossyCommit)
	if err != nil {
		return nil, fmt.Errorf("lease: %w", err)
	}
	l := &Lease{db: db, q: q, s: s, layout: s.Generator.Layout, layoutText: leaseLayoutText(s.Generator.Layout),
		clock: s.Generator.Clock, sleep: s.Generator.Sleep, token: newToken(), capTick: -1} // nothing to draw until the first renewal
	if l.clock == nil {
		l.clock = time.Now
	}
	if l.sleep == nil {
		l.sleep = time.Sleep
	}
	if err := l.checkSkew(ctx, l.clock()); err != nil {
		return nil, err
	}
	if !s.AllowLossyCommit && s.Dialect != dialect.TiDB {
		if err := dialect.CheckCommit(ctx, db, s.Dialect, leaseLossyConsequence); err != nil {
			return nil, fmt.Errorf("lease: %w", err)
		}
	}
	claimSent := l.clock()
	var row claimed
	if l.node, row, err = l.claim(ctx, try); err != nil {
		return nil, err
	}
	l.floorMs, l.writes, l.lastSent = row.lastMs, row.writes, claimSent
	fail := func(err error) (*Lease, error) {
		rctx, cancel := context.WithTimeout(context.Background(), s.TTL)
		defer cancel()
		_, _ = db.ExecContext(rctx, q.release, l.floorMs, l.node, l.token)
		return nil, err
	}
	floor, err := l.waitPast(l.floorMs)
	if err != nil {
		return fail(err)
	}
	// Ticks up to floor are the earlier holders': the generator draws
	// only after them, and only while allow lets it.
	l.drawn = floor
	gs := s.Generator
	gs.Node, gs.Clock, gs.LastDrawn, gs.Fence = l.node, l.clock, time.UnixMilli(l.floorMs), l.allow
	g, err := NewGenerator(gs)
	if err != nil {
		return fail(fmt.Errorf("lease: %w", err))
	}
	l.gen = g
	if err := l.Renew(ctx); err != nil {
		return fail(err)
	}
	rctx, stop := context.WithCancel(context.Background())
	l.stopRenew, l.renewDone = stop, make(chan struct{})
	if s.RenewEvery > 0 {
		go l.renewLoop(rctx)
	} else {
		close(l.renewDone)
	}
	l.emit(LeaseEvent{Kind: LeaseAcquired, Node: l.node, Time: l.clock()})
	return l, nil
}

// leaseLossyConsequence is what ErrLossyCommit says a lossy server could do
// to a lease.
const leaseLossyConsequence = "a crash could forget a claim or a renewal and give the node id to a second holder while the first still draws"

// newToken returns 128 random bits in hex: the mark that a row is this
// acquisition's. It tells acquisitions apart, it guards nothing secret
// (whoever may write the table may write it anyway), so math/rand/v2's
// randomly seeded generator is enough.
func newToken() string {
	return fmt.Sprintf("%016x%016x", rand.Uint64(), rand.Uint64())
}

// Node is the leased node id.
func (l *Lease) Node() int64 { return l.node }

// Holder is the name the lease table shows for this lease.
func (l *Lease) Holder() string { return l.s.Holder }

// Table is the lease table's name.
func (l *Lease) Table() string { return l.s.Table }

// Generator returns the generator bound to the lease: node Node, drawing
// only while the lease covers it. Do not make another generator for the
// node with NewGenerator: it would draw without a lease.
func (l *Lease) Generator() *Generator { return l.gen }

// Next is l.Generator().Next().
func (l *Lease) Next() (int64, error) { return l.gen.Next() }

// candidate is a node id AcquireLease may claim.
type candidate struct {
	node   int64
	exists bool  // a row exists (a lease that ended): take it over
	lastMs int64 // its last_ms when read
}

// claim takes a free node id and returns it with its last_ms.
//
// A claim statement that fails (a deadlock, or a write conflict under
// TiDB's optimistic transactions) usually lost a race: the next reading of
// the table tells, and only a failure on an id that is still free counts
// towards claimErrors. A reading that fails ends the attempt.
func (l *Lease) claim(ctx context.Context, try claimFunc) (int64, claimed, error) {
	var lastErr error
	errNode, failures := int64(-1), 0
	for range claimRounds {
		rows, err := listLeases(ctx, l.db, l.q)
		if err != nil {
			return 0, claimed{}, fmt.Errorf("lease: read lease table %s: %w%s", l.s.Table, err, leaseTableHint(err))
		}
		for _, r := range rows {
			if r.token == l.token { // a claim whose answer was lost did commit
				return r.Node, claimed{r.lastMs, r.renewals}, nil
			}
		}
		if errNode >= 0 {
			if failures++; heldLive(rows, errNode) {
				failures = 0
			}
			if failures >= claimErrors {
				return 0, claimed{}, fmt.Errorf("lease: claim node %d in %s: %w", errNode, l.s.Table, lastErr)
			}
			errNode = -1
		}
		cands, err := l.candidates(rows)
		if err != nil {
			return 0, claimed{}, err
		}
		for _, c := range cands {
			if _, err := l.waitNeeded(c.lastMs); err != nil {
				return 0, claimed{}, err
			}
			ok, row, err := try(l, ctx, c)
			if err != nil {
				if ctx.Err() != nil || errors.Is(err, ErrLossyCommit) {
					return 0, claimed{}, fmt.Errorf("lease: claim node %d in %s: %w", c.node, l.s.Table, err)
				}
				errNode, lastErr = c.node, err
				break
			}
			if ok {
				return c.node, row, nil
			}
		}
	}
	return 0, claimed{}, fmt.Errorf("lease: the free node ids in %s went to other acquirers %d times in a row; try again", l.s.Table, claimRounds)
}

// heldLive reports whether rows show a live lease on node.
func heldLive(rows []leaseRow, node int64) bool {
	for _, r := range rows {
		if r.Node == node {
			return r.Live
		}
	}
	return false
}

// candidates lists the node ids to try, best first: free ids this holder
// held last, then the lowest free ones (ended leases and ids nobody
// leased yet), at most claimBatch of those. rows are in node order.
func (l *Lease) candidates(rows []leaseRow) ([]candidate, error) {
	maxNode := l.layout.MaxShard()
	var sticky, free []candidate
	var fenced int64
	var fencedUntil time.Time
	next := int64(0) // the lowest id not looked at yet
	for _, r := range rows {
		if r.Live && r.Fenced {
			fenced++
			if r.Until.After(fencedUntil) {
				fencedUntil = r.Until
			}
		}
		if r.Layout != l.layoutText {
			return nil, fmt.Errorf("lease: %w: node %d in %s was leased for layout %q; this generator uses %q (use another table per layout)",
				ErrLayoutMismatch, r.Node, l.s.Table, r.Layout, l.layoutText)
		}
		if r.Node < next || r.Node > maxNode {
			continue
		}
		for ; next < r.Node && len(free) < claimBatch; next++ {
			free = append(free, candidate{node: next})
		}
		next = r.Node + 1
		switch {
		case r.Live:
		case r.Holder == l.s.Holder:
			sticky = append(sticky, candidate{node: r.Node, exists: true, lastMs: r.lastMs})
		case len(free) < claimBatch:
			free = append(free, candidate{node: r.Node, exists: true, lastMs: r.lastMs})
		}
	}
	for ; next <= maxNode && len(free) < claimBatch; next++ {
		free = append(free, candidate{node: next})
	}
	if len(sticky)+len(free) == 0 && fenced > 0 {
		return nil, fmt.Errorf("lease: %w: all %d node ids of the layout's %d node bits are held by live leases in %s, %d of them fenced (shardid worker fence) until %s, so that any holder from before the fence stops first; try again then",
			ErrNoFreeNode, maxNode+1, l.layout.ShardBits, l.s.Table, fenced, fencedUntil.Format(time.RFC3339Nano))
	}
	if len(sticky)+len(free) == 0 {
		return nil, fmt.Errorf("lease: %w: all %d node ids of the layout's %d node bits are held by live leases in %s",
			ErrNoFreeNode, maxNode+1, l.layout.ShardBits, l.s.Table)
	}
	return append(sticky, free...), nil
}

// tryClaim runs one claim statement and reads the row back: the node is
// ours when the row carries our token. A statement that changed nothing
// needs no read, unless the guard may be why: then a server that may lose
// acknowledged commits is an error wrapping ErrLossyCommit.
func (l *Lease) tryClaim(ctx context.Context, c candidate) (bool, claimed, error) {
	res, err := l.claimStatement(ctx, c)
	if err != nil {
		return false, claimed{}, err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		if err == nil && !l.s.AllowLossyCommit && l.s.Dialect != dialect.TiDB {
			err = dialect.CheckCommit(ctx, l.db, l.s.Dialect, leaseLossyConsequence)
		}
		return false, claimed{}, err
	}
	return l.readBack(ctx, c.node)
}

// readBack reads node's row: it is the lease's when it carries its token.
func (l *Lease) readBack(ctx context.Context, node int64) (bool, claimed, error) {
	var token string
	var row claimed
	if err := l.db.QueryRowContext(ctx, l.q.readback, node).Scan(&token, &row.lastMs, &row.writes); err != nil {
		return false, claimed{}, err
	}
	return token == l.token, row, nil
}

// claimStatement runs the statement that claims c: an INSERT for an id
// nobody leased yet, an UPDATE of an ended lease otherwise.
func (l *Lease) claimStatement(ctx context.Context, c candidate) (sql.Result, error) {
	ttl := l.s.TTL.Microseconds()
	if c.exists {
		return l.db.ExecContext(ctx, l.q.takeover, l.s.Holder, l.token, ttl, c.node, l.layoutText)
	}
	return l.db.ExecContext(ctx, l.q.insert, c.node, l.s.Holder, l.token, l.layoutText, ttl)
}

// tickAtMs is the layout's tick at Unix millisecond ms, or -1 before the
// epoch. For a node's last_ms it is the last tick an earlier holder may
// have drawn at.
func (l *Lease) tickAtMs(ms int64) int64 {
	if ms < l.layout.EpochMillis() {
		return -1
	}
	return (ms - l.layout.EpochMillis()) / l.layout.UnitMillis()
}

// waitNeeded returns how long the local clock must advance before it may
// draw on a node whose last_ms is lastMs: until the tick after the last
// one an earlier holder may have drawn at. It returns ErrClockBehind when
// that is more than MaxClockWait.
func (l *Lease) waitNeeded(lastMs int64) (time.Duration, error) {
	floor := l.tickAtMs(lastMs)
	if floor < 0 {
		return 0, nil
	}
	now := l.clock()
	wait := l.layout.TickTime(floor + 1).Sub(now)
	if wait > max(l.s.MaxClockWait, 0) {
		return 0, fmt.Errorf("lease: %w: node ids here were drawn on up to %s by their holders' clocks; the local clock (%s) is %s behind that (allowed wait %s)",
			ErrClockBehind, time.UnixMilli(lastMs).UTC().Format(time.RFC3339Nano), now.UTC().Format(time.RFC3339Nano), wait, max(l.s.MaxClockWait, 0))
	}
	return wait, nil
}

// waitPast sleeps until the local clock is past lastMs's tick, for at most
// MaxClockWait in all, and returns that tick (-1 for none).
func (l *Lease) waitPast(lastMs int64) (int64, error) {
	if l.tickAtMs(lastMs) > l.layout.MaxTicks() {
		return 0, fmt.Errorf("lease: node %d: %w: drawn on up to %s, past the layout's end", l.node, ErrTimeRange, time.UnixMilli(lastMs).UTC().Format(time.RFC3339Nano))
	}
	var waited time.Duration
	for {
		wait, err := l.waitNeeded(lastMs)
		if err == nil && waited+wait > max(l.s.MaxClockWait, 0) {
			err = fmt.Errorf("lease: node %d: %w: still %s to go after waiting %s (allowed wait %s)", l.node, ErrClockBehind, wait, waited, l.s.MaxClockWait)
		}
		if err != nil || wait <= 0 {
			return l.tickAtMs(lastMs), err
		}
		l.sleep(wait)
		waited += wait
	}
}

// checkSkew compares the local clock, read at before, with the database's
// and returns an error wrapping ErrClockSkew when they are further apart
// than MaxClockSkew plus half the round trip.
func (l *Lease) checkSkew(ctx context.Context, before time.Time) error {
	var dbUs int64
	if err := l.db.QueryRowContext(ctx, l.q.now).Scan(&dbUs); err != nil {
		return fmt.Errorf("lease: read the database's clock (is the database reachable?): %w", err)
	}
	after := l.clock()
	half := after.Sub(before) / 2
	skew := time.UnixMicro(dbUs).Sub(before.Add(half)) // > 0: the local clock is behind
	if skew.Abs()-half > l.s.MaxClockSkew {
		way := "behind"
		if skew < 0 {
			way = "ahead of"
		}
		return fmt.Errorf("lease: %w: the local clock is %s %s the database's (±%s round trip; allowed %s)",
			ErrClockSkew, skew.Abs(), way, half, l.s.MaxClockSkew)
	}
	return nil
}

// Renew extends the lease now: it checks the clock against the database's,
// then records in the table that this holder may draw up to the tick of
// (now + TTL), and extends the lease to TTL from the database's now. On
// success the generator may draw until TTL-Margin after the moment the
// renewal was sent, by the local monotonic clock. The lease renews itself
// in the background (LeaseSettings.RenewEvery); call Renew to renew sooner
// or when background renewal is off.
//
// A renewal matches the lease's row only as this holder last left it: its
// token, and the count of writes to the row that this holder's own writes
// account for. A row that went back to an older state (the table restored
// from an older copy), was edited, fenced (FenceLeases) or taken over
// matches nothing, and the generator stops at once.
//
// A failed renewal leaves the generator drawing until the last successful
// one runs out. Renew returns an error wrapping ErrClockSkew,
// ErrLossyCommit, ErrLeaseLost (the row is no longer this holder's: the
// generator has stopped for good; with ErrRewound too when something other
// than a holder changed it), ErrLeaseClosed, or the database's own error.
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
	var evs []LeaseEvent
	l.mu.Lock()
	if l.state == leaseLive {
		if l.renewals > 0 && !l.stopNoted && !sent.Before(l.stopAt) {
			// Drawing stopped before this renewal, and no failed one
			// said so: say it now.
			evs = append(evs, LeaseEvent{Kind: LeaseExpired, Node: l.node, Time: sent, Age: sent.Sub(prevSent), Err: l.fenceError(sent)})
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
			evs = append(evs, LeaseEvent{Kind: LeaseDatabaseUp, Node: l.node, Time: now, Outage: now.Sub(l.downSince)})
		}
		evs = append(evs, LeaseEvent{Kind: LeaseRenewed, Node: l.node, Time: now, Age: sent.Sub(prevSent), Took: now.Sub(sent)})
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
		cause = fmt.Errorf("%w: its renewal matched no row, and reading the row to say why failed: %w", ErrLeaseLost, err)
	case !token.Valid:
		cause = fmt.Errorf("%w and %w: its row is gone from the lease table (deleted, or the table restored from a copy made before this node was leased)", ErrLeaseLost, ErrRewound)
	case token.String == fenceToken:
		cause = fmt.Errorf("%w: an operator fenced every node of the table (shardid worker fence), as after a restore of it", ErrLeaseLost)
	case token.String == l.token && writes.Int64 < l.writes:
		cause = fmt.Errorf("%w and %w: its row went back to an older state (write %d; this holder had made it write %d): the table was restored from an older copy", ErrLeaseLost, ErrRewound, writes.Int64, l.writes)
	case token.String == l.token:
		cause = fmt.Errorf("%w and %w: its row was changed by something other than this holder (write %d; this holder expected %d to %d): edited by hand?", ErrLeaseLost, ErrRewound, writes.Int64, l.writes, l.writes+l.unsure)
	case !ended:
		cause = fmt.Errorf("%w and %w: holder %q has its row although this holder's lease, last renewed %s ago, had not ended: the table was restored from an older copy or edited by hand", ErrLeaseLost, ErrRewound, holder.String, l.clock().Sub(lastSent).Round(time.Millisecond))
	default:
		cause = fmt.Errorf("%w: its lease ended unrenewed (last renewed %s ago) and holder %q took it", ErrLeaseLost, l.clock().Sub(lastSent).Round(time.Millisecond), holder.String)
	}
	return l.lose(cause)
}

// lose stops the generator for good for cause (wrapping ErrLeaseLost) and
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
	l.emit(LeaseEvent{Kind: LeaseLost, Node: l.node, Time: now, Err: err})
	return err
}

// renewFailed records a failed renewal: its error for the generator's
// messages, the database down when dbDown (the error is the database's),
// and a LeaseExpired event once the generator has stopped drawing for want
// of a renewal.
func (l *Lease) renewFailed(err error, dbDown bool) {
	var evs []LeaseEvent
	l.mu.Lock()
	l.renewErr = err
	l.failures++
	now := l.clock()
	if dbDown && !l.down {
		l.down, l.downSince = true, now
		evs = append(evs, LeaseEvent{Kind: LeaseDatabaseDown, Node: l.node, Time: now, Err: err})
	}
	if l.state == leaseLive && !l.stopNoted && !now.Before(l.stopAt) {
		l.stopNoted = true
		evs = append(evs, LeaseEvent{Kind: LeaseExpired, Node: l.node, Time: now, Age: now.Sub(l.lastSent), Err: l.fenceError(now)})
	}
	l.mu.Unlock()
	l.emit(evs...)
}

// stateError explains a lease that is no longer live; cause is why it was
// lost.
func (l *Lease) stateError(s leaseState, cause error) error {
	if s == leaseLost {
		if cause == nil {
			cause = ErrLeaseLost
		}
		return fmt.Errorf("lease: node %d in %s: %w; this generator has stopped", l.node, l.s.Table, cause)
	}
	return fmt.Errorf("lease: node %d in %s: %w", l.node, l.s.Table, ErrLeaseClosed)
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
		if l.renewErr != nil {
			why = "; last renewal error: " + l.renewErr.Error()
		}
		return fmt.Errorf("lease: node %d: %w: the last successful renewal was sent %s ago; drawing stops %s after it, %s before the lease could end%s",
			l.node, ErrLeaseExpired, now.Sub(l.lastSent).Round(time.Millisecond), l.s.TTL-l.s.Margin, l.s.Margin, why)
	}
	why := ""
	if l.renewErr != nil {
		why = "; last renewal error: " + l.renewErr.Error()
	}
	return fmt.Errorf("lease: node %d: %w: the clock reads %s, past %s, the latest time the lease table lets this holder draw at, although the monotonic clock says the last renewal was sent only %s ago: the clock jumped forward%s",
		l.node, ErrLeaseExpired, now.UTC().Format(time.RFC3339Nano), l.layout.TickTime(l.capTick+1).Add(-time.Millisecond).Format(time.RFC3339Nano), now.Sub(l.lastSent).Round(time.Millisecond), why)
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
		case errors.Is(err, ErrLeaseLost), errors.Is(err, ErrLeaseClosed):
			return
		case err != nil:
			t.Reset(l.s.RenewEvery / 3)
		default:
			t.Reset(l.s.RenewEvery)
		}
	}
}

// Close stops the generator, stops renewing and gives the node id back,
// recording the latest time actually drawn at, so the next holder need not
// wait for the time the last renewal allowed. After Close the generator's
// Next returns ErrLeaseClosed. It returns the release's error, if any (the
// lease then ends by itself within TTL); a lease already lost is not an
// error. Close is safe to call more than once.
func (l *Lease) Close() error {
	l.closeOnce.Do(func() {
		l.mu.Lock()
		prev := l.state
		l.state, l.stopAt = leaseClosed, time.Time{}
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
		l.emit(LeaseEvent{Kind: LeaseReleased, Node: l.node, Time: l.clock(), Err: l.closeErr})
	})
	return l.closeErr
}

// Stats returns a snapshot of the lease.
func (l *Lease) Stats() LeaseStats {
	l.mu.Lock()
	defer l.mu.Unlock()
	st := LeaseStats{Node: l.node, Renewals: l.renewals, Failures: l.failures, LastRenewal: l.lastSent, DrawUntil: l.stopAt,
		Err: l.renewErr, DatabaseDown: l.down}
	if l.state != leaseLive {
		st.Err = l.stateError(l.state, l.lostErr)
	}
	return st
}

// emit hands evs to OnEvent, one call at a time. No lock of the lease is
// held.
func (l *Lease) emit(evs ...LeaseEvent) {
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
