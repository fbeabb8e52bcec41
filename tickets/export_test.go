package tickets

import (
	"context"
	"time"

	"github.com/shardid/shardid/dialect"
)

// Test-only access to internals, for the external tickets_test package.

// Statement renders one of the client's statements (draw, explain, kind,
// settings, sequence, class, seen for two servers, rewound, resumed,
// resume) for dialect d and settings s, for TiDB's parser.
func Statement(d string, s Counter, name string) (string, error) {
	s, err := s.normalize()
	if err != nil {
		return "", err
	}
	v := newView(dialect.Dialect(d), s)
	v.Rows = make([]struct{}, 2)
	return v.render(name)
}

// Unchecked turns off what keeps c's servers apart, for negative
// controls: the check of a late server's settings and the class check of
// every ticket.
func Unchecked(c *Client) { c.unchecked = true }

// NewClientNoRewindCheck is NewClient without what finds a counter that
// went back, for negative controls: the high-water check of every ticket
// and the reading of the class tables' records and reports.
func NewClientNoRewindCheck(ctx context.Context, servers []Server, s Settings) (*Client, error) {
	return newClient(ctx, servers, s, func(c *Client) { c.noRewindCheck = true })
}

// NewClientNoBreaker is NewClient failing over as a client without a
// per-call budget or a circuit breaker would, for negative controls:
// every draw may wait the whole Timeout, and once RetryAfter has passed
// every caller tries a failed server again.
func NewClientNoBreaker(ctx context.Context, servers []Server, s Settings) (*Client, error) {
	return newClient(ctx, servers, s, func(c *Client) {
		c.noBreaker = true
		c.set.Budget = c.set.Timeout
	})
}

// NewClientNoRejudge is NewClient judging each server once, against the
// class rows read by then, for negative controls: the rows of a server
// read later, or read again, are not held against the servers read before.
func NewClientNoRejudge(ctx context.Context, servers []Server, s Settings) (*Client, error) {
	return newClient(ctx, servers, s, func(c *Client) { c.noRejudge = true })
}

// NewClientPerServerTimeout is NewClient giving each server a call asks
// the whole Timeout, for negative controls: a call with every server hung
// waits a Timeout per server.
func NewClientPerServerTimeout(ctx context.Context, servers []Server, s Settings) (*Client, error) {
	return newClient(ctx, servers, s, func(c *Client) { c.perServerTimeout = true })
}

// NewClientOnClock is NewClient taking its decisions of when (probes,
// rechecks, records, a server's silence) on mono instead of the runtime's
// monotonic clock, so that a test can stand the clock still or move it.
func NewClientOnClock(ctx context.Context, servers []Server, s Settings, mono func() time.Duration) (*Client, error) {
	return newClient(ctx, servers, s, func(c *Client) { c.mono = mono })
}

// NewClientFixedBudget is NewClient whose budget for every server is
// Settings.Budget, whatever the server has been answering in, and
// whose draws left after it are given up on at once, as a client without
// the adaptive budget would, for negative controls.
func NewClientFixedBudget(ctx context.Context, servers []Server, s Settings) (*Client, error) {
	return newClient(ctx, servers, s, func(c *Client) { c.fixedBudget = true })
}
