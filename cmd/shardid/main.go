// Command shardid renders, applies and checks database-side unique-ID
// generators for sharded PostgreSQL and TiDB, and decodes and rewrites the
// IDs they make.
//
// Usage:
//
//	shardid pg render|up|status|down|gen|verify|grant|resume|adopt [flags]
//	shardid decode [flags] ID...
//	shardid demo [flags]
//	shardid tidb render|gen|up|status|spread [flags]
//	shardid rotate [flags] [ID...]
//	shardid worker up|status|fence [flags]
//	shardid idgen [flags] -n COUNT
//	shardid tickets up|next|status|resume [flags]
//	shardid segment up|next|status|resume [flags]
//	shardid bench pg|tidb [flags]
//	shardid version [--json]
//
// Every command takes -h for its flags. Flags win over environment
// variables, which win over defaults. Bad input exits with status 2 and a
// one-line message naming the flag and what it allows; a failed operation
// exits with status 1.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/signal"
	"regexp"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/shardid/shardid/internal/dsn"
	"github.com/shardid/shardid/internal/words"
)

// command is one subcommand: it parses its own flags from args.
type command struct {
	summary string
	run     func(ctx context.Context, env *cliEnv, args []string) error
}

// commands is the top-level command table, the one place that lists what
// shardid can do; each command's code lives in the file named after it.
var commands = map[string]command{
	"pg":      {"render, apply and inspect PostgreSQL shard generators", runPG},
	"decode":  {"decode IDs into time, shard and sequence", runDecode},
	"demo":    {"start a throwaway PostgreSQL, apply shards, insert and decode rows", runDemo},
	"tidb":    {"render and apply TiDB tables without write hotspots; measure write spread", runTiDB},
	"rotate":  {"rotate the last digits of IDs to spread TiDB writes (IDs as arguments or one per line on stdin)", runRotate},
	"worker":  {"create and list the worker-id lease table of app-side generators", runWorker},
	"idgen":   {"lease a node id from the database and print IDs from it", runIDGen},
	"tickets": {"Flickr-style ticket servers on MySQL, MariaDB, TiDB: create, draw, check", runTickets},
	"segment": {"segment allocation (Meituan Leaf) on PostgreSQL and the MySQL family: create, draw, list", runSegment},
	"bench":   {"measure every generator side by side on your server, or on a throwaway one", runBench},
	"version": {"print the module version and the commit shardid was built from", runVersion},
}

// pgCommands are the "shardid pg" subcommands (pg.go, pg_grant.go,
// pg_map.go, pg_resume.go, pg_citus.go).
var pgCommands = map[string]command{
	"render": {"print one shard's generator SQL (a goose migration)", runPGRender},
	"up":     {"apply the generator to each shard's schema", runPGUp},
	"status": {"show each shard's goose version and generator (without --shards: every generator of the database, and what any database of the server holds that is in the way)", runPGStatus},
	"down":   {"remove the generator from each shard's schema", runPGDown},
	"gen":    {"write a goose directory for the stock goose CLI", runPGGen},
	"verify": {"prove a shard map against the live servers: each shard id in one schema on one server", runPGVerify},
	"grant":  {"give an application role exactly what drawing IDs needs on each shard, and check it", runPGGrant},
	"resume": {"after a restore, PITR or failover: show (and with --apply, move) every counter past anything the old server could have handed out", runPGResume},
	"move":   {"move a shard's schema to another node of a Citus cluster (citus_schema_move), once that node can draw its IDs", runPGMove},
	"adopt":  {"read a next_id() in Instagram's published form (or bigserial keys), print its layout, epoch and shard id; --apply replaces it by shardid's", runPGAdopt},
}

// tidbCommands are the "shardid tidb" subcommands (tidb_ddl.go,
// tidb_spread.go).
var tidbCommands = map[string]command{
	"render": {"print hotspot-free DDL for a CREATE TABLE (FILE or - for stdin)", runTiDBRender},
	"gen":    {"write the DDL as goose migration files into --dir", runTiDBGen},
	"up":     {"apply migrations (--dir, or rendered from FILEs) with goose to --dsn", runTiDBUp},
	"status": {"show goose migration status for --dir or FILEs on --dsn; DRIFT where the server no longer matches an applied migration", runTiDBStatus},
	"spread": {"simulate region splits and show how raw, rotated and shard-bit keys spread writes", runTiDBSpread},
}

// workerCommands are the "shardid worker" subcommands (worker.go).
var workerCommands = map[string]command{
	"up":     {"create the lease table (a goose migration with a history table of its own)", runWorkerUp},
	"status": {"list the leases: node, holder, lease end, last drawn time", runWorkerStatus},
	"fence":  {"after a restore of the lease table: stop every holder and keep every node id from new ones for one TTL", runWorkerFence},
}

func runWorker(ctx context.Context, env *cliEnv, args []string) error {
	return subcommand(ctx, env, "worker", workerCommands, args)
}

func runPG(ctx context.Context, env *cliEnv, args []string) error {
	return subcommand(ctx, env, "pg", pgCommands, args)
}

func runTiDB(ctx context.Context, env *cliEnv, args []string) error {
	return subcommand(ctx, env, "tidb", tidbCommands, args)
}

// cliEnv is what a command may touch: its output streams, its input and the
// environment. Tests build one over buffers.
type cliEnv struct {
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	getenv func(string) string
	// secrets knows the passwords of every DSN the command was given (on
	// the command line, in the environment, in a shard map): no message
	// printed on their account may show them.
	secrets *dsn.Redactor
	// fromEnv maps each flag that parseFlags filled from the environment
	// to its variable, so that messages name where a value came from.
	fromEnv map[string]string
	// purpose is the summary of the command being run, from its command
	// table, for its -h.
	purpose string
	// envOf maps each flag of the command that falls back to an
	// environment variable to that variable, for messages about a
	// missing value.
	envOf map[string]string
}

// origin names where the flag called name got its value, for messages
// about that value: its environment variable (SHARDID_MODE) when
// parseFlags filled it from there, else the flag (--mode, -n).
func (env *cliEnv) origin(name string) string {
	if v, ok := env.fromEnv[name]; ok {
		return v
	}
	return dashed(name)
}

// usageError is bad input: the command line is wrong, not the world. It
// exits with status 2.
type usageError struct {
	msg  string
	flag string // the flag whose value msg is about, or ""
}

// Error returns the one-line message, naming the flag if there is one.
func (e *usageError) Error() string { return e.text(dashed) }

// text is the message, with the flag (if any) named by origin.
func (e *usageError) text(origin func(string) string) string {
	if e.flag == "" {
		return e.msg
	}
	return origin(e.flag) + ": " + e.msg
}

// usagef returns a usageError with a formatted message.
func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// flagUsagef returns a usageError about the value of the flag called
// name, for code that checks values after parsing without the flag set at
// hand: it is printed as "--name: …", or "SHARDID_…: …" when the value
// came from the environment (cliEnv.origin). flagUsagef("mode", "%v", err)
// is usagef("--mode: %v", err) with the origin right.
func flagUsagef(name, format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...), flag: name}
}

func main() {
	// go-sql-driver/mysql logs dropped connections to stderr on its own
	// ("[mysql] … unexpected EOF") while the commands already report what
	// failed, in one line each.
	_ = mysql.SetLogger(log.New(io.Discard, "", 0))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	if len(os.Args) > 1 && (os.Args[1] == "bench" || os.Args[1] == "demo" || os.Args[1] == "idgen") {
		// bench and demo make schemas or a server they remove at the end,
		// idgen holds a node lease it gives back at the end: a reader that
		// goes away (`| head`) must not kill them before that. Their
		// writes fail instead, and they run to the end.
		signal.Ignore(syscall.SIGPIPE)
	}
	code := run(ctx, &cliEnv{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv}, os.Args[1:])
	stop()
	os.Exit(code)
}

// run executes one command line and returns the process exit status.
func run(ctx context.Context, env *cliEnv, args []string) int {
	if len(args) > 0 && (args[0] == "--version" || args[0] == "-version") {
		args = append([]string{"version"}, args[1:]...)
	}
	if len(args) == 0 {
		printUsage(env.stderr) // not asked for: an error, on stderr
		return 2
	}
	if args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		printUsage(env.stdout) // asked for: on stdout, for | less
		return 0
	}
	cmd, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(env.stderr, "shardid: unknown command %q (allowed: %s)\n", args[0], strings.Join(commandNames(), ", "))
		return 2
	}
	e := *env
	e.secrets = dsn.NewRedactor()
	e.purpose = cmd.summary
	var out *outputWriter
	if !isTerminal(env.stdout) {
		// (A terminal stays as it is: the progress bars of the map
		// commands need to see it. Writes to one do not fail short of a
		// hangup, which ends the process.)
		out = &outputWriter{words.Writer{W: env.stdout}}
		e.stdout = out
	}
	err := cmd.run(ctx, &e, args[1:])
	if out != nil && err == out.Err {
		err = nil // said by out.check, in its words
	}
	return out.check(&e, err, exitCode(&e, err))
}

// exitCode prints err (if any) and maps it to an exit status: a usage
// error as one line, any other error keeping its lines (a server's error
// quoting a multi-line statement, pgx listing each address it tried),
// the first after "shardid: ", the rest indented below it.
func exitCode(env *cliEnv, err error) int {
	var ue *usageError
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &ue):
		fmt.Fprintf(env.stderr, "shardid: %s\n", env.line(nameVariables(env.envOf, ue.text(env.origin))))
		return 2
	default:
		fmt.Fprintf(env.stderr, "shardid: %s\n", env.lines(err.Error()))
		return 1
	}
}

// lines is msg with every password of the command's DSNs scrubbed, its
// lines kept: blank lines dropped, each line after the first indented by
// two spaces, so that what follows "shardid: " reads as one error.
func (env *cliEnv) lines(msg string) string {
	var out []string
	for _, l := range strings.Split(env.secrets.Scrub(msg), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, env.secrets.Scrub(l))
		}
	}
	return strings.Join(out, "\n  ")
}

// line is msg folded into one line (oneLine) with every password of the
// command's DSNs scrubbed, for errors and progress that may quote a DSN or
// what a driver made of it.
func (env *cliEnv) line(msg string) string {
	return env.secrets.Scrub(words.OneLine(env.secrets.Scrub(msg)))
}

func commandNames() []string {
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func printUsage(w io.Writer) {
	fmt.Fprintln(w, "usage: shardid COMMAND [flags] [args]")
	fmt.Fprintln(w, "\ncommands:")
	for _, n := range commandNames() {
		fmt.Fprintf(w, "  %-7s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nFlags win over environment variables, which win over defaults.")
	fmt.Fprintln(w, dsnRule)
	fmt.Fprintln(w, "\nRun 'shardid COMMAND -h' for a command's purpose, flags and examples;\n'shardid --version' for the version.")
}

// subcommand dispatches args[0] among subs, for commands like "pg" and "tidb".
func subcommand(ctx context.Context, env *cliEnv, group string, subs map[string]command, args []string) error {
	names := make([]string, 0, len(subs))
	for n := range subs {
		names = append(names, n)
	}
	sort.Strings(names)
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" {
		w := env.stdout // asked for: on stdout
		if len(args) == 0 {
			w = env.stderr // not asked for: with the error
		}
		fmt.Fprintf(w, "usage: shardid %s SUBCOMMAND [flags]\n\nsubcommands:\n", group)
		for _, n := range names {
			fmt.Fprintf(w, "  %-7s %s\n", n, subs[n].summary)
		}
		if len(args) == 0 {
			return usagef("%s needs a subcommand (allowed: %s)", group, strings.Join(names, ", "))
		}
		return flag.ErrHelp
	}
	sub, ok := subs[args[0]]
	if !ok {
		return usagef("unknown %s subcommand %q (allowed: %s)", group, args[0], strings.Join(names, ", "))
	}
	env.purpose = sub.summary
	return sub.run(ctx, env, args[1:])
}

// flagSet is a command's flags plus the environment variables some of them
// fall back to. The environment is read after parsing, only for flags the
// command line did not set (flags > environment > defaults, as goose's CLI
// does), so -h prints the real defaults and never an environment value
// such as a DSN with its password.
type flagSet struct {
	*flag.FlagSet
	env     *cliEnv
	fromEnv [][2]string     // flag name, environment variable
	cmdline map[string]bool // flags set on the command line
}

// set reports whether the command line set the flag called name (a value
// from the environment does not count).
func (fs *flagSet) set(name string) bool { return fs.cmdline[name] }

// origin names where the flag called name got its value, for messages that
// check the value after parsing: "--mode", or "SHARDID_MODE" when it came
// from the environment.
func (fs *flagSet) origin(name string) string { return fs.env.origin(name) }

// newFlagSet returns a flag set that reports errors instead of exiting, so
// that a bad flag becomes a usageError with exit status 2.
func newFlagSet(env *cliEnv, name string) *flagSet {
	fs := flag.NewFlagSet("shardid "+name, flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	return &flagSet{FlagSet: fs, env: env}
}

// envVar makes the flag called name (already defined) fall back to the
// environment variable variable when the command line does not set it.
func (fs *flagSet) envVar(name, variable string) {
	if fs.Lookup(name) == nil {
		panic("envVar: no flag " + name)
	}
	fs.fromEnv = append(fs.fromEnv, [2]string{name, variable})
}

// envString defines a string flag that falls back to the environment
// variable variable (envVar).
func (fs *flagSet) envString(name, variable, value, usage string) *string {
	p := new(string)
	fs.envStringVar(p, name, variable, value, usage)
	return p
}

// envStringVar is envString storing into p.
func (fs *flagSet) envStringVar(p *string, name, variable, value, usage string) {
	fs.StringVar(p, name, value, usage)
	fs.envVar(name, variable)
}

// parseFlags parses args, then fills unset flags from their environment
// variables, turning errors into one-line usage errors; -h prints the
// flags and returns flag.ErrHelp (exit status 0).
func parseFlags(env *cliEnv, fs *flagSet, args []string) error {
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			printHelp(env.stdout, fs) // on stdout, as asked: shardid pg up -h | less
			return err
		}
		return flagError(fs, err)
	}
	if env.envOf == nil {
		env.envOf = map[string]string{}
	}
	for _, fe := range fs.fromEnv {
		env.envOf[fe[0]] = fe[1]
	}
	fs.cmdline = map[string]bool{}
	fs.Visit(func(f *flag.Flag) { fs.cmdline[f.Name] = true })
	for _, fe := range fs.fromEnv {
		v := env.getenv(fe[1])
		if fs.cmdline[fe[0]] || v == "" {
			continue
		}
		if err := fs.Set(fe[0], v); err != nil {
			return usagef("%s: environment variable %s: %s", strings.TrimPrefix(fs.Name(), "shardid "), fe[1], badValue(fs.Lookup(fe[0]), v, err))
		}
		if env.fromEnv == nil {
			env.fromEnv = map[string]string{}
		}
		env.fromEnv[fe[0]] = fe[1]
	}
	for _, name := range []string{"dsn", "records-dsn"} {
		f := fs.Lookup(name)
		if f == nil {
			continue
		}
		if l, ok := f.Value.(*dsnList); ok {
			for _, d := range *l {
				env.secrets.Add(d)
			}
		} else {
			env.secrets.Add(f.Value.String())
		}
	}
	return nil
}

// parseNoArgs is parseFlags for a command that takes flags only: an
// argument left after them is a usage error naming it.
func parseNoArgs(env *cliEnv, fs *flagSet, args []string) error {
	if err := parseFlags(env, fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("%s: unexpected argument %q", strings.TrimPrefix(fs.Name(), "shardid "), fs.Arg(0))
	}
	return nil
}

// The messages of the flag package, which flagError rewords.
var (
	flagUnknown  = regexp.MustCompile(`^flag provided but not defined: -+(.*)$`)
	flagNoValue  = regexp.MustCompile(`^flag needs an argument: -+(.*)$`)
	flagBadValue = regexp.MustCompile(`^invalid (?:boolean )?value "(.*)" for (?:flag )?-([^:]+): (.*)$`)
	flagSyntax   = regexp.MustCompile(`^bad flag syntax: (.*)$`)
)

// flagError turns an error of fs.Parse into one line naming the flag
// (dashed) and pointing at the command's -h.
func flagError(fs *flagSet, err error) error {
	cmd := strings.TrimPrefix(fs.Name(), "shardid ")
	msg := err.Error()
	if m := flagUnknown.FindStringSubmatch(msg); m != nil {
		msg = "unknown flag " + dashed(m[1])
		if near := nearestFlag(fs, m[1]); near != "" {
			msg += " (did you mean " + dashed(near) + "?)"
		}
	} else if m := flagNoValue.FindStringSubmatch(msg); m != nil {
		msg = dashed(m[1]) + " needs a value"
	} else if m := flagBadValue.FindStringSubmatch(msg); m != nil {
		msg = dashed(m[2]) + ": " + badValue(fs.Lookup(m[2]), m[1], errors.New(m[3]))
	} else if m := flagSyntax.FindStringSubmatch(msg); m != nil {
		msg = m[1] + " is not a flag"
	}
	return usagef("%s: %s (see %s -h)", cmd, msg, fs.Name())
}

// dashed is a flag's name as messages write it: -n, --shard-bits.
func dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// badValue says why value does not fit flag f (err is what its Set said),
// by the flag's type.
func badValue(f *flag.Flag, value string, err error) string {
	var v any
	if f != nil {
		if g, ok := f.Value.(flag.Getter); ok {
			v = g.Get()
		}
	}
	switch v.(type) {
	case bool:
		return value + " is not true or false"
	case int, int64, uint, uint64:
		return value + " is not a whole number in range"
	case float64:
		return value + " is not a number"
	case time.Duration:
		return value + " is not a duration such as 30s or 2m"
	}
	return value + " (" + err.Error() + ")" // the flag's own Value says what it allows
}

// nearestFlag is the flag of fs that name most likely misspells (--shard
// for --shards, --ldsn for --dsn; words.Nearest), or "".
func nearestFlag(fs *flagSet, name string) string {
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	return words.Nearest(name, names)
}
