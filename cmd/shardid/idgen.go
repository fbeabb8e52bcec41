package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/shardid/shardid"
	"github.com/shardid/shardid/lease"
)

func runIDGen(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlagSet(env, "idgen")
	var lf layoutFlags
	lf.register(fs)
	// App-side generators and leases default to the layout the library's
	// zero Settings use (shardid.Settings, lease.Settings), so a Go
	// program and idgen share a lease table without saying a layout.
	fs.Lookup("layout").DefValue, lf.layout = defaultAppLayout, defaultAppLayout
	var f leaseFlags
	f.register(fs)
	n := fs.Int64("n", 0, "how many IDs to print, one per line (required)")
	holder := fs.String("holder", "", "this process's name in the lease table; a stable name gets its own node back (default hostname:pid)")
	ttl := fs.Duration("ttl", lease.DefaultTTL, "lease lifetime without renewal; a killed idgen holds its node this long")
	wait := fs.Duration("wait", 5*time.Minute, "when renewals fail past the lease (the database away), wait this long for one to succeed and draw on, as the library does; 0: exit at once")
	asJSON := fs.Bool("json", false, "print one JSON document, the IDs its rows, instead of one ID per line")
	lossy := fs.Bool("allow-lossy-commit", false, "lease from a server that may lose acknowledged commits in a crash (PostgreSQL synchronous_commit off, MySQL/MariaDB innodb_flush_log_at_trx_commit or sync_binlog not 1); after such a crash a node id can go to a second holder while the first draws, and IDs repeat")
	if err := parseNoArgs(env, fs, args); err != nil {
		return err
	}
	if *n < 1 {
		return usagef("-n is required: how many IDs to print, at least 1")
	}
	if *ttl < 100*time.Millisecond {
		return usagef("--ttl: %s is too short (allowed 100ms or more)", *ttl)
	}
	if *wait < 0 {
		return usagef("--wait: %s is out of range (allowed 0 or more)", *wait)
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
	env, rep := startReport(env, *asJSON, "idgen")
	held, err := lease.Acquire(ctx, db, lease.Settings{
		Generator: shardid.Settings{Layout: layout}, Table: f.table, Dialect: d, Holder: *holder, TTL: *ttl, AllowLossyCommit: *lossy,
		OnEvent: func(e lease.Event) {
			switch e.Kind {
			case lease.Lost, lease.DatabaseDown, lease.DatabaseUp: // one line each
				notice(env, "idgen", e.String())
			}
		},
	})
	if err != nil {
		return rep.finish(env, lossyCommitHint(err))
	}
	// The layout too: decode's default is the database generators'
	// (instagram), not idgen's, so say what to decode these IDs with.
	fmt.Fprintf(env.stderr, "shardid idgen: node %d leased from %s as %q; layout %s (shardid decode --layout %s)\n",
		held.Node(), f.table, held.Holder(), layout, layout)
	next := rideOut(env, held, *wait)
	if rep != nil {
		draw := next
		next = func(ctx context.Context) (int64, error) {
			id, err := draw(ctx)
			if err == nil {
				rep.row(id)
			}
			return id, err
		}
		rep.total("node", held.Node())
		rep.total("layout", layout.String())
		rep.note(fmt.Sprintf("decode with shardid decode --layout %s", layout))
	}
	printed, drawErr := printIDs(ctx, env, *n, next)
	closeErr := held.Close()
	rep.total("printed", printed)
	if drawErr != nil {
		return rep.finish(env, fmt.Errorf("printed %d of %d IDs: %w", printed, *n, drawErr))
	}
	if closeErr != nil {
		// Every ID asked for is out and unique; a node not given back
		// only keeps the next holder waiting until its lease ends (the
		// table still records the renewal's time, later than any ID
		// drawn), so this is a warning, not a failure.
		msg := fmt.Sprintf("printed all %d IDs; giving the node back failed, so it stays held until its lease ends: %v", printed, closeErr)
		notice(env, "idgen", msg)
		rep.note(env.line(msg))
	}
	return rep.finish(env, nil)
}

// rideOut is lease.Next for printIDs (a lease.Rider): when drawing stops
// because no renewal succeeded in time, it says so once on stderr and
// waits up to wait for the background renewals to succeed, then draws on
// and says after how long.
func rideOut(env *cliEnv, held *lease.Lease, wait time.Duration) func(context.Context) (int64, error) {
	r := &lease.Rider{Lease: held, Wait: wait,
		OnStop: func(err error) {
			notice(env, "idgen", fmt.Sprintf("%v; waiting up to %s (--wait) for a renewal", err, wait))
		},
		OnResume: func(d time.Duration) {
			notice(env, "idgen", fmt.Sprintf("node %d: drawing again after %s", held.Node(), d.Round(time.Millisecond)))
		}}
	return func(ctx context.Context) (int64, error) {
		id, err := r.Next(ctx)
		var we *lease.WaitError
		if errors.As(err, &we) {
			return 0, fmt.Errorf("no renewal succeeded within --wait %s: %w", wait, we.Err)
		}
		return id, err
	}
}
