package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPGUpUpgradesInPlace: over a generator applied by a release before
// next_id_bulk() (pgfunc/testdata/released_unique.sql, its Up run as it
// is), pg status says it is outdated and that pg up replaces its body,
// exiting 1; pg up reports it upgraded; status then finds it current, and
// a table keyed by DEFAULT next_id() before the upgrade draws on.
func TestPGUpUpgradesInPlace(t *testing.T) {
	t.Parallel()
	dsn := pgDSN(t)
	db := openPG(t, dsn)
	text, err := os.ReadFile(filepath.Join("..", "..", "pgfunc", "testdata", "released_unique.sql"))
	if err != nil {
		t.Fatal(err)
	}
	_, up, _ := strings.Cut(string(text), "-- +goose Up\n")
	up, _, _ = strings.Cut(up, "-- +goose Down\n")
	if _, err := db.Exec(up); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("CREATE TABLE released9.t (id bigint PRIMARY KEY DEFAULT released9.next_id(), v int); INSERT INTO released9.t (v) VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	flags := []string{"--dsn", dsn, "--shards", "9", "--schema-format", "released%d"}
	code, out, errOut := runCLI(t, "", nil, append([]string{"pg", "status"}, flags...)...)
	if code != 1 || !strings.Contains(out, "OUTDATED") || !strings.Contains(out, "pg up replaces its body in place") {
		t.Fatalf("status of the released generator: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = runCLI(t, "", nil, append([]string{"pg", "up"}, flags...)...)
	if code != 0 || !strings.Contains(out, " upgraded ") || !strings.Contains(out, "1 applied") {
		t.Fatalf("up over the released generator: exit %d\n%s%s", code, out, errOut)
	}
	if code, out, errOut = runCLI(t, "", nil, append([]string{"pg", "status"}, flags...)...); code != 0 || strings.Contains(out, "OUTDATED") {
		t.Fatalf("status after up: exit %d\n%s%s", code, out, errOut)
	}
	if _, err := db.Exec("INSERT INTO released9.t (v) SELECT 2 FROM generate_series(1, 1000)"); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := db.QueryRow("SELECT count(DISTINCT id) FROM released9.t").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 1001 {
		t.Fatalf("%d distinct IDs among the 1,001 rows keyed by DEFAULT next_id() across the upgrade", n)
	}
}
