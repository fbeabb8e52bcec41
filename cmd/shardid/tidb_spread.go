package main

import (
	"context"

	"github.com/shardid/shardid/tidb/spread"
)

func runTiDBSpread(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlagSet(env, "tidb spread")
	var cfg spread.Config
	fs.IntVar(&cfg.Rate, "rate", spread.DefaultRate, "keys inserted per simulated second, 1-1000000000 (at 1000 or less every Snowflake ID has sequence 0)")
	fs.IntVar(&cfg.Writes, "writes", spread.DefaultWrites, "keys to insert")
	fs.IntVar(&cfg.Window, "window", spread.DefaultWindow, "writes per reporting window, at most --writes")
	fs.IntVar(&cfg.SplitRows, "split-rows", spread.DefaultSplitRows, "rows past which a region splits at its median key, ≥ 2")
	fs.Uint64Var(&cfg.Seed, "seed", 1, "seed for the random shard bits")
	shard := spread.Source{Kind: spread.Shard}
	fs.IntVar(&shard.ShardBits, "shard-bits", 4, "SHARD_ROW_ID_BITS / AUTO_RANDOM shard bits of the shard source, 1-15")
	fs.IntVar(&shard.Batch, "batch", 1, "rows per transaction sharing their shard bits, ≥ 1")
	if err := parseFlags(env, fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("tidb spread: unexpected argument %q (allowed: flags only)", fs.Arg(0))
	}
	if err := cfg.Validate(); err != nil {
		return usagef("tidb spread: %v", err)
	}
	if err := shard.Validate(); err != nil {
		return usagef("tidb spread: %v", err)
	}

	sources := spread.Standard()
	sources[len(sources)-1] = shard
	rep, err := spread.Compare(ctx, sources, cfg)
	if err != nil {
		return err
	}
	return rep.WriteText(env.stdout)
}
