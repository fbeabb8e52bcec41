package pgfunc

import (
	"time"

	"github.com/shardid/shardid/pgfunc/internal/sqlt"
)

// Test-only access to internals, for the external pgfunc_test package.

// WithClock returns o with next_id() reading its time from the SQL
// expression clock instead of clock_timestamp(): tests step one session's
// clock without touching the machine's.
func WithClock(o Options, clock string) Options {
	o.clock = clock
	return o
}

// WithLeadWait returns o with draws past the lead waiting d for the clock
// instead of DefaultLeadWait: tests on a frozen clock, where the clock
// never catches up, wait less.
func WithLeadWait(o Options, d time.Duration) Options {
	o.leadWait = d
	return o
}

// Query renders the named query template (sql/catalog.sql.tmpl,
// resume.sql.tmpl), for tests that run a command's statements step by
// step.
func Query(name string, data any) (string, error) { return sqlt.Query(name, data) }
