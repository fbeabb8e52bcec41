package citus_test

import (
	"context"
	"errors"
	"testing"

	"github.com/shardid/shardid/pgfunc"
	"github.com/shardid/shardid/pgfunc/migrate"
	"github.com/shardid/shardid/pgfunc/resume"
	"github.com/shardid/shardid/tools/testsrv"
)

// TestCitusDownKeepsCounters: down on the coordinator refuses while a
// table's DEFAULT calls next_id() (ErrInUse); with the DEFAULT dropped it
// takes the shard's functions off every node and keeps every node's
// counter where it stood; resume moves the kept counters; an up with
// another layout is refused (ErrGeneratorMismatch), and an up with the
// generator's own carries every node's counter on: each worker's next ID
// lies past every ID of the shard before the down.
func TestCitusDownKeepsCounters(t *testing.T) {
	ctx := context.Background()
	c := testsrv.Citus(t)
	db, _ := testsrv.CitusDB(t)
	name := dbNameOf(t, db)
	shards := citusShards(t)[:1]
	m := citusUp(t, db, shards)
	var l citusLoad
	l.start(t, nodeDSNs(c, name), shards, 1, 2, nil)
	l.check(t, db, shards)
	var top int64
	if err := db.QueryRow(`SELECT max(id) FROM insta0.photos`).Scan(&top); err != nil {
		t.Fatal(err)
	}
	last := func(dsn string) int64 {
		t.Helper()
		var v int64
		if err := testsrv.Open(t, "pgx", dsn).QueryRow(`SELECT last_value FROM insta0_node.next_id_node_seq`).Scan(&v); err != nil {
			t.Fatalf("the counter on %s: %v", dsn, err)
		}
		return v
	}
	before := map[string]int64{}
	for _, dsn := range nodeDSNs(c, name) {
		before[dsn] = last(dsn)
	}

	if _, err := m.Down(ctx, shards, nil); !errors.Is(err, migrate.ErrInUse) {
		t.Fatalf("down while insta0.photos's DEFAULT calls next_id(): %v; want ErrInUse", err)
	}
	if _, err := db.Exec(`ALTER TABLE insta0.photos ALTER COLUMN id DROP DEFAULT`); err != nil {
		t.Fatal(err)
	}
	res, err := m.Down(ctx, shards, nil)
	if err != nil || len(res) != 1 || !res[0].Applied {
		t.Fatalf("down: %+v, %v", res, err)
	}
	for _, dsn := range nodeDSNs(c, name) {
		var fn, jump bool
		if err := testsrv.Open(t, "pgx", dsn).QueryRow(`SELECT to_regprocedure('insta0.next_id()') IS NOT NULL, to_regprocedure('insta0_node.next_id_jump(timestamptz)') IS NOT NULL`).Scan(&fn, &jump); err != nil {
			t.Fatal(err)
		}
		if fn || jump {
			t.Errorf("after down, %s still holds next_id() %v, the jump %v", dsn, fn, jump)
		}
		if v := last(dsn); v != before[dsn] {
			t.Errorf("after down, the counter on %s stands at %d; want it kept at %d", dsn, v, before[dsn])
		}
	}
	if res, err := m.Down(ctx, shards, nil); err != nil || res[0].Applied {
		t.Fatalf("down again: %+v, %v; want nothing applied", res, err)
	}

	rs, err := resume.Run(ctx, m, shards, resume.Options{Lead: pgfunc.DefaultLead, DryRun: true}, nil)
	if err != nil || len(rs) != 3 {
		t.Fatalf("resume of the kept counters: %+v, %v; want 3", rs, err)
	}
	for _, r := range rs {
		if !r.Retired || r.Err != nil || !r.Moved {
			t.Errorf("resume of %s on %s: retired %v, moved %v, %v; want a kept counter that would move", r.Schema, r.Node, r.Retired, r.Moved, r.Err)
		}
	}

	if _, err := otherEpoch(t, db).Up(ctx, shards, nil); !errors.Is(err, pgfunc.ErrGeneratorMismatch) {
		t.Fatalf("up with another epoch over the kept counters: %v; want ErrGeneratorMismatch", err)
	}
	if _, err := m.Up(ctx, shards, nil); err != nil {
		t.Fatal(err)
	}
	for _, dsn := range nodeDSNs(c, name) {
		var id int64
		if err := testsrv.Open(t, "pgx", dsn).QueryRow(`SELECT insta0.next_id()`).Scan(&id); err != nil {
			t.Fatalf("draw on %s after up: %v", dsn, err)
		}
		if id <= top {
			t.Errorf("after down and up, %s drew %d, not past %d, the shard's last ID before", dsn, id, top)
		}
	}
}
