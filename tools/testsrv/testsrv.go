// Package testsrv gives tests real, throwaway database servers: PostgreSQL,
// MariaDB, TiDB and a Citus cluster (tools/dbserver), each started on
// first use and shared by the tests of one package, and fresh databases on
// them, one per test. It also holds what the tests of several packages share: golden
// files (CheckGolden, the -update flag) and waiting for a concurrent load
// (WaitFor).
//
// A package that uses it calls Main from its TestMain, so that the servers
// it started are stopped:
//
//	func TestMain(m *testing.M) { testsrv.Main(m) }
//
// Policy, the same for every server: when the server's binaries are not
// installed, a test that needs it fails when CI=true and skips otherwise
// (a laptop without MariaDB still runs the rest); any other start failure
// fails the test. Only tests import this package, so the shipped binary
// never links package testing.
package testsrv

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"   // also the database/sql driver "mysql"
	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"

	"github.com/shardid/shardid/tools/dbserver"
)

// InCI reports whether the process runs under CI (CI=true), where a test
// that cannot get its server fails rather than skips.
func InCI() bool { return os.Getenv("CI") == "true" }

// server is one lazily started shared server.
type server[S any] struct {
	name      string
	installed error // the "not installed" sentinel of the server's package
	start     func(context.Context) (S, error)
	stop      func(S) error

	once sync.Once
	srv  S
	err  error
	ok   bool
}

// get starts the server on first use and returns it, or ends tb.
func (s *server[S]) get(tb testing.TB) S {
	tb.Helper()
	s.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		s.srv, s.err = s.start(ctx)
		s.ok = s.err == nil
		if s.ok {
			mu.Lock()
			stops = append(stops, func() error { return s.stop(s.srv) })
			mu.Unlock()
		}
	})
	if !s.ok {
		need(tb, s.name, s.installed, s.err)
	}
	return s.srv
}

// need fails or skips tb for a server that could not start.
func need(tb testing.TB, name string, installed, err error) {
	tb.Helper()
	switch {
	case errors.Is(err, installed) && !InCI():
		noteSkip(name, err)
		tb.Skipf("no %s on this machine: %v", name, err)
	case errors.Is(err, installed):
		tb.Fatalf("CI=true and no %s: %v", name, err)
	default:
		tb.Fatalf("%s: %v", name, err)
	}
}

var (
	mu    sync.Mutex
	stops []func() error

	pg = &server[*dbserver.PG]{name: "PostgreSQL", installed: dbserver.ErrPGNotInstalled,
		start: func(ctx context.Context) (*dbserver.PG, error) { return dbserver.StartPG(ctx, dbserver.PGOptions{}) },
		stop:  (*dbserver.PG).Stop}
	my = &server[*dbserver.MariaDB]{name: "MariaDB", installed: dbserver.ErrMariaDBNotInstalled,
		start: func(ctx context.Context) (*dbserver.MariaDB, error) {
			return dbserver.StartMariaDB(ctx, dbserver.MariaDBOptions{})
		},
		stop: (*dbserver.MariaDB).Stop}
	ti = &server[*dbserver.TiDB]{name: "TiDB", installed: dbserver.ErrTiDBNotInstalled,
		start: func(ctx context.Context) (*dbserver.TiDB, error) {
			return dbserver.StartTiDB(ctx, dbserver.TiDBOptions{})
		},
		stop: (*dbserver.TiDB).Stop}
)

// AtExit registers stop to run when Main has run the tests, with the
// servers' own stops: for a server TestMain starts itself (Main exits the
// process, so a deferred call would never run).
func AtExit(stop func() error) {
	mu.Lock()
	stops = append(stops, stop)
	mu.Unlock()
}

// Main runs the package's tests and then stops every server they started.
// When tests were skipped for want of a server (outside CI), it says so in
// one line per server, e.g. "tidb: 12 tests skipped: no TiDB on this
// machine: …": on the terminal, which go test does not hide when the
// package passes, else on standard error.
//
// The MySQL driver's own log lines ("closing bad idle connection: EOF",
// which the restarts and kills of the tests provoke) are kept out of the
// output and printed only when a test failed, after the results.
func Main(m *testing.M) {
	_ = mysql.SetLogger(driverLog)
	code := m.Run()
	if code != 0 {
		driverLog.flush(os.Stderr)
	}
	mu.Lock()
	for _, stop := range stops {
		if err := stop(); err != nil {
			fmt.Fprintln(os.Stderr, err)
		}
	}
	mu.Unlock()
	reportSkips()
	os.Exit(code)
}

// skip is how many tests skipped for want of one server, and why.
type skip struct {
	name string
	n    int
	err  error
}

var (
	skipsMu sync.Mutex
	skips   []*skip
)

// noteSkip counts a test skipped because server name is not installed.
func noteSkip(name string, err error) {
	skipsMu.Lock()
	defer skipsMu.Unlock()
	for _, s := range skips {
		if s.name == name {
			s.n++
			return
		}
	}
	skips = append(skips, &skip{name: name, n: 1, err: err})
}

// reportSkips prints one line per server that tests were skipped for.
func reportSkips() {
	skipsMu.Lock()
	defer skipsMu.Unlock()
	if len(skips) == 0 {
		return
	}
	pkg := strings.TrimSuffix(filepath.Base(os.Args[0]), ".test")
	var w io.Writer = os.Stderr
	if tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0); err == nil {
		defer tty.Close()
		w = tty
	}
	for _, s := range skips {
		tests := "tests"
		if s.n == 1 {
			tests = "test"
		}
		fmt.Fprintf(w, "%s: %d %s skipped: no %s on this machine: %v\n", pkg, s.n, tests, s.name, s.err)
	}
}

// PG returns the package's shared PostgreSQL server, starting it on first
// use. Tests must not stop or crash it: use NewPG for that.
func PG(tb testing.TB) *dbserver.PG { return pg.get(tb) }

// MariaDB returns the package's shared MariaDB server, starting it on
// first use. Tests must not stop or crash it: use NewMariaDB for that.
func MariaDB(tb testing.TB) *dbserver.MariaDB { return my.get(tb) }

// TiDB returns the package's shared TiDB server, starting it on first use.
func TiDB(tb testing.TB) *dbserver.TiDB { return ti.get(tb) }

// NewPG starts a PostgreSQL server of the test's own (for tests that crash,
// restart or reconfigure it), stopped when the test ends.
func NewPG(tb testing.TB, o dbserver.PGOptions) *dbserver.PG {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s, err := dbserver.StartPG(ctx, o)
	if err != nil {
		need(tb, "PostgreSQL", dbserver.ErrPGNotInstalled, err)
	}
	tb.Cleanup(func() { _ = s.Stop() })
	return s
}

// NewMariaDB starts a MariaDB server of the test's own (for tests that
// crash or restart it), stopped when the test ends.
func NewMariaDB(tb testing.TB) *dbserver.MariaDB {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s, err := dbserver.StartMariaDB(ctx, dbserver.MariaDBOptions{})
	if err != nil {
		need(tb, "MariaDB", dbserver.ErrMariaDBNotInstalled, err)
	}
	tb.Cleanup(func() { _ = s.Stop() })
	return s
}

// NewTiDB starts a TiDB server of the test's own, stopped when the test
// ends.
func NewTiDB(tb testing.TB) *dbserver.TiDB {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s, err := dbserver.StartTiDB(ctx, dbserver.TiDBOptions{})
	if err != nil {
		need(tb, "TiDB", dbserver.ErrTiDBNotInstalled, err)
	}
	tb.Cleanup(func() { _ = s.Stop() })
	return s
}

// creator is what every harness server offers.
type creator interface {
	CreateDatabase(ctx context.Context, name string) (string, error)
}

// Database creates a fresh database named after tb on srv (a server from
// PG, MariaDB, TiDB or their New… forms) and returns its DSN.
func Database(tb testing.TB, srv creator) string {
	tb.Helper()
	dsn, err := srv.CreateDatabase(context.Background(), DBName(tb))
	if err != nil {
		tb.Fatalf("create database: %v", err)
	}
	return dsn
}

// Open opens dsn with driver ("pgx" or "mysql") and closes it when the
// test ends.
func Open(tb testing.TB, driver, dsn string) *sql.DB {
	tb.Helper()
	db, err := sql.Open(driver, dsn)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}

// PGDB creates a fresh database for tb on the shared PostgreSQL server and
// returns a pool over it and its DSN.
func PGDB(tb testing.TB) (*sql.DB, string) {
	tb.Helper()
	dsn := Database(tb, PG(tb))
	return Open(tb, "pgx", dsn), dsn
}

// MariaDBDB creates a fresh database for tb on the shared MariaDB server
// and returns a pool over it and its DSN.
func MariaDBDB(tb testing.TB) (*sql.DB, string) {
	tb.Helper()
	dsn := Database(tb, MariaDB(tb))
	return Open(tb, "mysql", dsn), dsn
}

// TiDBDB creates a fresh database for tb on the shared TiDB server and
// returns a pool over it and its DSN.
func TiDBDB(tb testing.TB) (*sql.DB, string) {
	tb.Helper()
	dsn := Database(tb, TiDB(tb))
	return Open(tb, "mysql", dsn), dsn
}

var (
	namesMu sync.Mutex
	names   = map[string]int{}
)

// DBName turns a test name into a database name (lower-case letters,
// digits and _, at most 60 bytes), distinct within the test binary.
func DBName(tb testing.TB) string {
	var b strings.Builder
	b.WriteString("t_")
	for _, r := range strings.ToLower(tb.Name()) {
		if r == '_' || (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	name := b.String()
	if len(name) > 50 {
		name = name[:50]
	}
	namesMu.Lock()
	defer namesMu.Unlock()
	names[name]++
	if n := names[name]; n > 1 {
		name = fmt.Sprintf("%s_%d", name, n)
	}
	return name
}

// driverLog collects the MySQL driver's log lines.
var driverLog = &lineLog{}

// lineLog is a mysql.Logger that keeps what it is given.
type lineLog struct {
	mu  sync.Mutex
	buf strings.Builder
}

// Print keeps one log line.
func (l *lineLog) Print(v ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintln(&l.buf, append([]any{time.Now().Format("15:04:05.000"), "[mysql]"}, v...)...)
}

// flush writes what was kept to w, under a heading.
func (l *lineLog) flush(w io.Writer) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.buf.Len() > 0 {
		fmt.Fprintf(w, "go-sql-driver/mysql logged while the tests ran:\n%s", l.buf.String())
	}
}
