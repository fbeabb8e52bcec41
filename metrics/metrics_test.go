package metrics_test

import (
	"context"
	"database/sql"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/shardid/shardid"
	"github.com/shardid/shardid/dialect"
	"github.com/shardid/shardid/lease"
	"github.com/shardid/shardid/metrics"
	"github.com/shardid/shardid/segment"
	"github.com/shardid/shardid/tickets"
	"github.com/shardid/shardid/tools/testsrv"
)

func TestMain(m *testing.M) { testsrv.Main(m) }

// scrape serves reg over HTTP as Prometheus would find it and returns the
// value of every sample, keyed by its name and labels as printed.
func scrape(t *testing.T, reg *prometheus.Registry) map[string]float64 {
	t.Helper()
	srv := httptest.NewServer(promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	defer srv.Close()
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("scrape: %d, %v\n%s", resp.StatusCode, err, body)
	}
	out := map[string]float64{}
	for _, line := range strings.Split(string(body), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			t.Fatalf("scrape line %q: %v", line, err)
		}
		out[line[:i]] = v
	}
	return out
}

// TestScrapeLiveClients: a ticket client over two MariaDB databases, a
// segment client and a leased generator on PostgreSQL draw, and a scrape
// of their collectors over HTTP shows what they did: the tickets and
// segments drawn, the per-server state and budget, the buffer, a load's
// time, the lease's renewals, its lag and headroom, and the generator's
// waits for the next tick.
func TestScrapeLiveClients(t *testing.T) {
	ctx := context.Background()
	reg := prometheus.NewRegistry()

	a, _ := testsrv.MariaDBDB(t)
	b, _ := testsrv.MariaDBDB(t)
	for i, db := range []*sql.DB{a, b} {
		if _, _, err := tickets.Up(ctx, db, tickets.Counter{Name: "t", Increment: 2, Offset: int64(i + 1)}); err != nil {
			t.Fatal(err)
		}
	}
	tm := metrics.NewTickets("t")
	tc, err := tickets.NewClient(ctx, []tickets.Server{{Name: "a", DB: a}, {Name: "b", DB: b}}, tickets.Settings{Name: "t", OnEvent: tm.OnEvent})
	if err != nil {
		t.Fatal(err)
	}
	tm.Watch(tc)
	for range 100 {
		if _, err := tc.Next(ctx); err != nil {
			t.Fatal(err)
		}
	}

	pg, _ := testsrv.PGDB(t)
	if _, err := segment.Up(ctx, pg, "", ""); err != nil {
		t.Fatal(err)
	}
	if _, _, err := segment.EnsureTag(ctx, pg, dialect.Postgres, "", segment.Tag{Tag: "orders", Step: 100}, 0); err != nil {
		t.Fatal(err)
	}
	sm := metrics.NewSegments("orders")
	sc, err := segment.New(ctx, pg, segment.Settings{Tag: "orders", OnEvent: sm.OnEvent})
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	sm.Watch(sc)
	for range 250 {
		if _, err := sc.Next(ctx); err != nil {
			t.Fatal(err)
		}
	}

	if _, err := lease.Up(ctx, pg, "", ""); err != nil {
		t.Fatal(err)
	}
	lm, gm := metrics.NewLease(lease.DefaultTable), metrics.NewGenerator("ids")
	l, err := lease.Acquire(ctx, pg, lease.Settings{Generator: shardid.Settings{Sleep: gm.Sleep}, OnEvent: lm.OnEvent})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	lm.Watch(l)
	for range 3 * 4096 { // three ticks' sequences at least: waits for the next tick
		if _, err := l.Next(); err != nil {
			t.Fatal(err)
		}
	}

	reg.MustRegister(tm, sm, lm, gm)
	got := scrape(t, reg)
	for _, c := range []struct {
		sample string
		ok     func(float64) bool
	}{
		{`shardid_tickets_draws_total{name="t"}`, func(v float64) bool { return v == 100 }},
		{`shardid_tickets_server_draws_total{name="t",server="a"}`, func(v float64) bool { return v > 0 }},
		{`shardid_tickets_server_passed_over{name="t",server="b"}`, func(v float64) bool { return v == 0 }},
		{`shardid_tickets_server_budget_seconds{name="t",server="a"}`, func(v float64) bool { return v >= tickets.DefaultBudget.Seconds() }},
		{`shardid_tickets_failovers_total{name="t"}`, func(v float64) bool { return v >= 0 }},
		{`shardid_segment_ids_drawn_total{tag="orders"}`, func(v float64) bool { return v == 250 }},
		{`shardid_segment_loads_total{tag="orders"}`, func(v float64) bool { return v >= 2 }},
		{`shardid_segment_ids_buffered{tag="orders"}`, func(v float64) bool { return v > 0 }},
		{`shardid_segment_load_seconds_count{tag="orders"}`, func(v float64) bool { return v >= 2 }},
		{`shardid_segment_events_total{kind="loaded",tag="orders"}`, func(v float64) bool { return v >= 2 }},
		{`shardid_lease_renewals_total{table="shardid_worker_lease"}`, func(v float64) bool { return v >= 1 }},
		{`shardid_lease_renewal_seconds_count{table="shardid_worker_lease"}`, func(v float64) bool { return v >= 1 }},
		{`shardid_lease_draw_headroom_seconds{table="shardid_worker_lease"}`, func(v float64) bool { return v != 0 }},
		{`shardid_lease_since_renewal_seconds{table="shardid_worker_lease"}`, func(v float64) bool { return v >= 0 }},
		{`shardid_generator_waits_total{generator="ids"}`, func(v float64) bool { return v >= 2 }},
		{`shardid_generator_wait_seconds_total{generator="ids"}`, func(v float64) bool { return v > 0 }},
	} {
		v, ok := got[c.sample]
		if !ok || !c.ok(v) {
			t.Errorf("%s = %v (present %v)", c.sample, v, ok)
		}
	}
	// The sample scrape in docs/metrics.md names metrics a scrape has.
	doc, err := os.ReadFile("../docs/metrics.md")
	if err != nil {
		t.Fatal(err)
	}
	_, sample, _ := strings.Cut(string(doc), "```text\n")
	sample, _, _ = strings.Cut(sample, "```")
	for _, line := range strings.Split(strings.TrimSpace(sample), "\n") {
		name, _, _ := strings.Cut(line, "{")
		found := false
		for k := range got {
			found = found || strings.HasPrefix(k, name+"{")
		}
		if !found {
			t.Errorf("docs/metrics.md's sample shows %s, which no scrape has", name)
		}
	}
	if t.Failed() {
		t.Logf("scraped: %v", got)
	}
}
