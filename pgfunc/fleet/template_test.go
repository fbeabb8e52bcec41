package fleet_test

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/shardid/shardid/pgfunc"
	"github.com/shardid/shardid/tools/testsrv"
)

// TestVerifyTemplateDatabase: a map whose server b is a template database
// holding b's shards (made a template after its shards were applied)
// fails verify: each shard there is a TEMPLATE problem (before: verify
// passed, while every CREATE DATABASE from it copied the generators). A
// shard in another database than the map's names the map's database in
// its MISPLACED message, and a map of another lead than the generators'
// makes each a MISMATCH.
func TestVerifyTemplateDatabase(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	m, dsnA, dsnB, a, b := upFleet(t)
	if rep := m.Verify(ctx); !rep.OK {
		t.Fatalf("verify of a clean fleet: %s", kinds(rep))
	}
	// A map saying another lead than the generators have: each shard a
	// mismatch, as up --map refuses them (before: verify passed).
	if rep := mapOf(t, dsnA, dsnB, `lead = "10s"`).Verify(ctx); strings.Count(kinds(rep), "mismatch:") != 10 {
		t.Fatalf("verify with a map of another lead: %s; want every shard a mismatch", kinds(rep))
	}
	u, err := url.Parse(dsnB)
	if err != nil {
		t.Fatal(err)
	}
	admin := testsrv.Open(t, "pgx", b.DSN("postgres"))
	if _, err := admin.Exec("ALTER DATABASE " + strings.TrimPrefix(u.Path, "/") + " IS_TEMPLATE true"); err != nil {
		t.Fatal(err)
	}
	rep := m.Verify(ctx)
	if rep.OK || strings.Count(kinds(rep), "template:") != 4 {
		t.Fatalf("verify with b's database a template: %s; want shards 6-9 as template problems", kinds(rep))
	}
	// Shard 0 moved to another database of a: the message names where
	// the map puts it, database included.
	other := testsrv.Database(t, a)
	if _, err := testsrv.Open(t, "pgx", dsnA).Exec("DROP SCHEMA fl0 CASCADE"); err != nil {
		t.Fatal(err)
	}
	plant(t, other, "fl0", 0, pgfunc.Options{})
	ua, _ := url.Parse(dsnA)
	for _, p := range m.Verify(ctx).Problems {
		if p.Shard == 0 && p.Kind == "misplaced" {
			if !strings.Contains(p.Message, "in "+strings.TrimPrefix(ua.Path, "/")+".fl0") {
				t.Fatalf("misplaced message: %s; want the map's database and schema", p.Message)
			}
			return
		}
	}
	t.Fatalf("no misplaced problem for shard 0: %s", kinds(m.Verify(ctx)))
}

// TestVerifyUnreadDatabase: a database of a mapped server that the role
// may not look into (here: connections not allowed) fails verify as a
// NOT-READ problem naming it, since a copy of a shard there would go
// unseen (before: verify listed it and still printed OK); once it allows
// connections, verify passes again.
func TestVerifyUnreadDatabase(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	m, _, _, a, _ := upFleet(t)
	admin := testsrv.Open(t, "pgx", a.DSN("postgres"))
	if _, err := admin.Exec("CREATE DATABASE shut"); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Exec("ALTER DATABASE shut ALLOW_CONNECTIONS false"); err != nil {
		t.Fatal(err)
	}
	rep := m.Verify(ctx)
	if rep.OK || kinds(rep) != "not-read:-1" || !strings.Contains(rep.Problems[0].Message, "not read: shut") {
		t.Fatalf("verify with database shut closed on a: %s %+v; want one not-read problem naming shut", kinds(rep), rep.Problems)
	}
	if _, err := admin.Exec("ALTER DATABASE shut ALLOW_CONNECTIONS true"); err != nil {
		t.Fatal(err)
	}
	if rep := m.Verify(ctx); !rep.OK {
		t.Fatalf("verify with shut open again: %s", kinds(rep))
	}
}
