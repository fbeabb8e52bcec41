package main

import (
	"context"
	"database/sql"
	"strings"
	"testing"

	"github.com/shardid/shardid/tidb/apply"
)

// TestTiDBUpLockTimeout holds tidb up's run lock from another session, on
// TiDB and MariaDB: up --lock-timeout 1s fails with one error naming the
// other run and applies nothing, while status (which takes no lock) still
// reads. Only up offers --lock-timeout, and a value out of 1s…1h is a
// usage error naming it.
func TestTiDBUpLockTimeout(t *testing.T) {
	for _, srv := range []string{"tidb", "mariadb"} {
		t.Run(srv, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			dsn := serverDSN(t, srv)
			db, err := apply.Open(dsn)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			m, err := apply.NewMigrator(db, nil, apply.Options{})
			if err != nil {
				t.Fatal(err)
			}
			name, err := m.LockName(ctx)
			if err != nil {
				t.Fatal(err)
			}
			holder, err := db.Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer holder.Close()
			var got sql.NullInt64
			if err := holder.QueryRowContext(ctx, "SELECT GET_LOCK(?, 1)", name).Scan(&got); err != nil || got.Int64 != 1 {
				t.Fatalf("GET_LOCK: %v, %v", got, err)
			}
			code, out, errOut := runCLI(t, "", nil, "tidb", "up", "--dsn", dsn, "--lock-timeout", "1s", seedInput)
			if code != 1 || strings.Count(errOut, "shardid: ") != 1 || !strings.Contains(errOut, "shardid: up: another shardid tidb up holds") || strings.Contains(out, "OK ") {
				t.Errorf("up while another run holds the lock: exit %d\n%s\n%s", code, out, errOut)
			}
			if code, out, errOut := runCLI(t, "", nil, "tidb", "status", "--dsn", dsn, seedInput); code != 1 || !strings.Contains(out, "pending") || strings.Contains(errOut, "lock") {
				t.Errorf("status while the lock is held: exit %d\n%s\n%s", code, out, errOut)
			}
		})
	}
	for _, bad := range []string{"0s", "-1s", "2h"} {
		if code, _, errOut := runCLI(t, "", nil, "tidb", "up", "--dsn", "u@tcp(127.0.0.1:1)/x", "--lock-timeout", bad, seedInput); code != 2 || !strings.Contains(errOut, "--lock-timeout: "+bad) {
			t.Errorf("--lock-timeout %s: exit %d\n%s", bad, code, errOut)
		}
	}
	for cmd, want := range map[string]bool{"up": true, "status": false} {
		if _, out, _ := runCLI(t, "", nil, "tidb", cmd, "-h"); strings.Contains(out, "-lock-timeout") != want {
			t.Errorf("tidb %s -h: -lock-timeout offered %v, want %v:\n%s", cmd, !want, want, out)
		}
	}
}
