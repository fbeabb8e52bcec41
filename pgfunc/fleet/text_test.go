package fleet_test

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/shardid/shardid/pgfunc"
	"github.com/shardid/shardid/pgfunc/fleet"
	"github.com/shardid/shardid/pgfunc/inventory"
	"github.com/shardid/shardid/pgfunc/migrate"
)

// A run of Up over two servers: the line of each shard off a terminal,
// then the summary, and the run's error naming the first failure.
func ExampleOpSummary_WriteText() {
	a := fleet.Server{Name: "a", Address: "db-a:5432"}
	b := fleet.Server{Name: "b", Address: "db-b:5432"}
	ok := pgfunc.Result{Shard: pgfunc.Shard{Schema: "shard_0", ID: 0}, Applied: true, Duration: 1500 * time.Microsecond}
	same := pgfunc.Result{Shard: pgfunc.Shard{Schema: "shard_1", ID: 1}, Note: "current", Duration: 800 * time.Microsecond}
	bad := pgfunc.Result{Shard: pgfunc.Shard{Schema: "shard_2", ID: 2}, Err: errors.New("permission denied\nfor schema shard_2"), Duration: 2 * time.Millisecond}
	for _, e := range []fleet.Event{{Server: "a", Result: ok}, {Server: "a", Result: same}, {Server: "b", Result: bad}} {
		fmt.Println(e.Line("applied"))
	}
	sum := fleet.OpSummary{Verb: "applied", Took: 1234567 * time.Microsecond, Results: []fleet.ServerResult{
		{Server: a, Results: []pgfunc.Result{ok, same}, Duration: 12 * time.Millisecond},
		{Server: b, Results: []pgfunc.Result{bad}, Duration: 3 * time.Millisecond},
	}}
	_ = sum.WriteText(os.Stdout)
	fmt.Println(sum.Err())
	// Output:
	// a applied  shard_0              shard 0        1.5ms
	// a current  shard_1              shard 1        0.8ms
	// b FAILED   shard_2              shard 2        2.0ms  permission denied | for schema shard_2
	//
	// SERVER  ADDRESS    SHARDS  APPLIED  UNCHANGED  FAILED  TIME
	// a       db-a:5432  2       1        1          0       12ms
	// b       db-b:5432  1       0        0          1       3ms
	// b: 1 shard failed; the first: permission denied | for schema shard_2
	// 2 servers in 1.235s
	// 1 shard failed (first: permission denied
	// for schema shard_2); mend what the failures name, then rerun for the rest
}

// The status of a map: an ok shard, a missing one, a server not read and
// one with a database the role may not read; the error names the closed
// databases first.
func ExampleStatusTable_WriteText() {
	meta := pgfunc.Meta{Mode: pgfunc.ModeUnique}
	t := fleet.StatusTable{
		{Server: fleet.Server{Name: "a", Shards: []int64{0, 1}}, Shards: []migrate.Status{
			{Shard: pgfunc.Shard{Schema: "shard_0", ID: 0}, Version: 3, Installed: &meta, Matches: true},
			{Shard: pgfunc.Shard{Schema: "shard_1", ID: 1}},
		}, Census: inventory.Census{Closed: []string{"reports"}}},
		{Server: fleet.Server{Name: "b", Shards: []int64{2, 3}}, Err: errors.New("dial tcp: connection refused")},
	}
	_ = t.WriteText(os.Stdout)
	fmt.Println(fleet.CountStatus(t).Err())
	// Output:
	// SERVER  SCHEMA   SHARD  VERSION  MODE    STATE
	// a       shard_0  0      3        unique  ok
	// a       shard_1  1      0        -       missing
	// b       -        -      -        -       UNREACHABLE (2 shards not read): dial tcp: connection refused
	// NOT READ on server a: reports (no CONNECT privilege, or connections not allowed): a copy of a shard there would go unseen
	// databases of 1 server could not be read (listed above); grant CONNECT to prove no copy of a shard is there
}

// Each StatusCount.Err names the worst of what a map's status found.
func ExampleStatusCount_Err() {
	for _, c := range []fleet.StatusCount{{Bad: 2, Unread: 3}, {Bad: 1}, {Unread: 1}, {Ahead: 1}, {}} {
		fmt.Println(c.Err())
	}
	// Output:
	// 2 shards are missing, outdated, different from the map or copied, and 3 on servers not read (unreachable, clones or standbys: see shardid pg verify)
	// 1 shard is missing, outdated, different from the map or copied (see shardid pg verify)
	// 1 shard on servers not read (unreachable, clones or standbys, listed above)
	// 1 counter stands further ahead of the clock than its lead (AHEAD above)
	// <nil>
}

// A Verify that found a problem, then one that found none.
func ExampleReport_WriteText() {
	rep := fleet.Report{Shards: 2, Servers: []fleet.ServerCheck{
		{Name: "a", Address: "db-a:5432", Databases: 2, Generators: 2, Closed: []string{"x", "y"}},
		{Name: "b", Address: "db-b:5432", Error: "dial tcp:\n  refused"},
	}, Problems: []fleet.Problem{{Kind: "unreachable", Shard: -1, Message: "server b: dial tcp: refused"}}}
	_ = rep.WriteText(os.Stdout)
	fmt.Println(rep.Err())
	rep = fleet.Report{OK: true, Shards: 1, Servers: rep.Servers[:1], Took: 42 * time.Millisecond}
	_ = rep.WriteText(os.Stdout)
	fmt.Println(rep.Err())
	// Output:
	// SERVER  ADDRESS    DATABASES  GENERATORS  NOT READ
	// a       db-a:5432  2          2           x,y
	// b       db-b:5432  0          0           everything: dial tcp: | refused
	//
	// UNREACHABLE server b: dial tcp: refused
	// the servers break the shard map in 1 place
	// SERVER  ADDRESS    DATABASES  GENERATORS  NOT READ
	// a       db-a:5432  2          2           x,y
	//
	// OK: 1 shard on 1 server, each in one schema on one server, with the map's generator (42ms)
	// <nil>
}

// An entry reaching the server of an earlier one says so; others print
// nothing.
func ExampleServerResumed_WriteText() {
	_ = fleet.ServerResumed{Server: fleet.Server{Name: "b"}, SameAs: "a"}.WriteText(os.Stdout)
	_ = fleet.ServerResumed{Server: fleet.Server{Name: "c"}}.WriteText(os.Stdout)
	// Output:
	// same     b: reaches the running server of a, whose run moved its counters
}
