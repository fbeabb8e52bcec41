package repotest_test

import (
	"bufio"
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestHouse holds the module to the shape its packages promise: the root
// package (the ID core) links no database code, no package imports from a
// layer above its own (see layerOf), no package holds more than 3,000
// lines of non-test Go (one that large does more than one stage's work:
// split it by stage), the CLI no more than 4,000 (it parses flags, calls
// the library and prints what the library writes), and no non-test Go file
// grows past 600 lines (a file that long holds more than one concern:
// split it by what each part does).
func TestHouse(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Fatalf("no go command: %v", err)
	}
	t.Run("core imports no database code", func(t *testing.T) {
		out, err := exec.Command("go", "list", "-deps", ".").Output()
		if err != nil {
			t.Fatalf("go list -deps .: %v", err)
		}
		for _, dep := range strings.Fields(string(out)) {
			if dep == "database/sql" || dep == "net" || strings.Contains(dep, ".") && !strings.HasPrefix(dep, "github.com/shardid/shardid") {
				t.Errorf("the root package depends on %s: the ID core links the standard library only, and no database code", dep)
			}
			if strings.HasPrefix(dep, "github.com/shardid/shardid/") && dep != "github.com/shardid/shardid/internal/quote" {
				t.Errorf("the root package depends on %s: only internal/quote (standard library only) is shared with it", dep)
			}
		}
	})
	t.Run("counters import no metrics", func(t *testing.T) {
		// Prometheus stays in the metrics module: the core and the
		// counter packages link none of it, nor of client_golang's
		// dependencies.
		out, err := exec.Command("go", "list", "-deps", ".", "./lease/...", "./segment/...", "./tickets/...").Output()
		if err != nil {
			t.Fatalf("go list -deps: %v", err)
		}
		for _, dep := range strings.Fields(string(out)) {
			if strings.Contains(dep, "prometheus") || strings.HasPrefix(dep, "github.com/shardid/shardid/metrics") {
				t.Errorf("the core or a counter package depends on %s: metrics are the metrics module's alone", dep)
			}
		}
	})
	t.Run("layers", func(t *testing.T) {
		// The module's packages form layers, each importing only its own
		// layer or lower ones: the ID core, then the helpers the library
		// shares (internal/, dialect), then the library, then the tools
		// only the CLI and the tests use (tools/: benchmarks and
		// throwaway servers), then the CLI. internal/ may grow; it may not
		// reach up.
		out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "./...").Output()
		if err != nil {
			t.Fatalf("go list ./...: %v", err)
		}
		seen := 0
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			f := strings.Fields(line)
			from := layerOf(f[0])
			for _, imp := range f[1:] {
				if !strings.HasPrefix(imp, module) {
					continue
				}
				seen++
				if to := layerOf(imp); to.rank > from.rank {
					t.Errorf("%s (%s) imports %s (%s): a layer imports only its own or lower ones", f[0], from.name, imp, to.name)
				}
			}
		}
		if seen == 0 {
			t.Fatal("go list showed no import between the module's packages: the check read nothing")
		}
	})
	t.Run("package size", func(t *testing.T) {
		out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{.Dir}} {{join .GoFiles \" \"}}", "./...").Output()
		if err != nil {
			t.Fatalf("go list ./...: %v", err)
		}
		pkgs := 0
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			fields := strings.Fields(line)
			if len(fields) < 2 {
				continue
			}
			pkgs++
			lines := 0
			for _, f := range fields[2:] {
				b, err := os.ReadFile(filepath.Join(fields[1], f))
				if err != nil {
					t.Fatal(err)
				}
				lines += bytes.Count(b, []byte("\n"))
			}
			limit, why := 3000, "split it by stage"
			if fields[0] == module+"/cmd/shardid" {
				limit, why = 4000, "move the work into the library and print what it writes"
			}
			if lines > limit {
				t.Errorf("%s holds %d lines of non-test Go (at most %d): %s", fields[0], lines, limit, why)
			}
		}
		if pkgs < 20 {
			t.Fatalf("go list ./... listed %d packages: the check read nothing", pkgs)
		}
	})
	t.Run("file length", func(t *testing.T) {
		err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && (strings.HasPrefix(d.Name(), ".") && path != "." || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			lines := 0
			for sc := bufio.NewScanner(bytes.NewReader(b)); sc.Scan(); {
				lines++
			}
			if lines > 600 {
				t.Errorf("%s has %d lines (at most 600 in a non-test file): split it by concern", path, lines)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	})
}

const module = "github.com/shardid/shardid"

// layer is one storey of the module's import graph.
type layer struct {
	rank int
	name string
}

// layerOf places a package of the module: the ID core (the root package
// and internal/quote, standard library only), the shared helpers
// (dialect, internal/), the library (pgfunc, tidb, lease, segment, tickets
// and their conformance suites), the tools above it (tools/), the CLI,
// the repository's own tests.
func layerOf(pkg string) layer {
	rel := strings.TrimPrefix(strings.TrimPrefix(pkg, module), "/")
	top, _, _ := strings.Cut(rel, "/")
	switch {
	case rel == "" || rel == "internal/quote":
		return layer{0, "the ID core"}
	case top == "dialect" || top == "internal":
		return layer{1, "a shared helper"}
	case top == "tools" || strings.Contains(rel, "/internal/") && strings.HasSuffix(rel, "test"):
		// A package's own test helpers (pgfunc/internal/pgtest) are
		// tools too: only tests import them.
		return layer{3, "a tool"}
	case top == "cmd":
		return layer{4, "the CLI"}
	case top == "repotest":
		return layer{5, "the repository's tests"}
	}
	return layer{2, "the library"}
}
