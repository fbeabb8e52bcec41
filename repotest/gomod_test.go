package repotest_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestImporterKeepsItsGoLine: go.mod's go line is a minor release's
// first version (the language version the code and every dependency
// need, not the patch release the project builds with, which the
// toolchain line names), so a module at that go line that imports
// shardid's packages keeps its go line through go mod tidy. The importer
// takes the clone by the README's own go mod edit line, as a user would.
func TestImporterKeepsItsGoLine(t *testing.T) {
	root, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	goLine := regexp.MustCompile(`(?m)^go (1\.\d+)(\.0)?$`).FindSubmatch(mod)
	if goLine == nil {
		t.Fatalf("go.mod's go line is not a minor release (go 1.N or go 1.N.0):\n%s", mod)
	}
	if !regexp.MustCompile(`(?m)^toolchain go1\.\d+\.\d+$`).Match(mod) {
		t.Errorf("go.mod names no toolchain for the project's own work:\n%s", mod)
	}
	want := "go " + string(goLine[1]) + string(goLine[2])
	if _, err := exec.LookPath("go"); err != nil {
		t.Fatalf("no go command: %v", err)
	}
	dir := t.TempDir()
	files := map[string]string{
		"go.mod": "module example.com/importer\n\n" + want + "\n",
		"main.go": `package main

import (
	"fmt"

	"github.com/shardid/shardid"
	"github.com/shardid/shardid/lease"
	"github.com/shardid/shardid/pgfunc"
	"github.com/shardid/shardid/tidb"
)

func main() {
	fmt.Println(shardid.Snowflake(), lease.Settings{}, pgfunc.ModeUnique, tidb.Render)
}
`,
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	edit := regexp.MustCompile("`go (mod edit [^`]*)`").FindSubmatch(readme)
	if edit == nil {
		t.Fatal("README.md gives no `go mod edit …` line for a module that imports the clone")
	}
	// The README's clone sits beside the importer, at ../shardid.
	editArgs := strings.Fields(strings.ReplaceAll(string(edit[1]), "=../shardid", "="+root))
	for _, args := range [][]string{editArgs, {"mod", "tidy"}, {"build", "./..."}} {
		cmd := exec.Command("go", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go %v: %v\n%s", args, err, out)
		}
	}
	got, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	if line := regexp.MustCompile(`(?m)^go .*$`).Find(got); string(line) != want {
		t.Errorf("go mod tidy rewrote the importer's go line to %q, want %q:\n%s", line, want, got)
	}
}
