package lease_test

import (
	"sync"
	"testing"

	"github.com/shardid/shardid/internal/testsrv"
)

func TestMain(m *testing.M) { testsrv.Main(m) }

// recorder keeps the events a lease handed to OnEvent.
type recorder[E any] struct {
	mu  sync.Mutex
	evs []E
}

func (r *recorder[E]) add(e E) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.evs = append(r.evs, e)
}

// all returns the events so far.
func (r *recorder[E]) all() []E {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]E(nil), r.evs...)
}
