package pgfunc_test

import (
	"context"
	"errors"
	"testing"

	"github.com/shardid/shardid"
	"github.com/shardid/shardid/internal/testsrv"
	"github.com/shardid/shardid/pgfunc"
)

// TestGeneratorOwnerLostRights: a DBA makes schemas insta0 and insta1 and
// lets a deployer role build in them; the deployer applies shards 0 and 1
// (so it owns their counters and functions), then loses CREATE on insta0,
// and insta1 is given to another role (the deployer keeps USAGE only).
// Both generators still hand out IDs, so both still count: the census
// lists them, up (Go and the migration goose applies alone) refuses their
// shard ids under other schema names, and resume moves their counters.
// (Before: the catalog reads left out objects whose owner neither owned
// the schema nor could create in it; up applied shard 0 again as dup0,
// and an outside trial drew 4,606 and 15,620 repeats from the two, and
// 65,601 and 112,705 after a restore whose resume skipped such a counter.)
func TestGeneratorOwnerLostRights(t *testing.T) {
	t.Parallel()
	db, dsn := newDB(t)
	ctx := context.Background()
	o := pgfunc.Options{Layout: shardid.JS53()}
	deployer := newRole(t, db, "deployer", "")
	dba := newRole(t, db, "dba", "")
	shards := []pgfunc.Shard{{Schema: "insta0", ID: 0}, {Schema: "insta1", ID: 1}}
	if _, err := db.ExecContext(ctx, "GRANT CREATE ON DATABASE "+dbNameOf(t, db)+" TO "+deployer); err != nil {
		t.Fatal(err) // pg up makes the history schema and runs CREATE SCHEMA IF NOT EXISTS
	}
	for _, sh := range shards {
		for _, q := range []string{"CREATE SCHEMA " + sh.Schema, "GRANT USAGE, CREATE ON SCHEMA " + sh.Schema + " TO " + deployer} {
			if _, err := db.ExecContext(ctx, q); err != nil {
				t.Fatal(err)
			}
		}
	}
	dep, err := pgfunc.NewMigrator(testsrv.Open(t, "pgx", dsnAs(t, dsn, deployer)), o, pgfunc.MigrateOptions{OwnDatabaseOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range dep.Up(ctx, shards, nil) {
		if r.Err != nil {
			t.Fatalf("up of %s as the deployer: %v", r.Shard.Schema, r.Err)
		}
	}
	for _, q := range []string{
		"REVOKE CREATE ON SCHEMA insta0 FROM " + deployer,
		"ALTER SCHEMA insta1 OWNER TO " + dba,
		"REVOKE CREATE ON SCHEMA insta1 FROM " + deployer,
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	// Both still draw.
	for _, sh := range shards {
		if _, err := db.ExecContext(ctx, "SELECT "+sh.Schema+".next_id()"); err != nil {
			t.Fatalf("draw from %s: %v", sh.Schema, err)
		}
	}
	m, err := pgfunc.NewMigrator(db, o, pgfunc.MigrateOptions{OwnDatabaseOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	c, err := m.Census(ctx)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, in := range c.Generators {
		seen[in.Schema] = true
	}
	if !seen["insta0"] || !seen["insta1"] {
		t.Errorf("census lists %v; want insta0 and insta1", seen)
	}
	for _, sh := range shards {
		dup := pgfunc.Shard{Schema: "dup" + sh.Schema, ID: sh.ID}
		if r := up(m, dup); !errors.Is(r.Err, pgfunc.ErrShardConflict) {
			t.Errorf("up of shard %d as %s: %v; want ErrShardConflict", sh.ID, dup.Schema, r.Err)
		}
		if err := gooseUp(t, db, "goose_"+dup.Schema, []pgfunc.Shard{dup}, o); sqlState(err) != "SHR03" {
			t.Errorf("goose up of shard %d as %s: %v; want SQLSTATE SHR03", sh.ID, dup.Schema, err)
		}
	}
	res, err := m.Resume(ctx, nil, pgfunc.ResumeOptions{Lead: pgfunc.DefaultLead}, nil)
	if err != nil {
		t.Fatal(err)
	}
	moved := map[string]bool{}
	for _, r := range res {
		if r.Err != nil {
			t.Errorf("resume of %s: %v", r.Schema, r.Err)
		}
		moved[r.Schema] = r.Err == nil && r.To > r.From
	}
	if !moved["insta0"] || !moved["insta1"] {
		t.Errorf("resume moved %v; want insta0 and insta1", moved)
	}
}
