package tickets_test

import (
	"context"
	"database/sql"
	"errors"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shardid/shardid/tickets"
	"github.com/shardid/shardid/tools/bench"
	"github.com/shardid/shardid/tools/testsrv"
)

// stalls sums up the calls that ended in [from, to]: the longest call,
// the longest time in which no call ended with a ticket (from from to
// to), the calls longer than a second, and the tickets drawn.
func (l *drawLoop) stalls(from, to time.Time) (longest, gap time.Duration, slow, drawn int) {
	var ends []time.Time
	for _, c := range l.calls {
		if c.end.Before(from) || c.end.After(to) {
			continue
		}
		longest = max(longest, c.took)
		if c.took > time.Second {
			slow++
		}
		ends = append(ends, c.end)
	}
	slices.SortFunc(ends, func(a, b time.Time) int { return a.Compare(b) })
	prev := from
	for _, e := range append(ends, to) {
		gap, prev = max(gap, e.Sub(prev)), e
	}
	return longest, gap, slow, len(ends)
}

// givenTo returns how long a client let server stay silent before it left
// it, from its failover events and the errors of the calls that failed:
// each the limit the client set (a *NoAnswerError's Silent, the server's
// budget when another server was left), not a time measured around it.
func givenTo(ev *events, failed []error, server string) []time.Duration {
	var out []time.Duration
	for _, e := range ev.of(tickets.EventFailover, server) {
		var na *tickets.NoAnswerError
		if errors.As(e.Err, &na) {
			out = append(out, na.Silent)
		}
	}
	for _, err := range failed {
		for _, na := range noAnswers(err) {
			if na.Server == server && na.Wait > 0 {
				out = append(out, na.Silent)
			}
		}
	}
	return out
}

// TestHungServer: two MariaDB servers (a of the test's own); a is stopped
// (SIGSTOP: it keeps its port and connections and answers nothing) while
// four goroutines draw. With a 500 ms budget and a 5 s timeout, no call
// lets a stay silent for more than half its timeout: it leaves a after
// a's budget (500 ms, or more when a had been answering slowly, at most
// half the timeout) and draws from b (the limits the client set, from the
// failover events: what the client decides, not what a loaded machine
// makes of it); a comes back after SIGCONT; no ticket twice.
//
// The breaker's clock is the test's: while it stands still, nobody tries a
// once it is known down (the draws abandoned on it are at most the calls
// in flight when it stopped); each time the test moves it past the
// backoff, exactly one caller probes a while the others keep drawing
// from b. The negative control, a client without the budget and the
// breaker drawing beside it through the same hang, gives a the whole
// timeout.
//
// The bound holds while b answers within the budget. On a machine loaded
// enough that a draw on b outlasts it, b is passed over as down too, and a
// call with a the only server left up gives a the rest of its timeout, by
// design (a slow server is not a hung one). The test then says so and
// judges only what does not depend on b: no ticket twice, a's probes and
// events, and the control.
func TestHungServer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two servers of its own and stops one")
	}
	t.Parallel()
	ctx := context.Background()
	srvA, servers := ownPair(t, "t")
	const budget, timeout, retry, goroutines = 500 * time.Millisecond, 5 * time.Second, 300 * time.Millisecond, 4
	var ev events
	var ahead atomic.Int64 // how far the test moved the breaker's clock
	clock := func() time.Duration { return time.Duration(ahead.Load()) }
	set := tickets.Settings{Name: "t", Budget: budget, Timeout: timeout, RetryAfter: retry, MaxRetryAfter: time.Second, OnEvent: ev.add}
	cl, err := tickets.NewClientOnClock(ctx, servers, set, clock)
	if err != nil {
		t.Fatal(err)
	}
	var bev events
	set.OnEvent = bev.add
	blind, err := tickets.NewClientNoBreaker(ctx, servers, set)
	if err != nil {
		t.Fatal(err)
	}
	l, lb := startLoop(cl, goroutines), startLoop(blind, goroutines)
	testsrv.WaitFor(t, "1,000 tickets in each client", func() bool { return l.total.Load() >= 1000 && lb.total.Load() >= 1000 })

	before := cl.Stats()
	if err := srvA.Pause(); err != nil {
		t.Fatal(err)
	}
	pausedAt := time.Now()
	testsrv.WaitFor(t, "a known down", func() bool { return cl.Servers()[0].Down })
	at := l.total.Load()
	testsrv.WaitFor(t, "2,000 tickets with a down", func() bool { return l.total.Load() >= at+2000 })
	bDown := func() bool { return len(ev.of(tickets.EventServerDown, "b")) > 0 }
	if st := cl.Stats(); st.Probes != before.Probes || st.Abandoned-before.Abandoned > goroutines && !bDown() {
		t.Errorf("with the breaker's clock standing still: %d probes, %d draws abandoned on a; want none, and at most the %d calls in flight when it stopped",
			st.Probes-before.Probes, st.Abandoned-before.Abandoned, goroutines)
	}
	for round := range 3 {
		probes, downs := cl.Stats().Probes, len(ev.of(tickets.EventServerDown, "a"))
		ahead.Add(int64(10 * time.Second)) // past any backoff
		testsrv.WaitFor(t, "a probe of a to fail", func() bool { return len(ev.of(tickets.EventServerDown, "a")) > downs })
		if got := cl.Stats().Probes - probes; got != 1 {
			t.Errorf("round %d: %d callers probed a; want one", round, got)
		}
	}
	testsrv.WaitFor(t, "a stall of the control", func() bool { return blind.Stats().Abandoned > 0 })
	if err := srvA.Continue(); err != nil {
		t.Fatal(err)
	}
	hang := time.Since(pausedAt)
	continuedAt := time.Now()
	ahead.Add(int64(10 * time.Second))
	drawsA := cl.Servers()[0].Draws
	testsrv.WaitFor(t, "the client back on a", func() bool { return cl.Servers()[0].Draws >= drawsA+200 })
	l.finish()
	lb.finish()
	finished := time.Now()
	after := cl.Stats()

	if n := bench.Repeats(l.ids, lb.ids); n != 0 {
		t.Fatalf("%d duplicate tickets", n)
	}
	slowB := bDown()
	if len(l.errs) != 0 && !slowB {
		t.Errorf("%d calls failed while b answered, the first: %v", len(l.errs), l.errs[0])
	}
	longest, _, slow, _ := l.stalls(pausedAt, finished)
	_, gap, _, drawn := l.stalls(pausedAt, continuedAt)
	t.Logf("a stopped for %s: the longest call took %s, the longest time without a ticket %s, %d calls over 1 s, %d tickets; %d probes, %d draws abandoned",
		hang.Round(time.Millisecond), longest.Round(time.Millisecond), gap.Round(time.Millisecond), slow, drawn,
		after.Probes-before.Probes, after.Abandoned-before.Abandoned)
	given := givenTo(&ev, l.errs, "a")
	switch {
	case slowB:
		t.Logf("b was passed over as down as well (a draw on it outlasted the %s budget: the machine is loaded), so the bound is not judged: %d calls failed, the longest took %s",
			budget, len(l.errs), longest.Round(time.Millisecond))
	case len(given) == 0:
		t.Errorf("no draw left a for b for want of an answer")
	case slices.Max(given) > timeout/2:
		t.Errorf("a call let the hung server stay silent for %s before going on to b, which answered; a budget is at most half the timeout, %s", slices.Max(given), timeout/2)
	default:
		t.Logf("the hung server was left after %s of silence at most (configured budget %s)", slices.Max(given), budget)
	}
	down, up := ev.of(tickets.EventServerDown, "a"), ev.of(tickets.EventServerUp, "a")
	var noAnswer bool
	for _, e := range ev.of(tickets.EventFailover, "a") {
		noAnswer = noAnswer || errors.Is(e.Err, tickets.ErrNoAnswer) && e.To == "b"
	}
	if len(down) == 0 || len(up) == 0 || !noAnswer || !errors.Is(down[0].Err, tickets.ErrNoAnswer) {
		t.Errorf("events: %d down (first %v), %d up, a failover from a to b for no answer: %v", len(down), down, len(up), noAnswer)
	}

	// Negative control: the client without budget and breaker, same hang.
	cLongest, _, cSlow, _ := lb.stalls(pausedAt, finished)
	_, cGap, _, cDrawn := lb.stalls(pausedAt, continuedAt)
	t.Logf("negative control: the longest call took %s, the longest time without a ticket %s, %d calls over 1 s, %d tickets",
		cLongest.Round(time.Millisecond), cGap.Round(time.Millisecond), cSlow, cDrawn)
	if cGiven := givenTo(&bev, lb.errs, "a"); len(cGiven) == 0 || slices.Max(cGiven) <= timeout/2 {
		t.Errorf("negative control: a client without budget and breaker let the hung server stay silent for at most %v; want the whole timeout", cGiven)
	}
}

// BenchmarkHungServer measures what a hung server costs the callers with
// the default settings: two MariaDB servers, four goroutines drawing, a
// stopped (SIGSTOP) for 10 s. Metrics: the longest call, the longest time
// in which no call got a ticket, the calls over a second, tickets per
// second during the hang against before it.
//
//	go test -run XXX -bench HungServer -benchtime 1x ./tickets
func BenchmarkHungServer(b *testing.B) {
	ctx := context.Background()
	srvA, srvB := testsrv.NewMariaDB(b), testsrv.NewMariaDB(b)
	da := testsrv.Open(b, "mysql", testsrv.Database(b, srvA))
	db := testsrv.Open(b, "mysql", testsrv.Database(b, srvB))
	for i, d := range []*sql.DB{da, db} {
		if _, _, err := tickets.Up(ctx, d, tickets.Counter{Name: "t", Increment: 2, Offset: int64(i + 1)}); err != nil {
			b.Fatal(err)
		}
	}
	cl, err := tickets.NewClient(ctx, []tickets.Server{{Name: "a", DB: da}, {Name: "b", DB: db}}, tickets.Settings{Name: "t"})
	if err != nil {
		b.Fatal(err)
	}
	for range b.N {
		l := startLoop(cl, 4)
		time.Sleep(3 * time.Second) // a measurement window, not a synchronization
		steady := time.Now()
		time.Sleep(3 * time.Second)
		pausedAt := time.Now()
		if err := srvA.Pause(); err != nil {
			b.Fatal(err)
		}
		time.Sleep(10 * time.Second)
		continuedAt := time.Now()
		if err := srvA.Continue(); err != nil {
			b.Fatal(err)
		}
		l.finish()
		longest, gap, slow, drawn := l.stalls(pausedAt, continuedAt)
		_, _, _, base := l.stalls(steady, pausedAt)
		b.ReportMetric(float64(longest.Milliseconds()), "longest-call-ms")
		b.ReportMetric(float64(gap.Milliseconds()), "longest-no-ticket-ms")
		b.ReportMetric(float64(slow), "calls-over-1s")
		b.ReportMetric(float64(drawn)/float64(base)*float64(pausedAt.Sub(steady))/float64(continuedAt.Sub(pausedAt)), "hang/steady-rate")
	}
}

// BenchmarkHealthyServers measures what the client does with two healthy
// MariaDB servers under whatever load the machine has (run it beside
// another test suite): 150 goroutines draw for 10 s with the default
// settings. Metrics: failovers, draws abandoned and of those that answered
// late, the longest call. With every server healthy the adaptive budget
// should make no failover.
//
//	go test -run XXX -bench HealthyServers -benchtime 1x ./tickets
func BenchmarkHealthyServers(b *testing.B) {
	ctx := context.Background()
	srv := testsrv.MariaDB(b)
	da, db := testsrv.Open(b, "mysql", testsrv.Database(b, srv)), testsrv.Open(b, "mysql", testsrv.Database(b, srv))
	for i, d := range []*sql.DB{da, db} {
		if _, _, err := tickets.Up(ctx, d, tickets.Counter{Name: "t", Increment: 2, Offset: int64(i + 1)}); err != nil {
			b.Fatal(err)
		}
	}
	for _, d := range []*sql.DB{da, db} {
		d.SetMaxOpenConns(40) // below the server's max_connections: the draws queue for a connection, as an application's do
	}
	for range b.N {
		var ev events
		cl, err := tickets.NewClient(ctx, []tickets.Server{{Name: "a", DB: da}, {Name: "b", DB: db}}, tickets.Settings{Name: "t", OnEvent: ev.add})
		if err != nil {
			b.Fatal(err)
		}
		l := startLoop(cl, 150)
		time.Sleep(10 * time.Second) // a measurement window, not a synchronization
		ids := l.finish()
		st := cl.Stats()
		longest, _, _, _ := l.stalls(time.Time{}, time.Now())
		if n := bench.Repeats(ids); n != 0 {
			b.Fatalf("%d tickets twice", n)
		}
		if f := append(ev.of(tickets.EventFailover, "a"), ev.of(tickets.EventFailover, "b")...); len(f) > 0 {
			b.Logf("first failover: %s", f[0])
		}
		b.ReportMetric(float64(st.Failovers), "failovers")
		b.ReportMetric(float64(st.Abandoned), "abandoned")
		b.ReportMetric(float64(st.Late), "late-answers")
		b.ReportMetric(float64(len(l.errs)), "failed-calls")
		b.ReportMetric(float64(len(ids)), "tickets")
		b.ReportMetric(float64(longest.Milliseconds()), "longest-call-ms")
	}
}
