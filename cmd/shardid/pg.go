package main

import (
	"context"
	"errors"
	"io"
	"slices"
	"strings"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx" for goose

	"github.com/shardid/shardid/internal/gooseup"
	"github.com/shardid/shardid/pgfunc"
	"github.com/shardid/shardid/pgfunc/fleet"
	"github.com/shardid/shardid/pgfunc/inventory"
	"github.com/shardid/shardid/pgfunc/migrate"
)

func runPGRender(_ context.Context, env *cliEnv, args []string) error {
	fs := newFlagSet(env, "pg render")
	var f genFlags
	f.register(fs, "")
	shard := fs.Int64("shard", -1, "the logical shard id (required)")
	if err := parseNoArgs(env, fs, args); err != nil {
		return err
	}
	o, err := f.options()
	if err != nil {
		return err
	}
	if !fs.set("shard") {
		return usagef("--shard is required: a shard id from 0 to %d", o.Layout.MaxShard())
	}
	if err := o.Layout.CheckShard(*shard); err != nil {
		return usagef("--shard: %v", err)
	}
	schema, err := pgfunc.SchemaName(f.schemaFormat, *shard)
	if err != nil {
		return flagUsagef("schema-format", "%v", err)
	}
	text, err := pgfunc.Render(pgfunc.Shard{Schema: schema, ID: *shard}, o)
	if err != nil {
		return err
	}
	_, err = env.stdout.Write(text)
	return err
}

// pgTarget is what up, status and down work on: one database's Migrator
// and shards, or (--map) a whole fleet.
type pgTarget struct {
	m      *migrate.Migrator
	shards []pgfunc.Shard
	fleet  *fleet.Map
	close  func()
	// asked is true when the command line or the environment named the
	// generator's options (layout, epoch, mode, lead): status then judges each
	// generator against them, not against the defaults nobody asked for.
	asked bool
	// askedFields says which of the generator's options were named:
	// down holds a generator to those only.
	askedFields migrate.Asked
	json        bool // --json
}

// migrateCommand parses the flags of up, status and down and opens the
// database and the migrator, or loads the shard map.
func migrateCommand(ctx context.Context, env *cliEnv, name string, args []string, shardsRequired bool) (*pgTarget, error) {
	fs := newFlagSet(env, "pg "+name)
	var f genFlags
	if shardsRequired {
		f.register(fs, "required")
	} else {
		f.register(fs, "default: every generator in the database")
	}
	dsn := fs.envString("dsn", envPGDSN, "", "PostgreSQL connection URL (env "+envPGDSN+")")
	parallel := new(int)
	*parallel = migrate.DefaultParallel
	if name != "status" {
		fs.IntVar(parallel, "parallel", migrate.DefaultParallel, "schemas to migrate at once, each on its own connection")
	}
	lockWait := new(time.Duration)
	*lockWait = inventory.DefaultLockTimeout
	endMargin := new(time.Duration)
	allowMixed, allowUnread := new(bool), new(bool)
	if name == "up" { // only up takes the server-wide lock and applies
		fs.DurationVar(lockWait, "lock-timeout", inventory.DefaultLockTimeout, "how long up waits for the server-wide lock (in database "+inventory.LockDatabase+") while another session holds it")
		fs.DurationVar(endMargin, "end-margin", pgfunc.DefaultEndMargin, "refuse a layout whose time field ends within this much of now (0: refuse only one that has ended)")
		// Accepting a risk is said on the command line of the run that
		// takes it: these have no environment variable to be left set.
		fs.BoolVar(allowMixed, "allow-mixed", false, "apply beside generators of another layout, epoch or mode on the server, when their IDs provably never meet (refused otherwise, and always without this flag)")
		fs.BoolVar(allowUnread, "allow-unread-databases", false, "apply although the role cannot read some database of the server (no CONNECT privilege): a copy of a shard there would go unseen")
	}
	mapPath := fs.String("map", "", "shard map file (TOML): every server of a fleet at once, instead of --dsn and --shards"+mapEnvNote)
	asJSON := jsonFlag(fs)
	if err := parseNoArgs(env, fs, args); err != nil {
		return nil, err
	}
	if *mapPath != "" && *asJSON {
		return nil, usagef("pg %s: --json takes --dsn, not --map (pg verify --json reports a fleet)", name)
	}
	if *mapPath != "" {
		m, err := loadMap(env, fs, *mapPath)
		if err != nil {
			return nil, err
		}
		m.AllowMixed, m.AllowUnreadDatabases = *allowMixed, *allowUnread
		return &pgTarget{fleet: m, close: func() {}}, nil
	}
	o, shards, err := f.parse(f.shards != "" || shardsRequired)
	if err != nil {
		return nil, err
	}
	mo := migrate.Options{Parallel: *parallel, LockTimeout: *lockWait, EndMargin: *endMargin,
		AllowMixed: *allowMixed, AllowUnreadDatabases: *allowUnread, CheckEnd: name == "up"}
	if err := checkRunFlags(*parallel, *lockWait); err != nil {
		return nil, err
	}
	switch {
	case *endMargin < 0:
		return nil, usagef("--end-margin: %s is negative (e.g. 8760h for a year, 0 to refuse only a layout that has ended)", *endMargin)
	case *endMargin == 0:
		mo.EndMargin = -1 // MigrateOptions: negative refuses only an ended layout
	}
	m, err := openMigrator(ctx, *dsn, o, mo)
	if err != nil {
		return nil, err
	}
	// Given on the command line or by the environment (origin names the
	// variable then), not left at its default.
	given := func(n string) bool { return fs.set(n) || fs.origin(n) != "--"+n }
	asked := slices.ContainsFunc([]string{"layout", "epoch", "mode", "lead"}, given)
	fields := migrate.Asked{Layout: given("layout"), Epoch: given("epoch"), Mode: given("mode")}
	return &pgTarget{m: m, shards: shards, close: func() { m.Close() }, asked: asked, askedFields: fields, json: *asJSON}, nil
}

// checkRunFlags checks --parallel and --lock-timeout, as every pg
// command taking them (up, down, resume) words it: given on the command
// line, neither means a default, unlike their zero in migrate.Options.
func checkRunFlags(parallel int, lockWait time.Duration) error {
	if lockWait <= 0 {
		return usagef("--lock-timeout: %s is not a positive duration (e.g. 30s, 2m)", lockWait)
	}
	if parallel < 1 || parallel > migrate.MaxParallel {
		return usagef("--parallel: %d is out of range (allowed 1-%d)", parallel, migrate.MaxParallel)
	}
	return nil
}

func runPGUp(ctx context.Context, env *cliEnv, args []string) error {
	return runMigrate(ctx, env, "up", args, (*migrate.Migrator).Up)
}

func runPGDown(ctx context.Context, env *cliEnv, args []string) error {
	return runMigrate(ctx, env, "down", args, nil)
}

func runMigrate(ctx context.Context, env *cliEnv, name string, args []string,
	do func(*migrate.Migrator, context.Context, []pgfunc.Shard, func(pgfunc.Result)) ([]pgfunc.Result, error)) (err error) {
	t, err := migrateCommand(ctx, env, name, args, true)
	if err != nil {
		return err
	}
	defer t.close()
	env, rep := startReport(env, t.json, "pg "+name)
	defer func() { err = rep.finish(env, err) }()
	if t.fleet != nil {
		return runMapMigrate(ctx, env, name, t.fleet)
	}
	if do == nil { // down: each schema's own generator, held to the options named
		do = func(m *migrate.Migrator, ctx context.Context, shards []pgfunc.Shard, each func(pgfunc.Result)) ([]pgfunc.Result, error) {
			return m.DownInstalled(ctx, shards, t.askedFields, each)
		}
	}
	start, tally := time.Now(), pgfunc.Tally{Shards: len(t.shards), Verb: map[string]string{"up": "applied", "down": "removed"}[name]}
	_, _ = do(t.m, ctx, t.shards, func(r pgfunc.Result) { // a partial error: each result says
		writeProgress(env, rep, tally.Add(r))
	})
	return writeTally(env, rep, tally, start)
}

// writeProgress prints the line of one result of pg up, down or grant,
// scrubbed (its error may quote a DSN), and adds it to the JSON report.
func writeProgress(env *cliEnv, rep *jsonReport, p pgfunc.Progress) {
	var b strings.Builder
	_ = p.WriteText(&b)
	_, _ = io.WriteString(env.stdout, env.secrets.Scrub(b.String()))
	row := p.Row()
	row.Error = env.line(row.Error)
	rep.row(row)
}

// writeTally ends pg up, down or grant begun at start: the totals, in
// the JSON report and as the summary line, and pgfunc.ErrSomeFailed when
// some shard failed.
func writeTally(env *cliEnv, rep *jsonReport, t pgfunc.Tally, start time.Time) error {
	t.Took = time.Since(start)
	rep.totals(t.Totals())
	_ = t.WriteText(env.stdout) // a failed write is reported after t.Err (outputWriter.check)
	return t.Err()
}

func runPGGen(_ context.Context, env *cliEnv, args []string) error {
	fs := newFlagSet(env, "pg gen")
	var f genFlags
	f.register(fs, "required")
	dir := fs.String("dir", "", "directory to write the goose migrations to (required)")
	force := fs.Bool("force", false, "overwrite files whose content differs")
	offset := fs.Int64("version-offset", 0, "add N to every version (shard id + 1), to join a goose directory whose migrations hold the versions up to N: its highest sequential version, or a timestamp past its timestamp versions")
	if err := parseNoArgs(env, fs, args); err != nil {
		return err
	}
	if *dir == "" {
		return usagef("--dir is required: the directory goose -dir will read")
	}
	o, shards, err := f.parse(true)
	if err != nil {
		return err
	}
	res, err := pgfunc.WriteDir(*dir, shards, o, *offset, *force)
	var ve *gooseup.VersionError
	switch {
	case errors.As(err, &ve) && ve.Least > 0:
		return flagUsagef("version-offset", "shard migration %s (version %d) would sort at or below %s, which %s already holds: give --version-offset %d or more, so the shards follow its migrations",
			ve.File, ve.Version, ve.Existing, ve.Dir, ve.Least)
	case errors.As(err, &ve):
		return flagUsagef("version-offset", "%v", err)
	case err != nil:
		return err
	}
	return res.WriteText(env.stdout)
}
