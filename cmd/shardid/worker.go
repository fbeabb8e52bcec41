package main

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/shardid/shardid"
	"github.com/shardid/shardid/internal/leasemig"
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
	fs.StringVar(&f.dsn, "dsn", "", "PostgreSQL URL (postgres://user@host:5432/db) or MySQL/MariaDB/TiDB DSN (user@tcp(host:3306)/db) (env "+envWorkerDSN+")")
	fs.envVar("dsn", envWorkerDSN)
	fs.StringVar(&f.table, "table", shardid.DefaultLeaseTable, "lease table, name or schema.name (env "+envWorkerTable+")")
	fs.envVar("table", envWorkerTable)
}

// open checks the table name, then connects.
func (f *leaseFlags) open(ctx context.Context, fs *flagSet) (*sql.DB, shardid.Dialect, error) {
	if err := shardid.CheckLeaseTable(f.table); err != nil {
		return nil, "", usagef("%s: %v", fs.origin("table"), err)
	}
	return openAnyDSN(ctx, fs.origin("dsn"), f.dsn, formPostgres|formMySQL)
}

// parseLeaseCommand parses the flags of a worker subcommand that takes no
// arguments and connects.
func parseLeaseCommand(ctx context.Context, env *cliEnv, fs *flagSet, f *leaseFlags, args []string) (*sql.DB, shardid.Dialect, error) {
	if err := parseFlags(env, fs, args); err != nil {
		return nil, "", err
	}
	if fs.NArg() > 0 {
		return nil, "", usagef("%s: unexpected argument %q", fs.Name()[len("shardid "):], fs.Arg(0))
	}
	return f.open(ctx, fs)
}

func runWorkerUp(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlagSet(env, "worker up")
	var f leaseFlags
	f.register(fs)
	db, d, err := parseLeaseCommand(ctx, env, fs, &f, args)
	if err != nil {
		return err
	}
	defer db.Close()
	applied, err := leasemig.Up(ctx, db, d, f.table)
	if err != nil {
		return err
	}
	state := "already up to date"
	if applied {
		state = "created"
	}
	fmt.Fprintf(env.stdout, "lease table %s on %s (%s): %s; goose history in %s\n", f.table, redactDSN(f.dsn), d, state, leasemig.HistoryTable(f.table))
	return nil
}

// leaseJSON is one element of worker status --json.
type leaseJSON struct {
	Node      int64  `json:"node"`
	Holder    string `json:"holder"`
	Live      bool   `json:"live"`
	Until     string `json:"until"`
	LastDrawn string `json:"last_drawn,omitempty"`
	Layout    string `json:"layout"`
}

func runWorkerStatus(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlagSet(env, "worker status")
	var f leaseFlags
	f.register(fs)
	asJSON := fs.Bool("json", false, "print a JSON array")
	db, d, err := parseLeaseCommand(ctx, env, fs, &f, args)
	if err != nil {
		return err
	}
	defer db.Close()
	leases, err := shardid.ListLeases(ctx, db, d, f.table)
	if err != nil {
		return err // with what to do when the table is missing or the role lacks grants
	}
	out := make([]leaseJSON, len(leases))
	for i, l := range leases {
		out[i] = leaseJSON{Node: l.Node, Holder: l.Holder, Live: l.Live, Until: l.Until.Format(time.RFC3339Nano), Layout: l.Layout}
		if !l.LastDrawn.IsZero() {
			out[i].LastDrawn = l.LastDrawn.Format(time.RFC3339Nano)
		}
	}
	if *asJSON {
		return writeJSON(env.stdout, out)
	}
	fmt.Fprintf(env.stdout, "%-6s %-5s %-32s %-27s %s\n", "NODE", "STATE", "HOLDER", "UNTIL (database clock)", "LAST DRAWN (holder clock)")
	live := 0
	for _, l := range out {
		state := "free"
		if l.Live {
			state = "live"
			live++
		}
		fmt.Fprintf(env.stdout, "%-6d %-5s %-32s %-27s %s\n", l.Node, state, l.Holder, l.Until, l.LastDrawn)
	}
	fmt.Fprintf(env.stdout, "node ids leased so far: %d; live now: %d (table %s)\n", len(out), live, f.table)
	return nil
}
