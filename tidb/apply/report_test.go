package apply_test

import (
	"strings"
	"testing"

	"github.com/shardid/shardid/tidb/apply"
)

// TestStatusStateAndCount: a migration's state is full over drift over
// skipped over applied over pending; CountStatus counts migrations with
// drift, those pending and the full tables; Err names the worst (drift,
// then full, then pending) and is nil for a clean history. Up's results
// count applied and skipped apart from those applied before.
func TestStatusStateAndCount(t *testing.T) {
	st := []apply.Status{
		{},
		{Applied: true},
		{Applied: true, Skipped: true},
		{Applied: true, Drift: []string{"table t dropped"}},
		{Applied: true, Drift: []string{"x"}, Full: []string{"a", "b"}},
	}
	for i, want := range []string{"pending", "applied", "skipped", "drift", "full"} {
		if got := st[i].State(); got != want {
			t.Errorf("status %d: State %q, want %q", i, got, want)
		}
	}
	c := apply.CountStatus(st)
	if c != (apply.StatusCount{Drifted: 2, Pending: 1, Full: 2}) {
		t.Errorf("CountStatus = %+v", c)
	}
	for _, k := range []struct {
		c    apply.StatusCount
		want string
	}{
		{c, "2 applied migration(s) no longer match"},
		{apply.StatusCount{Full: 1, Pending: 3}, "1 table(s) cannot take an insert"},
		{apply.StatusCount{Pending: 3}, "3 migration(s) pending"},
	} {
		if err := k.c.Err(); err == nil || !strings.HasPrefix(err.Error(), k.want) {
			t.Errorf("%+v: Err %v, want %q…", k.c, err, k.want)
		}
	}
	if err := (apply.StatusCount{}).Err(); err != nil {
		t.Errorf("a clean history: Err %v", err)
	}
	res := []apply.Result{{}, {Applied: true}, {Applied: true, Skipped: true}, {Applied: true}}
	if applied, skipped := apply.UpCount(res); applied != 2 || skipped != 1 || res[0].State() != "already applied" {
		t.Errorf("UpCount = %d applied, %d skipped; State of the first %q", applied, skipped, res[0].State())
	}
}
