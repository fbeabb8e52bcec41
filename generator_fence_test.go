package shardid

import (
	"errors"
	"sync"
	"testing"
	"time"
)

// tickFence is a Settings.Fence that refuses past a last tick and records
// every call, as a lease's does.
type tickFence struct {
	mu      sync.Mutex
	capTick int64
	refuse  error
	calls   []int64 // ticks asked about
	highest int64   // highest tick let through
}

func (f *tickFence) check(now time.Time, tick int64) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, tick)
	if tick > f.capTick {
		return f.refuse
	}
	f.highest = max(f.highest, tick)
	return nil
}

// TestFenceSeam: the generator asks Settings.Fence before each draw with
// the clock's reading and its tick; a refusal is returned as it is and
// draws nothing; and the highest tick the fence let through is the tick
// of the last ID drawn, through bursts that use up a tick's sequence and
// a clock stepped back, which is what a lease records as drawn at.
func TestFenceSeam(t *testing.T) {
	c := newFakeClock()
	refuse := errors.New("fenced")
	start, _ := Snowflake().Ticks(c.Now())
	f := &tickFence{capTick: start + 3, refuse: refuse, highest: -1}
	g := newGen(t, c, Settings{Fence: f.check})
	var last int64 = -1
	var lastTick int64
	draw := func() error {
		id, err := g.Next()
		if err != nil {
			return err
		}
		if id <= last {
			t.Fatalf("id %d after %d", id, last)
		}
		last = id
		p, _ := g.Layout().Decompose(id)
		lastTick = p.Ticks
		if f.highest != lastTick {
			t.Fatalf("fence let through up to tick %d; the last ID is at tick %d", f.highest, lastTick)
		}
		return nil
	}
	// A burst of two ticks' sequences: the generator waits for the next
	// tick and asks again there.
	for range 2 * (g.Layout().MaxSeq() + 1) {
		if err := draw(); err != nil {
			t.Fatal(err)
		}
	}
	if lastTick != start+1 {
		t.Fatalf("two ticks' worth of IDs ended at tick %d; want %d", lastTick, start+1)
	}
	// A clock stepped back 2ms: asked at the earlier tick, the generator
	// waits it out; the highest tick let through stays the one drawn at.
	c.Set(c.Now().Add(-2 * time.Millisecond))
	if err := draw(); err != nil {
		t.Fatal(err)
	}
	if f.calls[len(f.calls)-2] >= lastTick {
		t.Fatalf("fence calls %v: the stepped-back tick was not asked about", f.calls[len(f.calls)-3:])
	}
	// Past the fence's last tick: the fence's own error, nothing drawn.
	c.Set(g.Layout().TickTime(start + 4))
	before := len(f.calls)
	if _, err := g.Next(); err != refuse {
		t.Fatalf("past the fence: %v; want the fence's error as it is", err)
	}
	if len(f.calls) != before+1 || f.calls[before] != start+4 {
		t.Fatalf("fence asked about ticks %v; want once, about tick %d", f.calls[before:], start+4)
	}
	f.capTick = start + 4
	if err := draw(); err != nil || lastTick != start+4 {
		t.Fatalf("fence lifted: %v at tick %d", err, lastTick)
	}
	// Within the tick it drew at last, the generator still asks: a fence
	// lowered meanwhile (a lease lost) stops the very next ID.
	f.capTick = start + 3
	if _, err := g.Next(); err != refuse {
		t.Fatalf("fence lowered within the tick drawn at: %v; want the fence's error", err)
	}
}

// TestLastDrawn: a generator given LastDrawn draws only after the tick
// holding it, whatever its clock reads within that tick; one before the
// layout's epoch is none; one past the layout's end is refused; and a
// clock further behind it than MaxBackwardStep is a clock moved back.
func TestLastDrawn(t *testing.T) {
	c := newFakeClock()
	l := Snowflake()
	tick, _ := l.Ticks(c.Now())
	drawn := l.TickTime(tick).Add(600 * time.Microsecond) // inside tick
	g := newGen(t, c, Settings{Node: 3, LastDrawn: drawn})
	id, err := g.Next()
	if err != nil {
		t.Fatal(err)
	}
	if p, _ := l.Decompose(id); p.Ticks != tick+1 || p.Seq != 0 {
		t.Fatalf("first ID at tick %d seq %d; want seq 0 of tick %d, after the one last drawn at", p.Ticks, p.Seq, tick+1)
	}
	if s := c.Sleeps(); len(s) != 1 {
		t.Fatalf("sleeps %v; want one, to the next tick", s)
	}

	for _, tc := range []struct {
		name string
		s    Settings
		want error // nil: the first ID is at the clock's tick
	}{
		{"before the epoch", Settings{LastDrawn: l.Epoch.Add(-time.Hour)}, nil},
		{"zero", Settings{}, nil},
		{"past the layout's end", Settings{LastDrawn: l.TickTime(l.MaxTicks()).Add(time.Hour)}, ErrTimeRange},
		{"clock 1s behind", Settings{LastDrawn: c.Now().Add(time.Second)}, ErrClockBackward},
		{"clock 1s behind, never wait", Settings{LastDrawn: c.Now().Add(time.Second), MaxBackwardStep: -1}, ErrClockBackward},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newFakeClock()
			tc.s.Clock, tc.s.Sleep = c.Now, c.Sleep
			g, err := NewGenerator(tc.s)
			if err == nil {
				var id int64
				id, err = g.Next()
				now, _ := l.Ticks(c.Now())
				if p, _ := l.Decompose(id); err == nil && p.Ticks != now {
					t.Fatalf("first ID at tick %d; want the clock's, %d", p.Ticks, now)
				}
			}
			if !errors.Is(err, tc.want) {
				t.Fatalf("err %v; want %v", err, tc.want)
			}
		})
	}
}
