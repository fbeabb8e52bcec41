package citus_test

import (
	"context"
	"database/sql"
	"strconv"
	"testing"

	"github.com/shardid/shardid/tools/testsrv"
)

// TestCitusFastPathNamesTheNode: next_id()'s fast path runs only in a
// session on the node its counter was made for, whatever the session
// sets. On a worker whose counter stands two seconds ahead of the clock
// (within the lead, so a draw in a transaction with an id needs no jump),
// five draws take the fast path; once the node's next_id_node_id() names
// another node (what a copy of another node's data directory, joined as
// this one, carries), five draws in a session that sets the former
// gate, shardid.citus_0, itself all go to the jump (which refuses a
// copy: TestCitusMovesAndNodeChanges). The control: a template whose fast
// path opened on a session setting (the previous release) lets that
// session draw all five on the fast path.
func TestCitusFastPathNamesTheNode(t *testing.T) {
	ctx := context.Background()
	c := testsrv.Citus(t)
	db, _ := testsrv.CitusDB(t)
	shards := citusShards(t)[:1]
	citusUp(t, db, shards)
	w := testsrv.Open(t, "pgx", c.Workers()[0].DSN(dbNameOf(t, db)))

	// jumps draws five IDs of shard 0 in one transaction with an id, the
	// session's setting set when forge, and returns how many took the jump.
	jumps := func(forge bool) int64 {
		t.Helper()
		if _, err := w.Exec(`SELECT pg_catalog.setval('insta0_node.next_id_node_seq',
			((((pg_catalog.floor(pg_catalog.date_part('epoch', pg_catalog.clock_timestamp()) * 1000) - 1735689600000 + 2000)::bigint) << 10) | (s.last_value & 15)), false)
			FROM insta0_node.next_id_node_seq AS s`); err != nil {
			t.Fatal(err)
		}
		conn, err := w.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		tx, err := conn.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback()
		setup := `SELECT pg_catalog.txid_current(); SET LOCAL track_functions = 'all'`
		if forge {
			setup += `; SET LOCAL shardid.citus_0 = '1'`
		}
		if _, err := tx.Exec(setup); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 5; i++ {
			var id int64
			if err := tx.QueryRow(`SELECT insta0.next_id()`).Scan(&id); err != nil {
				t.Fatalf("draw %d: %v", i, err)
			}
		}
		var calls sql.NullInt64
		if err := tx.QueryRow(`SELECT sum(calls) FROM pg_catalog.pg_stat_xact_user_functions WHERE schemaname = 'insta0_node' AND funcname = 'next_id_jump'`).Scan(&calls); err != nil {
			t.Fatal(err)
		}
		return calls.Int64
	}

	// A session's first draw may check the node in the jump; the rest run
	// on the fast path.
	if n := jumps(false); n > 1 {
		t.Fatalf("on the counter's own node, %d of 5 draws took the jump; want at most the first", n)
	}
	var other int64
	if err := w.QueryRow(`SELECT max(nodeid) + 100 FROM pg_catalog.pg_dist_node`).Scan(&other); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Exec(`SET citus.enable_ddl_propagation = off;
		CREATE OR REPLACE FUNCTION insta0_node.next_id_node_id() RETURNS bigint LANGUAGE sql IMMUTABLE RETURN ` + strconv.FormatInt(other, 10) + `::bigint`); err != nil {
		t.Fatal(err)
	}
	if n := jumps(true); n != 5 {
		t.Errorf("with next_id_node_id() naming node %d and the session's own shardid.citus_0 set, %d of 5 draws took the jump; want all 5 (the node is checked on every draw, not by a setting a session can make)", other, n)
	}
}
