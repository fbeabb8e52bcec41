package mariadb

import (
	"context"
	"errors"
	"fmt"
	"os"
	"testing"
	"time"
)

// skipReason is why Need skips, set by Main when no server could start.
var skipReason string

// Main runs a test package with one throwaway server, stored in *server for
// the tests, and stops it afterwards. Call it from TestMain.
//
// When the binaries are missing: with CI=true in the environment the run
// fails (exit status 1); otherwise *server stays nil and Need skips the
// tests that want it, saying why. Any other start failure fails the run.
func Main(m *testing.M, server **Server) {
	os.Exit(run(m, server))
}

func run(m *testing.M, server **Server) int {
	stop, ok := ForTests(server)
	defer stop()
	if !ok {
		return 1
	}
	return m.Run()
}

// ForTests starts the server for a test binary whose TestMain needs more
// than one server, storing it in *server. ok is false when the run must
// fail (CI=true without binaries, or a server that would not start);
// without binaries outside CI, *server stays nil and Need skips. Call stop
// when the tests are done.
func ForTests(server **Server) (stop func(), ok bool) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	s, err := Start(ctx, Options{})
	cancel()
	switch {
	case errors.Is(err, ErrNotInstalled) && os.Getenv("CI") != "true":
		skipReason = err.Error()
		return func() {}, true
	case errors.Is(err, ErrNotInstalled):
		fmt.Fprintf(os.Stderr, "mariadb: %v; CI=true, so the tests fail instead of skipping\n", err)
		return func() {}, false
	case err != nil:
		fmt.Fprintf(os.Stderr, "mariadb: %v\n", err)
		return func() {}, false
	}
	*server = s
	return func() { s.Stop() }, true
}

// Need skips t when Main found no MariaDB binaries (outside CI), and
// returns s otherwise.
func Need(t testing.TB, s *Server) *Server {
	t.Helper()
	if s == nil {
		if skipReason == "" {
			skipReason = "no MariaDB server: call mariadb.Main from TestMain"
		}
		t.Skip(skipReason)
	}
	return s
}
