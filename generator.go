package shardid

import (
	"errors"
	"fmt"
	"sync"
	"time"
)

// DefaultMaxBackwardStep is the largest backward clock step a Generator
// waits out when Settings.MaxBackwardStep is zero.
const DefaultMaxBackwardStep = 5 * time.Millisecond

// Settings configures a Generator. The zero value of every field means the
// documented default, so Settings{} is a valid Snowflake generator for node 0.
type Settings struct {
	// Layout splits the ID into time, node and sequence fields (and a
	// route field, which NextFor fills). The zero Layout means
	// Snowflake(): 41 bits of milliseconds, 10 bits of node and 12 bits of
	// sequence. The node is the layout's shard field.
	Layout Layout
	// Node is this generator's id, 0..Layout.MaxShard(). Every generator
	// that writes to the same table needs its own. For Snowflake's
	// datacenter/worker split, compute it with NodeID.
	Node int64
	// MaxBackwardStep is the largest backward clock step that is waited
	// out: the generator sleeps twice the step and reads the clock again.
	// Zero means DefaultMaxBackwardStep (5ms); a negative value means
	// never wait, so any backward step is an error.
	MaxBackwardStep time.Duration
	// Clock returns the current time; nil means time.Now.
	Clock func() time.Time
	// Sleep pauses the calling goroutine for at least the given duration:
	// until the next tick when a tick's sequence is used up, or while a
	// clock stepped back catches up. nil means a sleep that spends no
	// processor and wakes close to the deadline: nanosleep for waits up to
	// 2ms (the runtime's timer wakes on a millisecond grid, past the next
	// tick of a tick used up late), time.Sleep beyond and on systems
	// without nanosleep. (The generator spun through the last millisecond
	// before: 2.6 times sonyflake's CPU per ID and, on a loaded machine,
	// fewer IDs per millisecond; docs/benchmarks.md.)
	Sleep func(time.Duration)
	// LastDrawn is the latest instant IDs of this node may already carry
	// from someone else: when an earlier holder of the node id last drew,
	// as a lease table records it (package lease). The generator draws
	// only at ticks after the one holding it, so its IDs are above every
	// ID that holder drew; a clock still in or before that tick is a clock
	// behind the last tick handed out (MaxBackwardStep). The zero Time, or
	// an instant before the layout's epoch, means none.
	LastDrawn time.Time
	// Fence, when not nil, is asked before each draw whether the generator
	// may draw at the clock reading now, whose tick is tick: nil lets it,
	// an error refuses, and Next returns that error as it is. It is called
	// with the generator's lock held, one call at a time, so it must be
	// quick and must not call the Generator. A tick it lets through is the
	// tick of the ID drawn, or one the generator drew at before (it waits
	// for the next tick or for a clock stepped back, and asks again), so
	// the highest tick a Fence let through is the latest the generator
	// drew at. A lease (package lease) supplies one that stops drawing
	// before the node id's lease could end. nil means no fence.
	Fence func(now time.Time, tick int64) error
}

// Sentinel errors of the Generator; the layout's own (ErrInvalidLayout,
// ErrShardRange, ErrTimeRange) are returned too. Check them with errors.Is.
var (
	// ErrClockBackward is returned by Next when the clock has moved back
	// further than MaxBackwardStep, or is still behind after waiting.
	ErrClockBackward = errors.New("clock moved backwards")
	// ErrNodeRange is returned by NodeID when a datacenter or worker id
	// does not fit its 5 bits.
	ErrNodeRange = errors.New("node part out of range")
)

// Generator makes unique, time-ordered IDs for one node. It is safe for
// concurrent use.
type Generator struct {
	layout   Layout
	node     int64
	maxBack  time.Duration
	clock    func() time.Time
	sleep    func(time.Duration)
	epochMs  int64
	unitMs   int64
	maxSeq   int64
	maxTicks int64

	// An ID is tick<<timeShift | nodePart | seq<<seqShift | route.
	timeShift, seqShift uint
	nodePart, routeMask int64

	fence func(now time.Time, tick int64) error // Settings.Fence

	mu       sync.Mutex
	lastTick int64 // -1 before the first ID (and no LastDrawn)
	seq      int64
}

// NewGenerator validates s and returns a Generator. It returns an error
// wrapping
//   - ErrInvalidLayout when s.Layout is set and fails Validate;
//   - ErrShardRange when s.Node is outside 0..Layout.MaxShard();
//   - ErrTimeRange when the clock reads before the layout's epoch or past
//     its last tick, or s.LastDrawn is past the layout's last tick.
func NewGenerator(s Settings) (*Generator, error) {
	l := s.Layout
	if l == (Layout{}) {
		l = Snowflake()
	}
	if err := l.Validate(); err != nil {
		return nil, fmt.Errorf("generator: %w", err)
	}
	if err := l.CheckShard(s.Node); err != nil {
		return nil, fmt.Errorf("generator: node: %w", err)
	}
	g := &Generator{
		layout:   l,
		node:     s.Node,
		maxBack:  s.MaxBackwardStep,
		clock:    s.Clock,
		sleep:    s.Sleep,
		epochMs:  l.EpochMillis(),
		unitMs:   l.UnitMillis(),
		maxSeq:   l.MaxSeq(),
		maxTicks: l.MaxTicks(),
		fence:    s.Fence,
		lastTick: -1,

		timeShift: l.timeShift(),
		seqShift:  l.RouteBits,
		nodePart:  s.Node << l.shardShift(),
		routeMask: l.MaxRoute(),
	}
	if g.maxBack == 0 {
		g.maxBack = DefaultMaxBackwardStep
	}
	if g.clock == nil {
		g.clock = time.Now
	}
	if g.sleep == nil {
		g.sleep = DefaultSleep
	}
	if _, err := l.Ticks(g.clock()); err != nil {
		return nil, fmt.Errorf("generator: clock: %w", err)
	}
	if ms := s.LastDrawn.UnixMilli() - g.epochMs; !s.LastDrawn.IsZero() && ms >= 0 {
		if ms/g.unitMs > g.maxTicks {
			_, err := l.Ticks(s.LastDrawn)
			return nil, fmt.Errorf("generator: last drawn: %w", err)
		}
		// The tick holding LastDrawn is someone else's: start as if its
		// sequence were used up, so the first ID is at a later tick.
		g.lastTick, g.seq = ms/g.unitMs, g.maxSeq
	}
	return g, nil
}

// Layout returns the layout the generator packs IDs with.
func (g *Generator) Layout() Layout { return g.layout }

// Next returns a new ID. IDs from one Generator are unique and strictly
// increasing. Next waits for the next tick when the tick's sequence is used
// up and waits out small backward clock steps. It returns an error
// wrapping ErrClockBackward for a larger step and ErrTimeRange when the
// clock is outside the layout's range, and the error of Settings.Fence when
// the fence refuses (a generator bound to a lease: lease.ErrExpired,
// lease.ErrLost or lease.ErrClosed once its lease no longer covers
// drawing). In a layout with a route field, Next is NextFor(0).
func (g *Generator) Next() (int64, error) {
	g.mu.Lock()
	tick, seq, err := g.reserve()
	g.mu.Unlock()
	if err != nil {
		return 0, err
	}
	return tick<<g.timeShift | g.nodePart | seq<<g.seqShift, nil
}

// NextFor returns a new ID whose route field holds key mod 2^RouteBits
// (Layout.RouteOf: never negative, for a negative key too), so that
// RouteOf(id) == RouteOf(key): an order made with NextFor(uid) lies in the
// same one of 2^RouteBits tables as its user, found by either number. In a
// layout without a route field it is Next.
//
// The route labels the ID and takes nothing from the sequence: Next and
// NextFor of one Generator draw from one sequence, 2^SeqBits IDs per tick
// whatever the keys, so (tick, sequence) alone is unique and IDs stay
// unique and strictly increasing across every route, the clock rules of
// Next included. NextFor returns Next's errors.
func (g *Generator) NextFor(key int64) (int64, error) {
	g.mu.Lock()
	tick, seq, err := g.reserve()
	g.mu.Unlock()
	if err != nil {
		return 0, err
	}
	return tick<<g.timeShift | g.nodePart | seq<<g.seqShift | key&g.routeMask, nil
}

// reserve picks the tick and sequence number of the next ID. g.mu is held.
func (g *Generator) reserve() (tick, seq int64, err error) {
	waited := false
	for {
		now := g.clock()
		tick, err = g.tickOf(now)
		if err != nil {
			return 0, 0, err
		}
		if g.fence != nil {
			if err := g.fence(now, tick); err != nil {
				return 0, 0, err
			}
		}
		switch {
		case tick > g.lastTick:
			g.lastTick, g.seq = tick, 0
			return tick, 0, nil
		case tick == g.lastTick:
			if g.seq < g.maxSeq {
				g.seq++
				return tick, g.seq, nil
			}
			// Sequence used up: wait for the next tick.
			g.sleep(g.layout.TickTime(g.lastTick + 1).Sub(now))
		default:
			// The clock is behind the last tick handed out. offset is
			// how long until it reaches that tick again.
			offset := g.layout.TickTime(g.lastTick).Sub(now)
			if waited || g.maxBack < 0 || offset > g.maxBack {
				return 0, 0, fmt.Errorf("generator: %w by %s (allowed up to %s)", ErrClockBackward, offset, max(g.maxBack, 0))
			}
			waited = true
			g.sleep(2 * offset)
		}
	}
}

// tickOf converts an instant to the layout's tick without allocating.
func (g *Generator) tickOf(t time.Time) (int64, error) {
	ms := t.UnixMilli() - g.epochMs
	if ms < 0 || ms/g.unitMs > g.maxTicks {
		_, err := g.layout.Ticks(t)
		return 0, fmt.Errorf("generator: %w", err)
	}
	return ms / g.unitMs, nil
}

// Snowflake's customary split of its 10 node bits.
const (
	DatacenterBits = 5
	WorkerBits     = 5
)

// NodeID packs a datacenter id and a worker id, 0..31 each, into the 10-bit
// node id of the Snowflake layout (datacenter in the high 5 bits), as
// Twitter's Snowflake and the code in the digit-rotation article do. It
// returns an error wrapping ErrNodeRange when either is out of range.
func NodeID(datacenter, worker int64) (int64, error) {
	const maxDC, maxWorker = 1<<DatacenterBits - 1, 1<<WorkerBits - 1
	if datacenter < 0 || datacenter > maxDC {
		return 0, fmt.Errorf("generator: %w: datacenter %d (allowed 0-%d)", ErrNodeRange, datacenter, maxDC)
	}
	if worker < 0 || worker > maxWorker {
		return 0, fmt.Errorf("generator: %w: worker %d (allowed 0-%d)", ErrNodeRange, worker, maxWorker)
	}
	return datacenter<<WorkerBits | worker, nil
}

// DefaultSleep is the Sleep a Generator uses when Settings.Sleep is nil: it
// pauses the calling goroutine for at least d without spending the
// processor, waking close to the deadline (see Settings.Sleep). A Sleep of
// your own that counts the waits (package metrics does) can call it.
func DefaultSleep(d time.Duration) { parkUntil(d) }
