package pgfunc

import (
	"errors"
	"fmt"
	"time"

	"github.com/shardid/shardid/internal/words"
)

// Result is the outcome of one shard of a batch operation (migrate.Up,
// Down, privilege.Grant, adopt.Run): batch operations run every shard,
// report each, and return their results in the order of the shards given,
// with a *PartialError when some failed.
type Result struct {
	// Shard is the shard this result is about.
	Shard Shard
	// Applied is true when a change was made; false means the schema was
	// already in the requested state (a rerun is a no-op), and Note says
	// how.
	Applied bool
	// Note says, when nothing was applied, why: "current", "recorded"
	// (current, and an earlier release's generator whose comment alone
	// recorded its metadata: Up recorded it in next_id_meta() too), or
	// for Down "no schema" or "no generator applied"; and "upgraded" when
	// Up replaced an earlier body in place (Installed.Upgradable).
	Note string
	// Duration is how long the shard took, checks included.
	Duration time.Duration
	// Err is nil on success. Other shards' results stand when one fails.
	Err error
}

// PartialError is the error of a batch operation some of whose shards
// failed while the others' results stand, as goose's PartialError is for
// migrations: Succeeded are the results without an error, Failed those
// with one, each in the order of the shards given. errors.Is and
// errors.As look through every failed shard's error.
type PartialError struct {
	// Succeeded are the shards that went through (applied or already so).
	Succeeded []Result
	// Failed are the shards that did not, each with its Err.
	Failed []Result
}

// Error says how many shards failed and the first one's error.
func (e *PartialError) Error() string {
	if len(e.Failed) == 0 {
		return "no shard failed"
	}
	n := len(e.Failed) + len(e.Succeeded)
	msg := fmt.Sprintf("%d of %d %s failed: %v", len(e.Failed), n, words.Plural(n, "shard", "shards"), e.Failed[0].Err)
	if len(e.Failed) > 1 {
		msg += fmt.Sprintf(" (and %d more)", len(e.Failed)-1)
	}
	return msg
}

// Unwrap returns every failed shard's error.
func (e *PartialError) Unwrap() []error {
	out := make([]error, 0, len(e.Failed))
	for _, r := range e.Failed {
		out = append(out, r.Err)
	}
	return out
}

// Partial returns results with nil when none failed, and a *PartialError
// holding them otherwise.
func Partial(results []Result) ([]Result, error) {
	var pe PartialError
	for _, r := range results {
		if r.Err != nil {
			pe.Failed = append(pe.Failed, r)
		} else {
			pe.Succeeded = append(pe.Succeeded, r)
		}
	}
	if len(pe.Failed) == 0 {
		return results, nil
	}
	return results, &pe
}

// IsPartial reports whether err is (or wraps) a *PartialError: some
// shards failed, the others' results stand.
func IsPartial(err error) bool {
	var pe *PartialError
	return errors.As(err, &pe)
}
