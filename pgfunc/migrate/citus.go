package migrate

import (
	"context"
	"fmt"

	"github.com/shardid/shardid/pgfunc"
	"github.com/shardid/shardid/pgfunc/citus"
	"github.com/shardid/shardid/pgfunc/inventory"
)

// upCitus is Up on a Citus coordinator (docs/citus.md): under Up's
// server-wide lock, each shard is checked as on a single server against
// every generator of the server (every database Read reaches) and of the
// cluster (citus.Generators): a shard id another schema holds
// (ErrShardConflict), a kept counter of the shard id elsewhere (a
// Citus generator cannot carry a single server's counter on: its nodes
// count in their own slots; ErrShardConflict), another kind of generator
// (ErrMixedGenerators, see Options.AllowMixed); then citus.Up installs
// the shards that passed. ok is false when the database has no Citus.
func (m *Migrator) upCitus(ctx context.Context, shards []pgfunc.Shard, each func(pgfunc.Result)) (res []pgfunc.Result, ok bool, err error) {
	isCitus, _, err := citus.Detect(ctx, m.db)
	if err != nil {
		return nil, true, fmt.Errorf("up: %w", err)
	}
	if !isCitus {
		return nil, false, nil
	}
	unlock, err := m.srv.Lock(ctx)
	if err != nil {
		return nil, true, err
	}
	defer unlock()
	refused := map[int64]error{}
	check := func(err error) {
		for _, sh := range shards {
			refused[sh.ID] = err
		}
	}
	srv, err := m.srv.Read(ctx)
	if err == nil {
		err = srv.Refusal(m.allowUnread)
	}
	var gens []inventory.Installed
	if err == nil {
		gens, _, err = citus.Generators(ctx, m.db)
	}
	if err != nil {
		check(err)
	} else {
		srv = srv.With(gens)
		for _, sh := range shards {
			refused[sh.ID] = checkCitus(sh, m.opts, m.allowMixed, srv)
		}
	}
	var up []pgfunc.Shard
	for _, sh := range shards {
		if refused[sh.ID] == nil {
			up = append(up, sh)
		}
	}
	done := map[int64]pgfunc.Result{}
	if len(up) > 0 {
		got, ok, _ := citus.Up(ctx, m.db, m.opts, m.margin, up, each)
		if !ok {
			return nil, true, fmt.Errorf("up: the database lost Citus meanwhile")
		}
		for _, r := range got {
			done[r.Shard.ID] = r
		}
	}
	out := make([]pgfunc.Result, 0, len(shards))
	for _, sh := range shards {
		r, ok := done[sh.ID]
		if !ok {
			r = pgfunc.Result{Shard: sh, Err: refused[sh.ID]}
			if each != nil {
				each(r)
			}
		}
		out = append(out, r)
	}
	res, err = pgfunc.Partial(out)
	return res, true, err
}

// checkCitus is Up's check of sh, to be installed on a Citus cluster with
// o, against srv (the server's generators and the cluster's).
func checkCitus(sh pgfunc.Shard, o pgfunc.Options, allowMixed bool, srv *inventory.Inventory) error {
	if err := srv.Index().Check(sh, o); err != nil {
		return err
	}
	want := metaOf(sh, o)
	for _, in := range srv.All() {
		if in.Retired && in.Meta.Shard == sh.ID && (in.Database != "" || in.Schema != sh.Schema) {
			return fmt.Errorf("%w: a down kept shard %d's counter in %s; a generator on Citus cannot carry it on (each node counts in its own slot): bring the shard up there, or drop that counter once none of its IDs is in use anywhere",
				pgfunc.ErrShardConflict, sh.ID, in.Where())
		}
	}
	return srv.CheckMixed(sh, want, allowMixed, UpMixedHint)
}
