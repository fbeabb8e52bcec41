// Package repotest holds the tests of the repository as a whole: every
// code block and command of README.md and docs/ (docs_test.go), the
// module's shape (house_test.go) and a module importing it
// (gomod_test.go). They live apart from the packages they check, so that
// the ID core's own tests build nothing but the core.
package repotest_test

import (
	"fmt"
	"os"
	"testing"
)

// TestMain runs the tests from the repository's root, where the paths
// they read (README.md, docs/, go.mod, .ci/run) stand.
func TestMain(m *testing.M) {
	if err := os.Chdir(".."); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(m.Run())
}
