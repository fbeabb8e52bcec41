package pgfunc_test

import (
	"errors"
	"os"
	"time"

	"github.com/shardid/shardid/pgfunc"
)

// A Tally counts the results of pg up as they come: a line each, then
// the summary.
func ExampleTally() {
	t := pgfunc.Tally{Shards: 3, Verb: "applied"}
	for _, r := range []pgfunc.Result{
		{Shard: pgfunc.Shard{Schema: "insta0", ID: 0}, Applied: true, Duration: 12300 * time.Microsecond},
		{Shard: pgfunc.Shard{Schema: "insta1", ID: 1}, Note: "current", Duration: 800 * time.Microsecond},
		{Shard: pgfunc.Shard{Schema: "insta2", ID: 2}, Err: errors.New("permission denied\nfor schema insta2"), Duration: 2 * time.Millisecond},
	} {
		_ = t.Add(r).WriteText(os.Stdout)
	}
	t.Took = 1234567 * time.Microsecond
	_ = t.WriteText(os.Stdout)
	g := pgfunc.Tally{Shards: 2, Verb: "granted", Role: "app", Failed: 1, Took: 40 * time.Millisecond}
	_ = g.WriteText(os.Stdout)
	// Output:
	// [1/3] applied insta0               shard 0       12.3ms
	// [2/3] current insta1               shard 1        0.8ms
	// [3/3] FAILED  insta2               shard 2        2.0ms  permission denied | for schema insta2
	// 3 shards: 1 applied, 1 unchanged, 1 failed (1.235s)
	// 2 shards: 1 granted to app, 1 failed (40ms)
}

// The line pg gen prints after writing a goose directory.
func ExampleWritten_WriteText() {
	_ = pgfunc.Written{Dir: "migrations", Written: []string{"00001_shardid_insta0.sql", "00002_shardid_insta1.sql"}, Unchanged: []string{"00003_shardid_insta2.sql"}}.WriteText(os.Stdout)
	// Output:
	// wrote 2 migrations to migrations (1 already there, unchanged); apply with: goose -dir migrations postgres "$SHARDID_PG_DSN" up
}
