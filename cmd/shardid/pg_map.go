package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"
	"golang.org/x/term"

	"github.com/shardid/shardid/internal/words"
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
	var each func(fleet.Event)
	var wait func()
	if isTerminal(env.stdout) {
		p := mpb.NewWithContext(ctx, mpb.WithOutput(env.stdout), mpb.WithWidth(40))
		bars := map[string]*mpb.Bar{}
		for _, s := range m.Servers {
			bars[s.Name] = p.AddBar(int64(len(s.Shards)),
				mpb.PrependDecorators(decor.Name(s.Name, decor.WCSyncSpaceR), decor.CountersNoUnit("%d/%d", decor.WCSyncSpace)),
				mpb.AppendDecorators(decor.Percentage(decor.WCSyncSpace), decor.Elapsed(decor.ET_STYLE_GO, decor.WCSyncSpace)))
		}
		each = func(e fleet.Event) { bars[e.Server].Increment() }
		wait = p.Wait
	} else {
		each = func(e fleet.Event) {
			r := e.Result
			state := r.Note
			switch {
			case r.Err != nil:
				state = "FAILED"
			case r.Applied:
				state = verb
			}
			line := fmt.Sprintf("%s %-8s %-20s shard %-5d %6.1fms", e.Server, state, r.Shard.Schema, r.Shard.ID, float64(r.Duration.Microseconds())/1000)
			if r.Err != nil {
				line += "  " + words.OneLine(r.Err.Error())
			}
			fmt.Fprintln(env.stdout, line)
		}
		wait = func() {}
	}
	results := op(each)
	wait()
	fmt.Fprintln(env.stdout)
	tw := tabwriter.NewWriter(env.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "SERVER\tADDRESS\tSHARDS\t%s\tUNCHANGED\tFAILED\tTIME\n", strings.ToUpper(verb))
	failed := 0
	var firstErr error
	var why []string // per server with failures: its first error
	for _, sr := range results {
		changed, f := sr.Changed(), sr.Failed()
		failed += f
		if serverErr := sr.FirstErr(); serverErr != nil {
			firstErr = cmp.Or(firstErr, serverErr)
			why = append(why, fmt.Sprintf("%s: %d %s failed; the first: %s", sr.Server.Name, f, words.Plural(f, "shard", "shards"), words.OneLine(serverErr.Error())))
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%s\n", sr.Server.Name, sr.Server.Address, len(sr.Results), changed,
			len(sr.Results)-changed-f, f, sr.Duration.Round(time.Millisecond))
	}
	tw.Flush()
	for _, line := range why {
		fmt.Fprintln(env.stdout, line)
	}
	fmt.Fprintf(env.stdout, "%d %s in %s\n", len(results), words.Plural(len(results), "server", "servers"), time.Since(start).Round(time.Millisecond))
	if failed > 0 {
		return fmt.Errorf("%d %s failed (first: %v); mend what the failures name, then rerun for the rest", failed, words.Plural(failed, "shard", "shards"), firstErr)
	}
	return nil
}

// runMapStatus prints every mapped shard's state, server by server.
func runMapStatus(ctx context.Context, env *cliEnv, m *fleet.Map) error {
	tw := tabwriter.NewWriter(env.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SERVER\tSCHEMA\tSHARD\tVERSION\tMODE\tSTATE")
	all := m.Status(ctx)
	for _, ss := range all {
		if what := ss.Unread(); what != "" {
			fmt.Fprintf(tw, "%s\t-\t-\t-\t-\t%s (%d %s not read): %s\n", ss.Server.Name, what, len(ss.Server.Shards), words.Plural(len(ss.Server.Shards), "shard", "shards"), words.OneLine(ss.Err.Error()))
			continue
		}
		for _, st := range ss.Shards {
			state, _, _ := fleet.Verdict(st)
			mode := "-"
			if st.Installed != nil {
				mode = string(st.Installed.Mode)
			}
			fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\t%s\n", ss.Server.Name, st.Shard.Schema, st.Shard.ID, st.Version, mode, state)
		}
	}
	tw.Flush()
	c := fleet.CountStatus(all)
	closed, bad, unread, ahead := c.Closed, c.Bad, c.Unread, c.Ahead
	for _, line := range closed {
		fmt.Fprintf(env.stdout, "NOT READ on server %s (no CONNECT privilege, or connections not allowed): a copy of a shard there would go unseen\n", line)
	}
	switch {
	case len(closed) > 0:
		return fmt.Errorf("databases of %d %s could not be read (listed above); grant CONNECT to prove no copy of a shard is there", len(closed), words.Plural(len(closed), "server", "servers"))
	case bad > 0 && unread > 0:
		return fmt.Errorf("%d %s missing, outdated, different from the map or copied, and %d on servers not read (unreachable, clones or standbys: see shardid pg verify)", bad, words.Plural(bad, "shard is", "shards are"), unread)
	case bad > 0:
		return fmt.Errorf("%d %s missing, outdated, different from the map or copied (see shardid pg verify)", bad, words.Plural(bad, "shard is", "shards are"))
	case unread > 0:
		return fmt.Errorf("%d %s on servers not read (unreachable, clones or standbys, listed above)", unread, words.Plural(unread, "shard", "shards"))
	case ahead > 0:
		return fmt.Errorf("%d %s further ahead of the clock than %s lead (AHEAD above)", ahead, words.Plural(ahead, "counter stands", "counters stand"), words.Plural(ahead, "its", "their"))
	}
	return nil
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
	if *asJSON {
		if err := writeJSON(env.stdout, rep); err != nil {
			return err
		}
	} else {
		tw := tabwriter.NewWriter(env.stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "SERVER\tADDRESS\tDATABASES\tGENERATORS\tNOT READ")
		for _, s := range rep.Servers {
			closed := strings.Join(s.Closed, ",")
			if s.Error != "" {
				closed = "everything: " + words.OneLine(s.Error)
			}
			fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\n", s.Name, s.Address, s.Databases, s.Generators, closed)
		}
		tw.Flush()
		fmt.Fprintln(env.stdout)
		for _, p := range rep.Problems {
			fmt.Fprintf(env.stdout, "%-11s %s\n", strings.ToUpper(p.Kind), words.OneLine(p.Message))
		}
		if rep.OK {
			fmt.Fprintf(env.stdout, "OK: %d %s on %d %s, each in one schema on one server, with the map's generator (%s)\n",
				rep.Shards, words.Plural(rep.Shards, "shard", "shards"), len(rep.Servers), words.Plural(len(rep.Servers), "server", "servers"), rep.Took.Round(time.Millisecond))
		}
	}
	if !rep.OK {
		return fmt.Errorf("the servers break the shard map in %d %s", len(rep.Problems), words.Plural(len(rep.Problems), "place", "places"))
	}
	return nil
}
