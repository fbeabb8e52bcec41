package citus_test

import (
	"context"
	"database/sql"
	"errors"
	"testing"
	"time"

	"github.com/shardid/shardid"
	"github.com/shardid/shardid/pgfunc"
	"github.com/shardid/shardid/pgfunc/migrate"
	"github.com/shardid/shardid/tools/testsrv"
)

// TestCitusUpChecksLikeAServer: up on a Citus coordinator runs a single
// server's checks with the cluster's generators in view: a second up of
// shard 0 in another schema is refused (ErrShardConflict: both would
// hand out the same IDs on every node), and so is an up of another
// kind (another epoch) beside the cluster's generators
// (ErrMixedGenerators); neither leaves anything on the cluster.
func TestCitusUpChecksLikeAServer(t *testing.T) {
	ctx := context.Background()
	testsrv.Citus(t)
	db, _ := testsrv.CitusDB(t)
	citusUp(t, db, citusShards(t)[:1])

	m, err := migrate.New(db, pgfunc.Options{}, migrate.Options{OwnDatabaseOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Up(ctx, []pgfunc.Shard{{Schema: "other0", ID: 0}}, nil); !errors.Is(err, pgfunc.ErrShardConflict) {
		t.Fatalf("up of shard 0 in other0 beside insta0: %v; want ErrShardConflict", err)
	}
	if _, err := otherEpoch(t, db).Up(ctx, []pgfunc.Shard{{Schema: "insta1", ID: 1}}, nil); !errors.Is(err, pgfunc.ErrMixedGenerators) {
		t.Fatalf("up of shard 1 with another epoch beside insta0: %v; want ErrMixedGenerators", err)
	}
	var left int
	if err := db.QueryRow(`SELECT count(*) FROM pg_namespace WHERE nspname IN ('other0', 'other0_node', 'insta1', 'insta1_node')`).Scan(&left); err != nil || left != 0 {
		t.Fatalf("the refused ups left %d schemas (%v)", left, err)
	}
}

// otherEpoch is a Migrator on db whose generators are another kind than
// the tests' (the Instagram layout a day earlier).
func otherEpoch(t *testing.T, db *sql.DB) *migrate.Migrator {
	t.Helper()
	other := shardid.Instagram()
	other.Epoch = other.Epoch.Add(-24 * time.Hour)
	m, err := migrate.New(db, pgfunc.Options{Layout: other}, migrate.Options{OwnDatabaseOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	return m
}
