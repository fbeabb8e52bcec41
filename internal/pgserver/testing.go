package pgserver

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"
)

// InCI reports whether the process runs under CI (CI=true), where a test
// that cannot get its server must fail rather than skip.
func InCI() bool { return os.Getenv("CI") == "true" }

// RunTests is the body of a package's TestMain: it starts one throwaway
// server for the whole test binary, stores it in *srv, runs the tests and
// stops the server. When no server can be started the tests still run with
// *srv nil, so that server-backed tests skip via Need on a developer's
// machine; with CI=true the binary fails instead.
func RunTests(m *testing.M, srv **Server, o Options) int {
	stop, ok := ForTests(srv, o)
	defer stop()
	if !ok {
		return 1
	}
	return m.Run()
}

// ForTests starts the server for a test binary whose TestMain needs more
// than one server, storing it in *srv. ok is false when the run must fail
// (CI=true and no server); outside CI a failure leaves *srv nil and Need
// skips. Call stop when the tests are done.
func ForTests(srv **Server, o Options) (stop func(), ok bool) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	s, err := Start(ctx, o)
	cancel()
	if err != nil {
		if InCI() {
			fmt.Fprintf(os.Stderr, "FAIL: CI=true and no PostgreSQL server: %v\n", err)
			return func() {}, false
		}
		fmt.Fprintf(os.Stderr, "warning: PostgreSQL-backed tests will skip: %v\n", err)
		return func() {}, true
	}
	*srv = s
	return func() {
		if err := s.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, err)
		}
	}, true
}

// Need returns srv, or skips the test when it is nil (RunTests already
// failed the binary when CI=true).
func Need(tb testing.TB, srv *Server) *Server {
	tb.Helper()
	if srv == nil {
		if InCI() {
			tb.Fatal("CI=true and no PostgreSQL server")
		}
		tb.Skip("no PostgreSQL server binaries on this machine")
	}
	return srv
}
