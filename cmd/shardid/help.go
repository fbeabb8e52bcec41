package main

import (
	"flag"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"
)

// helpText is what a command's -h says beyond its purpose (the summary of
// its command table) and its flags: the arguments it takes after the
// flags, and one or two command lines to copy.
type helpText struct {
	args     string   // after "shardid NAME [flags]", e.g. "[FILE.sql…]"; "" for flags only
	examples []string // whole command lines, each starting with "shardid "
}

// helps holds the help of every command that parses flags, by its full
// name ("pg up"); TestEveryCommandHelp walks the command tables and holds
// each to having one.
var helps = map[string]helpText{
	"version": {"", []string{"shardid version", "shardid version --json"}},
	"decode": {"[ID…]", []string{
		"shardid decode 499680437493301249",
		"shardid decode --layout snowflake --json < ids.txt",
	}},
	"demo": {"", []string{"shardid demo", "shardid demo --dsn postgres://me@localhost:5432/scratch --rows 10"}},
	"rotate": {"[ID…]", []string{
		"shardid rotate 561632371732905984",
		"shardid rotate --reverse --digits 1 < rotated.txt",
	}},
	"idgen": {"", []string{"shardid idgen --dsn postgres://app@db1:5432/app -n 5"}},

	"pg render": {"", []string{"shardid pg render --shard 0 > 00001_shard_0.sql"}},
	"pg up": {"", []string{
		"shardid pg up --dsn postgres://owner@db1:5432/app --shards 0-63",
		"shardid pg up --map fleet.toml",
	}},
	"pg status": {"", []string{
		"shardid pg status --dsn postgres://owner@db1:5432/app",
		"shardid pg status --dsn postgres://owner@db1:5432/app --shards 0-63 --json",
	}},
	"pg down": {"", []string{"shardid pg down --dsn postgres://owner@db1:5432/app --shards 63"}},
	"pg gen": {"", []string{
		"shardid pg gen --dir migrations --shards 0-3",
		"shardid pg gen --dir migrations --shards 0-3 --version-offset 100",
	}},
	"pg verify": {"", []string{"shardid pg verify --map fleet.toml"}},
	"pg grant":  {"", []string{"shardid pg grant --dsn postgres://owner@db1:5432/app --shards 0-63 --role app"}},
	"pg resume": {"", []string{
		"shardid pg resume --dsn postgres://owner@db2:5432/app",
		"shardid pg resume --dsn postgres://owner@db2:5432/app --lead 5s --apply",
	}},
	"pg move": {"", []string{"shardid pg move --dsn postgres://owner@coordinator:5432/app --shard 3 --to worker2:5432"}},
	"pg adopt": {"", []string{
		"shardid pg adopt --dsn postgres://owner@db1:5432/app --shards 0-63",
		"shardid pg adopt --dsn postgres://owner@db1:5432/app --shards 0-63 --apply",
	}},

	"tidb render": {"FILE.sql|-", []string{
		"shardid tidb render schema.sql",
		"shardid tidb render --strategy auto-random - < schema.sql",
	}},
	"tidb gen": {"FILE.sql…", []string{"shardid tidb gen --dir migrations schema.sql"}},
	"tidb up": {"[FILE.sql…]", []string{
		"shardid tidb up --dsn 'root@tcp(127.0.0.1:4000)/app' --dir migrations",
		"shardid tidb up --dsn 'root@tcp(127.0.0.1:4000)/app' schema.sql",
	}},
	"tidb status": {"[FILE.sql…]", []string{"shardid tidb status --dsn 'root@tcp(127.0.0.1:4000)/app' --dir migrations --json"}},
	"tidb spread": {"", []string{"shardid tidb spread", "shardid tidb spread --shard-bits 6 --writes 200000"}},

	"worker up":     {"", []string{"shardid worker up --dsn postgres://app@db1:5432/app"}},
	"worker status": {"", []string{"shardid worker status --dsn postgres://app@db1:5432/app --json"}},
	"worker fence":  {"", []string{"shardid worker fence --dsn postgres://app@db1:5432/app"}},

	"tickets up": {"", []string{
		"shardid tickets up --name order_id --increment 2 --offset 1 --dsn 'app@tcp(t1:3306)/tickets'",
	}},
	"tickets next":   {"", []string{"shardid tickets next --name order_id --dsn 'app@tcp(t1:3306)/tickets' --dsn 'app@tcp(t2:3306)/tickets' -n 3"}},
	"tickets status": {"", []string{"shardid tickets status --name order_id --dsn 'app@tcp(t1:3306)/tickets' --dsn 'app@tcp(t2:3306)/tickets' --json"}},
	"tickets resume": {"", []string{"shardid tickets resume --name order_id --offset 1 --dsn 'app@tcp(t1:3306)/tickets' --dsn 'app@tcp(t2:3306)/tickets'"}},

	"segment up":     {"", []string{"shardid segment up --dsn postgres://app@db1:5432/app"}},
	"segment next":   {"", []string{"shardid segment next --dsn postgres://app@db1:5432/app --tag order -n 3"}},
	"segment status": {"", []string{"shardid segment status --dsn postgres://app@db1:5432/app --json"}},
	"segment resume": {"", []string{"shardid segment resume --dsn postgres://app@db1:5432/app --tag order"}},

	"bench pg":   {"", []string{"shardid bench pg", "shardid bench pg --dsn postgres://me@localhost:5432/scratch --json"}},
	"bench tidb": {"", []string{"shardid bench tidb", "shardid bench tidb --dsn 'root@tcp(127.0.0.1:4000)/test'"}},
}

// groups are the commands that take a subcommand, with their tables.
func groups() map[string]map[string]command {
	return map[string]map[string]command{
		"pg": pgCommands, "tidb": tidbCommands, "worker": workerCommands,
		"tickets": ticketsCommands, "segment": segmentCommands, "bench": benchCommands,
	}
}

// leafCommands returns every command that parses flags, by its full name
// ("pg up", "decode"), with its summary.
func leafCommands() map[string]string {
	out := map[string]string{}
	gs := groups()
	for n, c := range commands {
		subs, ok := gs[n]
		if !ok {
			out[n] = c.summary
			continue
		}
		for s, sc := range subs {
			out[n+" "+s] = sc.summary
		}
	}
	return out
}

// dsnRule is the one rule for which commands read which connection string
// from the environment, as shardid -h states it.
const dsnRule = `Connection strings: --dsn wins; without it a command reads the variable of
its group, and no other:
  pg …              SHARDID_PG_DSN       (PostgreSQL; pg verify reads SHARDID_MAP)
  tidb up, status   SHARDID_TIDB_DSN     (MySQL protocol)
  tickets …         SHARDID_TICKETS_DSN  (MySQL protocol; one --dsn per server)
  segment …         SHARDID_SEGMENT_DSN  (PostgreSQL or MySQL protocol)
  worker …, idgen   SHARDID_WORKER_DSN   (PostgreSQL or MySQL protocol)
  demo, bench       none: a throwaway server unless --dsn names one`

// Parts of a flag's usage text that printHelp lifts out into its one
// "(env X; default Y)" note: the environment variable, "required", and a
// default described in words.
var (
	helpEnv      = regexp.MustCompile(`(\(|;\s*)env (SHARDID_[A-Z_]+)(?:, which holds one)?(\)|;\s*)`)
	helpRequired = regexp.MustCompile(`(\(|;\s*)required(\)|;\s*)`)
	helpDefault  = regexp.MustCompile(`\(default:? ([^()]*(?:\([^()]*\)[^()]*)*)\)`)
)

// joinParen rewrites what is left when a part of a parenthesized list is
// cut out: "(" + ")" → "", "(" + "; " → "(", "; " + ")" → ")".
func joinParen(open, close string) string {
	switch {
	case open == "(" && close == ")":
		return ""
	case open == "(":
		return "("
	case close == ")":
		return ")"
	}
	return "; "
}

// flagDef is what flagNote reads of a flag: its usage text (with the
// argument name unquoted, flag.UnquoteUsage) and its default.
type flagDef struct{ usage, def string }

// flagNote splits a flag's usage text into the text and its note: the
// environment variable it falls back to, whether it is required, and its
// default (in words where the text says it, else the flag's own).
func flagNote(f *flagDef, envName string) (text, note string) {
	text = f.usage
	required := false
	if m := helpEnv.FindStringSubmatchIndex(text); m != nil {
		if envName == "" {
			envName = text[m[4]:m[5]]
		}
		text = text[:m[0]] + joinParen(text[m[2]:m[3]], text[m[6]:m[7]]) + text[m[1]:]
	}
	if m := helpRequired.FindStringSubmatchIndex(text); m != nil {
		required = true
		text = text[:m[0]] + joinParen(text[m[2]:m[3]], text[m[4]:m[5]]) + text[m[1]:]
	}
	def := f.def
	if m := helpDefault.FindStringSubmatchIndex(text); m != nil {
		def = text[m[2]:m[3]]
		text = text[:m[0]] + text[m[1]:]
	}
	text = strings.TrimSpace(strings.ReplaceAll(text, " ;", ";"))
	var parts []string
	if envName != "" {
		parts = append(parts, "env "+envName)
	}
	switch {
	case required:
		parts = append(parts, "required")
	case isZeroDefault(def):
	default:
		parts = append(parts, "default "+def)
	}
	if len(parts) > 0 {
		note = "(" + strings.Join(parts, "; ") + ")"
	}
	return text, note
}

// isZeroDefault reports whether def is the zero value of f's type, which
// help leaves unsaid (as the flag package does).
func isZeroDefault(def string) bool {
	switch def {
	case "", "false", "0", "0s", "[]":
		return true
	}
	return strings.HasPrefix(def, "0 ") // a list's count: "0 DSNs"
}

// printHelp prints fs's command's help: its purpose, how to call it, its
// flags each with one note saying its environment variable and its
// default (or that it is required), and its examples.
// The purpose is the summary of the command's table, which run and
// subcommand put in cliEnv.purpose on their way to the command.
func printHelp(w io.Writer, fs *flagSet) {
	name := strings.TrimPrefix(fs.Name(), "shardid ")
	h := helps[name]
	if fs.env.purpose != "" {
		fmt.Fprintf(w, "shardid %s: %s\n\n", name, fs.env.purpose)
	}
	usage := "usage: shardid " + name + " [flags]"
	if h.args != "" {
		usage += " " + h.args
	}
	fmt.Fprintln(w, usage)
	envOf := map[string]string{}
	for _, fe := range fs.fromEnv {
		envOf[fe[0]] = fe[1]
	}
	var flags []*flag.Flag
	fs.VisitAll(func(f *flag.Flag) { flags = append(flags, f) })
	sort.Slice(flags, func(i, j int) bool { return flags[i].Name < flags[j].Name })
	if len(flags) > 0 {
		fmt.Fprintln(w, "\nflags:")
	}
	for _, f := range flags {
		arg, usage := flag.UnquoteUsage(f)
		text, note := flagNote(&flagDef{usage, f.DefValue}, envOf[f.Name])
		line := "  " + dashed(f.Name)
		if arg != "" {
			line += " " + arg
		}
		fmt.Fprintln(w, line)
		if note != "" {
			text += " " + note
		}
		fmt.Fprintln(w, "        "+text)
	}
	if len(h.examples) > 0 {
		fmt.Fprintln(w, "\nexamples:")
		for _, e := range h.examples {
			fmt.Fprintln(w, "  "+e)
		}
	}
}

// nameVariables makes a message that a flag is missing ("--dsn is
// required") name the environment variable that would supply it too,
// when the command reads one for that flag (envOf, filled by parseFlags)
// and the message does not name it already.
func nameVariables(envOf map[string]string, msg string) string {
	for name, variable := range envOf {
		missing := dashed(name) + " is required"
		if strings.Contains(msg, missing) && !strings.Contains(msg, variable) {
			return strings.Replace(msg, missing, missing+" (or set "+variable+")", 1)
		}
	}
	return msg
}
