package pgfunc

// Test-only access to internals, for the external pgfunc_test package.

// WithClock returns o with next_id() reading its time from the SQL
// expression clock instead of clock_timestamp(): tests step one session's
// clock without touching the machine's.
func WithClock(o Options, clock string) Options {
	o.clock = clock
	return o
}
