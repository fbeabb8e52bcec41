package main

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/shardid/shardid"
	"github.com/shardid/shardid/dialect"
	"github.com/shardid/shardid/internal/dsn"
	"github.com/shardid/shardid/lease"
)

// Environment variables read by the worker and idgen commands; flags win
// over them.
const (
	envWorkerDSN   = "SHARDID_WORKER_DSN"   // --dsn
	envWorkerTable = "SHARDID_WORKER_TABLE" // --table
)

// leaseFlags are the flags of every command that uses the lease table.
type leaseFlags struct {
	dsn, table string
}

func (f *leaseFlags) register(fs *flagSet) {
	fs.envStringVar(&f.dsn, "dsn", envWorkerDSN, "", "PostgreSQL URL (postgres://user@host:5432/db) or MySQL/MariaDB/TiDB DSN (user@tcp(host:3306)/db) (env "+envWorkerDSN+")")
	fs.envStringVar(&f.table, "table", envWorkerTable, lease.DefaultTable, "lease table, name or schema.name (env "+envWorkerTable+")")
}

// open checks the table name, then connects.
func (f *leaseFlags) open(ctx context.Context, fs *flagSet) (*sql.DB, dialect.Dialect, error) {
	if err := lease.CheckTable(f.table); err != nil {
		return nil, "", usagef("%s: %v", fs.origin("table"), err)
	}
	return openAnyDSN(ctx, fs.origin("dsn"), f.dsn, dsn.Postgres|dsn.MySQL)
}

// parseLeaseCommand parses the flags of a worker subcommand that takes no
// arguments and connects.
func parseLeaseCommand(ctx context.Context, env *cliEnv, fs *flagSet, f *leaseFlags, args []string) (*sql.DB, dialect.Dialect, error) {
	if err := parseNoArgs(env, fs, args); err != nil {
		return nil, "", err
	}
	return f.open(ctx, fs)
}

func runWorkerUp(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlagSet(env, "worker up")
	var f leaseFlags
	f.register(fs)
	asJSON := jsonFlag(fs)
	db, d, err := parseLeaseCommand(ctx, env, fs, &f, args)
	if err != nil {
		return err
	}
	defer db.Close()
	env, rep := startReport(env, *asJSON, "worker up")
	applied, err := lease.Up(ctx, db, d, f.table)
	if err != nil {
		return rep.finish(env, err)
	}
	up := lease.UpResult{Place: lease.Place{Table: f.table, Server: dsn.Redact(f.dsn), Dialect: d}, Applied: applied}
	rep.row(up.Row())
	return rep.finish(env, up.WriteText(env.stdout))
}

func runWorkerStatus(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlagSet(env, "worker status")
	var f leaseFlags
	f.register(fs)
	asJSON := jsonFlag(fs)
	db, d, err := parseLeaseCommand(ctx, env, fs, &f, args)
	if err != nil {
		return err
	}
	defer db.Close()
	env, rep := startReport(env, *asJSON, "worker status")
	leases, err := lease.List(ctx, db, d, f.table)
	if err != nil {
		return rep.finish(env, err) // with what to do when the table is missing or the role lacks grants
	}
	for _, l := range leases {
		rep.row(l.Row())
	}
	sum := lease.Summarize(leases)
	rep.totals(sum.Totals())
	if note := sum.FencedNote(); note != "" {
		rep.note(note)
	}
	return rep.finish(env, lease.Status{Table: f.table, Leases: leases}.WriteText(env.stdout))
}

func runWorkerFence(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlagSet(env, "worker fence")
	var lf layoutFlags
	fs.envStringVar(&lf.layout, "layout", envLayout, "", "the holders' ID layout, which decides how many node ids there are: "+layoutHelp+" (env "+envLayout+"; default: the layout the table's rows record)")
	fs.envStringVar(&lf.epoch, "epoch", envEpoch, "", "the holders' custom epoch, with --layout (env "+envEpoch+")")
	var f leaseFlags
	f.register(fs)
	ttl := fs.Duration("ttl", 0, fmt.Sprintf("how long the fence lasts: at least the longest lease TTL any holder of the table uses; refused below the longest a row records (default: that longest, or %s when no row records one)", lease.DefaultTTL))
	skew := fs.Duration("max-clock-skew", lease.DefaultMaxClockSkew, "the largest MaxClockSkew any holder uses: new holders draw only this long after the fence ends")
	nodes := fs.Int64("nodes", 0, fmt.Sprintf("fence node ids 0 to N-1 (and every row the table holds) instead of every node id of the layout; needed past 20 node bits (at most %d): N above the most generators that ever held a lease at once, since they take the lowest free id", lease.MaxFenceNodes))
	if err := parseNoArgs(env, fs, args); err != nil {
		return err
	}
	switch {
	case fs.set("ttl") && *ttl < 10*time.Millisecond:
		return usagef("--ttl: %s is too short (allowed 10ms or more: the longest TTL of the holders)", *ttl)
	case *skew < 0:
		return usagef("--max-clock-skew: %s is out of range (allowed 0 or more)", *skew)
	case *nodes < 0 || *nodes > lease.MaxFenceNodes:
		return usagef("--nodes: %d is out of range (allowed 1-%d, or 0 for every node id of the layout)", *nodes, lease.MaxFenceNodes)
	}
	// The layout the table's rows record, unless one is given (then the
	// rows must have it).
	var layout shardid.Layout
	switch {
	case lf.layout != "":
		var err error
		if layout, err = lf.resolve(); err != nil {
			return err
		}
	case lf.epoch != "":
		return flagUsagef("epoch", "%s needs --layout too: an epoch belongs to a layout", lf.epoch)
	}
	db, d, err := f.open(ctx, fs)
	if err != nil {
		return err
	}
	defer db.Close()
	set := lease.FenceSettings{Layout: layout, TTL: *ttl, MaxClockSkew: *skew, Nodes: *nodes}
	if *skew == 0 {
		set.MaxClockSkew = -1 // none, not the default
	}
	res, err := lease.Fence(ctx, db, d, f.table, set)
	if err != nil {
		// The package names its settings; the command's flags are these.
		msg := strings.NewReplacer("(Nodes; shardid worker fence --nodes N)", "(--nodes N)", "(Layout; shardid worker fence --layout)", "(--layout)",
			"settings: TTL ", "settings: --ttl ", "(give at least", "(give --ttl at least", "or leave it 0 for the longest", "or leave --ttl out for the longest").Replace(err.Error())
		return &redactedError{msg: msg, err: err}
	}
	if err := res.WriteText(env.stdout, lease.Place{Table: f.table, Server: dsn.Redact(f.dsn), Dialect: d}, fs.set("ttl")); err != nil {
		return err
	}
	if note := res.UnknownNote(); note != "" {
		notice(env, "worker fence", note)
	}
	return nil
}
