package citus

// This file takes shards' generators down on a Citus cluster
// (docs/citus.md): the public functions on every node through the
// coordinator, then every node's jump, keeping every node's counter for
// the next up, as a single server's down keeps its counter.

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/shardid/shardid/pgfunc"
)

// Down removes shards' generators from the Citus cluster whose
// coordinator db is connected to: first, on the coordinator, each
// shard's public functions (Citus drops every node's copy; PostgreSQL
// refuses, SQLSTATE 2BP01, while a table's DEFAULT calls next_id()), then
// on every node its jump, jump lock and jump counters, once the clock is
// past that node's counter (waiting up to a second, else refusing). Every
// node's counter stays, with the schema's next_id_meta(): the next Up
// carries on from it in its slot, and pg resume moves it. The generator
// is taken down with the options its next_id_meta() records. A shard
// whose schema holds no generator is a Result with Applied false and a
// Note; a node that cannot be reached fails the shard (rerun down: it
// goes on where it stopped). ok is false when db's database has no
// Citus; on a worker it returns ErrWorker.
func Down(ctx context.Context, db *sql.DB, shards []pgfunc.Shard, each func(pgfunc.Result)) (res []pgfunc.Result, ok bool, err error) {
	nodes, err := clusterNodes(ctx, db, "run down on the coordinator, which takes the generator off every node")
	if err == nil && nodes == nil {
		return nil, false, nil
	}
	res, err = eachShard(shards, err, each, func(sh pgfunc.Shard) (bool, string, error) {
		return downShard(ctx, db, nodes, sh)
	})
	return res, true, err
}

// downShard takes sh's generator off the cluster of nodes.
func downShard(ctx context.Context, db *sql.DB, nodes []Node, sh pgfunc.Shard) (applied bool, note string, err error) {
	meta, live, ok, err := readMeta(ctx, db, sh.Schema)
	switch {
	case err != nil:
		return false, "", err
	case !ok:
		return false, "no generator applied", nil
	case meta.Shard != sh.ID:
		return false, "", fmt.Errorf("%w: %s holds the generator of shard %d, not %d", pgfunc.ErrGeneratorMismatch, sh.Schema, meta.Shard, sh.ID)
	}
	o := pgfunc.Options{Layout: meta.LayoutOf(), Mode: meta.Mode, Lead: meta.Lead()}
	coord, node, err := pgfunc.RenderCitusDown(sh, o)
	if err != nil {
		return false, "", err
	}
	if live {
		if err := inTx(ctx, db, coord); err != nil {
			return false, "", fmt.Errorf("%s's public functions: %w", sh.Schema, err)
		}
	}
	err = eachNode(ctx, db, nodes, func(_ Node, n *sql.DB) error {
		if err := inTx(ctx, n, node); err != nil {
			return fmt.Errorf("shard %d's jump: %w", sh.ID, err)
		}
		return nil
	})
	if err != nil {
		return false, "", err
	}
	if !live {
		return false, "already down (every node's counter kept)", nil
	}
	return true, "", nil
}
