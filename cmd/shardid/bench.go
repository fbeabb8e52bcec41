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
	"github.com/shardid/shardid/tools/dbserver"
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
	if f.dsn != "" {
		if _, err := parseDSN("--dsn", f.dsn, form); err != nil {
			return err
		}
	}
	return nil
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
	// Citus (bench_citus.go): through the coordinator and a worker.
	if ok, err := benchCitus(ctx, env, &f, *citus); ok {
		return err
	}
	where := dsn.Redact(f.dsn)
	if f.dsn == "" {
		fmt.Fprintln(env.stderr, "starting a throwaway PostgreSQL from the installed server binaries (fsync on) ...")
		// Durable commits, unlike the test servers: synchronous_commit on
		// and off must differ as they do on a real server.
		srv, err := dbserver.StartPG(ctx, dbserver.PGOptions{Settings: map[string]string{"fsync": "on", "full_page_writes": "on"}})
		if err != nil {
			return fmt.Errorf("bench pg: %w", err)
		}
		defer srv.Stop()
		f.dsn = srv.DSN("postgres")
		where = fmt.Sprintf("a throwaway server on 127.0.0.1:%d (%s, fsync on)", srv.Port(), srv.BinDir())
	}
	return f.run(env, "bench pg", func(s bench.Settings) (textReport, error) {
		rep, err := bench.RunPG(ctx, f.dsn, s)
		if rep == nil {
			return nil, err
		}
		return table.PG{Where: where, PGReport: rep}, err
	})
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
	command := "shardid bench pg " + strings.Join(args, " ")
	var end func(bool)
	is.Progress, end = table.Progress(env.stderr, isTerminal(env.stderr))
	rep, err := instr.Run(ctx, is)
	end(rep != nil)
	switch {
	case errors.Is(err, bench.ErrInvalidSettings):
		return usagef("bench pg: %v", err)
	case err != nil:
		return fmt.Errorf("bench pg --instructions: %w", err)
	case f.json:
		return writeJSON(env.stdout, struct {
			Command string `json:"command"`
			*instr.Report
		}{command, rep})
	}
	return rep.WriteText(env.stdout, command)
}

func runBenchTiDB(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlagSet(env, "bench tidb")
	var f benchFlags
	f.register(fs, "TiDB (go-sql-driver/mysql DSN user:pw@tcp(host:4000)/db)")
	fs.IntVar(&f.s.Batches, "batches", bench.DefaultBatches, fmt.Sprintf("%d-row INSERTs per client, table and round", bench.BatchRows))
	if err := f.parse(env, fs, args, dsn.MySQL); err != nil {
		return err
	}
	where := dsn.Redact(f.dsn)
	if f.dsn == "" {
		bin, err := dbserver.FindTiDB(env.getenv("TIDB_BIN"))
		if err != nil {
			return fmt.Errorf("bench tidb: no --dsn, and no throwaway server: %w", err)
		}
		fmt.Fprintf(env.stderr, "starting a throwaway TiDB (%s, its embedded unistore engine) ...\n", bin)
		srv, err := dbserver.StartTiDB(ctx, dbserver.TiDBOptions{Bin: bin})
		if err != nil {
			return fmt.Errorf("bench tidb: no --dsn, and no throwaway server: %w", err)
		}
		defer srv.Stop()
		f.dsn = srv.DSN("")
		where = fmt.Sprintf("a throwaway server on 127.0.0.1:%d", srv.Port())
	}
	return f.run(env, "bench tidb", func(s bench.Settings) (textReport, error) {
		rep, err := bench.RunTiDB(ctx, f.dsn, s)
		if rep == nil {
			return nil, err
		}
		return table.NewTiDB(where, rep), err
	})
}

// textReport is a report of package table: text by WriteText, the
// --json document by its JSON form.
type textReport interface{ WriteText(io.Writer) error }

// run measures with progress on stderr, then prints the report as one JSON
// document or as tables, and returns the run's error: a report with
// repeated IDs is printed, then fails.
func (f *benchFlags) run(env *cliEnv, name string, measure func(bench.Settings) (textReport, error)) error {
	var end func(bool)
	f.s.Progress, end = table.Progress(env.stderr, isTerminal(env.stderr))
	rep, err := measure(f.s)
	end(rep != nil)
	var werr error
	switch {
	case errors.Is(err, bench.ErrInvalidSettings):
		return usagef("%s: %v", name, err)
	case rep == nil:
		return fmt.Errorf("%s: %w", name, err)
	case f.json:
		werr = writeJSON(env.stdout, rep)
	default:
		werr = rep.WriteText(env.stdout)
	}
	if werr != nil {
		return werr
	}
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}
