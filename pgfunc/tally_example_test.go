package pgfunc_test

import (
	"encoding/json"
	"errors"
	"fmt"
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

// The --json document of pg up: a row per shard, the run's totals.
func ExampleTally_Totals() {
	t := pgfunc.Tally{Shards: 3, Verb: "applied"}
	var rows []pgfunc.ProgressRow
	for _, r := range []pgfunc.Result{
		{Shard: pgfunc.Shard{Schema: "insta0", ID: 0}, Applied: true, Duration: 1500 * time.Microsecond},
		{Shard: pgfunc.Shard{Schema: "insta2", ID: 2}, Err: errors.New("permission denied"), Duration: 2 * time.Millisecond},
	} {
		rows = append(rows, t.Add(r).Row())
	}
	t.Took = 1234567 * time.Microsecond
	b, _ := json.Marshal(map[string]any{"rows": rows, "totals": t.Totals()})
	fmt.Println(string(b))
	// Output:
	// {"rows":[{"schema":"insta0","shard":0,"state":"applied","ms":1.5},{"schema":"insta2","shard":2,"state":"failed","ms":2,"error":"permission denied"}],"totals":{"applied":1,"failed":1,"shards":3,"took":"1.235s","unchanged":1}}
}
