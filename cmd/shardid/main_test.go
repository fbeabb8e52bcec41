package main

import (
	"bufio"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/shardid/shardid/tools/testsrv"
)

// TestMain stops the throwaway servers the tests started: PostgreSQL for
// the pg commands, MariaDB for the tidb commands, each on first use, so a
// test that needs neither starts neither. With SHARDID_TEST_MAIN=1 the
// test binary is the shardid command instead (runMain), for tests that
// need a process of its own: signals, a closed stdout.
func TestMain(m *testing.M) {
	if os.Getenv("SHARDID_TEST_MAIN") == "1" {
		main()
	}
	testsrv.Main(m)
}

// headTwo runs shardid args as a process of its own (the test binary, see
// TestMain) whose reader goes away after two lines of stdout, as
// `shardid … | head -2` does, and returns how the process ended and what
// it wrote on stderr.
func headTwo(t *testing.T, args ...string) (waitErr error, stderr string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "SHARDID_TEST_MAIN=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var errb strings.Builder
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(out)
	for range 2 {
		if _, err := r.ReadString('\n'); err != nil {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("reading %v: %v (%s)", args, err, errb.String())
		}
	}
	out.Close()
	err = cmd.Wait()
	return err, errb.String()
}
