package citus_test

import (
	"context"
	"testing"

	"github.com/shardid/shardid"
	"github.com/shardid/shardid/pgfunc"
	"github.com/shardid/shardid/pgfunc/migrate"
	"github.com/shardid/shardid/tools/testsrv"
)

// TestCitusUpFailedOnANodeRerun: an up that fails on the last worker,
// after the coordinator and the first worker made their counters of the
// shard, leaves a state the next up carries on: once the worker is
// mended, a rerun of the same up applies the shard and every node draws
// IDs of it. (Counters made before the shard's next_id_meta() left
// counters beside no metadata, which refused every later up of the
// cluster, this shard's and every other's, until dropped by hand.)
func TestCitusUpFailedOnANodeRerun(t *testing.T) {
	ctx := context.Background()
	c := testsrv.Citus(t)
	db, _ := testsrv.CitusDB(t)
	name := dbNameOf(t, db)
	shards := citusShards(t)[:1]
	last := testsrv.Open(t, "pgx", c.Workers()[len(c.Workers())-1].DSN(name))
	// What breaks the last worker's counter: a table where its counter
	// goes, made there alone.
	if _, err := last.Exec(`SET citus.enable_ddl_propagation = off; CREATE SCHEMA insta0_node; CREATE TABLE insta0_node.next_id_node_seq (x int)`); err != nil {
		t.Fatal(err)
	}
	m, err := migrate.New(db, pgfunc.Options{}, migrate.Options{OwnDatabaseOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Up(ctx, shards, nil); err == nil {
		t.Fatal("up with the last worker's counter blocked succeeded; the test's setup is wrong")
	}
	if _, err := last.Exec(`SET citus.enable_ddl_propagation = off; DROP SCHEMA insta0_node CASCADE`); err != nil {
		t.Fatal(err)
	}
	res, err := m.Up(ctx, shards, nil)
	for _, r := range res {
		if r.Err != nil {
			t.Errorf("rerun of up for %s once the worker is mended: %v", r.Shard.Schema, r.Err)
		}
	}
	if err != nil {
		t.Fatalf("rerun of up once the worker is mended: %v", err)
	}
	for _, dsn := range nodeDSNs(c, name) {
		var id int64
		if err := testsrv.Open(t, "pgx", dsn).QueryRow(`SELECT insta0.next_id()`).Scan(&id); err != nil {
			t.Fatalf("draw after the rerun: %v", err)
		}
		if p, err := shardid.Instagram().Decompose(id); err != nil || p.Shard != 0 {
			t.Errorf("ID %d decodes to %+v, %v; want shard 0", id, p, err)
		}
	}
}
