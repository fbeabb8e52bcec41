package pgfunc_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/shardid/shardid"
	"github.com/shardid/shardid/pgfunc"
	"github.com/shardid/shardid/pgfunc/migrate"
	"github.com/shardid/shardid/pgfunc/resume"
	"github.com/shardid/shardid/tools/testsrv"
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
	dep, err := migrate.New(testsrv.Open(t, "pgx", dsnAs(t, dsn, deployer)), o, migrate.Options{OwnDatabaseOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range results(dep.Up(ctx, shards, nil)) {
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
	m, err := migrate.New(db, o, migrate.Options{OwnDatabaseOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	c, err := m.Server().Census(ctx)
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
	res, err := resume.Run(ctx, m, nil, resume.Options{Lead: pgfunc.DefaultLead}, nil)
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

// TestResumeBesideOthersObjects: another team's role, with CREATE on the
// database, makes schemas the generators' owner has no USAGE on: one with
// a plain sequence named next_id_seq, one with a counter commented as a
// generator's; and a schema it grants USAGE on, with such a counter and a
// next_id_jump_lock it holds in an open transaction; and a hand-written
// next_id() drawing from a sequence named next_id_seq. The owner's status
// reads on (the unreadable history as version -1), and resume moves the
// owner's counter, reports the held lock's counter as ErrJumpLocked after
// the lock timeout and the unreadable one as failed, and ends. (Before:
// the plain sequence failed every resume and the commented one every
// status with "permission denied for schema"; the held lock stalled
// resume for as long as it was held, in an outside trial.)
func TestResumeBesideOthersObjects(t *testing.T) {
	t.Parallel()
	db, dsn := newDB(t)
	ctx := context.Background()
	o := pgfunc.Options{Layout: shardid.JS53()}
	owner, team := newRole(t, db, "owner", ""), newRole(t, db, "team", "")
	for _, r := range []string{owner, team} {
		if _, err := db.ExecContext(ctx, "GRANT CREATE ON DATABASE "+dbNameOf(t, db)+" TO "+r); err != nil {
			t.Fatal(err)
		}
	}
	ownerDB := testsrv.Open(t, "pgx", dsnAs(t, dsn, owner))
	m, err := migrate.New(ownerDB, o, migrate.Options{OwnDatabaseOnly: true, LockTimeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	mine := pgfunc.Shard{Schema: "insta0", ID: 0}
	if r := up(m, mine); r.Err != nil {
		t.Fatal(r.Err)
	}
	fake := func(shard int64) string {
		meta, err := pgfunc.MetaFor(pgfunc.Shard{ID: shard}, o)
		if err != nil {
			t.Fatal(err)
		}
		text, _ := json.Marshal(meta)
		return "'" + string(text) + "'"
	}
	teamConn := asRole(t, dsn, team)
	for _, q := range []string{
		"CREATE SCHEMA billing", "CREATE SEQUENCE billing.next_id_seq",
		// A hand-written generator (Instagram's design, before pg adopt)
		// whose counter happens to be named like shardid's.
		"CREATE SCHEMA handmade", "CREATE SEQUENCE handmade.next_id_seq",
		"CREATE FUNCTION handmade.next_id() RETURNS bigint LANGUAGE sql RETURN nextval('handmade.next_id_seq')",
		"CREATE SCHEMA hidden", "CREATE SEQUENCE hidden.next_id_seq", "COMMENT ON SEQUENCE hidden.next_id_seq IS " + fake(20),
		"CREATE TABLE hidden.next_id_jump_lock ()",
		"CREATE SCHEMA held", "GRANT USAGE ON SCHEMA held TO " + owner, "CREATE SEQUENCE held.next_id_seq", "COMMENT ON SEQUENCE held.next_id_seq IS " + fake(21),
		"CREATE TABLE held.next_id_jump_lock ()", "GRANT ALL ON held.next_id_jump_lock TO " + owner,
		"BEGIN", "LOCK TABLE held.next_id_jump_lock IN ACCESS EXCLUSIVE MODE",
	} {
		if _, err := teamConn.ExecContext(ctx, q); err != nil {
			t.Fatalf("as %s: %s: %v", team, q, err)
		}
	}
	defer teamConn.ExecContext(ctx, "ROLLBACK")
	st, err := m.Status(ctx, nil)
	if err != nil {
		t.Fatalf("status beside the team's schemas: %v", err)
	}
	if len(st) == 0 {
		t.Fatal("status lists nothing")
	}
	res, err := resume.Run(ctx, m, nil, resume.Options{Lead: pgfunc.DefaultLead}, nil)
	if err != nil && !pgfunc.IsPartial(err) { // partial: each counter's result says
		t.Fatalf("resume beside the team's schemas: %v", err)
	}
	got := map[string]resume.Resumed{}
	for _, r := range res {
		got[r.Schema] = r
	}
	if r := got["insta0"]; r.Err != nil || r.To <= r.From {
		t.Errorf("the owner's counter: %+v; want it moved", r)
	}
	if r := got["held"]; !errors.Is(r.Err, resume.ErrJumpLocked) {
		t.Errorf("the counter whose jump lock is held: %+v; want ErrJumpLocked", r)
	}
	for _, schema := range []string{"billing", "handmade"} {
		if r := got[schema]; r.Err != nil || r.Moved {
			t.Errorf("a sequence named next_id_seq beside no shardid generator (%s): %+v; want it passed over, not failed", schema, r)
		}
	}
	if r := up(m, pgfunc.Shard{Schema: "insta1", ID: 1}); r.Err != nil {
		t.Errorf("up beside the team's schemas: %v; a hand-written next_id() is not a generator whose metadata cannot be read", r.Err)
	}
	if r, ok := got["hidden"]; !ok || r.Err == nil {
		t.Errorf("the counter in a schema the owner cannot use: %+v (listed %v); want it listed as not moved", r, ok)
	}
}
