package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
)

// fullWriter takes room bytes, then fails every write as a full disk does.
type fullWriter struct {
	room int
	got  bytes.Buffer
}

func (w *fullWriter) Write(p []byte) (int, error) {
	n := min(len(p), w.room)
	w.room -= n
	w.got.Write(p[:n])
	if n < len(p) {
		return n, &os.PathError{Op: "write", Path: "/dev/stdout", Err: syscall.ENOSPC}
	}
	return n, nil
}

// runCLIInto is runCLI with stdout going to out.
func runCLIInto(t *testing.T, out io.Writer, env map[string]string, args ...string) (code int, stderr string) {
	t.Helper()
	var errb bytes.Buffer
	e := &cliEnv{stdin: strings.NewReader(""), stdout: out, stderr: &errb, getenv: func(k string) string { return env[k] }}
	return run(context.Background(), e, args), errb.String()
}

const writeFailed = "shardid: writing output: no space left on device\n"

// TestStdoutWriteErrorsReported: a command whose output could not be
// written does not exit 0, and says so in one line on stderr, after its
// own error if it has one; a command that returned the write error itself
// says it once.
func TestStdoutWriteErrorsReported(t *testing.T) {
	for _, c := range []struct {
		room int
		args []string
		code int
		want string // stderr
	}{
		// decode ignores what Fprintf returns for all but the last line.
		{0, []string{"decode", "--layout", "js53", "1", "2"}, 1, writeFailed},
		{10, []string{"decode", "--layout", "js53", "1", "2"}, 1, writeFailed},
		// render returns the error of its one write.
		{0, []string{"pg", "render", "--shard", "1"}, 1, writeFailed},
		{0, []string{"tidb", "spread"}, 1, writeFailed},
		{0, []string{"tidb", "render", "--strategy", "auto", seedInput}, 1, writeFailed},
		// Help asked for goes to stdout (| less), so its failed write is
		// reported as any other.
		{0, []string{"decode", "-h"}, 1, writeFailed},
		// Nothing written, nothing to report.
		{0, []string{"decode", "--layout", "js53"}, 0, ""},
	} {
		code, stderr := runCLIInto(t, &fullWriter{room: c.room}, nil, c.args...)
		if c.want == "" && code == 0 {
			continue
		}
		if code != c.code || (c.want != "" && !strings.HasSuffix(stderr, c.want)) || strings.Count(stderr, "writing output") > 1 {
			t.Errorf("%v with %d bytes of room: exit %d %q; want exit %d and %q", c.args, c.room, code, stderr, c.code, c.want)
		}
	}
}

// TestStdoutWriteErrorsOnServers: the commands that work on a server
// report a stdout they could not write to, after doing (and undoing)
// their work.
func TestStdoutWriteErrorsOnServers(t *testing.T) {
	t.Parallel()
	dsn := pgDSN(t) // shards of its own: pg up checks every database of a server
	for _, args := range [][]string{
		{"demo", "--dsn", dsn},
		{"pg", "status", "--dsn", dsn},
		append([]string{"bench", "pg", "--dsn", dsn}, tinyBench...),
	} {
		code, stderr := runCLIInto(t, &fullWriter{}, nil, args...)
		if code != 1 || !strings.HasSuffix(stderr, writeFailed) || strings.Count(stderr, "writing output") != 1 {
			t.Errorf("%v into a full stdout: exit %d %q; want exit 1 ending in %q", args[:2], code, stderr, writeFailed)
		}
	}
	if got := demoSchemas(t, dsn); got != "" {
		t.Errorf("demo left schemas after its output failed: %v", got)
	}
	// A command's own error stands, the write error follows. (The server
	// is the test's own: status looks at every database of it for copies.)
	if code, stderr := runCLIInto(t, io.Discard, nil, "pg", "up", "--dsn", dsn, "--shards", "0"); code != 0 {
		t.Fatalf("pg up: exit %d %s", code, stderr)
	}
	code, stderr := runCLIInto(t, &fullWriter{}, nil, "pg", "status", "--dsn", dsn, "--shards", "0", "--layout", "js53")
	if code != 1 || !strings.HasPrefix(stderr, "shardid: 1 schema holds a generator that is outdated or differs") || !strings.HasSuffix(stderr, "\n"+writeFailed) {
		t.Errorf("pg status of a differing generator into a full stdout: exit %d %q", code, stderr)
	}
}

// TestDevFull: a real process writing to /dev/full exits 1 and names the
// error, whether the command looked at its writes or not.
func TestDevFull(t *testing.T) {
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skipf("no /dev/full: %v", err)
	}
	defer full.Close()
	for _, args := range [][]string{{"tidb", "spread"}, {"pg", "render", "--shard", "1"}} {
		cmd := exec.Command(os.Args[0], args...)
		cmd.Env = append(os.Environ(), "SHARDID_TEST_MAIN=1")
		cmd.Stdout = full
		var errb strings.Builder
		cmd.Stderr = &errb
		err := cmd.Run()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || errb.String() != writeFailed {
			t.Errorf("%v > /dev/full: %v %q; want exit status 1 and %q", args, err, errb.String(), writeFailed)
		}
	}
}
