package pgfunc_test

import (
	"context"
	"strings"
	"testing"

	"github.com/shardid/shardid"
	"github.com/shardid/shardid/pgfunc"
	"github.com/shardid/shardid/pgfunc/migrate"
	"github.com/shardid/shardid/tools/testsrv"
)

// TestCitusTodayFailures documents, as assertions, what today's generator
// does on a real Citus cluster (a coordinator and two workers; issue 33):
// up on the coordinator, then the first shard's schema distributed with a
// table keyed by DEFAULT next_id().
//
//   - Citus copies every shard's counters to every worker (the functions'
//     SQL-standard bodies name them, a dependency Citus propagates), each
//     worker's copy restarted at its 2^48 range: groupid<<48 + 1.
//   - A single-row INSERT through the coordinator works.
//   - A multi-row INSERT ... SELECT through the coordinator fails in the
//     jump's subtransaction: Citus sends the SAVEPOINT to the worker over
//     the connection streaming the rows ("another command is already in
//     progress").
//   - Every INSERT entering at a worker draws from the worker's shifted
//     copy, thousands of days ahead of the clock, and the lead refuses it
//     (SQLSTATE LeadExceededState): safe, but the table cannot be written
//     from the nodes Citus routes to.
//   - Status through the coordinator reports every shard as it should be
//     and none elsewhere, although every worker holds a copy of each
//     counter.
//
// It is expected to fail once issue 33's phase 2 makes Citus a home for
// the generator: each assertion is then turned around into the test of
// the fix.
func TestCitusTodayFailures(t *testing.T) {
	ctx := context.Background()
	c := testsrv.Citus(t)
	db, _ := testsrv.CitusDB(t)
	name := dbNameOf(t, db)
	m, err := migrate.New(db, pgfunc.Options{}, migrate.Options{OwnDatabaseOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	var shards []pgfunc.Shard
	for id := int64(0); id < 4; id++ {
		schema, err := pgfunc.SchemaName(pgfunc.DefaultSchemaFormat, id)
		if err != nil {
			t.Fatal(err)
		}
		shards = append(shards, pgfunc.Shard{Schema: schema, ID: id})
	}
	for _, r := range results(m.Up(ctx, shards, nil)) {
		if r.Err != nil {
			t.Fatalf("up %s on the coordinator: %v", r.Shard.Schema, r.Err)
		}
	}

	for _, w := range c.Workers() {
		node := testsrv.Open(t, "pgx", w.DSN(name))
		var copies, shifted int
		err := node.QueryRow(`SELECT count(*),
			count(*) FILTER (WHERE s.seqmin = ((SELECT groupid FROM pg_dist_local_group)::bigint << 48) + 1)
			FROM pg_sequence s JOIN pg_class c ON c.oid = s.seqrelid
			WHERE c.relnamespace::regnamespace::text ~ '^insta[0-3]$'
			  AND c.relname IN ('next_id_seq', 'next_id_jumps_begun', 'next_id_jumps_done')`).Scan(&copies, &shifted)
		if err != nil {
			t.Fatal(err)
		}
		if copies != 12 || shifted != 12 {
			t.Fatalf("worker %d holds %d copies of the 4 shards' 3 counters, %d in its 2^48 range; today's generator gives 12 and 12", w.Port(), copies, shifted)
		}
	}

	if _, err := db.Exec(`SELECT citus_schema_distribute('insta0')`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE insta0.photos (id bigint PRIMARY KEY DEFAULT insta0.next_id(), v int)`); err != nil {
		t.Fatal(err)
	}
	var id int64
	if err := db.QueryRow(`INSERT INTO insta0.photos (v) VALUES (1) RETURNING id`).Scan(&id); err != nil {
		t.Fatalf("single-row INSERT through the coordinator: %v", err)
	}
	if p, err := shardid.Instagram().Decompose(id); err != nil || p.Shard != 0 {
		t.Fatalf("ID %d through the coordinator decodes to %+v, %v; want shard 0", id, p, err)
	}

	_, err = db.Exec(`INSERT INTO insta0.photos (v) SELECT g FROM generate_series(1, 5000) g`)
	if err == nil || !strings.Contains(err.Error(), "another command is already in progress") {
		t.Fatalf("5,000-row INSERT ... SELECT through the coordinator: %v; today it fails in the jump's subtransaction", err)
	}

	for _, w := range c.Workers() {
		node := testsrv.Open(t, "pgx", w.DSN(name))
		_, err := node.Exec(`INSERT INTO insta0.photos (v) VALUES (2)`)
		if sqlState(err) != pgfunc.LeadExceededState || !strings.Contains(err.Error(), "days") {
			t.Fatalf("INSERT entering at worker %d: %v; today the lead refuses the worker's shifted copy (SQLSTATE %s, days ahead)", w.Port(), err, pgfunc.LeadExceededState)
		}
	}

	st, err := m.Status(ctx, shards)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range st {
		if !s.Matches || len(s.Elsewhere) > 0 {
			t.Fatalf("status of %s through the coordinator: matches %v, elsewhere %v; today it reports the shard as it should be and no copy", s.Shard.Schema, s.Matches, s.Elsewhere)
		}
	}
}
