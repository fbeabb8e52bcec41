// Command shardid renders, applies and checks database-side unique-ID
// generators for sharded PostgreSQL and TiDB, and decodes and rewrites the
// IDs they make.
//
// Usage:
//
//	shardid pg render|up|status|down|gen [flags]
//	shardid decode [flags] ID...
//	shardid demo [flags]
//	shardid tidb render|gen|up|status|spread [flags]
//	shardid rotate [flags] [ID...]
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
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"
)

// command is one subcommand: it parses its own flags from args.
type command struct {
	summary string
	run     func(ctx context.Context, env *cliEnv, args []string) error
}

// commands is the top-level command table. Each command lives in its own
// file (pg.go, decode.go, demo.go, tidb.go, rotate.go) and adds itself from
// that file's init function, so files stay self-contained.
var commands = map[string]command{}

// cliEnv is what a command may touch: its output streams, its input and the
// environment. Tests build one over buffers.
type cliEnv struct {
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	getenv func(string) string
}

// usageError is bad input: the command line is wrong, not the world. It
// exits with status 2.
type usageError struct{ msg string }

// Error returns the one-line message.
func (e *usageError) Error() string { return e.msg }

// usagef returns a usageError with a formatted message.
func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, &cliEnv{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv}, os.Args[1:])
	stop()
	os.Exit(code)
}

// run executes one command line and returns the process exit status.
func run(ctx context.Context, env *cliEnv, args []string) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		printUsage(env.stderr)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	cmd, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(env.stderr, "shardid: unknown command %q (allowed: %s)\n", args[0], strings.Join(commandNames(), ", "))
		return 2
	}
	return exitCode(env, cmd.run(ctx, env, args[1:]))
}

// exitCode prints err (if any) as one line and maps it to an exit status.
func exitCode(env *cliEnv, err error) int {
	var ue *usageError
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &ue):
		fmt.Fprintf(env.stderr, "shardid: %s\n", ue.msg)
		return 2
	default:
		fmt.Fprintf(env.stderr, "shardid: %v\n", err)
		return 1
	}
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
	fmt.Fprintln(w, "\nRun 'shardid COMMAND -h' for a command's flags.")
}

// subcommand dispatches args[0] among subs, for commands like "pg" and "tidb".
func subcommand(ctx context.Context, env *cliEnv, group string, subs map[string]command, args []string) error {
	names := make([]string, 0, len(subs))
	for n := range subs {
		names = append(names, n)
	}
	sort.Strings(names)
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" {
		fmt.Fprintf(env.stderr, "usage: shardid %s SUBCOMMAND [flags]\n\nsubcommands:\n", group)
		for _, n := range names {
			fmt.Fprintf(env.stderr, "  %-7s %s\n", n, subs[n].summary)
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
	return sub.run(ctx, env, args[1:])
}

// newFlagSet returns a flag set that reports errors instead of exiting, so
// that a bad flag becomes a usageError with exit status 2.
func newFlagSet(env *cliEnv, name string) *flag.FlagSet {
	fs := flag.NewFlagSet("shardid "+name, flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	return fs
}

// parseFlags parses args, turning flag-package errors into one-line usage
// errors; -h prints the flags and returns flag.ErrHelp (exit status 0).
func parseFlags(env *cliEnv, fs *flag.FlagSet, args []string) error {
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(env.stderr)
			fmt.Fprintf(env.stderr, "usage of %s:\n", fs.Name())
			fs.PrintDefaults()
			return err
		}
		return usagef("%s: %v", strings.TrimPrefix(fs.Name(), "shardid "), err)
	}
	return nil
}

// envDefault returns the environment variable's value, or def when it is
// unset or empty: flags > environment > defaults.
func envDefault(env *cliEnv, name, def string) string {
	if v := env.getenv(name); v != "" {
		return v
	}
	return def
}
