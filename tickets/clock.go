package tickets

import (
	"sync"
	"time"
)

// The client's clocks. Every decision of when (a failed server's next
// probe, a rewound server's recheck, the next record, how long a server
// has been silent) is taken on the monotonic clock, which no setting of
// the wall clock moves: an NTP step, or an operator's, changes none of
// them. The wall clock (Settings.Clock) is only watched: a step of
// it is reported (EventClockStepped), since the servers' and other
// processes' clocks did not step with it.

// monoBase anchors the monotonic clock: a reading of time.Now, which
// carries the runtime's monotonic reading.
var monoBase = time.Now()

// monoNow is the monotonic clock: how long since monoBase.
func monoNow() time.Duration { return time.Since(monoBase) }

// Steps of the wall clock smaller than stepMin plus stepRate of the
// monotonic time since the last reading are not reported: the two
// readings of one check are not taken at the same instant, and NTP slews
// a clock by up to 500 ppm without stepping it.
const (
	stepMin  = 10 * time.Millisecond
	stepRate = 1000 // 1/1000 of the elapsed time: twice NTP's largest slew
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
