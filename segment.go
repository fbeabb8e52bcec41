package shardid

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"
)

// Defaults the zero values of SegmentSettings stand for.
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
)

// ErrSegmentsExhausted is returned by Segments.Next when every buffered ID
// is used and no new segment could be taken; it wraps the database's error.
var ErrSegmentsExhausted = errors.New("segments exhausted")

// ErrIDSpaceUsedUp is returned, wrapped with ErrSegmentsExhausted, by
// Segments.Next when the tag's next segment would pass the largest int64
// (math.MaxInt64): the tag has no IDs left to hand out. Fewer IDs than a
// segment may remain unused below that bound.
var ErrIDSpaceUsedUp = errors.New("ID space used up")

// ErrClosed is returned by Segments.Next after Close.
var ErrClosed = errors.New("segments closed")

// SegmentSettings configures a Segments client. Only Tag is required; the
// zero value of every other field means the documented default.
type SegmentSettings struct {
	// Tag names the ID space: a row of the allocation table, created with
	// EnsureSegmentTag (shardid segment up).
	Tag string
	// Table is the allocation table, [schema.]name; "" means
	// DefaultSegmentTable. Unqualified, PostgreSQL finds it through the
	// session's search_path; a schema-qualified name pins it.
	Table string
	// Dialect is the database's SQL family; "" asks the server
	// (DetectDialect).
	Dialect Dialect
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
	// Clock returns the current time, for the step logic only; nil means
	// time.Now.
	Clock func() time.Time
}

// Segments hands out IDs from segments of a tag's ID space, taken from an
// allocation table (Meituan Leaf's segment mode). Every segment is a range
// (max_id - step, max_id] that one atomic UPDATE reserved for this client
// alone, so IDs are unique across clients, processes and restarts: a new
// client always starts above every segment taken before, and IDs a client
// never handed out are skipped, never reused. The next segment is loaded
// in the background once Threshold of the current one is used (double
// buffering), so a database outage is survived while the buffered IDs
// last; then Next returns ErrSegmentsExhausted. IDs increase for each
// client. It is safe for concurrent use.
type Segments struct {
	db    *sql.DB
	view  segmentView
	set   SegmentSettings
	alloc *sql.Stmt
	take  func(step int64) (last, size int64, err error) // takeDB; tests swap in broken ones
	clock func() time.Time

	ctx    context.Context // cancelled by Close
	cancel context.CancelFunc

	mu       sync.Mutex
	cur      segment  // being handed out
	next     *segment // loaded and waiting
	loading  chan struct{}
	lastErr  error     // of the last load, nil after a success
	failedAt time.Time // of the last failed load
	step     int64     // size of the next segment
	loadedAt time.Time // when the last segment was taken
	closed   bool
	stats    SegmentStats
}

// segment is a range of size IDs from first; used of them are handed out.
// It counts what is used rather than holding the next ID, which would
// wrap around past a segment that ends at math.MaxInt64.
type segment struct{ first, size, used int64 }

// left is the number of IDs not handed out yet.
func (s segment) left() int64 { return s.size - s.used }

// SegmentStats counts what a Segments client did.
type SegmentStats struct {
	// Loads is the number of segments taken, each one statement.
	Loads int64
	// Failures is the number of allocations that failed.
	Failures int64
	// Step is the size the next segment will have.
	Step int64
	// Buffered is the number of IDs held in memory.
	Buffered int64
}

// NewSegments checks s, reads the tag's row and returns a client over db
// (registered by the application: pgx for PostgreSQL, go-sql-driver/mysql
// for MySQL, MariaDB and TiDB). No segment is taken until the first Next.
// It returns errors wrapping ErrInvalidTag, ErrInvalidTable,
// ErrUnknownDialect, ErrUnknownTag, ErrLossyCommit, and the database's own.
func NewSegments(ctx context.Context, db *sql.DB, s SegmentSettings) (*Segments, error) {
	if err := CheckTag(s.Tag); err != nil {
		return nil, err
	}
	if s.Dialect == "" {
		d, err := DetectDialect(ctx, db)
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
	}
	if err := v.explain(ctx, db, s.Tag); err != nil {
		return nil, err
	}
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
	q, err := v.render("alloc")
	if err != nil {
		return nil, err
	}
	stmt, err := db.PrepareContext(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("segments %s: prepare: %w", s.Tag, err)
	}
	c := &Segments{db: db, view: v, set: s, alloc: stmt, clock: s.Clock, step: s.MinStep}
	c.take = c.takeDB
	c.ctx, c.cancel = context.WithCancel(context.Background())
	return c, nil
}

// Next returns the next ID. It waits for the database only when every
// buffered ID is used; if no segment can be taken then, it returns an error
// wrapping ErrSegmentsExhausted and the database's error (a later call
// tries again). It returns ctx's error when ctx ends first, and ErrClosed
// after Close.
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
			if c.next == nil && c.loading == nil && c.pastThreshold() && c.clock().Sub(c.failedAt) >= c.set.RetryInterval {
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
			return 0, fmt.Errorf("%w: tag %s: %w", ErrSegmentsExhausted, c.set.Tag, err)
		}
	}
}

// pastThreshold reports whether Threshold of the current segment is used.
func (c *Segments) pastThreshold() bool {
	return float64(c.cur.used) >= c.set.Threshold*float64(c.cur.size)
}

// startLoad starts taking the next segment in the background. c.mu is held.
func (c *Segments) startLoad() {
	done := make(chan struct{})
	c.loading = done
	now := c.clock()
	if c.stats.Loads > 0 {
		c.step = nextStep(c.step, now.Sub(c.loadedAt), c.set.MinStep, c.set.MaxStep, c.set.TargetInterval)
	}
	step := c.step
	go func() {
		last, size, err := c.take(step)
		c.mu.Lock()
		defer c.mu.Unlock()
		if err != nil {
			c.lastErr, c.failedAt = err, c.clock()
			c.stats.Failures++
		} else {
			c.lastErr, c.loadedAt = nil, now
			c.stats.Loads++
			seg := segment{first: last - size + 1, size: size}
			c.next = &seg
		}
		c.loading = nil
		close(done)
	}()
}

// takeDB runs one allocation for step IDs and returns the segment's last
// ID and its size. When max_id + step would pass the largest bigint, it
// takes what the tag has left instead (a grown step must not strand the
// last IDs), and once nothing is left it says the tag's ID space is used
// up instead of the server's overflow error.
func (c *Segments) takeDB(step int64) (last, size int64, err error) {
	ctx, cancel := context.WithTimeout(c.ctx, c.set.AllocTimeout)
	defer cancel()
	last, err = c.allocate(ctx, step)
	if err == nil || ctx.Err() != nil {
		return last, step, err
	}
	t, terr := c.view.getTag(ctx, c.db, c.set.Tag)
	if terr != nil || t.MaxID <= math.MaxInt64-step {
		return 0, 0, err // not the end of the ID space
	}
	if left := math.MaxInt64 - t.MaxID; left > 0 {
		last, err := c.allocate(ctx, left)
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

// allocate runs the allocation statement for step IDs and returns the
// segment's last ID.
func (c *Segments) allocate(ctx context.Context, step int64) (int64, error) {
	var last int64
	if c.view.Dialect == DialectPostgres {
		err := c.alloc.QueryRowContext(ctx, step, c.set.Tag).Scan(&last)
		if errors.Is(err, sql.ErrNoRows) {
			return 0, c.explain(ctx)
		}
		return last, err
	}
	res, err := c.alloc.ExecContext(ctx, step, c.set.Tag)
	if err != nil {
		return 0, err
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		return 0, c.explain(ctx)
	}
	return res.LastInsertId()
}

// explain says why the allocation matched no row: the tag is gone, or the
// guard refused the server's commit settings.
func (c *Segments) explain(ctx context.Context) error {
	if err := c.view.explain(ctx, c.db, c.set.Tag); err != nil {
		return err
	}
	return errors.New("allocation matched no row, yet the tag exists and commits are durable")
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
		return fmt.Errorf("read segment tag %s: %w", tag, err)
	}
	switch {
	case !exists:
		return fmt.Errorf("%w %q in %s", ErrUnknownTag, tag, v.Table)
	case v.Guard && !durable:
		return lossyCommitError(settings)
	}
	return nil
}

// lossyCommitError describes a server whose commit settings the guard
// refused.
func lossyCommitError(settings string) error {
	return fmt.Errorf("%w (%s): a crash could hand out the same IDs again; set synchronous_commit=on (PostgreSQL) or innodb_flush_log_at_trx_commit=1 and, with a binary log, sync_binlog=1 (MySQL, MariaDB), or accept the risk with AllowLossyCommit", ErrLossyCommit, settings)
}

// Stats returns counters of what the client did.
func (c *Segments) Stats() SegmentStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.stats
	s.Step = c.step
	s.Buffered = c.cur.left()
	if c.next != nil {
		s.Buffered += c.next.left()
	}
	return s
}

// Close stops the client: a background load is cancelled, buffered IDs
// are dropped (never handed out by anyone), and Next returns ErrClosed.
func (c *Segments) Close() error {
	c.mu.Lock()
	c.closed = true
	done := c.loading
	c.mu.Unlock()
	c.cancel()
	if done != nil {
		<-done
	}
	return c.alloc.Close()
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
