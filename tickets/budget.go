package tickets

import (
	"math"
	"sync"
	"time"
)

// A server's budget adapts to how fast it has been answering, so that a
// server slowed by load is not taken for a hung one: the budget is
// budgetFactor times the slowest answer it gave recently (that slowest
// answer halving every latencyHalfLife without a slower one), never below
// Settings.Budget and never above half the Timeout, so that a call
// that leaves a server always has time left for another. A draw leaves a server
// only after the server has been silent for its budget: answering none of
// the client's draws since this one started, or since the last answer it
// gave another. A server that hangs costs the calls in flight at most its
// budget after its last answer, and a server that only answers late is
// learned from: the draw given up on runs on in the background, and when it
// answers within Timeout its time raises the budget (EventSlow).
const (
	budgetFactor    = 4
	latencyHalfLife = 10 * time.Second
)

// latency is what a client knows of how fast a server answers.
type latency struct {
	mu   sync.Mutex
	slow time.Duration // the slowest recent answer, decayed to at
	at   time.Duration // monotonic time of the last update
	last time.Duration // monotonic time of the last answer, 0 for none
}

// decayed is l.slow decayed to now. l.mu is held.
func (l *latency) decayed(now time.Duration) time.Duration {
	if l.slow <= 0 || now <= l.at {
		return l.slow
	}
	return time.Duration(float64(l.slow) * math.Exp2(-float64(now-l.at)/float64(latencyHalfLife)))
}

// observe records an answer that took took, at monotonic time now.
func (l *latency) observe(took, now time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.slow, l.at, l.last = max(took, l.decayed(now)), now, max(l.last, now)
}

// budget is the server's budget at now: budgetFactor times its slowest
// recent answer, within [lo, hi].
func (l *latency) budget(lo, hi, now time.Duration) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	return min(max(budgetFactor*l.decayed(now), lo), hi)
}

// lastAnswer is the monotonic time of the server's last answer (0: none).
func (l *latency) lastAnswer() time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.last
}
