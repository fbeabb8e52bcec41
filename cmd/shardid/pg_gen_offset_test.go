package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shardid/shardid/internal/gooseup"
	"github.com/shardid/shardid/tools/testsrv"
)

// TestPGGenJoinsGooseDirectory: shard migrations join a goose directory
// that already holds a migration made by the stock goose CLI's create,
// sequential (00001_init.sql) or timestamped (20261125093000_init.sql),
// with --version-offset; without it, or with one too small, pg gen
// refuses in one line naming the flag and the offset that fits, and
// writes nothing. The stock goose CLI then applies the directory to a
// throwaway PostgreSQL: the directory's own migration first, then the
// shards.
func TestPGGenJoinsGooseDirectory(t *testing.T) {
	t.Parallel()
	goose := testsrv.GooseCLI(t)
	for _, c := range []struct {
		name   string
		create []string // goose flags before create
	}{
		{"sequential", []string{"-s"}},
		{"timestamp", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			dsn := pgDSN(t) // a database each: one shard id per database
			dir := t.TempDir()
			create := exec.Command(goose, append(append([]string{"-dir", dir}, c.create...), "create", "init_"+c.name, "sql")...)
			if out, err := create.CombinedOutput(); err != nil {
				t.Fatalf("goose create: %v\n%s", err, out)
			}
			entries, err := os.ReadDir(dir)
			if err != nil || len(entries) != 1 {
				t.Fatalf("goose create made %v (%v)", entries, err)
			}
			own := entries[0].Name()
			top, err := gooseup.Version(own)
			if err != nil {
				t.Fatal(err)
			}
			// The migration creates a table of its own, to see it ran.
			if err := os.WriteFile(filepath.Join(dir, own), []byte("-- +goose Up\nCREATE TABLE joined_"+c.name+" (x int);\n-- +goose Down\nDROP TABLE joined_"+c.name+";\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			format := "join_" + c.name + "_%d"
			gen := func(extra ...string) (int, string, string) {
				return runCLI(t, "", nil, append([]string{"pg", "gen", "--dir", dir, "--shards", "0-2", "--schema-format", format}, extra...)...)
			}
			for _, extra := range [][]string{nil, {"--version-offset", fmt.Sprint(top - 1)}} {
				code, out, errOut := gen(extra...)
				if code != 2 || out != "" || strings.Count(errOut, "\n") != 1 || !strings.HasPrefix(errOut, "shardid: --version-offset: shard migration ") || !strings.Contains(errOut, fmt.Sprintf("give --version-offset %d or more", top)) {
					t.Fatalf("gen %v beside %s: exit %d %q%q", extra, own, code, out, errOut)
				}
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 1 {
				t.Fatalf("a refused gen wrote files: %v", entries)
			}
			code, out, errOut := gen("--version-offset", fmt.Sprint(top))
			if code != 0 || !strings.Contains(out, "wrote 3 migrations") {
				t.Fatalf("gen --version-offset %d: exit %d %s%s", top, code, out, errOut)
			}
			if _, err := os.Stat(filepath.Join(dir, fmt.Sprintf("%05d_shardid_join_%s_2.sql", top+3, c.name))); err != nil {
				t.Fatalf("shard 2's migration: %v", err)
			}
			// A rerun with the same offset changes nothing.
			if code, out, _ := gen("--version-offset", fmt.Sprint(top)); code != 0 || !strings.Contains(out, "wrote 0 migrations to "+dir+" (3 already there") {
				t.Fatalf("rerun: exit %d %s", code, out)
			}
			table := "goose_" + c.name
			for _, args := range [][]string{{"up"}, {"status"}} {
				cmd := exec.Command(goose, append([]string{"-dir", dir, "-table", table, "postgres", dsn}, args...)...)
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("goose %v: %v\n%s", args, err, out)
				}
			}
			db := openPG(t, dsn)
			if _, err := db.Exec("SELECT x FROM joined_" + c.name); err != nil {
				t.Fatalf("the directory's own migration: %v", err)
			}
			for id := int64(0); id < 3; id++ {
				var shard int64
				q := fmt.Sprintf("SELECT join_%s_%d.id_shard(join_%[1]s_%[2]d.next_id())", c.name, id)
				if err := db.QueryRow(q).Scan(&shard); err != nil || shard != id {
					t.Fatalf("shard %d after goose up: %d, %v", id, shard, err)
				}
			}
			var applied []int64
			rows, err := db.Query("SELECT version_id FROM " + table + " WHERE version_id > 0 ORDER BY id")
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			for rows.Next() {
				var v int64
				if err := rows.Scan(&v); err != nil {
					t.Fatal(err)
				}
				applied = append(applied, v)
			}
			if want := []int64{top, top + 1, top + 2, top + 3}; fmt.Sprint(applied) != fmt.Sprint(want) {
				t.Fatalf("goose applied versions %v, want %v (the directory's own, then shards 0-2)", applied, want)
			}
		})
	}
}
