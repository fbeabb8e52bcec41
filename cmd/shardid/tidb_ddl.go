package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/shardid/shardid/tidb"
	"github.com/shardid/shardid/tidb/apply"
	"github.com/shardid/shardid/tidb/explain"
	"github.com/shardid/shardid/tidb/script"
)

// renderFlags are the flags shared by render, gen, up and status.
type renderFlags struct {
	strategy                       string
	shardBits, preSplit, rangeBits int
	noPreSplit                     bool
	digits, idDigits, lead         int
	alter, skipData, noWiden       bool
	target                         string
	minSplit                       int64
	tables                         tableFlags
	collate                        collateFlags
	tablesFile, byHand, notes      string
	needByHand                     bool // render, gen, up: statements to apply by hand need --by-hand
}

// collateFlags is --collate FROM=TO, repeatable.
type collateFlags []string

func (c *collateFlags) String() string { return strings.Join(*c, " ") }

func (c *collateFlags) Set(s string) error {
	if _, err := script.ParseCollations([]string{s}); err != nil {
		return errors.New("want FROM=TO, two collation names, e.g. latin1_general_cs=latin1_bin")
	}
	*c = append(*c, s)
	return nil
}

// tableFlags is --table NAME=STRATEGY[,KEY=VALUE…], repeatable.
type tableFlags []string

func (t *tableFlags) String() string { return strings.Join(*t, " ") }

func (t *tableFlags) Set(s string) error {
	if !strings.Contains(s, "=") {
		return fmt.Errorf("want NAME=STRATEGY[,KEY=VALUE…], e.g. orders=shard-rowid,pre-split=none (the goose version table is --version-table)")
	}
	spec, err := tidb.ParseTableSpec(s)
	if err != nil {
		// The flag package names the flag and the value: say only what
		// is wrong with it.
		return errors.New(strings.TrimPrefix(err.Error(), tidb.ErrTableSpec.Error()+" "+strconv.Quote(s)+": "))
	}
	for _, prev := range *t {
		if p, err := tidb.ParseTableSpec(prev); err == nil && strings.EqualFold(p.Name, spec.Name) {
			return fmt.Errorf("table %s is steered twice (also --table %s): give each table one --table, with every option it needs", spec.Name, prev)
		}
	}
	*t = append(*t, s)
	return nil
}

// preSplitValue is --pre-split: N or "none".
type preSplitValue struct{ r *renderFlags }

func (v preSplitValue) String() string {
	if v.r == nil || (v.r.preSplit == 0 && !v.r.noPreSplit) {
		return ""
	}
	if v.r.noPreSplit {
		return "none"
	}
	return strconv.Itoa(v.r.preSplit)
}

func (v preSplitValue) Set(s string) error {
	if s == "none" {
		v.r.noPreSplit = true
		return nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > tidb.MaxShardBits {
		return fmt.Errorf("allowed: 1 to the shard bits (at most %d), or none", tidb.MaxShardBits)
	}
	v.r.preSplit = n
	return nil
}

// intRange is an int flag that takes lo to hi. Its error names the range
// for any other value, one too large for an int included (the flag
// package's own IntVar says only "value out of range" or "parse error"),
// and 0 is refused too: 0 is no value any of these flags takes.
type intRange struct {
	p      *int
	lo, hi int
}

func (v intRange) String() string {
	if v.p == nil || *v.p == 0 {
		return ""
	}
	return strconv.Itoa(*v.p)
}

func (v intRange) Set(s string) error {
	n, err := strconv.Atoi(s)
	switch {
	case err == nil && n == 0:
		return fmt.Errorf("allowed: %d–%d; leave the flag out for its default", v.lo, v.hi)
	case err != nil || n < v.lo || n > v.hi:
		return fmt.Errorf("allowed: %d–%d", v.lo, v.hi)
	}
	*v.p = n
	return nil
}

func addRenderFlags(fs *flagSet, withAlter bool) *renderFlags {
	r := &renderFlags{}
	if withAlter { // render and gen; up and status render for the server they connect to
		fs.StringVar(&r.target, "target", "tidb", "server the text is for: tidb (its CREATE TABLEs read right on MariaDB too), mysql or mariadb")
	}
	fs.Int64Var(&r.minSplit, "min-split", tidb.DefaultMinSplit, "pre-split only tables that can reach this many `rows` (a TINYINT or SMALLINT key cannot reach 1000000); 1 pre-splits every table")
	fs.Var(&r.tables, "table", "steer one table: `NAME=STRATEGY[,KEY=VALUE…]`, KEY one of shard-bits, pre-split (N or none), range, digits, id-digits, lead, rows (repeatable; e.g. --table xxl_job_log=shard-rowid keeps its key AUTO_INCREMENT)")
	fs.Var(&r.collate, "collate", "rename a collation the server lacks in the scripts' tables: `FROM=TO` (repeatable; e.g. latin1_general_cs=latin1_bin for TiDB, utf8mb4_0900_ai_ci=utf8mb4_unicode_ci for MariaDB before 11.4)")
	fs.StringVar(&r.tablesFile, "tables", "", "`FILE` of --table specs, one NAME=STRATEGY[,KEY=VALUE…] a line (# comments)")
	r.needByHand = withAlter
	fs.StringVar(&r.byHand, "by-hand", "", "write the statements no migration runs on the target (triggers, procedures, functions and events on TiDB; LOAD DATA; source; accounts) to `FILE`, to apply by hand; required when the scripts hold any")
	fs.StringVar(&r.strategy, "strategy", "auto", "auto (per table; prints each choice), shard-rowid, auto-random or rotated-int")
	fs.Var(intRange{&r.shardBits, 1, tidb.MaxShardBits}, "shard-bits", "SHARD_ROW_ID_BITS or AUTO_RANDOM shard `bits`, 1-15 (default 4 for shard-rowid, 5 for auto-random)")
	fs.Var(preSplitValue{r}, "pre-split", "PRE_SPLIT_REGIONS `P`, 1 to the shard bits (at most 15), or none (default: the shard bits)")
	fs.Var(intRange{&r.rangeBits, tidb.MinRangeBits, tidb.MaxRangeBits}, "range", "AUTO_RANDOM range `bits`, 32-64, leaving at least 27 bits beside the shard bits and the sign bit (default 54, 53 for UNSIGNED: IDs stay below 2^53, exact as JavaScript numbers; 64 is TiDB's own)")
	fs.Var(intRange{&r.digits, 1, tidb.MaxRotateDigits}, "digits", "rotated-int: rotated digits `k`, 1-3 (default 1)")
	fs.Var(intRange{&r.idDigits, 2, 20}, "id-digits", "rotated-int: decimal digits `D` of the IDs, 2-20: k+1 to 19, 20 for a BIGINT UNSIGNED key (default 19)")
	fs.Var(intRange{&r.lead, 1, 9}, "lead", "rotated-int: leading `digit` of the IDs, 1-9 (default: split for every leading digit)")
	fs.StringVar(&r.notes, "notes", "summary", "summary (the notes grouped by kind, a count and one example each, what matters first) or all (every note, under its table)")
	fs.BoolVar(&r.noWiden, "no-widen", false, "keep INT and MEDIUMINT AUTO_INCREMENT keys INT (shard-rowid; their index keeps the hotspot) instead of widening them, and the FOREIGN KEY columns pointing at them, to BIGINT for AUTO_RANDOM")
	fs.BoolVar(&r.skipData, "skip-data", false, "leave the scripts' data (INSERT/REPLACE/UPDATE/DELETE/LOAD DATA) out; by default it becomes data migrations after the tables")
	if withAlter {
		fs.BoolVar(&r.alter, "alter", false, "render ALTER TABLE for existing TiDB tables (give their SHOW CREATE TABLE output)")
	}
	return r
}

// options turns the flags into tidb.Options; bad values become usage
// errors naming the flag. Each number flag has checked its own range
// (intRange); the ranges that depend on each other are checked here.
func (r *renderFlags) options() (tidb.Options, error) {
	s, err := tidb.ParseStrategy(r.strategy)
	if err != nil {
		return tidb.Options{}, usagef("tidb: --strategy %q: allowed: auto, shard-rowid, auto-random, rotated-int", r.strategy)
	}
	target, err := tidb.ParseTarget(r.target)
	if err != nil {
		return tidb.Options{}, usagef("tidb: --target %q: allowed: tidb, mysql, mariadb", r.target)
	}
	if r.notes != "summary" && r.notes != "all" {
		return tidb.Options{}, usagef("tidb: --notes %q: allowed: summary, all", r.notes)
	}
	if r.minSplit < 1 {
		return tidb.Options{}, usagef("tidb: --min-split %d: allowed: 1 or more rows (1 pre-splits every table)", r.minSplit)
	}
	o := tidb.Options{Strategy: s, ShardBits: r.shardBits, PreSplit: r.preSplit, NoPreSplit: r.noPreSplit, RangeBits: r.rangeBits,
		Digits: r.digits, IDDigits: r.idDigits, Lead: r.lead, Target: target, MinSplit: r.minSplit, NoWiden: r.noWiden}
	if err := o.Validate(); err != nil {
		return o, usagef("tidb: %s", flagHint(err))
	}
	return o, nil
}

// flagHint names the flag behind a validation error.
func flagHint(err error) string {
	for _, f := range []struct {
		err  error
		flag string
	}{{tidb.ErrShardBits, "--shard-bits"}, {tidb.ErrPreSplit, "--pre-split"}, {tidb.ErrRangeBits, "--range"},
		{tidb.ErrDigits, "--digits/--id-digits/--lead"}, {tidb.ErrOptionNotApplicable, "--strategy"}} {
		if errors.Is(err, f.err) {
			return f.flag + ": " + err.Error()
		}
	}
	return err.Error()
}

// inputs checks the flags (options, tableSpecs) and reads every FILE
// argument, or stdin for "-" (script.ReadFiles, gzip data unpacked),
// before anything is rendered or connected to. A file that is missing or
// cannot be read is a usage error naming it.
func (r *renderFlags) inputs(env *cliEnv, names []string) (tidb.Options, []script.File, error) {
	o, err := r.options()
	if err != nil {
		return o, nil, err
	}
	if _, err := r.tableSpecs(); err != nil {
		return o, nil, err
	}
	files, err := script.ReadFiles(names, env.stdin)
	var ie *script.InputError
	if errors.As(err, &ie) {
		return o, nil, &usageError{msg: ie.Error()}
	}
	return o, files, err
}

// tableSpecs reads --table and --tables.
func (r *renderFlags) tableSpecs() ([]tidb.TableSpec, error) {
	var out []tidb.TableSpec
	for _, t := range r.tables {
		spec, err := tidb.ParseTableSpec(t)
		if err != nil {
			return nil, usagef("tidb: --table: %v", err)
		}
		spec.Source = "--table " + t
		out = append(out, spec)
	}
	if r.tablesFile != "" {
		b, err := os.ReadFile(r.tablesFile)
		if err != nil {
			var pe *os.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			return nil, usagef("tidb: --tables %s: %v (want a readable file of NAME=STRATEGY lines)", r.tablesFile, err)
		}
		specs, err := tidb.ParseTableSpecs(r.tablesFile, string(b))
		if err != nil {
			return nil, usagef("tidb: --tables: %v", err)
		}
		out = append(out, specs...)
	}
	return out, nil
}

// renderFiles reads the input scripts as one (a data file after its
// schema), renders them, prints to stderr what was chosen for each table
// and why, what changed and what it costs, the hotspots left and what the
// scripts' other statements became, and writes the statements no
// migration runs to --by-hand.
func renderFiles(stderr io.Writer, r *renderFlags, o tidb.Options, files []script.File) (*tidb.Plan, error) {
	specs, err := r.tableSpecs()
	if err != nil {
		return nil, err
	}
	collations, err := script.ParseCollations(r.collate)
	if err != nil {
		return nil, usagef("tidb: --collate: %v", err)
	}
	s, err := script.ParseScripts(files, script.Options{SkipData: r.skipData, Collations: collations})
	if err != nil {
		return nil, err
	}
	o.Tables, o.Alter = specs, r.alter
	p, err := tidb.RenderScript(s, o)
	if errors.Is(err, tidb.ErrTableSpec) {
		return nil, usagef("tidb: %v", err)
	}
	if err != nil {
		return nil, err
	}
	choices := explain.Choices{Plan: p, AllNotes: r.notes == "all"}
	if len(p.ByHand) == 0 || !r.needByHand {
		choices.WriteText(stderr) // stderr: nowhere to say it failed
		return p, nil
	}
	if r.byHand == "" {
		return nil, usagef("tidb: %s: %d statement(s) that no migration runs on %s (%s): give --by-hand FILE to have them written there to apply by hand%s",
			p.ByHand[0].Place(), len(p.ByHand), p.Target, p.ByHandKinds(), map[bool]string{true: ", or render for MySQL/MariaDB with --target", false: ""}[p.Target == tidb.TargetTiDB])
	}
	choices.WriteText(stderr)
	text, err := p.ByHandText()
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(r.byHand, []byte(text+"\n"), 0o644); err != nil {
		return nil, fmt.Errorf("--by-hand: %w", err)
	}
	fmt.Fprintf(stderr, "wrote %d statement(s) to apply by hand to %s\n", len(p.ByHand), r.byHand)
	return p, nil
}

func runTiDBRender(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlagSet(env, "tidb render")
	r := addRenderFlags(fs, true)
	asJSON := fs.Bool("json", false, "print one JSON document (the statements and each table's choice) instead of the statements, the choices not on stderr")
	if err := parseFlags(env, fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return usagef("tidb render: want one or more FILE.sql (a CREATE TABLE or a schema script; - for stdin)")
	}
	o, inputs, err := r.inputs(env, fs.Args())
	if err != nil {
		return err
	}
	stderr := env.stderr
	if *asJSON {
		stderr = io.Discard // the choices are in the document
	}
	p, err := renderFiles(stderr, r, o, inputs)
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(env.stdout, explain.Document(p, r.byHand))
	}
	_, err = io.WriteString(env.stdout, p.SQL())
	return err
}

func runTiDBGen(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlagSet(env, "tidb gen")
	r := addRenderFlags(fs, true)
	dir := fs.String("dir", "", "directory for the goose migration files (created if missing; a table's files keep their names and versions, new ones are numbered after the existing ones)")
	force := fs.Bool("force", false, "overwrite files whose content differs")
	if err := parseFlags(env, fs, args); err != nil {
		return err
	}
	if *dir == "" {
		return usagef("tidb gen: --dir is required")
	}
	if fs.NArg() == 0 {
		return usagef("tidb gen: want one or more FILE.sql (or - for stdin)")
	}
	o, inputs, err := r.inputs(env, fs.Args())
	if err != nil {
		return err
	}
	p, err := renderFiles(env.stderr, r, o, inputs)
	if err != nil {
		return err
	}
	ms, err := apply.Migrations(p, apply.Options{Dir: os.DirFS(*dir)})
	if err != nil {
		return fmt.Errorf("gen: %w", err)
	}
	res, err := apply.WriteDir(*dir, ms, *force)
	if err != nil {
		return fmt.Errorf("gen: %w", err)
	}
	return res.WriteText(env.stdout)
}
