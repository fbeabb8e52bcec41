package metrics

import (
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/shardid/shardid"
	"github.com/shardid/shardid/lease"
	"github.com/shardid/shardid/segment"
	"github.com/shardid/shardid/tickets"
)

// namespace prefixes every metric: shardid_tickets_draws_total, …
const namespace = "shardid"

// desc is a metric's description under namespace.
func desc(subsystem, name, help string, labels ...string) *prometheus.Desc {
	return prometheus.NewDesc(prometheus.BuildFQName(namespace, subsystem, name), help, labels, nil)
}

// latencyBuckets suit a database round trip: 1ms to about 16s.
var latencyBuckets = prometheus.ExponentialBuckets(0.001, 2, 15)

// Tickets collects a ticket client's counters (tickets.Client.Stats),
// labelled with the ticket name, and its servers' state, labelled with
// the server's name too. Give it the client with Watch.
type Tickets struct {
	name string

	mu sync.Mutex
	c  *tickets.Client

	draws, failovers, abandoned, late, probes, rewinds, skipped *prometheus.Desc
	serverDraws, serverDown, serverBudget, serverRewound        *prometheus.Desc
	events                                                      *prometheus.CounterVec
}

// NewTickets returns the collector for the ticket client of ticket name
// name.
func NewTickets(name string) *Tickets {
	l := []string{"name"}
	sl := []string{"name", "server"}
	return &Tickets{name: name,
		draws:         desc("tickets", "draws_total", "Tickets handed out.", l...),
		failovers:     desc("tickets", "failovers_total", "Calls that left a server and drew from another.", l...),
		abandoned:     desc("tickets", "abandoned_total", "Draws given up on after a server's budget of silence or the call's timeout (a gap each).", l...),
		late:          desc("tickets", "late_answers_total", "Abandoned draws that answered later: a slow server, not a hung one.", l...),
		probes:        desc("tickets", "probes_total", "Draws on a server that was down, by the one caller allowed to try it.", l...),
		rewinds:       desc("tickets", "rewinds_total", "Servers found gone back (restored) and left out; tickets refused.", l...),
		skipped:       desc("tickets", "skipped_total", "Tickets a TiDB sequence skipped after an outage.", l...),
		serverDraws:   desc("tickets", "server_draws_total", "Tickets drawn from the server.", sl...),
		serverDown:    desc("tickets", "server_passed_over", "1 while the server is passed over after an error, or left out (rewound, refused).", sl...),
		serverBudget:  desc("tickets", "server_budget_seconds", "How long a draw waits for the server, silent, while another server is left.", sl...),
		serverRewound: desc("tickets", "server_rewound", "1 while the server is left out because its counter went back.", sl...),
		events: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Subsystem: "tickets", Name: "events_total",
			Help: "The client's events by kind (tickets.EventKind), e.g. failover, slow, clock stepped."}, []string{"name", "kind"}),
	}
}

// Watch makes the collector report c.
func (m *Tickets) Watch(c *tickets.Client) {
	m.mu.Lock()
	m.c = c
	m.mu.Unlock()
}

// OnEvent counts e by kind; pass it as tickets.Settings.OnEvent (or
// call it from yours).
func (m *Tickets) OnEvent(e tickets.Event) { m.events.WithLabelValues(m.name, e.Kind.String()).Inc() }

// Describe implements prometheus.Collector.
func (m *Tickets) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{m.draws, m.failovers, m.abandoned, m.late, m.probes, m.rewinds, m.skipped,
		m.serverDraws, m.serverDown, m.serverBudget, m.serverRewound} {
		ch <- d
	}
	m.events.Describe(ch)
}

// Collect implements prometheus.Collector.
func (m *Tickets) Collect(ch chan<- prometheus.Metric) {
	m.events.Collect(ch)
	m.mu.Lock()
	c := m.c
	m.mu.Unlock()
	if c == nil {
		return
	}
	st := c.Stats()
	counter := func(d *prometheus.Desc, v int64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(v), labels...)
	}
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	counter(m.draws, st.Draws, m.name)
	counter(m.failovers, st.Failovers, m.name)
	counter(m.abandoned, st.Abandoned, m.name)
	counter(m.late, st.Late, m.name)
	counter(m.probes, st.Probes, m.name)
	counter(m.rewinds, st.Rewinds, m.name)
	counter(m.skipped, st.Skipped, m.name)
	for _, s := range st.Servers {
		counter(m.serverDraws, s.Draws, m.name, s.Name)
		gauge(m.serverDown, one(s.Down || s.Rewound != nil || s.Refused != nil), m.name, s.Name)
		gauge(m.serverBudget, s.Budget.Seconds(), m.name, s.Name)
		gauge(m.serverRewound, one(s.Rewound != nil), m.name, s.Name)
	}
}

// one is 1 for true.
func one(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// Segments collects a segment client's counters (segment.Segments.Stats),
// labelled with the tag, and how long its loads took (from its events:
// pass OnEvent to segment.Settings.OnEvent). Give it the client with
// Watch.
type Segments struct {
	tag string

	mu sync.Mutex
	c  *segment.Segments

	drawn, loads, failures, buffered, step, discarded, rewinds, down, high *prometheus.Desc
	loadTime                                                               prometheus.Histogram
	events                                                                 *prometheus.CounterVec
}

// NewSegments returns the collector for the segment client of tag.
func NewSegments(tag string) *Segments {
	l := []string{"tag"}
	return &Segments{tag: tag,
		drawn:     desc("segment", "ids_drawn_total", "IDs handed out.", l...),
		loads:     desc("segment", "loads_total", "Segments taken, one statement each.", l...),
		failures:  desc("segment", "load_failures_total", "Segment loads that failed.", l...),
		buffered:  desc("segment", "ids_buffered", "IDs held in memory, the current and the next segment: what an outage can be ridden out on.", l...),
		step:      desc("segment", "step", "The size the next segment will have.", l...),
		discarded: desc("segment", "ids_discarded_total", "IDs dropped unused (at close, or made unsafe by a rewind).", l...),
		rewinds:   desc("segment", "rewinds_total", "Times the tag was found rewound or fenced; segments refused.", l...),
		down:      desc("segment", "database_down", "1 while the client's last statement failed.", l...),
		high:      desc("segment", "high_water", "The highest ID the client took.", l...),
		loadTime: prometheus.NewHistogram(prometheus.HistogramOpts{Namespace: namespace, Subsystem: "segment", Name: "load_seconds",
			Help: "How long taking the next segment took.", Buckets: latencyBuckets, ConstLabels: prometheus.Labels{"tag": tag}}),
		events: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Subsystem: "segment", Name: "events_total",
			Help: "The client's events by kind (segment.EventKind)."}, []string{"tag", "kind"}),
	}
}

// Watch makes the collector report c.
func (m *Segments) Watch(c *segment.Segments) {
	m.mu.Lock()
	m.c = c
	m.mu.Unlock()
}

// OnEvent observes e: a load's time, and every kind counted; pass it as
// segment.Settings.OnEvent (or call it from yours).
func (m *Segments) OnEvent(e segment.Event) {
	if e.Kind == segment.Loaded {
		m.loadTime.Observe(e.Took.Seconds())
	}
	m.events.WithLabelValues(m.tag, e.Kind.String()).Inc()
}

// Describe implements prometheus.Collector.
func (m *Segments) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{m.drawn, m.loads, m.failures, m.buffered, m.step, m.discarded, m.rewinds, m.down, m.high} {
		ch <- d
	}
	m.loadTime.Describe(ch)
	m.events.Describe(ch)
}

// Collect implements prometheus.Collector.
func (m *Segments) Collect(ch chan<- prometheus.Metric) {
	m.loadTime.Collect(ch)
	m.events.Collect(ch)
	m.mu.Lock()
	c := m.c
	m.mu.Unlock()
	if c == nil {
		return
	}
	st := c.Stats()
	for _, v := range []struct {
		d *prometheus.Desc
		t prometheus.ValueType
		v float64
	}{
		{m.drawn, prometheus.CounterValue, float64(st.Drawn)},
		{m.loads, prometheus.CounterValue, float64(st.Loads)},
		{m.failures, prometheus.CounterValue, float64(st.Failures)},
		{m.buffered, prometheus.GaugeValue, float64(st.Buffered)},
		{m.step, prometheus.GaugeValue, float64(st.Step)},
		{m.discarded, prometheus.CounterValue, float64(st.Discarded)},
		{m.rewinds, prometheus.CounterValue, float64(st.Rewinds)},
		{m.down, prometheus.GaugeValue, one(st.DatabaseDown)},
		{m.high, prometheus.GaugeValue, float64(st.HighWater)},
	} {
		ch <- prometheus.MustNewConstMetric(v.d, v.t, v.v, m.tag)
	}
}

// Lease collects a leased node id's renewals, failures, how long ago the
// last renewal was sent (its lag), how long the generator may still draw,
// and its losses and stops, labelled with the lease table. The renewal
// times and losses come from its events: pass OnEvent to
// lease.Settings.OnEvent. Give it the lease with Watch.
type Lease struct {
	table string

	mu sync.Mutex
	l  *lease.Lease

	renewals, failures, sinceRenewal, headroom, down, node *prometheus.Desc
	renewTime                                              prometheus.Histogram
	events                                                 *prometheus.CounterVec
}

// NewLease returns the collector for a lease from lease table table.
func NewLease(table string) *Lease {
	l := []string{"table"}
	return &Lease{table: table,
		renewals:     desc("lease", "renewals_total", "Successful renewals (the one at acquire included).", l...),
		failures:     desc("lease", "renewal_failures_total", "Failed renewals.", l...),
		sinceRenewal: desc("lease", "since_renewal_seconds", "How long ago the last successful renewal was sent: its lag.", l...),
		headroom:     desc("lease", "draw_headroom_seconds", "How long the generator may still draw unless a renewal succeeds first; 0 or less: stopped.", l...),
		down:         desc("lease", "database_down", "1 while the last renewal failed with the database's error.", l...),
		node:         desc("lease", "node", "The leased node id.", l...),
		renewTime: prometheus.NewHistogram(prometheus.HistogramOpts{Namespace: namespace, Subsystem: "lease", Name: "renewal_seconds",
			Help: "How long a successful renewal took.", Buckets: latencyBuckets, ConstLabels: prometheus.Labels{"table": table}}),
		events: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Subsystem: "lease", Name: "events_total",
			Help: "The lease's events by kind (lease.EventKind): lost, expired (drawing stopped), clock stepped, …"}, []string{"table", "kind"}),
	}
}

// Watch makes the collector report l.
func (m *Lease) Watch(l *lease.Lease) {
	m.mu.Lock()
	m.l = l
	m.mu.Unlock()
}

// OnEvent observes e: a renewal's time, and every kind counted; pass it as
// lease.Settings.OnEvent (or call it from yours).
func (m *Lease) OnEvent(e lease.Event) {
	if e.Kind == lease.Renewed {
		m.renewTime.Observe(e.Took.Seconds())
	}
	m.events.WithLabelValues(m.table, e.Kind.String()).Inc()
}

// Describe implements prometheus.Collector.
func (m *Lease) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{m.renewals, m.failures, m.sinceRenewal, m.headroom, m.down, m.node} {
		ch <- d
	}
	m.renewTime.Describe(ch)
	m.events.Describe(ch)
}

// Collect implements prometheus.Collector.
func (m *Lease) Collect(ch chan<- prometheus.Metric) {
	m.renewTime.Collect(ch)
	m.events.Collect(ch)
	m.mu.Lock()
	l := m.l
	m.mu.Unlock()
	if l == nil {
		return
	}
	st := l.Stats()
	now := time.Now()
	headroom := 0.0
	if !st.DrawUntil.IsZero() {
		headroom = st.DrawUntil.Sub(now).Seconds()
	}
	for _, v := range []struct {
		d *prometheus.Desc
		t prometheus.ValueType
		v float64
	}{
		{m.renewals, prometheus.CounterValue, float64(st.Renewals)},
		{m.failures, prometheus.CounterValue, float64(st.Failures)},
		{m.sinceRenewal, prometheus.GaugeValue, now.Sub(st.LastRenewal).Seconds()},
		{m.headroom, prometheus.GaugeValue, headroom},
		{m.down, prometheus.GaugeValue, one(st.DatabaseDown)},
		{m.node, prometheus.GaugeValue, float64(st.Node)},
	} {
		ch <- prometheus.MustNewConstMetric(v.d, v.t, v.v, m.table)
	}
}

// Generator counts a generator's waits: for the next tick when a tick's
// sequence is used up, or for a clock stepped back. Its Sleep is a
// shardid.Settings.Sleep that counts, then waits as the default does.
type Generator struct {
	waits    prometheus.Counter
	waitTime prometheus.Counter
}

// NewGenerator returns the collector for a generator; name labels it.
func NewGenerator(name string) *Generator {
	cl := prometheus.Labels{"generator": name}
	return &Generator{
		waits: prometheus.NewCounter(prometheus.CounterOpts{Namespace: namespace, Subsystem: "generator", Name: "waits_total",
			Help: "Waits for the next tick (a tick's sequence used up) or for a clock stepped back.", ConstLabels: cl}),
		waitTime: prometheus.NewCounter(prometheus.CounterOpts{Namespace: namespace, Subsystem: "generator", Name: "wait_seconds_total",
			Help: "Time asked to wait, in all.", ConstLabels: cl}),
	}
}

// Sleep counts a wait of d, then waits as shardid.DefaultSleep does: set
// it as shardid.Settings.Sleep (lease.Settings.Generator.Sleep for a
// leased one).
func (m *Generator) Sleep(d time.Duration) {
	m.waits.Inc()
	m.waitTime.Add(d.Seconds())
	shardid.DefaultSleep(d)
}

// Describe implements prometheus.Collector.
func (m *Generator) Describe(ch chan<- *prometheus.Desc) {
	m.waits.Describe(ch)
	m.waitTime.Describe(ch)
}

// Collect implements prometheus.Collector.
func (m *Generator) Collect(ch chan<- prometheus.Metric) {
	m.waits.Collect(ch)
	m.waitTime.Collect(ch)
}
