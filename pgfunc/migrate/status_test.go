package migrate_test

import (
	"testing"

	"github.com/shardid/shardid/pgfunc"
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
