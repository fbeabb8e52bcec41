package dbserver_test

import (
	"context"
	"database/sql"
	"testing"

	"github.com/shardid/shardid/dialect"
	"github.com/shardid/shardid/tools/dbserver"
	"github.com/shardid/shardid/tools/testsrv"
)

// TestRestoreForgets: rows written after the dump are gone after the
// restore, rows from before are back, and other tables are untouched, on
// each server family.
func TestRestoreForgets(t *testing.T) {
	for _, b := range []struct {
		name    string
		dialect dialect.Dialect
		open    func(testing.TB) (*sql.DB, string)
	}{
		{"postgres", dialect.Postgres, testsrv.PGDB},
		{"mariadb", dialect.MySQL, testsrv.MariaDBDB},
		{"tidb", dialect.TiDB, testsrv.TiDBDB},
	} {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			db, dsn := b.open(t)
			exec := func(q string) {
				t.Helper()
				if _, err := db.ExecContext(ctx, q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			exec("CREATE TABLE kept (k bigint PRIMARY KEY, v bigint NOT NULL)")
			exec("CREATE TABLE other (k bigint PRIMARY KEY)")
			exec("INSERT INTO kept VALUES (1, 10), (2, 20)")
			dump, err := dbserver.TakeTable(ctx, b.dialect, dsn, "kept")
			if err != nil {
				t.Fatal(err)
			}
			exec("UPDATE kept SET v = 11 WHERE k = 1")
			exec("INSERT INTO kept VALUES (3, 30)")
			exec("INSERT INTO other VALUES (7)")
			if err := dbserver.RestoreTable(ctx, dsn, dump); err != nil {
				t.Fatal(err)
			}
			var n, sum, others int64
			if err := db.QueryRowContext(ctx, "SELECT count(*), sum(v) FROM kept").Scan(&n, &sum); err != nil {
				t.Fatal(err)
			}
			if err := db.QueryRowContext(ctx, "SELECT count(*) FROM other").Scan(&others); err != nil {
				t.Fatal(err)
			}
			if n != 2 || sum != 30 || others != 1 {
				t.Errorf("after the restore: %d rows summing to %d (want 2, 30); other table %d rows (want 1)", n, sum, others)
			}
		})
	}
}
