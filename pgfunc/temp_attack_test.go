package pgfunc_test

import (
	"context"
	"strings"
	"testing"

	"github.com/shardid/shardid"
	"github.com/shardid/shardid/pgfunc"
	"github.com/shardid/shardid/pgfunc/migrate"
	"github.com/shardid/shardid/pgfunc/privilege"
	"github.com/shardid/shardid/pgfunc/resume"
)

// TestTempSchemaFakes: a role with only what pg grant gives, and the TEMP
// privilege every role has by default, keeps a session open holding a
// temporary sequence named next_id_seq whose comment claims shard 20 of
// another epoch, a temporary next_id_retired_seq claiming shard 21, and a
// temporary next_id_jump_22() function. None of them counts: the owner's
// Up (Migrator, and the migration through goose alone) applies shards 20,
// 21, 22 and 23, and Status, Census and Resume see no pg_temp schema.
// (Before: up of shard 20 failed "already in schema pg_temp_3", any other
// shard "another kind", status and resume failed on the fake.)
func TestTempSchemaFakes(t *testing.T) {
	t.Parallel()
	db, dsn := newDB(t)
	ctx := context.Background()
	o := pgfunc.Options{Layout: shardid.JS53()}
	own := migrate.Options{OwnDatabaseOnly: true}
	installWith(t, db, pgfunc.Shard{Schema: "js0", ID: 0}, o)
	app := newRole(t, db, "tempfake", "")
	m, err := migrate.New(db, o, own)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := privilege.Grant(ctx, m.Server().DB(), []pgfunc.Shard{{Schema: "js0", ID: 0}}, app, nil); err != nil {
		t.Fatal(err)
	}
	fake := func(shard string) string {
		return `'{"tool":"shardid","shard":` + shard + `,"mode":"unique","layout":"fake","epoch_ms":1704067200000,"unit_ms":1,"time_bits":41,"shard_bits":13,"seq_bits":10,"lead_ms":5000}'`
	}
	attacker := asRole(t, dsn, app)
	for _, q := range []string{
		"CREATE TEMP SEQUENCE next_id_seq",
		"COMMENT ON SEQUENCE pg_temp.next_id_seq IS " + fake("20"),
		"CREATE TEMP SEQUENCE next_id_retired_seq",
		"COMMENT ON SEQUENCE pg_temp.next_id_retired_seq IS " + fake("21"),
		"CREATE FUNCTION pg_temp.next_id_jump_22() RETURNS bigint LANGUAGE sql AS 'SELECT 1::bigint'",
		"SELECT js0.next_id()", // the grant holds
	} {
		if _, err := attacker.ExecContext(ctx, q); err != nil {
			t.Fatalf("as %s: %s: %v", app, q, err)
		}
	}
	for _, r := range results(m.Up(ctx, []pgfunc.Shard{{Schema: "js20", ID: 20}, {Schema: "js21", ID: 21}}, nil)) {
		if r.Err != nil {
			t.Fatalf("up of %s beside the fakes: %v", r.Shard.Schema, r.Err)
		}
	}
	for _, sh := range []pgfunc.Shard{{Schema: "js22", ID: 22}, {Schema: "js23", ID: 23}} {
		if err := gooseUp(t, db, "goose_"+sh.Schema, []pgfunc.Shard{sh}, o); err != nil {
			t.Fatalf("goose up of %s beside the fakes: %v", sh.Schema, err)
		}
	}
	c, err := m.Server().Census(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range append(c.Generators, c.Retired...) {
		if strings.HasPrefix(in.Schema, "pg_") {
			t.Fatalf("census counts %s", in.Schema)
		}
	}
	if len(c.Generators) != 5 || len(c.Retired) != 0 {
		t.Fatalf("census: %d generators, %d kept counters; want js0, js20-23 and none", len(c.Generators), len(c.Retired))
	}
	st, err := m.Status(ctx, nil)
	if err != nil || len(st) != 5 {
		t.Fatalf("status: %d shards, %v; want 5", len(st), err)
	}
	res, err := resume.Run(ctx, m, nil, resume.Options{Lead: pgfunc.DefaultLead}, nil)
	if err != nil || len(res) != 5 {
		t.Fatalf("resume: %+v, %v; want the 5 real counters", res, err)
	}
	for _, r := range res {
		if r.Err != nil || strings.HasPrefix(r.Schema, "pg_") {
			t.Fatalf("resume: %+v", r)
		}
	}
}
