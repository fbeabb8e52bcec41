package apply_test

import (
	"strings"
	"testing"
	"time"

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

// TestRows: a status row carries its state and, applied, the time in UTC;
// a result row its state and, applied, its milliseconds.
func TestRows(t *testing.T) {
	at := time.Date(2026, 12, 2, 17, 0, 0, 0, time.FixedZone("CET", 3600))
	m := apply.Migration{Version: 3, Name: "00003_t.sql", TiDBOnly: true}
	if row := (apply.Status{Migration: m}).Row(); row.State != "pending" || row.AppliedAt != nil || row.Version != 3 || !row.TiDBOnly {
		t.Errorf("pending: %+v", row)
	}
	if row := (apply.Status{Migration: m, Applied: true, AppliedAt: at}).Row(); row.AppliedAt == nil || row.AppliedAt.Location() != time.UTC || !row.AppliedAt.Equal(at) {
		t.Errorf("applied: %+v", row)
	}
	if row := (apply.Result{Migration: m, Applied: true, Duration: 1500 * time.Millisecond}).Row(); row.State != "applied" || row.Millis != 1500 {
		t.Errorf("result: %+v", row)
	}
	if row := (apply.Result{Migration: m, Duration: time.Second}).Row(); row.State != "already applied" || row.Millis != 0 {
		t.Errorf("already applied: %+v", row)
	}
}

// TestTotals: the --json totals of tidb up and tidb status count what
// UpCount and CountStatus count.
func TestTotals(t *testing.T) {
	st := []apply.Status{{}, {Applied: true}, {Applied: true, Drift: []string{"x"}}}
	if got := apply.StatusTotals(st); got["migrations"] != 3 || got["drifted"] != 1 || len(got) != 2 {
		t.Errorf("StatusTotals = %v", got)
	}
	if got := apply.UpTotals(nil); got["migrations"] != 0 || got["applied"] != 0 || got["skipped"] != 0 || got["already_applied"] != 0 || len(got) != 4 {
		t.Errorf("UpTotals(nil) = %v", got)
	}
}
