package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"text/tabwriter"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"

	"github.com/shardid/shardid/internal/dsn"
	"github.com/shardid/shardid/tools/bench"
	"github.com/shardid/shardid/tools/bench/instr"
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
	return f.run(env, "bench pg", func(s bench.Settings) (any, func(io.Writer), error) {
		rep, err := bench.RunPG(ctx, f.dsn, s)
		if rep == nil {
			return nil, nil, err
		}
		return struct {
			Where string `json:"where"`
			*bench.PGReport
		}{where, rep}, func(w io.Writer) { printPGReport(w, where, rep) }, err
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
	is.Progress, end = progressTo(env.stderr)
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
	instr.Write(env.stdout, rep, command)
	return nil
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
	return f.run(env, "bench tidb", func(s bench.Settings) (any, func(io.Writer), error) {
		rep, err := bench.RunTiDB(ctx, f.dsn, s)
		if rep == nil {
			return nil, nil, err
		}
		return struct {
			Where string `json:"where"`
			Note  string `json:"note,omitempty"`
			*bench.TiDBReport
		}{where, unistoreNote(rep), rep}, func(w io.Writer) { printTiDBReport(w, where, rep) }, err
	})
}

// run measures with progress on stderr, then prints the report as one JSON
// document (doc) or as tables (print), and returns the run's error: a
// report with repeated IDs is printed, then fails.
func (f *benchFlags) run(env *cliEnv, name string, measure func(bench.Settings) (doc any, print func(io.Writer), err error)) error {
	var end func(bool)
	f.s.Progress, end = progressTo(env.stderr)
	doc, print, err := measure(f.s)
	end(doc != nil)
	switch {
	case errors.Is(err, bench.ErrInvalidSettings):
		return usagef("%s: %v", name, err)
	case doc == nil:
		return fmt.Errorf("%s: %w", name, err)
	case f.json:
		if jerr := writeJSON(env.stdout, doc); jerr != nil {
			return jerr
		}
	default:
		print(env.stdout)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// unistoreNote is bench.UnistoreNote when it applies to rep.
func unistoreNote(rep *bench.TiDBReport) string {
	if rep.Unistore {
		return bench.UnistoreNote
	}
	return ""
}

// progressTo returns a Progress that draws a bar on w when w is a
// terminal and writes a line per step otherwise, and the function that
// ends it (full when the run finished, left where it stopped otherwise).
func progressTo(w io.Writer) (progress func(bench.Step), end func(finished bool)) {
	if !isTerminal(w) {
		return func(s bench.Step) {
			fmt.Fprintf(w, "[%*d/%d] round %d/%d: %s\n", len(fmt.Sprint(s.Total)), s.Done+1, s.Total, s.Round, s.Rounds, s.What)
		}, func(bool) {}
	}
	var p *mpb.Progress
	var bar *mpb.Bar
	var total int64
	var what atomic.Value
	what.Store("")
	return func(s bench.Step) {
			if p == nil {
				total = int64(s.Total)
				p = mpb.New(mpb.WithOutput(w), mpb.WithWidth(30))
				bar = p.AddBar(total,
					mpb.PrependDecorators(decor.CountersNoUnit("%d/%d", decor.WCSyncSpace), decor.Elapsed(decor.ET_STYLE_GO, decor.WCSyncSpace)),
					mpb.AppendDecorators(decor.Any(func(decor.Statistics) string { return what.Load().(string) })))
			}
			what.Store(fmt.Sprintf("round %d/%d: %s", s.Round, s.Rounds, s.What))
			bar.SetCurrent(int64(s.Done))
		}, func(finished bool) {
			if p == nil {
				return
			}
			if finished {
				what.Store("done")
				bar.SetCurrent(total)
			} else {
				bar.Abort(false)
			}
			p.Wait()
		}
}

// figure formats a rate or count with three significant digits and a k or
// M suffix.
func figure(v float64) string {
	switch {
	case v >= 1e6:
		return trimFloat(v/1e6) + "M"
	case v >= 1e4:
		return trimFloat(v/1e3) + "k"
	}
	return trimFloat(v)
}

// trimFloat prints v with three significant digits (at least the units).
func trimFloat(v float64) string {
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.2f", v)
}

// ratio formats a median multiple and its range: "2.71× [2.60–2.80]".
func ratio(s bench.Stat) string {
	return fmt.Sprintf("%s× [%s–%s]", trimFloat(s.Median), trimFloat(s.Min), trimFloat(s.Max))
}

// spreadOf formats a median figure and its range: "15.2k [14.1k–15.9k]".
func spreadOf(s bench.Stat) string {
	return fmt.Sprintf("%s [%s–%s]", figure(s.Median), figure(s.Min), figure(s.Max))
}

// header prints what was measured where.
func header(w io.Writer, cmd, where string, r bench.Run) {
	m := r.Machine
	fmt.Fprintf(w, "shardid bench %s: %s\n", cmd, r.Server)
	fmt.Fprintf(w, "on %s\n", where)
	fmt.Fprintf(w, "client %s %s/%s, %d CPUs, load %s before, %s after; %s, %.0fs\n", m.Go, m.OS, m.Arch, m.CPUs, orNone(m.LoadStart), orNone(m.LoadEnd),
		r.Started.UTC().Format("2006-01-02 15:04 UTC"), r.Seconds)
	fmt.Fprintf(w, "%d rounds, every body once per round in rotating order; median [min–max] over the rounds, each ratio taken within its round\n", r.Settings.Rounds)
}

func orNone(s string) string {
	if s == "" {
		return "?"
	}
	return s
}

// pgBodyNames name the bodies of the server-side cost table (a peer by
// its own name).
var pgBodyNames = map[string]string{
	"nextval":     "nextval()",
	"unique":      "next_id() unique (default)",
	"unique-bulk": "next_id_bulk() unique",
	"unique-ids":  "next_ids(n) unique, per ID",
	"classic":     "next_id() classic",
	"classic-sql": "next_id() classic-sql",
	"published":   "Instagram's published body",
	"uuid-v4":     "gen_random_uuid()",
	"uuid-v7":     "UUID v7 in PL/pgSQL",
}

// pgKeyNames name the INSERT tables' keys (a peer by its own name).
var pgKeyNames = map[string]string{
	"bigserial":   "bigserial",
	"unique":      "DEFAULT next_id() unique",
	"unique-bulk": "DEFAULT next_id_bulk() unique",
	"classic":     "DEFAULT next_id() classic",
	"classic-sql": "DEFAULT next_id() classic-sql",
	"uuid-v4":     "uuid DEFAULT gen_random_uuid()",
	"uuid-v7":     "uuid DEFAULT UUID v7",
}

// pgName is the printed name of a key or body: a peer's is "DEFAULT
// <its expression> (peer NAME)" or "<expression> (peer NAME)".
func pgName(names map[string]string, key string, peers []bench.Peer, asDefault bool) string {
	if name, ok := strings.CutPrefix(key, "peer:"); ok {
		for _, p := range peers {
			if p.Name == name {
				if asDefault {
					return fmt.Sprintf("DEFAULT %s (peer %s)", p.Expr, name)
				}
				return fmt.Sprintf("%s (peer %s)", p.Expr, name)
			}
		}
	}
	return names[key]
}

// idMethodNames name the ways a client gets IDs.
var idMethodNames = map[string]string{
	"nextval":          "SELECT nextval()",
	"next_id":          "SELECT next_id() unique",
	"auto_increment":   "INSERT, AUTO_INCREMENT",
	"tickets":          "tickets (UPDATE form)",
	"tickets-sequence": "tickets (SEQUENCE)",
	"segments":         "segments",
	"leased":           "leased app-side generator",
}

// pgPhaseColumn heads a phase's column: "SIMPLE, SYNC OFF".
func pgPhaseColumn(ph bench.PGPhase) string {
	return strings.ToUpper(ph.Protocol) + ", SYNC " + strings.ToUpper(ph.SynchronousCommit)
}

// pgTable prints one row per key and a column per phase, cell giving the
// figure of a key's row (first is true for the first key, bigserial).
func pgTable(w io.Writer, phases []bench.PGPhase, peers []bench.Peer, skip func(bench.PGInsertRow) bool, cell func(r bench.PGInsertRow, first bool) string) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "KEY")
	for _, ph := range phases {
		fmt.Fprintf(tw, "\t%s", pgPhaseColumn(ph))
	}
	fmt.Fprintln(tw)
	for i, k := range phases[0].Keys {
		if skip != nil && skip(k) {
			continue
		}
		fmt.Fprint(tw, pgName(pgKeyNames, k.Key, peers, true))
		for _, ph := range phases {
			fmt.Fprintf(tw, "\t%s", cell(ph.Keys[i], i == 0))
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
}

// share formats a median share and its range in percent: "2.1% [1.9–2.5]".
func share(s bench.Stat) string {
	return fmt.Sprintf("%s%% [%s–%s]", trimFloat(100*s.Median), trimFloat(100*s.Min), trimFloat(100*s.Max))
}

func printPGReport(w io.Writer, where string, rep *bench.PGReport) {
	header(w, "pg", where, rep.Run)
	s := rep.Settings
	peers := s.Peers
	fmt.Fprintf(w, "\nSingle-row INSERT, %d clients at once, %d statements each per table, phase and round, each its own transaction:\n", s.Clients, s.Rows)
	fmt.Fprintf(w, "rows/s for %s, then each key × that (higher is faster)\n", pgKeyNames[rep.Insert[0].Keys[0].Key])
	var dups int64
	pgTable(w, rep.Insert, peers, nil, func(r bench.PGInsertRow, first bool) string {
		dups += r.DuplicateKeys
		if first {
			return spreadOf(r.RowsPerSecond) + "/s"
		}
		x := ratio(r.VsBase)
		if r.DuplicateKeys > 0 {
			x += fmt.Sprintf(" (%d duplicate keys)", r.DuplicateKeys)
		}
		return x
	})
	if rep.CPU.Read {
		fmt.Fprintf(w, "\nServer CPU per row (the clients' server processes, %s): ns for bigserial, then each key × that (lower is cheaper)\n", rep.CPU.From)
		pgTable(w, rep.Insert, peers, nil, func(r bench.PGInsertRow, first bool) string {
			if first {
				return trimFloat(r.CPUPerRow.Median) + " ns"
			}
			return ratio(*r.CPUVsBase)
		})
	} else {
		fmt.Fprintf(w, "\nServer CPU per row: not read (%s)\n", rep.CPU.Why)
	}
	fmt.Fprintln(w, "\nSlow path: rows whose draw jumped (the jump counters' count over the rows)")
	pgTable(w, rep.Insert, peers, func(r bench.PGInsertRow) bool { return r.SlowPath == nil }, func(r bench.PGInsertRow, _ bool) string {
		return share(*r.SlowPath)
	})
	fmt.Fprintf(w, "\nPlanning a single-row INSERT (EXPLAIN (SUMMARY ON)'s planning time: per table and round, the mean of the middle half of %d plans)\n", bench.PlanRuns)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "KEY\tµS\t× BIGSERIAL")
	for i, r := range rep.Planning {
		x := ratio(r.VsBase)
		if i == 0 {
			x = "1"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", pgName(pgKeyNames, r.Key, peers, true), spreadOf(r.Micros), x)
	}
	tw.Flush()
	fmt.Fprintf(w, "\nServer-side cost per ID: SELECT count(*) FROM (SELECT f() FROM generate_series(1, %d)) s (next_ids(n): %d IDs, reserved 100,000 at a time)\n", s.Calls, s.Calls)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "BODY\tNS PER ID\t× NEXTVAL()\tREPEATED IDS (%d×%d)\n", s.Rounds, s.Calls)
	for _, c := range rep.Cost {
		x := ratio(c.VsNextval)
		if c.Body == "nextval" {
			x = "1"
		}
		dups := fmt.Sprint(c.Duplicates)
		switch {
		case strings.HasPrefix(c.Body, "peer:") && c.Duplicates > 0:
			dups += " (a peer: yours to judge)"
		case !c.MustBeUnique && c.Duplicates > 0:
			dups += " (its documented limit)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", pgName(pgBodyNames, c.Body, peers, false), spreadOf(c.NsPerID), x, dups)
	}
	tw.Flush()
	printIDRows(w, s, rep.IDs)
	fmt.Fprintln(w, `
How to read it:
- INSERT: × bigserial is the key's rows/s over bigserial's in the same round. The simple protocol (psql,
  psycopg2, many ORMs) has the server parse and plan every statement; prepared statements are planned once
  per connection. synchronous_commit off takes the WAL flush out of each commit and leaves the generator's
  own cost; on, the disk's flush rate dominates every key alike.
- CPU per row: the time the clients' server processes spent on the CPU per row, where the generator's cost
  shows without the client, the network or the other work on the machine.
- Slow path: mode unique draws from a sequence and checks the draw against two counters; when the counter
  must jump to the clock (about once per 9 ms at these rates) the draw takes a lock, a subtransaction and
  setvals. The share is jumps per row.
- Planning: a DEFAULT whose function is inlined is read back from the catalog by every plan (the simple
  protocol plans every statement); next_id() is PL/pgSQL and plans like bigserial's nextval().
- Server-side cost: many IDs in one statement, no round trip per ID. For INSERT ... SELECT or any
  statement that draws many IDs use next_id_bulk(), or next_ids(n) when the count is known; as a DEFAULT,
  next_id().
- Each figure is the median [min–max] over the rounds; other work on the machine widens the ranges. Compare
  ratios within one run, not rates across machines.`)
}

// tidbKeyNames name the TiDB tables' strategies.
var tidbKeyNames = map[string]string{
	"auto_increment": "AUTO_INCREMENT",
	"auto_random":    "AUTO_RANDOM",
	"shard_row_id":   "SHARD_ROW_ID_BITS",
	"snowflake":      "Snowflake IDs (app-side)",
	"rotated":        "Snowflake IDs rotated (k=1)",
}

func printTiDBReport(w io.Writer, where string, rep *bench.TiDBReport) {
	header(w, "tidb", where, rep.Run)
	regions := map[string]string{}
	for _, r := range rep.Regions {
		regions[r.Key] = fmt.Sprintf("%d of %d\t%.0f%%", r.Written, r.After, 100*r.Hottest)
	}
	printInserts(w, fmt.Sprintf("INSERT, %d clients at once, rows per statement (each its own transaction) per column:\nrows/s for %s, then each table × that; the regions that took the rows (and NONCLUSTERED key entries) over the run", rep.Settings.Clients, tidbKeyNames[rep.Insert[0].Keys[0].Key]),
		rep.Insert, tidbKeyNames, regions)
	if n := unistoreNote(rep); n != "" {
		fmt.Fprintln(w)
		wrap(w, n, 100)
	}
	printIDRows(w, rep.Settings, rep.IDs)
	fmt.Fprintln(w, "\nOther work on the machine widens the ranges; compare ratios, not rates, across machines.")
}

// wrap writes text in lines of at most width characters.
func wrap(w io.Writer, text string, width int) {
	line := ""
	for _, word := range strings.Fields(text) {
		if line != "" && len(line)+1+len(word) > width {
			fmt.Fprintln(w, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += word
	}
	fmt.Fprintln(w, line)
}

// printInserts prints one row per key and a column per phase: the
// baseline's rows/s, the others' multiples of it; extra, when set, adds
// tab-separated columns per key (headed REGIONS WRITTEN, HOTTEST).
func printInserts(w io.Writer, title string, phases []bench.InsertPhase, names, extra map[string]string) {
	fmt.Fprintf(w, "\n%s\n", title)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "KEY")
	for _, ph := range phases {
		col := fmt.Sprintf("%d ROWS", ph.RowsPerStatement)
		if ph.RowsPerStatement == 1 {
			col = "1 ROW"
		}
		if ph.SynchronousCommit != "" {
			col += ", SYNC " + strings.ToUpper(ph.SynchronousCommit)
		}
		fmt.Fprintf(tw, "\t%s", col)
	}
	fmt.Fprint(tw, "\tDUPLICATE KEYS")
	if extra != nil {
		fmt.Fprint(tw, "\tREGIONS WRITTEN\tHOTTEST")
	}
	fmt.Fprintln(tw)
	for i, k := range phases[0].Keys {
		fmt.Fprint(tw, names[k.Key])
		var dups int64
		for _, ph := range phases {
			row := ph.Keys[i]
			dups += row.DuplicateKeys
			if i == 0 {
				fmt.Fprintf(tw, "\t%s/s", spreadOf(row.RowsPerSecond))
			} else {
				fmt.Fprintf(tw, "\t%s", ratio(row.VsBase))
			}
		}
		fmt.Fprintf(tw, "\t%d", dups)
		if extra != nil {
			fmt.Fprintf(tw, "\t%s", extra[k.Key])
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
}

// printIDRows prints the ways a client gets IDs against the first.
func printIDRows(w io.Writer, s bench.Settings, rows []bench.IDRow) {
	fmt.Fprintf(w, "\nIDs for a client, %d clients at once (%d IDs each per round; %d from segments and leased generators, which serve from memory)\n",
		s.Clients, s.IDs, s.IDs*bench.InMemoryFactor)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "METHOD\tIDS/S PER CLIENT\t× %s\tROUND TRIPS / 1,000 IDS\tREPEATED IDS\n", strings.ToUpper(idMethodNames[rows[0].Method]))
	for i, r := range rows {
		x := ratio(r.VsBase)
		if i == 0 {
			x = "1"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\n", idMethodNames[r.Method], spreadOf(r.PerClient), x, trimFloat(r.RoundTripsPer1000.Median), r.Duplicates)
	}
	tw.Flush()
}
