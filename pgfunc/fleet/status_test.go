package fleet_test

import (
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/shardid/shardid/pgfunc"
	"github.com/shardid/shardid/pgfunc/fleet"
	"github.com/shardid/shardid/pgfunc/inventory"
	"github.com/shardid/shardid/pgfunc/migrate"
)

// TestVerdictAndCountStatus: a shard without a generator is missing, one
// of an older shardid outdated, one of other options different, a copy
// elsewhere named; each of those is bad, an ok shard is not; a counter
// further ahead than its lead is ahead whatever else; a server not read
// counts its shards unread under the name of why (CLONE, STANDBY,
// UNREACHABLE), and its closed databases are listed either way.
func TestVerdictAndCountStatus(t *testing.T) {
	meta := &pgfunc.Meta{Mode: pgfunc.ModeUnique}
	cases := []struct {
		st         migrate.Status
		state      string
		bad, ahead bool
	}{
		{migrate.Status{}, "missing", true, false},
		{migrate.Status{Installed: meta, Matches: true}, "ok", false, false},
		{migrate.Status{Installed: meta, Outdated: true}, "OUTDATED: applied by an older shardid", true, false},
		{migrate.Status{Installed: meta}, "DIFFERS from the map", true, false},
		{migrate.Status{Installed: meta, Matches: true, Elsewhere: []inventory.Installed{{Database: "old", Schema: "shard_3"}}}, "ok; ALSO IN old.shard_3", true, false},
		{migrate.Status{Installed: meta, Matches: true, CounterRead: true, Ahead: time.Hour}, "ok; AHEAD of the clock by 1h0m0s, past its lead", false, true},
	}
	var shards []migrate.Status
	for _, c := range cases {
		state, bad, ahead := fleet.Verdict(c.st)
		if state != c.state || bad != c.bad || ahead != c.ahead {
			t.Errorf("Verdict(%+v) = %q, bad %v, ahead %v; want %q, %v, %v", c.st, state, bad, ahead, c.state, c.bad, c.ahead)
		}
		shards = append(shards, c.st)
	}
	all := []fleet.ServerStatus{
		{Server: fleet.Server{Name: "a"}, Shards: shards, Census: inventory.Census{Closed: []string{"x", "y"}}},
		{Server: fleet.Server{Name: "b", Shards: []int64{1, 2}}, Err: fmt.Errorf("identify: %w", fleet.ErrClone)},
		{Server: fleet.Server{Name: "c", Shards: []int64{3}}, Err: fmt.Errorf("read: %w", fleet.ErrStandby)},
		{Server: fleet.Server{Name: "d", Shards: []int64{4}}, Err: errors.New("connect: refused")},
	}
	want := fleet.StatusCount{Bad: 4, Unread: 4, Ahead: 1, Closed: []string{"a: x, y"}}
	if got := fleet.CountStatus(all); !reflect.DeepEqual(got, want) {
		t.Errorf("CountStatus = %+v, want %+v", got, want)
	}
	for i, why := range []string{"", "CLONE", "STANDBY", "UNREACHABLE"} {
		if got := all[i].Unread(); got != why {
			t.Errorf("server %s: Unread %q, want %q", all[i].Server.Name, got, why)
		}
	}
}

// TestServerResultCounts: Changed counts the shards applied, FirstErr is
// the first failure's error in map order, nil without one.
func TestServerResultCounts(t *testing.T) {
	first, second := errors.New("first"), errors.New("second")
	r := fleet.ServerResult{Results: []pgfunc.Result{{Applied: true}, {}, {Err: first}, {Applied: true}, {Err: second}}}
	if r.Changed() != 2 || r.Failed() != 2 || r.FirstErr() != first {
		t.Errorf("Changed %d, Failed %d, FirstErr %v; want 2, 2, first", r.Changed(), r.Failed(), r.FirstErr())
	}
	if err := (fleet.ServerResult{Results: []pgfunc.Result{{Applied: true}}}).FirstErr(); err != nil {
		t.Errorf("FirstErr without a failure: %v", err)
	}
}
