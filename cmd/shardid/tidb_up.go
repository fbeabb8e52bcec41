package main

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"time"

	"github.com/shardid/shardid/internal/dsn"
	"github.com/shardid/shardid/tidb"
	"github.com/shardid/shardid/tidb/apply"
	"github.com/shardid/shardid/tidb/script"
)

// migrationFlags are the flags of up and status.
type migrationFlags struct {
	r     *renderFlags
	dsn   *string
	dir   *string
	table *string
	// lockWait is up's --lock-timeout (nil for status, which takes no
	// lock).
	lockWait *time.Duration
}

func addMigrationFlags(fs *flagSet, byHand bool) *migrationFlags {
	m := &migrationFlags{
		r:     addRenderFlags(fs, false),
		dsn:   fs.String("dsn", "", "go-sql-driver/mysql DSN, e.g. root@tcp(127.0.0.1:4000)/app (env SHARDID_TIDB_DSN); parseTime=true is added"),
		dir:   fs.String("dir", "", "goose migration directory (from tidb gen); instead of FILE arguments"),
		table: fs.String("version-table", "", "goose version table, name or schema.name (default goose_db_version)"),
	}
	fs.envVar("dsn", "SHARDID_TIDB_DSN")
	m.r.needByHand = byHand
	return m
}

// migrator opens the database and builds the migrator from --dir or from
// FILEs rendered in memory (numbered against the server by the migrator).
func (m *migrationFlags) migrator(ctx context.Context, env *cliEnv, name string, files []string) (*apply.Migrator, func(), error) {
	if *m.dsn == "" {
		return nil, nil, usagef("%s: --dsn is required (or set SHARDID_TIDB_DSN)", name)
	}
	if _, err := apply.DSN(*m.dsn); err != nil {
		return nil, nil, usagef("%s: --dsn %s: %v", name, dsn.Redact(*m.dsn), err)
	}
	popts := apply.Options{TableName: *m.table}
	if err := popts.Validate(); err != nil {
		return nil, nil, usagef("%s: --version-table: %v", name, err)
	}
	if m.lockWait != nil {
		if popts.LockTimeout = *m.lockWait; popts.LockTimeout <= 0 || popts.Validate() != nil {
			return nil, nil, usagef("%s: --lock-timeout: %s is not a positive duration of at most 1h (e.g. 30s, 5m)", name, *m.lockWait)
		}
	}
	var inputs []script.File
	switch {
	case *m.dir != "" && len(files) > 0:
		return nil, nil, usagef("%s: give --dir or FILE arguments, not both", name)
	case *m.dir == "" && len(files) == 0:
		return nil, nil, usagef("%s: want --dir DIR or one or more FILE.sql", name)
	case *m.dir != "":
		if st, err := os.Stat(*m.dir); err != nil || !st.IsDir() {
			return nil, nil, usagef("%s: --dir %s: no such directory (write one with shardid tidb gen --dir %s FILE.sql)", name, *m.dir, *m.dir)
		}
	default: // the FILEs: their flags checked and read before connecting
		var err error
		if _, inputs, err = m.r.inputs(env, files); err != nil {
			return nil, nil, err
		}
	}
	db, err := apply.Open(*m.dsn)
	if err != nil {
		return nil, nil, usagef("%s: --dsn %s: %v", name, dsn.Redact(*m.dsn), err)
	}
	mg, err := m.open(ctx, env, name, db, inputs, popts)
	if err != nil {
		db.Close()
		return nil, nil, err
	}
	return mg, func() { db.Close() }, nil
}

// open reaches the server behind db and builds the migrator from --dir,
// or from the inputs rendered in memory for that server (numbered against
// it by the migrator).
func (m *migrationFlags) open(ctx context.Context, env *cliEnv, name string, db *sql.DB, inputs []script.File, popts apply.Options) (*apply.Migrator, error) {
	pctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	if err := db.PingContext(pctx); err != nil { // before rendering, so a dead server is one line
		return nil, fmt.Errorf("%s: connect to %s: %w", name, dsn.Redact(*m.dsn), err)
	}
	if *m.dir != "" {
		ms, err := apply.ReadDir(os.DirFS(*m.dir))
		if err != nil {
			return nil, fmt.Errorf("%s: --dir %s: %w", name, *m.dir, err)
		}
		return apply.NewMigrator(db, ms, popts)
	}
	o, err := m.r.options()
	if err != nil {
		return nil, err
	}
	if o.Target, _, err = tidb.ServerTarget(pctx, db); err != nil { // render for the server that runs it
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	p, err := renderFiles(env.stderr, m.r, o, inputs)
	if err != nil {
		return nil, err
	}
	ms, err := apply.Migrations(p, apply.Options{})
	if err != nil {
		return nil, err
	}
	return apply.NewMigrator(db, ms, popts)
}

func runTiDBUp(ctx context.Context, env *cliEnv, args []string) (err error) {
	fs := newFlagSet(env, "tidb up")
	m := addMigrationFlags(fs, true)
	m.lockWait = fs.Duration("lock-timeout", apply.DefaultLockTimeout, "how long up waits while another tidb up on the same database and version table runs (it holds a GET_LOCK lock meanwhile)")
	asJSON := jsonFlag(fs)
	if err := parseFlags(env, fs, args); err != nil {
		return err
	}
	mg, done, err := m.migrator(ctx, env, "tidb up", fs.Args())
	if err != nil {
		return err
	}
	defer done()
	env, rep := startReport(env, *asJSON, "tidb up")
	defer func() { err = rep.finish(env, err) }()
	res, err := mg.Up(ctx)
	for _, r := range res {
		rep.row(r.Row())
	}
	rep.totals(apply.UpTotals(res))
	werr := apply.UpReport{Results: res, Stopped: err != nil}.WriteText(env.stdout)
	if err != nil {
		return fmt.Errorf("up: %w", err)
	}
	return werr
}

func runTiDBStatus(ctx context.Context, env *cliEnv, args []string) (err error) {
	fs := newFlagSet(env, "tidb status")
	m := addMigrationFlags(fs, false)
	asJSON := jsonFlag(fs)
	if err := parseFlags(env, fs, args); err != nil {
		return err
	}
	mg, done, err := m.migrator(ctx, env, "tidb status", fs.Args())
	if err != nil {
		return err
	}
	defer done()
	env, rep := startReport(env, *asJSON, "tidb status")
	defer func() { err = rep.finish(env, err) }()
	st, err := mg.Verify(ctx)
	if err != nil {
		return fmt.Errorf("status: %w", err)
	}
	for _, s := range st {
		rep.row(s.Row())
	}
	rep.totals(apply.StatusTotals(st))
	if err := apply.StatusReport(st).WriteText(env.stdout); err != nil {
		return err
	}
	if err := apply.CountStatus(st).Err(); err != nil {
		return fmt.Errorf("status: %w", err)
	}
	return nil
}
