package segment

import (
	"sync"
	"time"
)

// The client's clocks. When to load again after a failure, how long a
// segment lasted (the step) and how long the database was down are
// measured on the monotonic clock, which no step of the wall clock moves;
// the wall clock (Settings.Clock) stamps the events, and a step of it is
// reported (ClockStepped).

// monoBase anchors the monotonic clock: a reading of time.Now, which
// carries the runtime's monotonic reading.
var monoBase = time.Now()

// monoNow is the monotonic clock: how long since monoBase.
func monoNow() time.Duration { return time.Since(monoBase) }

// Steps of the wall clock smaller than stepMin plus 1/stepRate of the
// monotonic time between two checks are not reported: the two readings
// are not taken at one instant, and NTP slews a clock by up to 500 ppm
// without stepping it.
const (
	stepMin  = 10 * time.Millisecond
	stepRate = 1000
)

// stepWatch finds steps of a wall clock against the monotonic clock.
type stepWatch struct {
	mu   sync.Mutex
	wall time.Time     // the wall reading at the last check (no monotonic reading)
	mono time.Duration // the monotonic reading then
	set  bool
}

// check compares a wall reading with a monotonic one taken with it and
// returns how far the wall clock stepped since the last check (forward
// positive, back negative), or 0 for none.
func (w *stepWatch) check(wall time.Time, mono time.Duration) time.Duration {
	wall = wall.Round(0) // the wall reading alone
	w.mu.Lock()
	defer w.mu.Unlock()
	prevWall, prevMono, set := w.wall, w.mono, w.set
	w.wall, w.mono, w.set = wall, mono, true
	if !set {
		return 0
	}
	elapsed := mono - prevMono
	step := wall.Sub(prevWall) - elapsed
	if step.Abs() <= stepMin+elapsed/stepRate {
		return 0
	}
	return step
}

// watchClock reports a step of the wall clock since the last check.
func (c *Segments) watchClock() {
	now := c.clock()
	if step := c.steps.check(now, c.mono()); step != 0 {
		c.emit(Event{Kind: ClockStepped, Tag: c.set.Tag, Time: now, ClockStep: step})
	}
}
