package citus_test

import (
	"context"
	"errors"
	"testing"

	"github.com/shardid/shardid/pgfunc/citus"
	"github.com/shardid/shardid/tools/testsrv"
)

// TestCitusMove: citus.Move moves a shard's schema to the other worker
// with citus_schema_move, and inserts through every node before and after
// repeat nothing; a node that is not in the cluster, and a worker whose
// counter of the shard is gone (its companion schema dropped there), are
// refused (ErrNotReady) before anything moves.
func TestCitusMove(t *testing.T) {
	ctx := context.Background()
	c := testsrv.Citus(t)
	db, _ := testsrv.CitusDB(t)
	name := dbNameOf(t, db)
	shards := citusShards(t)[:2]
	citusUp(t, db, shards)
	var l citusLoad
	l.start(t, nodeDSNs(c, name), shards, 2, 2, nil)
	l.wg.Wait()
	before := l.ids

	from := schemaNode(t, db, "insta0")
	to := c.Workers()[0]
	if to.Port() == from {
		to = c.Workers()[1]
	}
	if err := citus.Move(ctx, db, shards[0], "127.0.0.1", 1, ""); !errors.Is(err, citus.ErrNotReady) {
		t.Fatalf("move to a node outside the cluster: %v; want ErrNotReady", err)
	}
	bare := c.Workers()[0] // a worker not holding insta1, its counter of insta1 dropped
	if bare.Port() == schemaNode(t, db, "insta1") {
		bare = c.Workers()[1]
	}
	if _, err := testsrv.Open(t, "pgx", bare.DSN(name)).Exec(`DROP SCHEMA insta1_node CASCADE`); err != nil {
		t.Fatal(err)
	}
	if err := citus.Move(ctx, db, shards[0], "127.0.0.1", to.Port(), "bogus"); err == nil {
		t.Fatal("a move with transfer mode bogus was not refused")
	}
	func() {
		defer c.Moves()() // one change of placement at a time on the shared servers (a move refused wrongly would be one)
		if err := citus.Move(ctx, db, shards[1], "127.0.0.1", bare.Port(), ""); !errors.Is(err, citus.ErrNotReady) {
			t.Fatalf("move of insta1 to a worker without its counter: %v; want ErrNotReady", err)
		}
		if err := citus.Move(ctx, db, shards[0], "127.0.0.1", to.Port(), "force_logical"); err != nil {
			t.Fatal(err)
		}
	}()
	if got := schemaNode(t, db, "insta0"); got != to.Port() {
		t.Fatalf("insta0 on %d after its move to %d", got, to.Port())
	}
	var after citusLoad
	after.start(t, nodeDSNs(c, name), shards[:1], 2, 2, nil)
	after.wg.Wait()
	after.ids[0] = append(after.ids[0], before[0]...)
	after.check(t, db, shards[:1])
}
