package migrate_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/shardid/shardid/pgfunc"
	"github.com/shardid/shardid/pgfunc/inventory"
	"github.com/shardid/shardid/pgfunc/migrate"
)

// TestStatusState: no generator is none, unreadable metadata wins over
// everything, an upgradable body over outdated, and a generator that
// differs from the options is "differs" only when they were asked for.
func TestStatusState(t *testing.T) {
	m := &pgfunc.Meta{}
	for _, c := range []struct {
		s     migrate.Status
		asked bool
		want  string
	}{
		{migrate.Status{}, true, "none"},
		{migrate.Status{Unreadable: "no comment"}, false, "unreadable"},
		{migrate.Status{Installed: m, Unreadable: "bad JSON", Matches: true}, false, "unreadable"},
		{migrate.Status{Installed: m, Upgradable: true, Outdated: true}, false, "upgradable"},
		{migrate.Status{Installed: m, Outdated: true}, false, "outdated"},
		{migrate.Status{Installed: m}, true, "differs"},
		{migrate.Status{Installed: m}, false, "ok"},
		{migrate.Status{Installed: m, Matches: true}, true, "ok"},
	} {
		if got := c.s.State(c.asked); got != c.want {
			t.Errorf("%+v (asked %v): State %q, want %q", c.s, c.asked, got, c.want)
		}
	}
}

// TestStatusRow: also_in is [] without copies and names each copy as
// [database.]schema; ahead_ms only past the lead.
func TestStatusRow(t *testing.T) {
	m := &pgfunc.Meta{Mode: pgfunc.ModeUnique, LeadMS: 1000}
	s := migrate.Status{Shard: pgfunc.Shard{Schema: "shard_1", ID: 1}, Version: 2, Installed: m, Matches: true, CounterRead: true, Ahead: 500 * time.Millisecond}
	row := s.Row(true)
	if row.Schema != "shard_1" || row.Shard != 1 || row.Version != 2 || row.Generator != m || row.State != "ok" || row.AheadMS != 0 || row.AlsoIn == nil || len(row.AlsoIn) != 0 {
		t.Errorf("Row = %+v", row)
	}
	s.Ahead = 3 * time.Second
	s.Elsewhere = []inventory.Installed{{Schema: "old_1"}, {Database: "other", Schema: "shard_1"}}
	if row := s.Row(true); row.AheadMS != 3000 || fmt.Sprint(row.AlsoIn) != "[old_1 other.shard_1]" {
		t.Errorf("ahead, copied: Row = %+v", row)
	}
}
