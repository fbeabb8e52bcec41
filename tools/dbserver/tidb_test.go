package dbserver_test

import (
	"context"
	"strings"
	"testing"

	"github.com/shardid/shardid/tools/testsrv"
)

// TestTiDBAnswers proves the harness gives a real TiDB that takes DDL
// with TiDB-only clauses and keeps them, in a database of its own.
func TestTiDBAnswers(t *testing.T) {
	db, _ := testsrv.TiDBDB(t)
	ctx := context.Background()
	var version string
	if err := db.QueryRowContext(ctx, "SELECT VERSION()").Scan(&version); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(version, "TiDB") {
		t.Fatalf("VERSION() = %q; want a TiDB server", version)
	}
	if _, err := db.ExecContext(ctx, "CREATE TABLE t (id BIGINT PRIMARY KEY NONCLUSTERED) SHARD_ROW_ID_BITS=4"); err != nil {
		t.Fatal(err)
	}
	var name, create string
	if err := db.QueryRowContext(ctx, "SHOW CREATE TABLE t").Scan(&name, &create); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(create, "SHARD_ROW_ID_BITS=4") {
		t.Fatalf("SHOW CREATE TABLE lost SHARD_ROW_ID_BITS:\n%s", create)
	}
	if _, err := testsrv.TiDB(t).CreateDatabase(ctx, "bad-name"); err == nil {
		t.Fatal("CreateDatabase accepted a name with a dash")
	}
}
