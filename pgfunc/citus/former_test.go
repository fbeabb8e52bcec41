package citus_test

import (
	"context"
	"testing"

	"github.com/shardid/shardid"
	"github.com/shardid/shardid/pgfunc"
	"github.com/shardid/shardid/pgfunc/migrate"
	"github.com/shardid/shardid/tools/testsrv"
)

// TestCitusFormerFailures turns around, assertion by assertion, what the
// generator of a single server did on a real Citus cluster (a coordinator
// and two workers; issue 33), into the tests of the Citus generator
// (docs/citus.md): up on the coordinator, a table of the first shard's
// distributed schema keyed by DEFAULT next_id().
//
//   - Citus copied every shard's counters to every worker, each restarted
//     at the worker's 2^48 range. Now no shard schema holds a counter on
//     any node: each node holds its own, in <schema>_node, stepping by
//     the slot count from the node's own slot, none in a 2^48 range.
//   - A single-row INSERT through the coordinator worked, and still does.
//   - A 5,000-row INSERT ... SELECT through the coordinator failed in the
//     jump's subtransaction; it succeeds.
//   - Every INSERT entering at a worker was refused by the lead (days
//     ahead); each succeeds, its ID decoding to the shard.
func TestCitusFormerFailures(t *testing.T) {
	ctx := context.Background()
	c := testsrv.Citus(t)
	db, _ := testsrv.CitusDB(t)
	name := dbNameOf(t, db)
	shards := citusShards(t)
	m, err := migrate.New(db, pgfunc.Options{}, migrate.Options{OwnDatabaseOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	upRes, upErr := m.Up(ctx, shards, nil)
	for _, r := range upRes {
		if r.Err != nil {
			t.Fatalf("up %s on the coordinator: %v", r.Shard.Schema, r.Err)
		}
	}
	if upErr != nil {
		t.Fatal(upErr)
	}

	slots := map[int]bool{}
	for _, n := range c.Nodes() {
		node := testsrv.Open(t, "pgx", n.DSN(name))
		var inShard, own, shifted, slot int
		err := node.QueryRow(`SELECT
			count(*) FILTER (WHERE c.relnamespace::regnamespace::text ~ '^insta[0-3]$'),
			count(*) FILTER (WHERE c.relnamespace::regnamespace::text ~ '^insta[0-3]_node$' AND c.relname = 'next_id_node_seq'
			                   AND s.seqincrement = $1)
			  * (count(DISTINCT s.seqstart) FILTER (WHERE c.relname = 'next_id_node_seq') = 1)::int,
			count(*) FILTER (WHERE s.seqmin >= ((SELECT groupid FROM pg_dist_local_group)::bigint << 48) + 1 AND s.seqmin > 0),
			min(s.seqstart) FILTER (WHERE c.relname = 'next_id_node_seq')
			FROM pg_sequence s JOIN pg_class c ON c.oid = s.seqrelid
			WHERE c.relnamespace::regnamespace::text ~ '^insta[0-3](_node)?$'`, pgfunc.CitusSlots).Scan(&inShard, &own, &shifted, &slot)
		if err != nil {
			t.Fatal(err)
		}
		if inShard != 0 || own != 4 || shifted != 0 || slots[slot] {
			t.Fatalf("node %d: %d counters in the shard schemas, %d own counters stepping by %d from one slot, %d in a 2^48 range, slot %d (taken: %v); want 0, 4, 0 and a slot of its own",
				n.Port(), inShard, own, pgfunc.CitusSlots, shifted, slot, slots[slot])
		}
		slots[slot] = true
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

	if _, err := db.Exec(`INSERT INTO insta0.photos (v) SELECT g FROM generate_series(1, 5000) g`); err != nil {
		t.Fatalf("5,000-row INSERT ... SELECT through the coordinator: %v", err)
	}

	for _, w := range c.Workers() {
		node := testsrv.Open(t, "pgx", w.DSN(name))
		if err := node.QueryRow(`INSERT INTO insta0.photos (v) VALUES (2) RETURNING id`).Scan(&id); err != nil {
			t.Fatalf("INSERT entering at worker %d: %v", w.Port(), err)
		}
		if p, err := shardid.Instagram().Decompose(id); err != nil || p.Shard != 0 {
			t.Fatalf("ID %d through worker %d decodes to %+v, %v; want shard 0", id, w.Port(), p, err)
		}
	}
	var rows, distinct int
	if err := db.QueryRow(`SELECT count(*), count(DISTINCT id) FROM insta0.photos`).Scan(&rows, &distinct); err != nil || rows != 5003 || distinct != rows {
		t.Fatalf("insta0.photos: %d rows, %d distinct, %v; want 5003 distinct", rows, distinct, err)
	}
}
