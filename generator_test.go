package shardid

import (
	"errors"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeClock is a clock that only moves when told to or when slept on, so
// tests exercise waiting without waiting.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	step   time.Duration // added after every reading
	sleeps []time.Duration
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.now
	c.now = c.now.Add(c.step)
	return t
}

func (c *fakeClock) Sleep(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sleeps = append(c.sleeps, d)
	c.now = c.now.Add(d)
}

func (c *fakeClock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t
}

func (c *fakeClock) Sleeps() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.sleeps...)
}

func newGen(t *testing.T, c *fakeClock, s Settings) *Generator {
	t.Helper()
	s.Clock, s.Sleep = c.Now, c.Sleep
	g, err := NewGenerator(s)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestNewDefaults(t *testing.T) {
	g, err := NewGenerator(Settings{})
	if err != nil {
		t.Fatal(err)
	}
	if g.Layout() != Snowflake() || g.maxBack != DefaultMaxBackwardStep {
		t.Errorf("defaults: layout %v, max backward step %s", g.Layout(), g.maxBack)
	}
	id, err := g.Next()
	if err != nil {
		t.Fatal(err)
	}
	p, err := g.Layout().Decompose(id)
	if err != nil || time.Since(p.Time) > time.Minute || p.Time.After(time.Now()) {
		t.Errorf("Decompose(%d) = %+v, %v; want a time within the last minute", id, p, err)
	}
}

func TestNewErrors(t *testing.T) {
	c := newFakeClock()
	bad := Snowflake()
	bad.SeqBits = 0
	tests := []struct {
		name string
		s    Settings
		want error
	}{
		{"invalid layout", Settings{Layout: bad}, ErrInvalidLayout},
		{"node too big", Settings{Node: 1024}, ErrShardRange},
		{"negative node", Settings{Node: -1}, ErrShardRange},
		{"clock before epoch", Settings{Clock: func() time.Time { return DefaultEpoch().Add(-time.Second) }}, ErrTimeRange},
	}
	for _, tt := range tests {
		if tt.s.Clock == nil {
			tt.s.Clock = c.Now
		}
		if _, err := NewGenerator(tt.s); !errors.Is(err, tt.want) {
			t.Errorf("%s: New = %v; want %v", tt.name, err, tt.want)
		}
	}
}

func TestNodeID(t *testing.T) {
	n, err := NodeID(3, 17)
	if err != nil || n != 3<<5|17 {
		t.Errorf("NodeID(3, 17) = %d, %v", n, err)
	}
	if n, err := NodeID(31, 31); err != nil || Snowflake().CheckShard(n) != nil {
		t.Errorf("NodeID(31, 31) = %d, %v; want the largest Snowflake node", n, err)
	}
	for _, p := range [][2]int64{{32, 0}, {0, 32}, {-1, 0}, {0, -1}} {
		if _, err := NodeID(p[0], p[1]); !errors.Is(err, ErrNodeRange) {
			t.Errorf("NodeID(%d, %d) = %v; want ErrNodeRange", p[0], p[1], err)
		}
	}
}

// With a frozen clock, the 4097th ID of a tick has to wait for the next
// tick: exactly one sleep, up to the tick boundary.
func TestSequenceExhaustionWaits(t *testing.T) {
	c := newFakeClock()
	c.Set(c.now.Add(300 * time.Microsecond)) // mid-tick
	g := newGen(t, c, Settings{Node: 7})
	l := g.Layout()
	var last, firstID int64 = -1, -1
	for i := int64(0); i <= l.MaxSeq()+1; i++ {
		id, err := g.Next()
		if err != nil {
			t.Fatal(err)
		}
		if id <= last {
			t.Fatalf("id %d after %d: not increasing", id, last)
		}
		last = id
		if firstID < 0 {
			firstID = id
		}
		p, _ := l.Decompose(id)
		if i <= l.MaxSeq() && (p.Seq != i || len(c.Sleeps()) != 0) {
			t.Fatalf("id %d: seq %d after %d sleeps; want seq %d and no sleep", i, p.Seq, len(c.Sleeps()), i)
		}
		if i == l.MaxSeq()+1 {
			first, _ := l.Decompose(firstID)
			if p.Seq != 0 || p.Ticks != first.Ticks+1 || p.Shard != 7 {
				t.Errorf("overflow id parts %+v; want seq 0 of the next tick, node 7", p)
			}
		}
	}
	if s := c.Sleeps(); len(s) != 1 || s[0] != 700*time.Microsecond {
		t.Errorf("sleeps %v; want one of 700µs (to the next tick)", s)
	}
}

func TestSmallBackwardStepWaitsTwice(t *testing.T) {
	c := newFakeClock()
	g := newGen(t, c, Settings{})
	first, err := g.Next()
	if err != nil {
		t.Fatal(err)
	}
	c.Set(c.now.Add(-3 * time.Millisecond))
	second, err := g.Next()
	if err != nil {
		t.Fatalf("after a 3ms step back: %v", err)
	}
	if s := c.Sleeps(); len(s) != 1 || s[0] != 6*time.Millisecond {
		t.Errorf("sleeps %v; want one of 6ms (twice the 3ms offset)", s)
	}
	if second <= first {
		t.Errorf("id %d after %d: not increasing", second, first)
	}
}

func TestBigBackwardStepFails(t *testing.T) {
	for _, tt := range []struct {
		name    string
		maxBack time.Duration
		step    time.Duration
	}{
		{"default 5ms, step 6ms", 0, 6 * time.Millisecond},
		{"20ms, step 25ms", 20 * time.Millisecond, 25 * time.Millisecond},
		{"never wait, step 1ms", -1, time.Millisecond},
	} {
		c := newFakeClock()
		g := newGen(t, c, Settings{MaxBackwardStep: tt.maxBack})
		if _, err := g.Next(); err != nil {
			t.Fatal(err)
		}
		c.Set(c.now.Add(-tt.step))
		_, err := g.Next()
		if !errors.Is(err, ErrClockBackward) || len(c.Sleeps()) != 0 {
			t.Errorf("%s: Next = %v after %d sleeps; want ErrClockBackward without sleeping", tt.name, err, len(c.Sleeps()))
			continue
		}
		// The clock's reading was 1ns later than it was set; the offset
		// to the last tick is the step.
		if want := tt.step.String(); !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %q does not name the offset %s", tt.name, err, want)
		}
	}
}

// A clock that is still behind after the wait is an error too, not a
// second wait.
func TestBackwardStillBehindFails(t *testing.T) {
	c := newFakeClock()
	var mu sync.Mutex
	sleeps := 0
	g, err := NewGenerator(Settings{Clock: c.Now, Sleep: func(d time.Duration) {
		mu.Lock()
		sleeps++
		mu.Unlock()
		// The sleep passes but the clock does not move.
	}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.Next(); err != nil {
		t.Fatal(err)
	}
	c.Set(c.now.Add(-2 * time.Millisecond))
	if _, err := g.Next(); !errors.Is(err, ErrClockBackward) || sleeps != 1 {
		t.Errorf("Next = %v after %d sleeps; want ErrClockBackward after one", err, sleeps)
	}
}

func TestConcurrentUnique(t *testing.T) {
	c := newFakeClock()
	c.step = 50 * time.Nanosecond // the clock moves as it is read
	g := newGen(t, c, Settings{Node: 513})
	const workers, each = 8, 20000
	out := make([][]int64, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			ids := make([]int64, 0, each)
			for range each {
				id, err := g.Next()
				if err != nil {
					t.Error(err)
					return
				}
				ids = append(ids, id)
			}
			out[w] = ids
		})
	}
	wg.Wait()
	seen := make(map[int64]bool, workers*each)
	for _, ids := range out {
		var lastRaw int64 = -1
		for _, id := range ids {
			if seen[id] {
				t.Fatalf("duplicate id %d", id)
			}
			seen[id] = true
			p, err := g.Layout().Decompose(id)
			if err != nil || p.Shard != 513 {
				t.Fatalf("Decompose(%d) = %+v, %v; want node 513", id, p, err)
			}
			if id <= lastRaw {
				t.Fatalf("ids of one goroutine out of order: %d after %d", id, lastRaw)
			}
			lastRaw = id
		}
	}
	if len(seen) != workers*each {
		t.Errorf("%d unique ids; want %d", len(seen), workers*each)
	}
}

// Many IDs over a moving clock, in every preset layout: all unique,
// increasing, and each decodes to the tick the clock showed.
func TestUniqueAndDecode(t *testing.T) {
	for _, l := range []Layout{Snowflake(), Instagram(), JS53()} {
		c := newFakeClock()
		c.step = 700 * time.Nanosecond
		g := newGen(t, c, Settings{Layout: l, Node: l.MaxShard()})
		var last int64 = -1
		for i := range 200000 {
			before := c.now
			id, err := g.Next()
			if err != nil {
				t.Fatalf("%s: %v", l.Name, err)
			}
			if id <= last {
				t.Fatalf("%s: id %d after %d", l.Name, id, last)
			}
			last = id
			p, err := g.Layout().Decompose(id)
			if err != nil || p.Shard != l.MaxShard() || p.Time.After(c.now) || p.Time.Before(before.Truncate(l.TimeUnit).Add(-l.TimeUnit)) {
				t.Fatalf("%s: id #%d %d decodes to %+v, %v; clock was %s", l.Name, i, id, p, err, before)
			}
			again, err := l.ComposeTicks(p.Ticks, p.Shard, p.Seq)
			if err != nil || again != id {
				t.Fatalf("%s: ComposeTicks(%+v) = %d, %v; want %d", l.Name, p, again, err, id)
			}
		}
	}
}

// TestDefaultSleepParks: a generator left with the default Sleep waits for
// the next tick in parkUntil, which blocks in the kernel or on the
// runtime's timer; it does not spin (it yielded in a loop through the last
// millisecond before: 2.6 times sonyflake v2's CPU per ID). parkUntil
// waits at least what it is asked, short waits and long.
func TestDefaultSleepParks(t *testing.T) {
	g, err := NewGenerator(Settings{})
	if err != nil {
		t.Fatal(err)
	}
	if reflect.ValueOf(g.sleep).Pointer() != reflect.ValueOf(DefaultSleep).Pointer() {
		t.Errorf("the default sleep is not DefaultSleep (parkUntil)")
	}
	for _, d := range []time.Duration{0, 50 * time.Microsecond, 900 * time.Microsecond, 3 * time.Millisecond} {
		start := time.Now()
		parkUntil(d)
		if took := time.Since(start); took < d {
			t.Errorf("parkUntil(%s) returned after %s", d, took)
		}
	}
}
