package lease_test

import (
	"strings"
	"testing"
	"time"

	"github.com/shardid/shardid/lease"
)

// TestWriteText: the lines worker up, status and fence print, from values
// built here (no database), an empty table included.
func TestWriteText(t *testing.T) {
	var b strings.Builder
	// check runs one WriteText into b and looks for want in what it wrote.
	check := func(what string, err error, want ...string) {
		t.Helper()
		got := b.String()
		b.Reset()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		for _, w := range want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: no %q in\n%s", what, w, got)
			}
		}
	}
	p := lease.Place{Table: "wl", Server: "pg", Dialect: "postgres"}
	up := lease.UpResult{Place: p}
	check("up", up.WriteText(&b), "lease table wl on pg (postgres): already up to date; goose history in wl_goose_db_version\n")
	if row := up.Row(); row.State != "current" || row.Dialect != "postgres" || row.History != "wl_goose_db_version" {
		t.Errorf("up row: %+v", row)
	}
	up.Applied = true
	if row := up.Row(); row.State != "created" {
		t.Errorf("created row: %+v", row)
	}

	check("empty status", lease.Status{Table: "wl"}.WriteText(&b), "NODE   STATE HOLDER", "node ids leased so far: 0; live now: 0 (table wl)\n")
	until := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	rows := []lease.Info{
		{Node: 0, Holder: "a:1", Live: true, Until: until},
		{Node: 1, Holder: "b:2", Live: true, Fenced: true, Until: until},
		{Node: 2, Live: true, Fenced: true, Until: until.Add(time.Second)},
	}
	if err := (lease.Status{Table: "wl", Leases: rows}).WriteText(&b); err != nil || strings.Contains(b.String(), "b:2") {
		t.Errorf("a fenced row in the table, or %v:\n%s", err, b.String())
	}
	check("status", nil,
		"0      live  a:1                              2026-01-02T03:04:05Z",
		"       fence node ids 1-2 (2): fenced until 2026-01-02T03:04:05Z to 2026-01-02T03:04:06Z\n",
		"node ids leased so far: 2; live now: 1 (table wl)\n",
		"2 node ids fenced (shardid worker fence): nobody takes them until their UNTIL\n")
	if note := lease.Summarize(nil).FencedNote(); note != "" {
		t.Errorf("no fence, note %q", note)
	}

	res := lease.FenceResult{Fenced: 3, Added: 1, TTL: time.Minute, Until: until}
	check("fence --ttl", res.WriteText(&b, p, true), "lease table wl on pg (postgres): 3 node ids fenced (1 rows added for ids it had no row for) for 1m0s (--ttl) until 2026-01-02T03:04:05Z (database clock)")
	check("fence default", res.WriteText(&b, p, false), "(no row records a TTL: the default)")
	res.Longest = time.Minute
	check("fence longest", res.WriteText(&b, p, false), "(the longest TTL a holder of the table records)")
	if note := res.UnknownNote(); note != "" {
		t.Errorf("none unknown, note %q", note)
	}
	res.Unknown = 1
	if note := res.UnknownNote(); !strings.HasPrefix(note, "1 live row records no TTL") || !strings.Contains(note, "lease for 1m0s or less") {
		t.Errorf("unknown note %q", note)
	}
}
