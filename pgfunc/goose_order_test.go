package pgfunc_test

import (
	"context"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/pressly/goose/v3"

	"github.com/shardid/shardid/pgfunc"
)

// TestGooseLowerShardLater pins what docs/operations.md says of the stock
// goose route: pg gen numbers a shard's migration by its shard id (shard N
// is version N+1), and goose's history is the directory's, so a shard
// added later with a lower id than shards applied before is a "missing"
// migration to goose: plain goose up refuses it, goose up with
// -allow-missing (WithAllowOutofOrder) applies it, and its generator
// works.
func TestGooseLowerShardLater(t *testing.T) {
	t.Parallel()
	db, _ := newDB(t)
	ctx := context.Background()
	fsys := fstest.MapFS{}
	add := func(shards ...pgfunc.Shard) {
		files, err := pgfunc.Files(shards, pgfunc.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for name, text := range files {
			fsys[name] = &fstest.MapFile{Data: text, Mode: 0o644}
		}
	}
	provider := func(opts ...goose.ProviderOption) *goose.Provider {
		p, err := goose.NewProvider(goose.DialectPostgres, db, fsys, append(opts, goose.WithDisableGlobalRegistry(true))...)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	add(pgfunc.Shard{Schema: "insta30", ID: 30}, pgfunc.Shard{Schema: "insta31", ID: 31})
	if _, err := provider().Up(ctx); err != nil {
		t.Fatal(err)
	}
	add(pgfunc.Shard{Schema: "insta7", ID: 7})
	if _, err := provider().Up(ctx); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Fatalf("goose up of shard 7 after shards 30-31: %v; want goose's missing-migrations refusal", err)
	}
	if _, err := provider(goose.WithAllowOutofOrder(true)).Up(ctx); err != nil {
		t.Fatalf("goose up -allow-missing of shard 7 after shards 30-31: %v", err)
	}
	var id int64
	if err := db.QueryRow("SELECT insta7.id_shard(insta7.next_id())").Scan(&id); err != nil || id != 7 {
		t.Fatalf("shard 7's generator: %d, %v", id, err)
	}
}
