package main

import (
	"strings"
	"testing"
)

// TestTiDBNumberingMix applies the same table once under each numbering
// and then under the other, on TiDB and MariaDB: gen --dir writes
// 00001_create_…, up FILE derives a version from the statement, so the
// second run sees a pending version whose CREATE meets the table the
// first made. It must be refused (table already exists, nothing
// recorded), never applied twice nor recorded as applied without running;
// the two numberings do not mix (docs/tidb.md, Migrations and versions).
func TestTiDBNumberingMix(t *testing.T) {
	for _, srv := range []string{"tidb", "mariadb"} {
		t.Run(srv, func(t *testing.T) {
			t.Parallel()
			for _, order := range []string{"gen-then-file", "file-then-gen"} {
				dsn := serverDSN(t, srv)
				dir := t.TempDir()
				gen := func() {
					if code, out, errOut := runCLI(t, "", nil, "tidb", "gen", "--dir", dir, seedInput); code != 0 {
						t.Fatalf("gen: exit %d\n%s\n%s", code, out, errOut)
					}
				}
				upDir := func() (int, string, string) { return runCLI(t, "", nil, "tidb", "up", "--dsn", dsn, "--dir", dir) }
				upFile := func() (int, string, string) { return runCLI(t, "", nil, "tidb", "up", "--dsn", dsn, seedInput) }
				first, second := upDir, upFile
				gen()
				if order == "file-then-gen" {
					first, second = upFile, upDir
				}
				if code, out, errOut := first(); code != 0 {
					t.Fatalf("%s: first up: exit %d\n%s\n%s", order, code, out, errOut)
				}
				code, out, errOut := second()
				if code != 1 || !strings.Contains(errOut, "table already exists") || strings.Contains(out, "OK ") {
					t.Errorf("%s: second up under the other numbering: exit %d\n%s\n%s", order, code, out, errOut)
				}
				// Status under each numbering says what its history holds:
				// the first applied, the second pending (exit 1).
				statusFile := []string{"tidb", "status", "--dsn", dsn, seedInput}
				statusDir := []string{"tidb", "status", "--dsn", dsn, "--dir", dir}
				applied, pending := statusDir, statusFile
				if order == "file-then-gen" {
					applied, pending = statusFile, statusDir
				}
				if code, out, errOut := runCLI(t, "", nil, applied...); code != 0 || !strings.HasPrefix(out, "applied ") {
					t.Errorf("%s: status of the numbering applied: exit %d\n%s\n%s", order, code, out, errOut)
				}
				if code, out, errOut := runCLI(t, "", nil, pending...); code != 1 || !strings.HasPrefix(out, "pending ") {
					t.Errorf("%s: status of the other numbering: exit %d\n%s\n%s", order, code, out, errOut)
				}
			}
		})
	}
}
