package main

import (
	"strings"
	"testing"
)

// TestTiDBNumberingMix applies the same script once under each numbering
// and then under the other, on TiDB and MariaDB: gen --dir writes
// 00001_create_…, up FILE numbers in memory, and both record each step's
// name beside goose's history (shardid_tidb_steps), so the second run
// finds every step applied: nothing runs twice, exit 0, and status under
// either numbering says applied. The negative control is a changed table:
// a new step, whose CREATE meets the existing table and is refused.
func TestTiDBNumberingMix(t *testing.T) {
	for _, srv := range []string{"tidb", "mariadb"} {
		t.Run(srv, func(t *testing.T) {
			t.Parallel()
			for _, order := range []string{"gen-then-file", "file-then-gen"} {
				dsn := serverDSN(t, srv)
				dir := t.TempDir()
				if code, out, errOut := runCLI(t, "", nil, "tidb", "gen", "--dir", dir, seedInput); code != 0 {
					t.Fatalf("gen: exit %d\n%s\n%s", code, out, errOut)
				}
				upDir := []string{"tidb", "up", "--dsn", dsn, "--dir", dir}
				upFile := []string{"tidb", "up", "--dsn", dsn, seedInput}
				first, second := upDir, upFile
				if order == "file-then-gen" {
					first, second = upFile, upDir
				}
				if code, out, errOut := runCLI(t, "", nil, first...); code != 0 || !strings.Contains(out, "OK ") {
					t.Fatalf("%s: first up: exit %d\n%s\n%s", order, code, out, errOut)
				}
				if code, out, errOut := runCLI(t, "", nil, second...); code != 0 || strings.Contains(out, "OK ") || !strings.Contains(out, "no migrations to apply") {
					t.Errorf("%s: second up under the other numbering: exit %d\n%s\n%s", order, code, out, errOut)
				}
				for _, status := range [][]string{{"tidb", "status", "--dsn", dsn, seedInput}, {"tidb", "status", "--dsn", dsn, "--dir", dir}} {
					if code, out, errOut := runCLI(t, "", nil, status...); code != 0 || !strings.HasPrefix(out, "applied ") || strings.Contains(out, "pending") {
						t.Errorf("%s: %s: exit %d\n%s\n%s", order, strings.Join(status[3:], " "), code, out, errOut)
					}
				}
				// A changed table is a new step: refused, never taken for applied.
				if code, out, errOut := runCLI(t, "", nil, "tidb", "up", "--dsn", dsn, "--shard-bits", "3", seedInput); code != 1 || !strings.Contains(errOut, "table already exists") {
					t.Errorf("%s: up of a changed table: exit %d\n%s\n%s", order, code, out, errOut)
				}
			}
		})
	}
}
