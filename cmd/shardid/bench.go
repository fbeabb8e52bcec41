package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/shardid/shardid/internal/dsn"
	"github.com/shardid/shardid/tools/bench"
	"github.com/shardid/shardid/tools/bench/instr"
	"github.com/shardid/shardid/tools/bench/table"
	"github.com/shardid/shardid/tools/bench/target"
)

// benchCommands are the "shardid bench" subcommands (this file).
var benchCommands = map[string]command{
	"pg":   {"every PostgreSQL generator side by side: single-row INSERT rates, CPU, slow path and planning per DEFAULT, server-side cost per ID, IDs per client; or, with --instructions, instructions per INSERT", runBenchPG},
	"tidb": {"TiDB's strategies side by side: INSERT rates, the regions writes land in, IDs per client", runBenchTiDB},
}

func runBench(ctx context.Context, env *cliEnv, args []string) error {
	return subcommand(ctx, env, "bench", benchCommands, args)
}

// benchFlags are the flags both bench subcommands take. --dsn has no
// environment fallback on purpose: the bench loads the server it measures,
// so it never picks one up from a variable set for everyday commands.
type benchFlags struct {
	dsn  string
	json bool
	s    bench.Settings
}

func (f *benchFlags) register(fs *flagSet, server string) {
	fs.StringVar(&f.dsn, "dsn", "", "measure this "+server+" (the bench works in schemas of its own and drops them); without it a throwaway server is started")
	fs.BoolVar(&f.json, "json", false, "print one JSON document instead of tables")
	fs.IntVar(&f.s.Rounds, "rounds", bench.DefaultRounds, "rounds; every body runs once per round")
	fs.IntVar(&f.s.Clients, "clients", bench.DefaultClients, "connections inserting (and drawing IDs) at once")
	fs.IntVar(&f.s.Rows, "rows", bench.DefaultRows, "single-row INSERTs per client, table and round (and phase, on PostgreSQL)")
	fs.IntVar(&f.s.IDs, "ids", bench.DefaultIDs, fmt.Sprintf("IDs per client and round from methods that ask the server for each (%d× as many from segments and leased generators)", bench.InMemoryFactor))
}

// parse parses args and refuses arguments, a --dsn not of the form the
// bench takes, and counts outside the package's ranges. 0 is refused too:
// the package reads it as its default, but each flag has its own default,
// so on the command line 0 is a mistake.
func (f *benchFlags) parse(env *cliEnv, fs *flagSet, args []string, form dsn.Form) error {
	if err := parseFlags(env, fs, args); err != nil {
		return err
	}
	name := strings.TrimPrefix(fs.Name(), "shardid ")
	if fs.NArg() > 0 {
		return usagef("%s: unexpected argument %q (allowed: flags only)", name, fs.Arg(0))
	}
	for _, l := range bench.Limits {
		if v := *l.Field(&f.s); fs.Lookup(l.Name) != nil && (v < 1 || v > l.Max) {
			return usagef("%s: --%s %d (allowed: 1-%d)", name, l.Name, v, l.Max)
		}
	}
	if f.dsn == "" {
		return nil
	}
	_, err := parseDSN("--dsn", f.dsn, form)
	return err
}

func runBenchPG(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlagSet(env, "bench pg")
	var f benchFlags
	f.register(fs, "PostgreSQL (URL or key=value words)")
	fs.IntVar(&f.s.Calls, "calls", bench.DefaultCalls, "IDs one statement makes for the server-side cost and the repeat count")
	fs.Func("peer", "NAME=SQLEXPR: measure an SQL expression beside shardid's generators, as a key's DEFAULT and in bulk (a C-extension generator, your own function); repeatable", func(v string) error {
		p, err := bench.ParsePeer(v)
		f.s.Peers = append(f.s.Peers, p)
		return trimInvalid(err)
	})
	citus := fs.Bool("citus", false, "measure on a throwaway Citus cluster (a coordinator and two workers) instead of one server; a --dsn of a Citus coordinator is measured so too")
	var is instr.Settings
	counts := fs.Bool("instructions", false, "count instructions instead (callgrind over a stand-alone backend of the local server binaries, clock frozen by libfaketime): the same table on any machine, whatever its load")
	fs.IntVar(&is.Executes, "executes", instr.DefaultExecutes, "--instructions: N; a count is (instructions of 2N+1 INSERTs - those of N+1) / N")
	fs.IntVar(&is.Repeats, "repeats", instr.DefaultRepeats, "--instructions: backends per count, to show the counts repeat")
	fs.Func("only", "--instructions: ROW,...: measure only these of the built-in rows beside bigserial ("+strings.Join(instr.RowNames[1:], ", ")+")", func(v string) error {
		is.Only = strings.Split(v, ",")
		return nil
	})
	fs.Func("extra", "--instructions: NAME=FILE.sql: run FILE's SQL (a goose migration's but its Down part) and measure the DEFAULT its line '-- default: EXPR' names; repeatable", func(v string) error {
		x, err := instr.ParseExtra(v)
		is.Extras = append(is.Extras, x)
		return trimInvalid(err)
	})
	if err := f.parse(env, fs, args, dsn.Postgres); err != nil {
		return err
	}
	if *counts || fs.set("executes") || fs.set("repeats") || fs.set("only") || fs.set("extra") {
		return benchInstructions(ctx, env, fs, f, is, args)
	}
	if *citus && f.dsn != "" {
		return usagef("bench pg: --citus starts a throwaway cluster: give it or --dsn, not both")
	}
	t, err := target.PG(ctx, f.dsn, *citus, env.stderr)
	if err != nil {
		return fmt.Errorf("bench pg: %w", err)
	}
	if t.Citus { // through the coordinator and a worker
		return benchRun(ctx, env, &f, "bench pg", t, bench.RunCitus, table.NewCitus)
	}
	return benchRun(ctx, env, &f, "bench pg", t, bench.RunPG, table.NewPG)
}

// trimInvalid is err without bench.ErrInvalidSettings' prefix, for a
// flag's own message; nil for nil.
func trimInvalid(err error) error {
	if err == nil {
		return nil
	}
	return errors.New(strings.TrimPrefix(err.Error(), bench.ErrInvalidSettings.Error()+": "))
}

// benchInstructions is bench pg --instructions: it refuses the flags of
// the timed bench, then counts (instr.Run) and prints.
func benchInstructions(ctx context.Context, env *cliEnv, fs *flagSet, f benchFlags, is instr.Settings, args []string) error {
	if !fs.set("instructions") {
		return usagef("bench pg: --executes, --repeats, --only and --extra need --instructions")
	}
	for _, name := range []string{"dsn", "citus", "peer", "rounds", "clients", "rows", "ids", "calls"} {
		if fs.set(name) {
			return usagef("bench pg: --instructions runs its own throwaway server and takes no --%s", name)
		}
	}
	if is.Executes < 1 || is.Repeats < 1 { // 0 is the package's default, a mistake here
		return usagef("bench pg: --executes %d, --repeats %d (allowed: 1-500, 1-10)", is.Executes, is.Repeats)
	}
	var end func(bool)
	is.Progress, end = table.Progress(env.stderr, isTerminal(env.stderr))
	rep, err := instr.Run(ctx, is)
	end(rep != nil)
	switch {
	case errors.Is(err, bench.ErrInvalidSettings):
		return usagef("bench pg: %v", err)
	case err != nil:
		return fmt.Errorf("bench pg --instructions: %w", err)
	}
	return printBench(env.stdout, f.json, table.Instr{Command: "shardid bench pg " + strings.Join(args, " "), Report: rep})
}

func runBenchTiDB(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlagSet(env, "bench tidb")
	var f benchFlags
	f.register(fs, "TiDB (go-sql-driver/mysql DSN user:pw@tcp(host:4000)/db)")
	fs.IntVar(&f.s.Batches, "batches", bench.DefaultBatches, fmt.Sprintf("%d-row INSERTs per client, table and round", bench.BatchRows))
	if err := f.parse(env, fs, args, dsn.MySQL); err != nil {
		return err
	}
	t, err := target.TiDB(ctx, f.dsn, env.getenv("TIDB_BIN"), env.stderr)
	if err != nil {
		return fmt.Errorf("bench tidb: no --dsn, and no throwaway server: %w", err)
	}
	return benchRun(ctx, env, &f, "bench tidb", t, bench.RunTiDB, table.NewTiDB)
}

// benchRun measures t (and stops it after) with progress on stderr, then
// prints the report, paired with where it ran by doc, and returns the
// run's error: a report with repeated IDs is printed, then fails.
func benchRun[R any, D textReport](ctx context.Context, env *cliEnv, f *benchFlags, name string, t target.Target,
	measure func(context.Context, string, bench.Settings) (*R, error), doc func(string, *R) D) error {
	defer t.Stop()
	var end func(bool)
	f.s.Progress, end = table.Progress(env.stderr, isTerminal(env.stderr))
	rep, err := measure(ctx, t.DSN, f.s)
	end(rep != nil)
	if rep != nil {
		if werr := printBench(env.stdout, f.json, doc(t.Where, rep)); werr != nil {
			return werr
		}
	}
	switch {
	case errors.Is(err, bench.ErrInvalidSettings):
		return usagef("%s: %v", name, err)
	case err != nil:
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// textReport is a report that writes itself as text (tools/bench/table's,
// instr's); its JSON form is the --json document.
type textReport interface{ WriteText(io.Writer) error }

// printBench writes d as one JSON document when asJSON, as tables
// otherwise.
func printBench(w io.Writer, asJSON bool, d textReport) error {
	if asJSON {
		return writeJSON(w, d)
	}
	return d.WriteText(w)
}
