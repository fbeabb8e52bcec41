package main

import (
	"context"
	"fmt"
	"time"

	"github.com/shardid/shardid"
)

func runIDGen(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlagSet(env, "idgen")
	var lf layoutFlags
	lf.register(fs)
	var f leaseFlags
	f.register(fs)
	n := fs.Int64("n", 0, "how many IDs to print, one per line (required)")
	holder := fs.String("holder", "", "this process's name in the lease table; a stable name gets its own node back (default hostname:pid)")
	ttl := fs.Duration("ttl", shardid.DefaultLeaseTTL, "lease lifetime without renewal; a killed idgen holds its node this long")
	if err := parseFlags(env, fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("idgen: unexpected argument %q", fs.Arg(0))
	}
	if *n < 1 {
		return usagef("-n is required: how many IDs to print, at least 1")
	}
	if *ttl < 100*time.Millisecond {
		return usagef("--ttl: %s is too short (allowed 100ms or more)", *ttl)
	}
	layout, err := lf.resolve()
	if err != nil {
		return err
	}
	db, d, err := f.open(ctx, fs)
	if err != nil {
		return err
	}
	defer db.Close()
	lease, err := shardid.AcquireLease(ctx, db, shardid.LeaseSettings{
		Generator: shardid.Settings{Layout: layout}, Table: f.table, Dialect: d, Holder: *holder, TTL: *ttl,
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(env.stderr, "shardid idgen: node %d leased from %s as %q\n", lease.Node(), f.table, lease.Holder())
	printed, drawErr := printIDs(ctx, env, *n, func(context.Context) (int64, error) { return lease.Next() })
	closeErr := lease.Close()
	switch {
	case drawErr != nil:
		return fmt.Errorf("printed %d of %d IDs: %w", printed, *n, drawErr)
	case closeErr != nil:
		return fmt.Errorf("printed %d IDs, then: %w", printed, closeErr)
	}
	return nil
}
