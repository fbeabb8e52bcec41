package testsrv

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// GooseTags are the build tags that leave out the goose CLI's drivers
// shardid does not write migrations for: the CLI keeps PostgreSQL (pg gen
// directories) and MySQL (tidb gen directories). The README's install line
// uses the same tags.
const GooseTags = "no_clickhouse no_libsql no_mssql no_sqlite3 no_vertica no_ydb"

const goosePkg = "github.com/pressly/goose/v3"

var (
	gooseOnce sync.Once
	goosePath string
	gooseErr  error
)

// GooseVersion is the goose module version this module's go.mod requires
// (go list -m, run in the test's package directory, inside the module).
func GooseVersion() (string, error) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{if .Replace}}replaced{{else}}{{.Version}}{{end}}", goosePkg).Output()
	if err != nil {
		return "", fmt.Errorf("go list -m %s: %w", goosePkg, err)
	}
	v := strings.TrimSpace(string(out))
	if v == "replaced" || v == "" {
		return "", fmt.Errorf("go.mod replaces %s: the stock CLI is built from a released version", goosePkg)
	}
	return v, nil
}

// GooseCLI returns the path of the stock goose command-line tool at the
// version go.mod pins, built with GooseTags. It is built once per machine
// and goose version (go install from the module proxy, about a minute on
// two idle cores), in the user's cache directory under a file lock, so the
// test binaries of one run, and later runs, share one build. With -short
// the test skips: the quick loop builds nothing from the module proxy
// beyond the module's own dependencies. A build that fails fails the test
// when CI=true and skips it otherwise.
func GooseCLI(tb testing.TB) string {
	tb.Helper()
	if testing.Short() {
		tb.Skip("-short: the stock goose CLI is built from the module proxy")
	}
	gooseOnce.Do(func() { goosePath, gooseErr = buildGoose() })
	if gooseErr != nil {
		if InCI() {
			tb.Fatalf("build the stock goose CLI: %v", gooseErr)
		}
		tb.Skipf("cannot build the stock goose CLI here: %v", gooseErr)
	}
	return goosePath
}

// buildGoose installs the goose CLI into a cache directory named for its
// version, the build tags and the Go release, unless a finished build is
// already there.
func buildGoose() (string, error) {
	version, err := GooseVersion()
	if err != nil {
		return "", err
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	tags := strings.ReplaceAll(GooseTags, " ", ",")
	dir := filepath.Join(cache, "shardid-test", fmt.Sprintf("goose-%s-%s-%x", version, runtime.Version(), hash(tags)))
	bin := filepath.Join(dir, "goose")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	// One build at a time: the packages of one go test run are separate
	// processes that may all ask at once.
	lock, err := os.OpenFile(filepath.Join(dir, "lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return "", err
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return "", fmt.Errorf("lock %s: %w", lock.Name(), err)
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
	if fi, err := os.Stat(bin); err == nil && fi.Mode().IsRegular() {
		return bin, nil
	}
	tmp, err := os.MkdirTemp(dir, "build-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	cmd := exec.Command("go", "install", "-tags", tags, goosePkg+"/cmd/goose@"+version)
	cmd.Env = append(os.Environ(), "GOBIN="+tmp, "GOFLAGS=")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go install %s/cmd/goose@%s: %v\n%s", goosePkg, version, err, out)
	}
	// Renamed into place only once complete: a build cut short leaves no
	// binary a later run would take for a finished one.
	if err := os.Rename(filepath.Join(tmp, "goose"), bin); err != nil {
		return "", err
	}
	return bin, nil
}

// hash is FNV-1a of s, to name a cache directory.
func hash(s string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(s); i++ {
		h ^= uint32(s[i])
		h *= 16777619
	}
	return h
}
