package testsrv

import (
	"os/exec"
	"strings"
	"testing"
)

// TestGooseCLIBuildsOnce: two asks in one process get one binary, and it
// is the goose release go.mod requires.
func TestGooseCLIBuildsOnce(t *testing.T) {
	a, b := GooseCLI(t), GooseCLI(t)
	if a != b {
		t.Fatalf("two builds: %s and %s", a, b)
	}
	want, err := GooseVersion()
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(a, "--version").CombinedOutput()
	if err != nil || !strings.Contains(string(out), want) {
		t.Fatalf("%s --version: %v %q; want %s", a, err, out, want)
	}
}
