package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/pressly/goose/v3"

	"github.com/shardid/shardid/tidb"
)

// renderFlags are the flags shared by render, gen, up and status.
type renderFlags struct {
	strategy                       string
	shardBits, preSplit, rangeBits int
	digits, idDigits, lead         int
	alter                          bool
	setPreSplit                    bool
	fs                             *flagSet
}

func addRenderFlags(fs *flagSet, withAlter bool) *renderFlags {
	r := &renderFlags{fs: fs}
	fs.StringVar(&r.strategy, "strategy", "shard-rowid", "shard-rowid, auto-random or rotated-int")
	fs.IntVar(&r.shardBits, "shard-bits", 0, "SHARD_ROW_ID_BITS or AUTO_RANDOM shard bits, 1-15 (default 4 for shard-rowid, 5 for auto-random)")
	fs.IntVar(&r.preSplit, "pre-split", 0, "PRE_SPLIT_REGIONS, 0 to shard bits (default: the shard bits)")
	fs.IntVar(&r.rangeBits, "range", 0, "AUTO_RANDOM range bits, 32-64 (default 64; 54 keeps signed IDs JavaScript-safe)")
	fs.IntVar(&r.digits, "digits", 0, "rotated-int: rotated digits k, 1-3 (default 1)")
	fs.IntVar(&r.idDigits, "id-digits", 0, "rotated-int: decimal digits of the IDs (default 19)")
	fs.IntVar(&r.lead, "lead", 0, "rotated-int: leading digit of the IDs, 1-9 (default: split for every leading digit)")
	if withAlter {
		fs.BoolVar(&r.alter, "alter", false, "render ALTER TABLE for an existing TiDB table (give its SHOW CREATE TABLE output)")
	}
	return r
}

// options turns the flags into tidb.Options; bad values become usage
// errors naming the flag.
func (r *renderFlags) options() (tidb.Options, error) {
	s, err := tidb.ParseStrategy(r.strategy)
	if err != nil {
		return tidb.Options{}, usagef("tidb: --strategy %q: allowed: shard-rowid, auto-random, rotated-int", r.strategy)
	}
	o := tidb.Options{Strategy: s, ShardBits: r.shardBits, PreSplit: r.preSplit, RangeBits: r.rangeBits,
		Digits: r.digits, IDDigits: r.idDigits, Lead: r.lead}
	r.fs.Visit(func(f *flag.Flag) {
		if f.Name == "pre-split" {
			r.setPreSplit = true
		}
	})
	if r.setPreSplit && r.preSplit == 0 {
		o.PreSplit = tidb.NoPreSplit
	}
	if err := o.Validate(); err != nil {
		return o, usagef("tidb: %s", flagHint(err))
	}
	return o, nil
}

// flagHint names the flag behind a validation error.
func flagHint(err error) string {
	switch {
	case errors.Is(err, tidb.ErrShardBits):
		return "--shard-bits: " + err.Error()
	case errors.Is(err, tidb.ErrPreSplit):
		return "--pre-split: " + err.Error()
	case errors.Is(err, tidb.ErrRangeBits):
		return "--range: " + err.Error()
	case errors.Is(err, tidb.ErrDigits):
		return "--digits/--id-digits/--lead: " + err.Error()
	case errors.Is(err, tidb.ErrOptionNotApplicable):
		return "--strategy: " + err.Error()
	}
	return err.Error()
}

// readInput reads FILE, or stdin for "-".
func readInput(env *cliEnv, name string) (string, error) {
	if name == "-" {
		b, err := io.ReadAll(env.stdin)
		return string(b), err
	}
	b, err := os.ReadFile(name)
	return string(b), err
}

// renderFiles parses and renders each input file.
func renderFiles(env *cliEnv, r *renderFlags, o tidb.Options, files []string) ([]*tidb.DDL, error) {
	var out []*tidb.DDL
	for _, f := range files {
		text, err := readInput(env, f)
		if err != nil {
			return nil, err
		}
		t, err := tidb.Parse(text)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		var d *tidb.DDL
		if r.alter {
			d, err = tidb.RenderAlter(t, o)
		} else {
			d, err = tidb.Render(t, o)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		out = append(out, d)
	}
	return out, nil
}

func runTiDBRender(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlagSet(env, "tidb render")
	r := addRenderFlags(fs, true)
	if err := parseFlags(env, fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usagef("tidb render: want one FILE.sql (or - for stdin), got %d arguments", fs.NArg())
	}
	o, err := r.options()
	if err != nil {
		return err
	}
	ddls, err := renderFiles(env, r, o, fs.Args())
	if err != nil {
		return err
	}
	_, err = io.WriteString(env.stdout, ddls[0].String())
	return err
}

func runTiDBGen(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlagSet(env, "tidb gen")
	r := addRenderFlags(fs, true)
	dir := fs.String("dir", "", "directory for the goose migration files (created if missing; new files are numbered after the existing ones)")
	if err := parseFlags(env, fs, args); err != nil {
		return err
	}
	if *dir == "" {
		return usagef("tidb gen: --dir is required")
	}
	if fs.NArg() == 0 {
		return usagef("tidb gen: want one or more FILE.sql (or - for stdin)")
	}
	o, err := r.options()
	if err != nil {
		return err
	}
	o.IfNotExists = !r.alter
	ddls, err := renderFiles(env, r, o, fs.Args())
	if err != nil {
		return err
	}
	if err := os.MkdirAll(*dir, 0o755); err != nil {
		return err
	}
	next, err := tidb.NextVersion(os.DirFS(*dir))
	if err != nil {
		return fmt.Errorf("gen: %w", err)
	}
	files, err := tidb.Migrations(ddls, next)
	if err != nil {
		return fmt.Errorf("gen: %w", err)
	}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		p := filepath.Join(*dir, n)
		if err := os.WriteFile(p, []byte(files[n]), 0o644); err != nil {
			return fmt.Errorf("gen: %w", err)
		}
		fmt.Fprintln(env.stdout, p)
	}
	return nil
}

// migrationFlags are the flags of up and status.
type migrationFlags struct {
	r     *renderFlags
	dsn   *string
	dir   *string
	table *string
}

func addMigrationFlags(fs *flagSet) *migrationFlags {
	m := &migrationFlags{
		r:     addRenderFlags(fs, false),
		dsn:   fs.String("dsn", "", "go-sql-driver/mysql DSN, e.g. root@tcp(127.0.0.1:4000)/app (env SHARDID_TIDB_DSN); parseTime=true is added"),
		dir:   fs.String("dir", "", "goose migration directory (from tidb gen); instead of FILE arguments"),
		table: fs.String("table", "", "goose version table, name or schema.name (default goose_db_version)"),
	}
	fs.envVar("dsn", "SHARDID_TIDB_DSN")
	return m
}

// provider opens the database and builds the goose provider from --dir or
// from FILEs rendered in memory.
func (m *migrationFlags) provider(env *cliEnv, name string, files []string) (*goose.Provider, func(), error) {
	if *m.dsn == "" {
		return nil, nil, usagef("%s: --dsn is required (or set SHARDID_TIDB_DSN)", name)
	}
	var fsys fs.FS
	switch {
	case *m.dir != "" && len(files) > 0:
		return nil, nil, usagef("%s: give --dir or FILE arguments, not both", name)
	case *m.dir != "":
		fsys = os.DirFS(*m.dir)
	case len(files) > 0:
		o, err := m.r.options()
		if err != nil {
			return nil, nil, err
		}
		o.IfNotExists = true
		ddls, err := renderFiles(env, m.r, o, files)
		if err != nil {
			return nil, nil, err
		}
		mf, err := tidb.Migrations(ddls, 1)
		if err != nil {
			return nil, nil, err
		}
		fsys = tidb.MapFS(mf)
	default:
		return nil, nil, usagef("%s: want --dir DIR or one or more FILE.sql", name)
	}
	db, err := tidb.Open(*m.dsn)
	if err != nil {
		return nil, nil, usagef("%s: --dsn: %v", name, err)
	}
	p, err := tidb.NewProvider(db, fsys, tidb.ProviderOptions{TableName: *m.table})
	if err != nil {
		db.Close()
		if errors.Is(err, tidb.ErrInvalidTableName) {
			return nil, nil, usagef("%s: --table: %v", name, err)
		}
		return nil, nil, err
	}
	return p, func() { db.Close() }, nil
}

func runTiDBUp(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlagSet(env, "tidb up")
	m := addMigrationFlags(fs)
	if err := parseFlags(env, fs, args); err != nil {
		return err
	}
	p, done, err := m.provider(env, "tidb up", fs.Args())
	if err != nil {
		return err
	}
	defer done()
	res, err := p.Up(ctx)
	for _, r := range res {
		fmt.Fprintln(env.stdout, describe(r))
	}
	if err != nil {
		return fmt.Errorf("up: %w", err)
	}
	if len(res) == 0 {
		fmt.Fprintln(env.stdout, "no migrations to apply")
	}
	return nil
}

// describe prints a result; Go migrations (TiDB-only SPLIT TABLE) have no path.
func describe(r *goose.MigrationResult) string {
	if r.Source.Path == "" {
		return fmt.Sprintf("OK    %s %05d (TiDB-only statement; skipped on other servers)", r.Direction, r.Source.Version)
	}
	return r.String()
}

func runTiDBStatus(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlagSet(env, "tidb status")
	m := addMigrationFlags(fs)
	if err := parseFlags(env, fs, args); err != nil {
		return err
	}
	p, done, err := m.provider(env, "tidb status", fs.Args())
	if err != nil {
		return err
	}
	defer done()
	st, err := p.Status(ctx)
	if err != nil {
		return fmt.Errorf("status: %w", err)
	}
	for _, s := range st {
		at := "-"
		if !s.AppliedAt.IsZero() {
			at = s.AppliedAt.UTC().Format("2006-01-02 15:04:05Z")
		}
		name := filepath.Base(s.Source.Path)
		if s.Source.Path == "" {
			name = "(TiDB-only statement)"
		}
		fmt.Fprintf(env.stdout, "%05d  %-8s %-21s %s\n", s.Source.Version, s.State, at, strings.TrimSpace(name))
	}
	return nil
}
