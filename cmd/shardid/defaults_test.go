package main

import (
	"context"
	"errors"
	"testing"

	"github.com/shardid/shardid"
	"github.com/shardid/shardid/internal/dsn"
	"github.com/shardid/shardid/lease"
)

// TestAppLayoutDefaultsAgree: a Go program with zero Settings and
// `shardid idgen` without --layout lease from one table, whichever
// comes first, and their IDs decode as Snowflake's: the library and the
// CLI have one default layout for app-side generators.
func TestAppLayoutDefaultsAgree(t *testing.T) {
	g, err := shardid.NewGenerator(shardid.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	if l, err := shardid.ParseLayout(defaultAppLayout); err != nil || g.Layout() != l {
		t.Fatalf("zero shardid.Settings use %v, idgen's default is %v (%v)", g.Layout(), l, err)
	}
	withLeaseTable(t, func(t *testing.T, s string) {
		ctx := context.Background()
		d, err := parseDSN("--dsn", s, dsn.Postgres|dsn.MySQL)
		if err != nil {
			t.Fatal(err)
		}
		db, err := ping(ctx, d)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		goProgram := func(table string) {
			t.Helper()
			l, err := lease.Acquire(ctx, db, lease.Settings{Table: table})
			if errors.Is(err, lease.ErrLayoutMismatch) {
				t.Fatalf("a zero-Settings program on table %s after idgen: %v", table, err)
			}
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			id, err := l.Next()
			if err != nil {
				t.Fatal(err)
			}
			if p, err := shardid.Snowflake().Decompose(id); err != nil || p.Shard != l.Node() {
				t.Fatalf("the program's ID %d: %+v %v; want node %d of the snowflake layout", id, p, err, l.Node())
			}
		}
		idgen := func(table string) {
			t.Helper()
			code, out, errOut := runCLI(t, "", nil, "idgen", "--dsn", s, "--table", table, "-n", "3")
			if code != 0 {
				t.Fatalf("idgen without --layout on table %s: exit %d %q", table, code, errOut)
			}
			nodeOf(t, parseIDs(t, out))
		}
		idgen(lease.DefaultTable)
		goProgram(lease.DefaultTable)
		if code, _, errOut := runCLI(t, "", nil, "worker", "up", "--dsn", s, "--table", "lease_go_first"); code != 0 {
			t.Fatal(errOut)
		}
		goProgram("lease_go_first")
		idgen("lease_go_first")
	})
}
