package demo_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"

	"github.com/shardid/shardid/internal/dsn"
	"github.com/shardid/shardid/tools/dbserver"
	"github.com/shardid/shardid/tools/demo"
	"github.com/shardid/shardid/tools/testsrv"
)

func TestMain(m *testing.M) { testsrv.Main(m) }

// TestRun: on a server of the user's the demo applies the layout's top
// four shard ids, every ID of its burst is distinct, and its schemas are
// gone at the end; a DSN it cannot use is refused before anything runs.
func TestRun(t *testing.T) {
	ctx := context.Background()
	var ce *dsn.CheckError
	if err := demo.Run(ctx, demo.Settings{DSN: "mysql://u:s3cret@h/db"}); !errors.As(err, &ce) || strings.Contains(err.Error(), "s3cret") {
		t.Fatalf("Run on a MySQL URL: %v; want a *dsn.CheckError without the password", err)
	}
	source := testsrv.Database(t, testsrv.NewPG(t, dbserver.PGOptions{}))
	var out, errOut strings.Builder
	if err := demo.Run(ctx, demo.Settings{DSN: source, Rows: 2, Stdout: &out, Stderr: &errOut}); err != nil {
		t.Fatalf("Run: %v\n%s%s", err, &out, &errOut)
	}
	for _, want := range []string{"$ shardid pg up --shards 8188-8191\n", "200000 distinct", "dropped the demo schemas"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, &out)
		}
	}
	db := testsrv.Open(t, "pgx", source)
	var left int
	if err := db.QueryRow(`SELECT count(*) FROM pg_namespace WHERE nspname LIKE 'shardid_demo%'`).Scan(&left); err != nil || left != 0 {
		t.Fatalf("demo schemas left: %d (%v); want none", left, err)
	}
}
