package resume

import (
	"fmt"
	"time"

	"github.com/shardid/shardid/pgfunc"
)

// Options says how far Run moves the counters.
type Options struct {
	// After is an instant at or after the end of the tick of every ID the
	// old server could have handed out: the clock reading of its last
	// draw plus its lead, say, or the time of its last ID plus the lead.
	// Every counter is moved so that its next value is the first of
	// After's tick. Zero means the server's clock now plus each
	// generator's lead, which covers an old server that no longer hands
	// out IDs and whose clock was not ahead of this server's.
	After time.Time
	// Lead is the largest lead any generator of the old server may have
	// run with after the backup or the instant recovery stopped at: each
	// counter moves past the clock plus the larger of Lead and the lead
	// its generator records. A restored backup records the leads of its
	// own time; a generator brought up again later with a larger lead
	// (pg down, then pg up --lead) handed out IDs that far ahead, and
	// nothing on the restored server remembers it. Zero means MaxLead,
	// the largest lead Up accepts: safe whatever the old server ran with,
	// at a price: a counter moved further ahead than its generator's own
	// lead makes draws wait, then fail (SQLSTATE LeadExceededState),
	// until the clock is back within that lead (Resumed.Note says when).
	// Give the largest lead the old server ran with to move no further
	// than needed. Ignored with After. It must lie from 0 to MaxLead,
	// and not below a lead recorded on the server (ErrLeadBelowRecorded)
	// unless BelowRecordedLead.
	Lead time.Duration
	// BelowRecordedLead lets Lead lie below the largest lead a generator
	// of the server records (each counter still moves by at least its
	// own): the caller knows the old server ran every generator with no
	// more than Lead. Resumed.Note says so for each counter it concerns.
	BelowRecordedLead bool
	belowNote         string        // what Resume says of counters moved by a lead below a recorded one
	recorded          time.Duration // the largest lead recorded on the server, with belowNote
	// DryRun moves nothing: each Resumed says where its counter would
	// move (To, Past; Moved: it would) and until when draws would wait
	// (Until). The server-wide lock is taken all the same, so that what
	// it reads is what an Apply run would read, and no jump lock.
	DryRun bool
}

// Resumed is what Run did to one counter.
type Resumed struct {
	// Database holds the counter; empty for the Migrator's own database.
	Database string
	// Node, for a counter of a Citus node (Schema its companion schema
	// <schema>_node), names the node group holding it; empty elsewhere.
	Node string
	// Schema holds the counter.
	Schema string
	// Shard is the shard id the counter's generator stamps.
	Shard int64
	// Meta is what the counter's comment records of its generator (its
	// layout reads From and To as times).
	Meta pgfunc.Meta
	// Retired is true for a counter a down kept (next_id_retired_seq),
	// which the next up carries on from.
	Retired bool
	// Mode is the generator's mode. Only mode unique counters move: the
	// classic modes repeat IDs by design.
	Mode pgfunc.Mode
	// Lead is the lead the counter was moved by (zero with
	// Options.After).
	Lead time.Duration
	// Past is the instant the counter was moved past: every ID whose
	// tick ends at or before it lies below the counter's next value.
	Past time.Time
	// From and To are the counter's last value before and after (-1:
	// never drawn).
	From int64
	To   int64
	// Moved is true when the counter moved (in a dry run: would move);
	// false when it already stood past Past (a rerun), or did not take
	// part (Note says why).
	Moved bool
	// DryRun is true for a result of Options.DryRun: nothing moved.
	DryRun bool
	// Until, when not zero, is when draws go on: where the counter moved
	// lies further ahead of the clock than its generator's lead, so draws
	// wait, then fail (SQLSTATE LeadExceededState), until the clock
	// reaches Until (Past less the generator's lead).
	Until time.Time
	// Note says why a counter did not take part, or what to know about
	// how it moved.
	Note string
	// Missing is true for a shard asked for (by shards, or by a shard
	// map) whose schema holds no counter: nothing to move.
	Missing bool
	// Err is nil on success; other counters' results stand when one
	// fails.
	Err error
}

// ParseAfter reads an Options.After as `shardid pg resume --after` takes
// it: an RFC 3339 instant, fractions of a second allowed.
func ParseAfter(s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("%q is not an RFC 3339 instant such as 2026-11-25T10:00:05Z", s)
	}
	return t, nil
}

// ValidateLead checks a lead given explicitly for Options.Lead (as
// `shardid pg resume --lead` takes it): a whole number of milliseconds
// from 1ms to pgfunc.MaxLead. Zero, which Run reads as MaxLead, is
// refused: a caller that gives a lead means one.
func ValidateLead(d time.Duration) error {
	if d <= 0 || d > pgfunc.MaxLead || d%time.Millisecond != 0 {
		return fmt.Errorf("%s is not a lead shardid accepts (a whole number of milliseconds from 1ms to %s)", d, pgfunc.MaxLead)
	}
	return nil
}
