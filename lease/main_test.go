package lease_test

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shardid/shardid/tools/dbserver"
	"github.com/shardid/shardid/tools/testsrv"
)

// runnableExamples are the examples that run against a database: they
// read it from DATABASE_URL, as an application would.
const runnableExamples = "Example_generator"

func TestMain(m *testing.M) {
	testsrv.Parallel(4) // the tests mostly wait for leases to end and servers to restart
	exampleDatabase()
	testsrv.Main(m)
}

// exampleDatabase points DATABASE_URL at a fresh database on a throwaway
// PostgreSQL server when the runnable examples are to run, never at one
// the environment named. Without PostgreSQL binaries the examples are
// skipped, with one line saying so, unless CI=true: then the run fails.
func exampleDatabase() {
	os.Unsetenv("DATABASE_URL")
	if !selected(runnableExamples) {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	srv, err := dbserver.StartPG(ctx, dbserver.PGOptions{})
	if err == nil {
		testsrv.AtExit(srv.Stop)
		var dsn string
		if dsn, err = srv.CreateDatabase(ctx, "examples"); err == nil {
			os.Setenv("DATABASE_URL", dsn)
			return
		}
	}
	switch {
	case errors.Is(err, dbserver.ErrPGNotInstalled) && !testsrv.InCI():
		fmt.Fprintf(os.Stderr, "lease: %s skipped: no PostgreSQL on this machine (%v)\n", runnableExamples, err)
		skip := "^(" + runnableExamples + ")$"
		if old := flag.Lookup("test.skip").Value.String(); old != "" {
			skip = old + "|" + skip
		}
		flag.Set("test.skip", skip)
	default:
		fmt.Fprintf(os.Stderr, "lease: PostgreSQL for %s: %v\n", runnableExamples, err)
		os.Exit(1)
	}
}

// selected reports whether -test.run and -test.skip let the top-level test
// or example name run.
func selected(name string) bool {
	match := func(flagName string) (matched, set bool) {
		pattern, _, _ := strings.Cut(flag.Lookup(flagName).Value.String(), "/")
		if pattern == "" {
			return false, false
		}
		ok, err := regexp.MatchString(pattern, name)
		return ok || err != nil, true
	}
	if ok, set := match("test.run"); set && !ok {
		return false
	}
	skipped, _ := match("test.skip")
	return !skipped
}

// recorder keeps the events a lease handed to OnEvent.
type recorder[E any] struct {
	mu  sync.Mutex
	evs []E
}

func (r *recorder[E]) add(e E) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.evs = append(r.evs, e)
}

// all returns the events so far.
func (r *recorder[E]) all() []E {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]E(nil), r.evs...)
}
