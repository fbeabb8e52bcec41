package segment

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/shardid/shardid/dialect"
)

// Defaults the zero values of Settings stand for.
const (
	// DefaultTargetInterval is how long a segment should last: Leaf's 15
	// minutes.
	DefaultTargetInterval = 15 * time.Minute
	// DefaultMaxStep bounds the adaptive step: Leaf's 1,000,000.
	DefaultMaxStep = 1_000_000
	// DefaultThreshold is the used fraction of the current segment at which
	// the next one is loaded in the background: Leaf's 10%.
	DefaultThreshold = 0.1
	// DefaultAllocTimeout bounds one segment allocation.
	DefaultAllocTimeout = 5 * time.Second
	// DefaultRetryInterval is the least time between background attempts
	// while the database does not answer.
	DefaultRetryInterval = time.Second
	// DefaultCheckEvery is how often a client compares the tag's row with
	// the highest ID it took, between loads.
	DefaultCheckEvery = time.Second
)

// ErrExhausted is returned by Segments.Next when every buffered ID
// is used and no new segment could be taken; it wraps the database's error.
var ErrExhausted = errors.New("segments exhausted")

// ErrIDSpaceUsedUp is returned, wrapped with ErrExhausted, by
// Segments.Next when the tag's next segment would pass the largest int64
// (math.MaxInt64): the tag has no IDs left to hand out. Fewer IDs than a
// segment may remain unused below that bound.
var ErrIDSpaceUsedUp = errors.New("ID space used up")

// ErrClosed is returned by Segments.Next after Close.
var ErrClosed = errors.New("segments closed")

// Errors the segment allocator shares with worker leases (package
// dialect has the same values); check them with errors.Is.
var (
	// ErrLossyCommit is returned by New and Segments.Next when the server
	// may lose acknowledged commits in a crash, unless
	// Settings.AllowLossyCommit: a segment handed out just before such a
	// crash would be handed out again after it.
	ErrLossyCommit = dialect.ErrLossyCommit
	// ErrRewound is returned by New and Segments.Next when the allocation
	// table's next segment would not be above every ID the client (or
	// any client, once one has fenced the tag) took from it: the table was
	// restored from an older copy or lowered by hand. The lower IDs are
	// never handed out.
	ErrRewound = dialect.ErrRewound
)

// Settings configures a Segments client. Only Tag is required; the
// zero value of every other field means the documented default.
type Settings struct {
	// Tag names the ID space: a row of the allocation table, created with
	// EnsureTag (shardid segment up).
	Tag string
	// Table is the allocation table, [schema.]name; "" means
	// DefaultTable. Unqualified, PostgreSQL finds it through the
	// session's search_path; a schema-qualified name pins it.
	Table string
	// Dialect is the database's SQL family; "" asks the server
	// (dialect.Detect).
	Dialect dialect.Dialect
	// MinStep is the smallest and first segment size; 0 means the tag's
	// step in the table.
	MinStep int64
	// MaxStep is the largest segment size; 0 means DefaultMaxStep, or
	// MinStep when that is larger.
	MaxStep int64
	// TargetInterval is how long a segment should last: the step doubles
	// (up to MaxStep) when the previous segment lasted less, and halves
	// (down to MinStep) when it lasted twice as long or more. 0 means
	// DefaultTargetInterval.
	TargetInterval time.Duration
	// Threshold is the used fraction of the current segment, in (0, 1), at
	// which the next segment is loaded in the background. 0 means
	// DefaultThreshold.
	Threshold float64
	// AllocTimeout bounds one allocation statement; 0 means
	// DefaultAllocTimeout.
	AllocTimeout time.Duration
	// RetryInterval is the least time between background loads after one
	// failed; 0 means DefaultRetryInterval. A caller that finds every
	// buffered ID used always tries the database at once.
	RetryInterval time.Duration
	// AllowLossyCommit accepts a server that may lose acknowledged commits
	// in a crash (see ErrLossyCommit). LIMIT: a segment handed out just
	// before such a crash can be handed out again after it, so IDs repeat.
	AllowLossyCommit bool
	// Floor is an ID known to be handed out already (the largest ID your
	// data holds, say): the client hands out only IDs above it, and a
	// table whose next segment is not above it is refused as rewound
	// (ErrRewound). It gives a client that starts after a restore the
	// memory a running client has of its own. 0 means none.
	Floor int64
	// CheckEvery is how often the client reads the tag's row between
	// loads: a row below the highest ID it took (a restore) fences the tag
	// within it, so that no client hands out an ID the table handed out
	// before. 0 means DefaultCheckEvery; a negative value checks only when
	// a segment is loaded.
	CheckEvery time.Duration
	// OnEvent, when not nil, is called with what happens to the client:
	// segments loaded, IDs discarded, a rewind found, the database lost
	// and back (Event). It is called synchronously, from the
	// client's background goroutines or from Close, one call at a time and
	// never with the client's lock held; it must return quickly (a slow
	// OnEvent delays the next load) and may call Stats.
	OnEvent func(Event)
	// Clock returns the wall-clock time, which stamps the events; nil
	// means time.Now. The client takes no decision on it: when to load
	// again after a failure and how long a segment lasted (the step) are
	// measured on the monotonic clock, and a step of the wall clock is
	// reported (ClockStepped).
	Clock func() time.Time
	// Records, when not nil, is a record store outside the allocation
	// table's database (DBRecords; any store the application names): the
	// client reads the tag's record there before its first segment and
	// refuses a row below it (ErrRewound), and raises it with every
	// segment it takes, before handing out its IDs. A restore of the whole
	// allocation database, the record table beside it included, is then
	// found by every client, started before or after it. nil means the
	// record table beside the allocation table alone (RecordTable).
	Records RecordStore

	noRecord bool // tests only: no record table read or kept, as a client without it would
}

// Segments hands out IDs from segments of a tag's ID space, taken from an
// allocation table (Meituan Leaf's segment mode). Every segment is a range
// (max_id - step, max_id] that one atomic UPDATE reserved for this client
// alone, so IDs are unique across clients, processes and restarts: a new
// client always starts above every segment taken before, and IDs a client
// never handed out are skipped, never reused. The next segment is loaded
// in the background once Threshold of the current one is used (double
// buffering), so a database outage is survived while the buffered IDs
// last; then Next returns ErrExhausted. IDs increase for each
// client. It is safe for concurrent use.
//
// A client remembers the highest ID it took and takes a segment only
// above it, so a table restored from an older copy is found out: the
// first client that finds the tag's row below its memory fences the tag
// in the table (no client takes a segment until `shardid segment resume`
// or ResumeTag), drops the buffered IDs the restored table may
// have handed out again, and Next returns ErrRewound once the rest is
// used. Each client reads the row every CheckEvery, so a fence reaches
// clients that started after the restore, and the clients' buffers, within
// it.
type Segments struct {
	db    *sql.DB
	view  segmentView
	set   Settings
	alloc *sql.Stmt
	take  func(step, high int64) (last, size int64, err error) // takeDB; tests swap in broken ones
	clock func() time.Time
	mono  func() time.Duration // the monotonic clock decisions are taken on (monoNow; tests drive their own)
	steps stepWatch            // the wall clock against it
	trust bool                 // tests only: believe the table, as a client without rewind checks would

	ctx       context.Context // cancelled by Close
	cancel    context.CancelFunc
	checkDone chan struct{} // closed when the check loop has ended
	closeOnce sync.Once
	closeErr  error
	emitMu    sync.Mutex // one OnEvent call at a time

	mu         sync.Mutex
	cur        seg  // being handed out
	next       *seg // loaded and waiting
	loading    chan struct{}
	lastErr    error         // of the last load, nil after a success
	failedAt   time.Duration // of the last failed load (monotonic)
	step       int64         // size of the next segment
	loadedAt   time.Duration // when the last segment was taken (monotonic)
	high       int64         // the highest ID taken, or Floor; math.MinInt64 for neither
	refused    error         // wraps ErrRewound from a rewind found until a load succeeds
	down       bool          // the last statement failed
	downSince  time.Duration // monotonic
	closed     bool
	stats      Stats
	recordErr  error // of the last write to the record table
	refusal    error // the last load refused (LoadRefused told), nil after a success
	missingErr error // refused because the tag was missing; lifted when it is back
	noRecord   bool  // tests only: no record table kept, as a client without it would
}

// seg is a range of size IDs from first; used of them are handed out.
// It counts what is used rather than holding the next ID, which would
// wrap around past a segment that ends at math.MaxInt64.
type seg struct{ first, size, used int64 }

// left is the number of IDs not handed out yet.
func (s seg) left() int64 { return s.size - s.used }

// last is the segment's highest ID.
func (s seg) last() int64 { return s.first + s.size - 1 }

// dropThrough marks the unused IDs up to id as used and returns how many
// that were.
func (s *seg) dropThrough(id int64) int64 {
	if s.left() == 0 || id < s.first+s.used {
		return 0
	}
	used := s.size
	if id < s.last() {
		used = id - s.first + 1
	}
	n := used - s.used
	s.used = used
	return n
}

// Stats is a snapshot of a Segments client.
type Stats struct {
	// Drawn is the number of IDs handed out.
	Drawn int64
	// Loads is the number of segments taken, each one statement.
	Loads int64
	// Failures is the number of allocations that failed.
	Failures int64
	// Step is the size the next segment will have.
	Step int64
	// Buffered is the number of IDs held in memory.
	Buffered int64
	// Discarded is the number of IDs dropped without being handed out: at
	// Close, and those a rewind made unsafe. Nobody hands them out.
	Discarded int64
	// Rewinds is the number of times the client found the tag rewound or
	// fenced.
	Rewinds int64
	// HighWater is the highest ID the client took (the end of its last
	// segment), or Floor when that is higher; 0 for neither. After a
	// restore, `shardid segment resume --to` above every client's
	// HighWater is safe.
	HighWater int64
	// Refused wraps ErrRewound while the client takes no segment because
	// the tag is fenced; nil otherwise.
	Refused error
	// DatabaseDown is true while the client's last statement failed.
	DatabaseDown bool
}

// New checks s, reads the tag's row and returns a client over db
// (registered by the application: pgx for PostgreSQL, go-sql-driver/mysql
// for MySQL, MariaDB and TiDB). No segment is taken until the first Next.
// It returns errors wrapping ErrInvalidTag, ErrInvalidTable,
// dialect.ErrUnknown, ErrUnknownTag, ErrLossyCommit, ErrRewound (the tag is
// fenced, or its row is not above Floor), and the database's own.
func New(ctx context.Context, db *sql.DB, s Settings) (*Segments, error) {
	return newSegments(ctx, db, s, monoNow)
}

// newSegments is New taking its decisions on the monotonic clock mono.
func newSegments(ctx context.Context, db *sql.DB, s Settings, mono func() time.Duration) (*Segments, error) {
	if err := CheckTag(s.Tag); err != nil {
		return nil, err
	}
	if s.Dialect == "" {
		d, err := dialect.Detect(ctx, db)
		if err != nil {
			return nil, err
		}
		s.Dialect = d
	}
	v, err := newSegmentView(s.Dialect, s.Table)
	if err != nil {
		return nil, err
	}
	v.Guard = v.Guard && !s.AllowLossyCommit
	switch {
	case s.MinStep < 0, s.MaxStep < 0:
		return nil, fmt.Errorf("segments %s: MinStep %d and MaxStep %d must not be negative", s.Tag, s.MinStep, s.MaxStep)
	case s.Threshold < 0 || s.Threshold >= 1:
		return nil, fmt.Errorf("segments %s: Threshold %v out of range (allowed: 0 < t < 1, or 0 for %v)", s.Tag, s.Threshold, DefaultThreshold)
	case s.TargetInterval < 0, s.AllocTimeout < 0, s.RetryInterval < 0:
		return nil, fmt.Errorf("segments %s: durations must not be negative", s.Tag)
	case s.Floor < 0:
		return nil, fmt.Errorf("segments %s: Floor %d must not be negative", s.Tag, s.Floor)
	}
	if err := v.explain(ctx, db, s.Tag); err != nil {
		if errors.Is(err, ErrUnknownTag) && !s.noRecord {
			// Gone, or never created: the record table knows which.
			rec, found, rerr := v.record(ctx, db, s.Tag)
			if srec, sfound, serr := storeRecord(ctx, s.Records, s.Tag); serr != nil {
				return nil, serr
			} else if sfound {
				rec, found, rerr = max(rec, srec), true, nil
			}
			if rerr == nil && found {
				rw := missingError(v, s.Tag, rec)
				if s.OnEvent != nil {
					s.OnEvent(Event{Kind: Rewound, Tag: s.Tag, Time: time.Now(), Seen: rec, Err: rw})
				}
				return nil, rw
			}
		}
		return nil, err
	}
	// The record (a table that a restore of the allocation table alone
	// leaves as it is) is a floor like Floor: a row below it was restored.
	// It is read first: a client that takes a segment meanwhile raises
	// max_id before the record, never after.
	rec, _, table, err := v.readRecord(ctx, db, s.Tag)
	if err != nil {
		// A role without SELECT on the record table costs the record,
		// not the draws: the client's own memory and the fence remain.
		if s.OnEvent != nil {
			s.OnEvent(Event{Kind: RecordFailed, Tag: s.Tag, Time: time.Now(), Err: err})
		}
		rec = 0
	}
	if s.noRecord {
		rec = 0
	}
	// The record kept outside the allocation database: a restore of it
	// all, the record table beside it included, does not reach it.
	srec, _, err := storeRecord(ctx, s.Records, s.Tag)
	if err != nil {
		return nil, err
	}
	rec = max(rec, srec)
	// Every allocation holds the row to the record as well (a client
	// started before a restore of the allocation table alone remembers
	// less than the record does), where the role can read the record.
	v.Recorded = err == nil && table && !s.noRecord
	tag, err := v.getTag(ctx, db, s.Tag)
	if err != nil {
		return nil, err
	}
	if s.MinStep == 0 {
		s.MinStep = tag.Step
	}
	if s.MaxStep == 0 {
		s.MaxStep = max(DefaultMaxStep, s.MinStep)
	}
	if s.MaxStep < s.MinStep {
		return nil, fmt.Errorf("segments %s: MaxStep %d is below MinStep %d", s.Tag, s.MaxStep, s.MinStep)
	}
	if s.TargetInterval == 0 {
		s.TargetInterval = DefaultTargetInterval
	}
	if s.Threshold == 0 {
		s.Threshold = DefaultThreshold
	}
	if s.AllocTimeout == 0 {
		s.AllocTimeout = DefaultAllocTimeout
	}
	if s.RetryInterval == 0 {
		s.RetryInterval = DefaultRetryInterval
	}
	if s.Clock == nil {
		s.Clock = time.Now
	}
	if s.CheckEvery == 0 {
		s.CheckEvery = DefaultCheckEvery
	}
	high := int64(math.MinInt64)
	if s.Floor > 0 {
		high = s.Floor
	}
	if rec > 0 {
		high = max(high, rec)
	}
	if tag.MaxID < high {
		if err := v.report(ctx, db, s.Tag, high); err != nil {
			return nil, err
		}
	}
	if tag.Fenced || tag.MaxID < high {
		return nil, rewoundError(s.Tag, tag, high)
	}
	stmt, err := v.prepareAlloc(ctx, db)
	if err != nil {
		return nil, fmt.Errorf("segments %s: prepare: %w", s.Tag, err)
	}
	c := &Segments{db: db, view: v, set: s, alloc: stmt, clock: s.Clock, mono: mono, step: s.MinStep, high: high, checkDone: make(chan struct{}), noRecord: s.noRecord}
	c.failedAt = c.mono() - s.RetryInterval // no failure yet
	c.watchClock()
	c.take = c.takeDB
	c.ctx, c.cancel = context.WithCancel(context.Background())
	if s.CheckEvery > 0 {
		go c.checkLoop(s.CheckEvery)
	} else {
		close(c.checkDone)
	}
	return c, nil
}

// Next returns the next ID. It waits for the database only when every
// buffered ID is used; if no segment can be taken then, it returns an error
// wrapping ErrExhausted and the database's error (a later call
// tries again), or ErrRewound while the tag is fenced. It returns ctx's
// error when ctx ends first, and ErrClosed after Close.
func (c *Segments) Next(ctx context.Context) (int64, error) {
	c.mu.Lock()
	for {
		if c.closed {
			c.mu.Unlock()
			return 0, ErrClosed
		}
		if c.cur.left() > 0 {
			id := c.cur.first + c.cur.used
			c.cur.used++
			c.stats.Drawn++
			if c.next == nil && c.loading == nil && c.pastThreshold() && c.mono()-c.failedAt >= c.set.RetryInterval {
				c.startLoad()
			}
			c.mu.Unlock()
			return id, nil
		}
		if c.next != nil {
			c.cur, c.next = *c.next, nil
			continue
		}
		if c.loading == nil {
			c.startLoad()
		}
		done := c.loading
		c.mu.Unlock()
		select {
		case <-done:
		case <-ctx.Done():
			return 0, ctx.Err()
		}
		c.mu.Lock()
		if c.next == nil && c.cur.left() == 0 && c.lastErr != nil {
			err := c.lastErr
			c.mu.Unlock()
			return 0, fmt.Errorf("%w: tag %s: %w", ErrExhausted, c.set.Tag, err)
		}
	}
}

// emit hands evs to OnEvent, one call at a time. c.mu is not held.
func (c *Segments) emit(evs ...Event) {
	if c.set.OnEvent == nil || len(evs) == 0 {
		return
	}
	c.emitMu.Lock()
	defer c.emitMu.Unlock()
	for _, e := range evs {
		c.set.OnEvent(e)
	}
}

// explain returns an error wrapping ErrUnknownTag when the tag is missing,
// or ErrLossyCommit when v guards commits and the server's are not
// durable; nil otherwise.
func (v segmentView) explain(ctx context.Context, db *sql.DB, tag string) error {
	q, err := v.render("explain")
	if err != nil {
		return err
	}
	var exists, durable bool
	var settings string
	if err := db.QueryRowContext(ctx, q, tag).Scan(&exists, &durable, &settings); err != nil {
		return fmt.Errorf("read segment tag %s: %w%s", tag, err, segmentTableHint(err))
	}
	switch {
	case !exists:
		return fmt.Errorf("%w %q in %s", ErrUnknownTag, tag, v.Table)
	case v.Guard && !durable:
		return &dialect.LossyCommitError{Settings: settings, Consequence: "a crash could hand out the same IDs again"}
	}
	return nil
}

// Stats returns a snapshot of the client.
func (c *Segments) Stats() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.stats
	s.Step = c.step
	s.Buffered = c.buffered()
	s.HighWater = max(c.high, 0)
	s.Refused = c.refused
	s.DatabaseDown = c.down
	return s
}

// buffered is the number of IDs held in memory. c.mu is held.
func (c *Segments) buffered() int64 {
	n := c.cur.left()
	if c.next != nil {
		n += c.next.left()
	}
	return n
}

// Close stops the client: a background load is cancelled, buffered IDs
// are dropped (never handed out by anyone; a Discarded event counts
// them), and Next returns ErrClosed. A load that Close cancelled may have
// taken its segment on the server all the same: those IDs are skipped
// too, and not counted. Close is safe to call more than once.
func (c *Segments) Close() error {
	c.closeOnce.Do(func() {
		c.mu.Lock()
		c.closed = true
		done := c.loading
		c.mu.Unlock()
		c.cancel()
		if done != nil {
			<-done
		}
		<-c.checkDone
		c.mu.Lock()
		n, lo, hi := c.buffered(), c.cur.first+c.cur.used, c.cur.last()
		if c.next != nil {
			if c.cur.left() == 0 {
				lo = c.next.first + c.next.used
			}
			hi = c.next.last()
		}
		c.cur, c.next = seg{}, nil
		c.stats.Discarded += n
		c.mu.Unlock()
		if n > 0 {
			c.emit(Event{Kind: Discarded, Tag: c.set.Tag, Time: c.clock(), First: lo, Last: hi, Count: n})
		}
		c.closeErr = c.alloc.Close()
	})
	return c.closeErr
}
