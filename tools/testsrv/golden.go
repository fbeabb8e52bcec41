package testsrv

// Golden files: test output compared with files under the package's
// testdata/, the one way every package's tests do it. Run a package's
// tests with -update to rewrite its golden files, then review the diff.

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/ instead of comparing with them")

// UpdatingGolden reports whether the test binary runs with -update.
func UpdatingGolden() bool { return *update }

// CheckGolden compares got with the file at path and reports a difference
// as a test error showing both; with -update it writes got to path
// instead, creating its directory.
func CheckGolden(tb testing.TB, path string, got []byte) {
	tb.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			tb.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		tb.Fatalf("%v (run the tests with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		tb.Errorf("%s differs from the golden file (review the change, then rerun with -update)\ngot:\n%s\nwant:\n%s", path, got, want)
	}
}
