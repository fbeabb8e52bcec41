package resume_test

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/shardid/shardid/pgfunc"
	"github.com/shardid/shardid/pgfunc/resume"
)

// The line of each kind of counter: moved (its draws waiting), would move
// in a dry run, already past, not taking part, failed, a shard without a
// generator and a database not read.
func ExampleResumed_Line() {
	meta := pgfunc.Meta{EpochMS: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli(), UnitMS: 1, TimeBits: 41, ShardBits: 12, SeqBits: 10}
	past := time.Date(2026, 12, 2, 16, 0, 0, 0, time.UTC)
	until := time.Date(2099, 1, 1, 0, 0, 0, 0, time.UTC)
	from := int64(1000) << 10 // one second past the epoch
	for _, c := range []struct {
		server string
		r      resume.Resumed
	}{
		{"a", resume.Resumed{Database: "app", Schema: "shard_0", Shard: 0, Meta: meta, Moved: true, Past: past, Until: until, From: from}},
		{"", resume.Resumed{Schema: "shard_1", Shard: 1, Meta: meta, Moved: true, DryRun: true, Past: past, From: -1, Retired: true}},
		{"", resume.Resumed{Schema: "shard_2", Shard: 2, Meta: meta, Past: past, From: from, Node: "group 1"}},
		{"", resume.Resumed{Schema: "legacy", Shard: -1, Note: "mode classic repeats IDs by design"}},
		{"", resume.Resumed{Schema: "shard_3", Shard: 3, Err: errors.New("permission denied\nfor sequence")}},
		{"", resume.Resumed{Schema: "shard_4", Shard: 4, Missing: true, Note: "MISSING: no generator in the schema"}},
		{"", resume.Resumed{Database: "closed", Err: fmt.Errorf("%w: closed: no CONNECT", resume.ErrDatabaseNotRead)}},
	} {
		fmt.Println(c.r.Line(c.server))
	}
	// Output:
	// moved    a app.shard_0                shard 0     counter moved past 2026-12-02T16:00:00.000Z (it stood at 2026-01-01T00:00:01.000Z); draws wait until 2099-01-01T00:00:00.000Z
	// would    shard_1 (kept by down)       shard 1     counter would move past 2026-12-02T16:00:00.000Z (never drawn from)
	// current  shard_2 on group 1           shard 2     counter already past 2026-12-02T16:00:00.000Z (it stood at 2026-01-01T00:00:01.000Z)
	// skipped  legacy                       shard ?     mode classic repeats IDs by design
	// FAILED   shard_3                      shard 3     permission denied | for sequence
	// MISSING  shard_4                      shard 4     no generator in the schema
	// FAILED   database not read: closed: no CONNECT
}

// A dry run's header and summary, a server where nothing moved, and the
// run's error.
func ExampleReport_WriteText() {
	rep := resume.Report{DryRun: true, Scope: resume.Scope("", "0-3"), Lead: 30 * time.Second}
	_ = rep.WriteHeader(os.Stdout)
	rep.Add("", resume.Resumed{Schema: "shard_0", Moved: true, DryRun: true, Past: time.Now()})
	rep.Add("", resume.Resumed{Schema: "shard_1", Missing: true})
	rep.Add("", resume.Resumed{Database: "closed", Err: errors.New("no CONNECT")})
	se := resume.ServerError{Server: "b", Error: "dial tcp: connection refused"}
	rep.Servers = append(rep.Servers, se)
	_ = se.WriteText(os.Stdout)
	rep.Took = "12ms"
	_ = rep.WriteText(os.Stdout)
	fmt.Println(rep.Err())
	rep = resume.Report{Scope: resume.Scope("fleet.toml", ""), After: time.Date(2026, 11, 25, 10, 0, 5, 0, time.UTC), Took: "1s"}
	_ = rep.WriteHeader(os.Stdout)
	_ = rep.WriteText(os.Stdout)
	fmt.Println(rep.Err())
	// Output:
	// pg resume (dry run: nothing moves; --apply moves the counters): shards 0-3 in the database of the DSN, past the clock plus 30s (--lead) or each generator's own lead, whichever is larger
	// FAILED   b: dial tcp: connection refused
	// 1 counter: 1 would move, 0 already past, 0 not taking part, 0 failed; 1 shard asked for without a generator; 1 database not read (12ms)
	// dry run: nothing moved; run again with --apply, before writers draw, to move them
	// 2 counters, databases or servers were not moved (each line says why); the others' moves stand: mend what the failures name, then rerun (resume only ever moves counters forward)
	// pg resume (moving counters): every generator of every database of every server of the map fleet.toml, past 2026-11-25T10:00:05.000Z (--after)
	// 0 counters: 0 moved, 0 already past, 0 not taking part, 0 failed (1s)
	// <nil>
}

// What ParseAfter and ValidateLead refuse.
func ExampleValidateLead() {
	fmt.Println(resume.ValidateLead(30 * time.Second))
	fmt.Println(resume.ValidateLead(1500 * time.Microsecond))
	_, err := resume.ParseAfter("yesterday")
	fmt.Println(err)
	// Output:
	// <nil>
	// 1.5ms is not a lead shardid accepts (a whole number of milliseconds from 1ms to 1h0m0s)
	// "yesterday" is not an RFC 3339 instant such as 2026-11-25T10:00:05Z
}

// What pg resume --json puts under problems and totals: the servers and
// databases where nothing was read, one line each, and the counts.
func ExampleReport_ProblemLines() {
	r := resume.Report{Scope: "every generator of the server", Moved: 2,
		Servers:   []resume.ServerError{{Server: "db2", Error: "connection refused"}},
		Databases: []resume.DatabaseError{{Database: "old", Error: "permission denied"}, {Server: "db1", Database: "app", Error: "timeout"}}}
	for _, l := range r.ProblemLines() {
		fmt.Println(l)
	}
	fmt.Println(r.Totals()["moved"], len(r.Rows()))
	// Output:
	// db2: connection refused
	// database old: permission denied
	// db1: database app: timeout
	// 2 0
}
