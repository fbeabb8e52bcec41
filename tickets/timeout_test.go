package tickets_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/shardid/shardid/tickets"
	"github.com/shardid/shardid/tools/testsrv"
)

// noAnswers returns the *NoAnswerError of each server in err, the error of
// one call of Next.
func noAnswers(err error) []*tickets.NoAnswerError {
	var out []*tickets.NoAnswerError
	var walk func(error)
	walk = func(e error) {
		var na *tickets.NoAnswerError
		if errors.As(e, &na) && e == error(na) {
			out = append(out, na)
			return
		}
		switch u := e.(type) {
		case interface{ Unwrap() []error }:
			for _, x := range u.Unwrap() {
				walk(x)
			}
		case interface{ Unwrap() error }:
			if x := u.Unwrap(); x != nil {
				walk(x)
			}
		}
	}
	walk(err)
	return out
}

// TestEveryServerHung: both servers of a name on one MariaDB server of the
// test's own, stopped (SIGSTOP): every call fails with ErrNoServer, and
// the waits it gave the servers (each *NoAnswerError's Wait, the limit it
// set, not a measured time) add up to no more than Timeout, over calls
// that asked one server and calls that asked both (a probe and the last
// resort). The negative control, a client that gives every server of a
// call the whole Timeout, spends more than Timeout in one call.
func TestEveryServerHung(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server of its own and stops it")
	}
	t.Parallel()
	ctx := context.Background()
	srv := testsrv.NewMariaDB(t)
	a, b := testsrv.Open(t, "mysql", testsrv.Database(t, srv)), testsrv.Open(t, "mysql", testsrv.Database(t, srv))
	up(t, a, tickets.Counter{Name: "t", Increment: 2, Offset: 1})
	up(t, b, tickets.Counter{Name: "t", Increment: 2, Offset: 2})
	servers := []tickets.Server{{Name: "a", DB: a}, {Name: "b", DB: b}}
	const timeout = 600 * time.Millisecond
	set := tickets.Settings{Name: "t", Budget: 150 * time.Millisecond, Timeout: timeout, RetryAfter: time.Millisecond, MaxRetryAfter: time.Millisecond}
	cl, err := tickets.NewClient(ctx, servers, set)
	if err != nil {
		t.Fatal(err)
	}
	blind, err := tickets.NewClientPerServerTimeout(ctx, servers, set)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []*tickets.Client{cl, blind} {
		for range 10 {
			if _, err := c.Next(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := srv.Pause(); err != nil {
		t.Fatal(err)
	}
	defer srv.Continue()
	// spent runs calls and returns the most any one call gave the servers,
	// and the most servers a call asked.
	spent := func(c *tickets.Client, calls int) (most time.Duration, asked int) {
		for range calls {
			start := time.Now()
			_, err := c.Next(ctx)
			if !errors.Is(err, tickets.ErrNoServer) || !errors.Is(err, tickets.ErrNoAnswer) {
				t.Fatalf("a call with every server hung: %v; want ErrNoServer and ErrNoAnswer", err)
			}
			var sum time.Duration
			n := 0
			for _, na := range noAnswers(err) {
				sum += na.Wait
				if na.Wait > 0 {
					n++
				}
			}
			most, asked = max(most, sum), max(asked, n)
			t.Logf("call: %d servers waited for, %s given in all, %s taken: %v", n, sum, time.Since(start).Round(time.Millisecond), err)
			time.Sleep(2 * time.Millisecond) // past RetryAfter: the next call probes
		}
		return most, asked
	}
	most, asked := spent(cl, 4)
	if most > timeout || asked < 2 {
		t.Errorf("with every server hung: a call gave the servers %s in all (the timeout is %s); the most servers a call waited for: %d, want 2", most, timeout, asked)
	}
	cMost, _ := spent(blind, 4)
	if cMost <= timeout {
		t.Errorf("negative control: a client giving each server the whole timeout gave at most %s in one call", cMost)
	}
}
