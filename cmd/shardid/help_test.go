package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/shardid/shardid/tools/testsrv"
)

// TestEveryCommandHelp walks every command of the command tables: each
// -h exits 0 and says the command's purpose, how to call it, and at
// least one example of it; each flag has one note, in one format, for
// its environment variable and default, never "(default -1)" beside
// "(required)" nor two defaults.
func TestEveryCommandHelp(t *testing.T) {
	leaves := leafCommands()
	if len(leaves) < 30 {
		t.Fatalf("only %d commands found in the tables: %v", len(leaves), leaves)
	}
	flagLine := regexp.MustCompile(`^  --?[a-z][a-z0-9-]*( [a-zA-Z.…]+)?$`)
	for name, purpose := range leaves {
		t.Run(strings.ReplaceAll(name, " ", "_"), func(t *testing.T) {
			code, help, errOut := runCLI(t, "", nil, append(strings.Fields(name), "-h")...)
			if code != 0 || errOut != "" {
				t.Fatalf("-h: exit %d, stderr %q (help goes to stdout, as asked)", code, errOut)
			}
			if !strings.HasPrefix(help, "shardid "+name+": "+purpose+"\n\nusage: shardid "+name+" [flags]") {
				t.Errorf("no purpose line and usage:\n%s", help)
			}
			h, ok := helps[name]
			if !ok || len(h.examples) == 0 || !strings.Contains(help, "\nexamples:\n  shardid "+name) {
				t.Errorf("no example:\n%s", help)
			}
			for _, e := range h.examples {
				if !strings.HasPrefix(e, "shardid "+name+" ") && e != "shardid "+name {
					t.Errorf("example %q is not a command line of %s", e, name)
				}
				for _, w := range strings.Fields(e) {
					if f, ok := strings.CutPrefix(w, "-"); ok && f != "" && !strings.Contains(help, "\n  -"+f+"\n") && !strings.Contains(help, "\n  -"+f+" ") {
						t.Errorf("example %q uses %s, which %s -h does not list", e, w, name)
					}
				}
			}
			for _, bad := range []string{"(default -1)", "(required) (", "usage of", "(default \""} {
				if strings.Contains(help, bad) {
					t.Errorf("help holds %q:\n%s", bad, help)
				}
			}
			lines := strings.Split(help, "\n")
			for i, l := range lines {
				if !flagLine.MatchString(l) || i+1 == len(lines) {
					continue
				}
				text := lines[i+1]
				if !strings.HasPrefix(text, "        ") {
					t.Errorf("flag %s has no text below it:\n%s", l, help)
				}
				if n := strings.Count(text, "default"); n > 1 && !strings.Contains(text, "by default") {
					t.Errorf("flag %s says default %d times: %s", l, n, text)
				}
				if strings.Count(text, "(env ") > 1 || (strings.Contains(text, "env SHARDID_") && !strings.Contains(text, "(env SHARDID_")) {
					t.Errorf("flag %s names its variable outside its one note: %s", l, text)
				}
			}
		})
	}
}

// TestFlagNote: the one note a flag's help ends with, whatever form its
// usage text gave the variable, "required" and the default in.
func TestFlagNote(t *testing.T) {
	for _, c := range []struct {
		usage, def, env, text, note string
	}{
		{"the logical shard id (required)", "-1", "", "the logical shard id", "(required)"},
		{"PostgreSQL connection URL (env SHARDID_PG_DSN)", "", "SHARDID_PG_DSN", "PostgreSQL connection URL", "(env SHARDID_PG_DSN)"},
		{"custom epoch, RFC 3339 or Unix ms (default 2025-01-01T00:00:00Z; env SHARDID_EPOCH)", "", "SHARDID_EPOCH", "custom epoch, RFC 3339 or Unix ms", "(env SHARDID_EPOCH; default 2025-01-01T00:00:00Z)"},
		{"body: unique or classic (lock-free; env SHARDID_MODE)", "unique", "SHARDID_MODE", "body: unique or classic (lock-free)", "(env SHARDID_MODE; default unique)"},
		{"the offset of the server (required; shardid tickets status lists them)", "0", "", "the offset of the server (shardid tickets status lists them)", "(required)"},
		{"shard map file (TOML; env SHARDID_MAP; required)", "", "SHARDID_MAP", "shard map file (TOML)", "(env SHARDID_MAP; required)"},
		{"shard `bits`, 1-15 (default 4 for shard-rowid, 5 for auto-random)", "0", "", "shard `bits`, 1-15", "(default 4 for shard-rowid, 5 for auto-random)"},
		{"how many at once", "4", "", "how many at once", "(default 4)"},
		{"overwrite", "false", "", "overwrite", ""},
	} {
		text, note := flagNote(&flagDef{c.usage, c.def}, c.env)
		if text != c.text || note != c.note {
			t.Errorf("%q (default %q, env %q):\n got %q %q\nwant %q %q", c.usage, c.def, c.env, text, note, c.text, c.note)
		}
	}
}

// TestMissingDSNNamesVariable: a command run without a connection
// string says, in one line with exit status 2, which flag and which
// environment variable would give it one: the variable of its group
// (shardid -h's rule), which shardid -h lists.
func TestMissingDSNNamesVariable(t *testing.T) {
	_, usage, _ := runCLI(t, "", nil, "-h")
	for _, c := range []struct {
		args     []string
		variable string
	}{
		{[]string{"pg", "up", "--shards", "0"}, "SHARDID_PG_DSN"},
		{[]string{"pg", "status"}, "SHARDID_PG_DSN"},
		{[]string{"pg", "down", "--shards", "0"}, "SHARDID_PG_DSN"},
		{[]string{"pg", "grant", "--role", "app", "--shards", "0"}, "SHARDID_PG_DSN"},
		{[]string{"pg", "resume"}, "SHARDID_PG_DSN"},
		{[]string{"pg", "verify"}, "SHARDID_MAP"},
		{[]string{"tidb", "up", "x.sql"}, "SHARDID_TIDB_DSN"},
		{[]string{"tidb", "status", "x.sql"}, "SHARDID_TIDB_DSN"},
		{[]string{"tickets", "up", "--name", "t", "--increment", "1", "--offset", "1"}, "SHARDID_TICKETS_DSN"},
		{[]string{"tickets", "next", "--name", "t"}, "SHARDID_TICKETS_DSN"},
		{[]string{"tickets", "status", "--name", "t"}, "SHARDID_TICKETS_DSN"},
		{[]string{"tickets", "resume", "--name", "t", "--offset", "1"}, "SHARDID_TICKETS_DSN"},
		{[]string{"segment", "next", "--tag", "a"}, "SHARDID_SEGMENT_DSN"},
		{[]string{"segment", "status"}, "SHARDID_SEGMENT_DSN"},
		{[]string{"worker", "up"}, "SHARDID_WORKER_DSN"},
		{[]string{"worker", "status"}, "SHARDID_WORKER_DSN"},
		{[]string{"worker", "fence"}, "SHARDID_WORKER_DSN"},
		{[]string{"idgen", "-n", "1"}, "SHARDID_WORKER_DSN"},
	} {
		code, out, errOut := runCLI(t, "", nil, c.args...)
		flagName := "--dsn"
		if c.variable == "SHARDID_MAP" {
			flagName = "--map"
		}
		if code != 2 || out != "" || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, flagName+" is required") || !strings.Contains(errOut, "(or set "+c.variable+")") {
			t.Errorf("%v: exit %d %q; want exit 2 and one line naming %s and %s", c.args, code, errOut, flagName, c.variable)
		}
		if !strings.Contains(usage, c.variable) {
			t.Errorf("shardid -h does not name %s", c.variable)
		}
	}
}

// TestDemoIgnoresEnvironmentDSN: demo without --dsn runs on a throwaway
// server even when SHARDID_PG_DSN names one, as bench does: the demo
// makes and drops schemas, which a variable set for everyday commands
// must not point at. The server the variable names holds schemas of the
// demo's names, over which a demo run there refuses: they stay, and the
// demo succeeds elsewhere.
func TestDemoIgnoresEnvironmentDSN(t *testing.T) {
	t.Parallel()
	dsn := testsrv.Database(t, testsrv.PG(t))
	db := testsrv.Open(t, "pgx", dsn)
	if _, err := db.Exec("CREATE SCHEMA shardid_demo0"); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := runCLI(t, "", map[string]string{"SHARDID_PG_DSN": dsn}, "demo", "--rows", "1")
	if code != 0 || !strings.Contains(out, "starting a throwaway PostgreSQL") {
		t.Fatalf("demo with SHARDID_PG_DSN set: exit %d\n%s%s", code, out, stderr)
	}
	if got := demoSchemas(t, dsn); got != "shardid_demo0" {
		t.Fatalf("schemas of the server SHARDID_PG_DSN names: %q, want shardid_demo0 alone", got)
	}
}

// TestVersion: shardid version and shardid --version print the module
// and the Go version; --json is one object; a binary built in the clone
// with VCS stamping names the commit it was built from.
func TestVersion(t *testing.T) {
	code, a, _ := runCLI(t, "", nil, "version")
	code2, b, _ := runCLI(t, "", nil, "--version")
	if code != 0 || code2 != 0 || a != b || !strings.HasPrefix(a, "shardid ") || !strings.Contains(a, "github.com/shardid/shardid") {
		t.Fatalf("version: exit %d %q; --version: exit %d %q", code, a, code2, b)
	}
	code, j, _ := runCLI(t, "", nil, "version", "--json")
	var v buildInfo
	if err := json.Unmarshal([]byte(j), &v); code != 0 || err != nil || v.Module != "github.com/shardid/shardid" || !strings.HasPrefix(v.Go, "go") {
		t.Fatalf("version --json: exit %d %v %q", code, err, j)
	}

	modified := true
	got := fromBuildInfo(&debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/shardid/shardid", Version: "v0.3.0"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "0123abc"}, {Key: "vcs.time", Value: "2026-11-25T08:00:00Z"}, {Key: "vcs.modified", Value: "true"}}})
	if got.Version != "v0.3.0" || got.Revision != "0123abc" || got.Modified == nil || *got.Modified != modified ||
		got.lines() != "shardid v0.3.0 (github.com/shardid/shardid, go1.26.8 "+got.Platform+")\ncommit 0123abc of 2026-11-25T08:00:00Z, with uncommitted changes\n" {
		t.Errorf("fromBuildInfo: %+v\n%s", got, got.lines())
	}

	// A fresh clone of the commit under test, as a user builds from: go
	// stamps no VCS information in a git worktree (.git a file there).
	head, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skipf("not in a git clone: %v", err)
	}
	top, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		t.Fatal(err)
	}
	clone := filepath.Join(t.TempDir(), "clone")
	for _, args := range [][]string{{"clone", "-q", "--shared", "--no-checkout", strings.TrimSpace(string(top)), clone}, {"-C", clone, "checkout", "-q", strings.TrimSpace(string(head))}} {
		if out, err := exec.Command("git", args...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	bin := filepath.Join(t.TempDir(), "shardid")
	build := exec.Command("go", "build", "-buildvcs=true", "-o", bin, "./cmd/shardid")
	build.Dir = clone
	build.Env = append(os.Environ(), "GOFLAGS=")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "--version").Output()
	if err != nil || !strings.Contains(string(out), "commit "+strings.TrimSpace(string(head))) {
		t.Fatalf("built binary --version: %v\n%s\nwant commit %s", err, out, head)
	}
}
