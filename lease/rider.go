package lease

import (
	"context"
	"errors"
	"time"
)

// Rider draws from a Lease through outages longer than its lease: when
// Next stops with ErrExpired (no renewal succeeded in time: the database
// away, or the process paused), it waits up to Wait for the background
// renewals to succeed, as a Generator's caller would, then draws on. A
// lost lease, or no renewal within Wait, ends the draw with the error.
// Its zero Wait does not wait. `shardid idgen --wait` is one.
type Rider struct {
	// Lease is the lease to draw from.
	Lease *Lease
	// Wait is how long to wait for a renewal once drawing stops; 0: not
	// at all.
	Wait time.Duration
	// OnStop, if not nil, is called when drawing stops, with why.
	OnStop func(err error)
	// OnResume, if not nil, is called when drawing goes on after a stop,
	// with how long it stopped.
	OnResume func(stopped time.Duration)

	stopped time.Time
}

// WaitError is Rider.Next's error when no renewal succeeded within Wait.
type WaitError struct {
	// Wait is the Rider's Wait.
	Wait time.Duration
	// Err is the last error of Lease.Next (wrapping ErrExpired).
	Err error
}

// Error says that no renewal succeeded in time.
func (e *WaitError) Error() string {
	return "no renewal succeeded within " + e.Wait.String() + ": " + e.Err.Error()
}

// Unwrap returns the last error of Lease.Next.
func (e *WaitError) Unwrap() error { return e.Err }

// Next returns the lease's next ID, waiting out a stop as the Rider says;
// ctx ends the wait.
func (r *Rider) Next(ctx context.Context) (int64, error) {
	for {
		id, err := r.Lease.Next()
		if err == nil {
			if !r.stopped.IsZero() {
				if r.OnResume != nil {
					r.OnResume(time.Since(r.stopped))
				}
				r.stopped = time.Time{}
			}
			return id, nil
		}
		if !errors.Is(err, ErrExpired) || r.Wait == 0 {
			return 0, err
		}
		if r.stopped.IsZero() {
			r.stopped = time.Now()
			if r.OnStop != nil {
				r.OnStop(err)
			}
		}
		if time.Since(r.stopped) > r.Wait {
			return 0, &WaitError{Wait: r.Wait, Err: err}
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}
