package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"
	"golang.org/x/term"

	"github.com/shardid/shardid/pgfunc/fleet"
)

// envMap is the environment fallback of --map.
const envMap = "SHARDID_MAP"

// mapEnvNote ends the help of a --map flag: what loadMap does with the
// environment variables of the flags the map replaces.
const mapEnvNote = "; " + envPGDSN + " is ignored with it, " + envLayout + ", " + envEpoch + ", " + envMode + ", " + envLead + " and " + envSchemaFm + " are refused"

// loadMap reads the shard map of --map, refusing the per-server flags that
// the map replaces, and the environment variables of those that decide
// the generator (layout, epoch, mode, schema names): silently ignored, a
// SHARDID_LAYOUT=js53 would look applied while the map's layout is. A
// SHARDID_PG_DSN is ignored: set for the commands without a map, it says
// nothing about the map's servers.
//
// keep names flags of the command that mean something else than the map's
// keys of the same name (pg resume's --lead and --lock-timeout): those are
// left to the command.
func loadMap(env *cliEnv, fs *flagSet, path string, keep ...string) (*fleet.Map, error) {
	var drop, unset []string
	for _, name := range []string{"dsn", "shards", "layout", "epoch", "mode", "lead", "schema-format", "parallel", "lock-timeout"} {
		if slices.Contains(keep, name) {
			continue
		}
		if fs.set(name) {
			drop = append(drop, "--"+name)
		} else if v, ok := env.fromEnv[name]; ok && name != "dsn" {
			unset = append(unset, v)
		}
	}
	var fix []string
	if len(drop) > 0 {
		fix = append(fix, "drop "+strings.Join(drop, ", "))
	}
	if len(unset) > 0 {
		fix = append(fix, "unset "+strings.Join(unset, ", ")+" (the map holds the layout, epoch, mode, lead and schema names)")
	}
	if len(fix) > 0 {
		return nil, usagef("%s: --map holds the servers, shards and generator; %s", strings.TrimPrefix(fs.Name(), "shardid "), strings.Join(fix, "; "))
	}
	m, err := fleet.Load(path, env.getenv)
	if err != nil {
		return nil, usagef("%s: %v", fs.origin("map"), err)
	}
	// Every command over a map, verify included: passwords scrubbed from
	// what it prints, DSNs the drivers would misread refused.
	if err := checkMapDSNs(env, m); err != nil {
		return nil, err
	}
	return m, nil
}

// isTerminal reports whether w is a terminal, where progress bars make sense.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// runMapMigrate runs up or down over every server of the map, with one
// progress bar per server on a terminal and a line per shard otherwise,
// then a summary table; it fails when any shard failed.
func runMapMigrate(ctx context.Context, env *cliEnv, name string, m *fleet.Map) error {
	return runMapOp(ctx, env, map[string]string{"up": "applied", "down": "removed"}[name], func(each func(fleet.Event)) []fleet.ServerResult {
		if name == "down" {
			return m.Down(ctx, each)
		}
		return m.Up(ctx, each)
	}, m)
}

// runMapOp runs op over every server of the map, reporting each shard done
// as verb (applied, removed, granted).
func runMapOp(ctx context.Context, env *cliEnv, verb string, op func(func(fleet.Event)) []fleet.ServerResult, m *fleet.Map) error {
	start := time.Now()
	each, wait := func(e fleet.Event) { fmt.Fprintln(env.stdout, env.secrets.Scrub(e.Line(verb))) }, func() {}
	if isTerminal(env.stdout) {
		p := mpb.NewWithContext(ctx, mpb.WithOutput(env.stdout), mpb.WithWidth(40))
		bars := map[string]*mpb.Bar{}
		for _, s := range m.Servers {
			bars[s.Name] = p.AddBar(int64(len(s.Shards)),
				mpb.PrependDecorators(decor.Name(s.Name, decor.WCSyncSpaceR), decor.CountersNoUnit("%d/%d", decor.WCSyncSpace)),
				mpb.AppendDecorators(decor.Percentage(decor.WCSyncSpace), decor.Elapsed(decor.ET_STYLE_GO, decor.WCSyncSpace)))
		}
		each, wait = func(e fleet.Event) { bars[e.Server].Increment() }, p.Wait
	}
	results := op(each)
	wait()
	sum := fleet.OpSummary{Verb: verb, Results: results, Took: time.Since(start)}
	if err := env.writeText(sum.WriteText); err != nil {
		return err
	}
	return sum.Err()
}

// writeText prints what t (a result's WriteText) writes on stdout, every
// password of the command's DSNs scrubbed line by line: the text may
// quote a DSN or a server's error.
func (env *cliEnv) writeText(t func(io.Writer) error) error {
	var b strings.Builder
	if err := t(&b); err != nil {
		return err
	}
	lines := strings.SplitAfter(b.String(), "\n")
	for i, l := range lines {
		lines[i] = env.secrets.Scrub(l)
	}
	_, err := io.WriteString(env.stdout, strings.Join(lines, ""))
	return err
}

// runMapStatus prints every mapped shard's state, server by server.
func runMapStatus(ctx context.Context, env *cliEnv, m *fleet.Map) error {
	all := m.Status(ctx)
	if err := env.writeText(fleet.StatusTable(all).WriteText); err != nil {
		return err
	}
	return fleet.CountStatus(all).Err()
}

// runPGVerify proves the map's invariant against the live servers.
func runPGVerify(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlagSet(env, "pg verify")
	path := fs.envString("map", envMap, "", "shard map file (TOML; env "+envMap+"; required)")
	asJSON := fs.Bool("json", false, "print one JSON document instead of tables")
	if err := parseNoArgs(env, fs, args); err != nil {
		return err
	}
	if *path == "" {
		return usagef("pg verify: --map is required (or set %s): the shard map to check the servers against", envMap)
	}
	m, err := loadMap(env, fs, *path)
	if err != nil {
		return err
	}
	rep := m.Verify(ctx)
	return env.writeResult(*asJSON, "pg verify", rep, rep.WriteText, rep.Err())
}

// document is a result that fills the one --json document: its rows
// and totals, and (when it has any) the problems it found.
type document interface {
	Rows() []any
	Totals() map[string]any
}

// writeResult ends command name with err: with asJSON, res as the one
// JSON document (its problems, scrubbed, then err's); else the text its
// text method writes (writeText), then err.
func (env *cliEnv) writeResult(asJSON bool, name string, res document, text func(io.Writer) error, err error) error {
	if !asJSON {
		return cmp.Or(env.writeText(text), err)
	}
	e, rep := startReport(env, true, name)
	for _, r := range res.Rows() {
		rep.row(r)
	}
	rep.totals(res.Totals())
	if p, ok := res.(interface{ ProblemLines() []string }); ok {
		for _, l := range p.ProblemLines() {
			rep.Problems = append(rep.Problems, env.line(l))
		}
	}
	return rep.finish(e, err)
}

// positive refuses a duration flag's value d that is not positive; eg
// shows good values.
func positive(name string, d time.Duration, eg string) error {
	if d <= 0 {
		return usagef("--%s: %s is not a positive duration (e.g. %s)", name, d, eg)
	}
	return nil
}
