package apply_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shardid/shardid/tidb/apply"
)

// TestUpReportWriteText: a line per result by its state, then the
// counts; nothing to apply says so; a stopped run has no summary; the
// zero report says there was nothing to apply.
func TestUpReportWriteText(t *testing.T) {
	res := []apply.Result{
		{Migration: apply.Migration{Name: "00001_a.sql"}},
		{Migration: apply.Migration{Name: "00002_b.sql"}, Applied: true, Duration: 1234567 * time.Nanosecond},
		{Migration: apply.Migration{Name: "00003_c.sql"}, Applied: true, Skipped: true},
	}
	var b bytes.Buffer
	if err := (apply.UpReport{Results: res}).WriteText(&b); err != nil {
		t.Fatal(err)
	}
	want := "-     00001_a.sql (already applied)\n" +
		"OK    00002_b.sql (1ms)\n" +
		"SKIP  00003_c.sql (TiDB-only statement, recorded without running: the server is not TiDB)\n" +
		"3 migrations: 1 applied, 1 skipped (TiDB only), 1 already applied\n"
	same(t, b.String(), want)
	b.Reset()
	(apply.UpReport{Results: res, Stopped: true}).WriteText(&b)
	if strings.Contains(b.String(), "migrations:") || strings.Count(b.String(), "\n") != 3 {
		t.Errorf("stopped:\n%s", b.String())
	}
	b.Reset()
	(apply.UpReport{Results: res[:1]}).WriteText(&b)
	if !strings.HasSuffix(b.String(), "\nno migrations to apply (1 already applied)\n") {
		t.Errorf("nothing to apply:\n%s", b.String())
	}
	b.Reset()
	(apply.UpReport{}).WriteText(&b)
	if b.String() != "no migrations to apply (0 already applied)\n" {
		t.Errorf("zero report: %q", b.String())
	}
}

// TestStatusReportWriteText: the state (DRIFT and FULL in capitals), the
// time applied in UTC or -, the name and TiDB only; drift, full tables
// and what was not checked under it; nothing for no migration.
func TestStatusReportWriteText(t *testing.T) {
	at := time.Date(2026, 12, 2, 18, 0, 0, 0, time.FixedZone("CET", 3600))
	st := apply.StatusReport{
		{Migration: apply.Migration{Name: "00001_a.sql", TiDBOnly: true}},
		{Migration: apply.Migration{Name: "00002_b.sql"}, Applied: true, AppliedAt: at, Drift: []string{"table b dropped"}, Unchecked: []string{"view v: no rights"}},
		{Migration: apply.Migration{Name: "00003_c.sql", TiDBOnly: true}, Applied: true, AppliedAt: at, Skipped: true, Full: []string{"c"}},
	}
	var b bytes.Buffer
	if err := st.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	want := "pending  -                     00001_a.sql (TiDB only)\n" +
		"DRIFT    2026-12-02 17:00:00Z  00002_b.sql\n" +
		"                                 drift: table b dropped\n" +
		"                                 not checked: view v: no rights\n" +
		"FULL     2026-12-02 17:00:00Z  00003_c.sql (TiDB only: recorded without running, the server is not TiDB)\n" +
		"                                 full: c\n"
	same(t, b.String(), want)
	b.Reset()
	if err := (apply.StatusReport{}).WriteText(&b); err != nil || b.Len() != 0 {
		t.Errorf("no migrations: %q %v", b.String(), err)
	}
}

// TestWriteDir: the first write names every file written, the second
// every file unchanged, both with the counts and how to apply them.
func TestWriteDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "m")
	ms := []apply.Migration{{Version: 1, Name: "00001_a.sql", Text: "SELECT 1;\n"}}
	var b bytes.Buffer
	for _, want := range []string{"wrote     00001_a.sql\n1 written, 0 unchanged in ", "unchanged 00001_a.sql\n0 written, 1 unchanged in "} {
		w, err := apply.WriteDir(dir, ms, false)
		if err != nil {
			t.Fatal(err)
		}
		b.Reset()
		if err := w.WriteText(&b); err != nil || !strings.HasPrefix(b.String(), want+dir+"; apply with: shardid tidb up --dir "+dir) {
			t.Errorf("got %q, want %q…", b.String(), want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "00001_a.sql")); err != nil {
		t.Error(err)
	}
	b.Reset()
	(apply.Written{}).WriteText(&b)
	if !strings.HasPrefix(b.String(), "0 written, 0 unchanged in ;") {
		t.Errorf("zero value: %q", b.String())
	}
}

// same fails t unless the text written is the text wanted.
func same(t *testing.T, got, want string) {
	t.Helper()
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
