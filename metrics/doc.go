// Package metrics exports what operators watch of shardid's counters as
// Prometheus collectors: ticket clients (tickets), segment clients
// (segment), leased node ids (lease) and the app-side generator's waits.
// Each collector reads its client's Stats when scraped; the latencies
// (a segment's load, a lease's renewal) come from the client's events,
// so hand the collector's OnEvent to the client's settings:
//
//	m := metrics.NewSegments("orders")
//	c, err := segment.New(ctx, db, segment.Settings{Tag: "orders", OnEvent: m.OnEvent})
//	...
//	m.Watch(c)
//	prometheus.MustRegister(m)
//
// It is a module of its own (github.com/shardid/shardid/metrics), so that
// an application that does not want Prometheus links nothing of it:
// client_golang needs a newer Go than shardid does and brings a dozen
// modules. shardid's own packages never import it.
package metrics
