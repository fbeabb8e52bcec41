package tidb_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/shardid/shardid/tools/dbserver"
	"github.com/shardid/shardid/tools/testsrv"
)

// exampleDSN is the database Example_migrate applies to: on a throwaway
// TiDB started here, since an Example has no *testing.T.
var exampleDSN string

// TestMain starts a TiDB for Example_migrate (skipping that example, and
// saying so, when no tidb-server is installed outside CI), runs the tests
// and stops every server they started.
func TestMain(m *testing.M) {
	flag.Parse()
	if !runsExamples() {
		testsrv.Main(m)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	srv, err := dbserver.StartTiDB(ctx, dbserver.TiDBOptions{})
	if err == nil {
		exampleDSN, err = srv.CreateDatabase(ctx, "example_migrate")
	}
	cancel()
	if err != nil {
		fmt.Fprintf(os.Stderr, "Example_migrate skipped: it needs a TiDB: %v\n", err)
		if !testsrv.InCI() {
			skip := "^Example_migrate$"
			if old := flag.Lookup("test.skip").Value.String(); old != "" {
				skip = old + "|" + skip
			}
			flag.Set("test.skip", skip)
		}
	}
	if srv != nil {
		testsrv.AtExit(srv.Stop)
	}
	testsrv.Main(m)
}

// runsExamples reports whether this test binary may run Example_migrate:
// not a fuzzing worker, and not a run that selects no tests (-run '^$',
// as go test -fuzz and -bench runs use).
func runsExamples() bool {
	if f := flag.Lookup("test.fuzzworker"); f != nil && f.Value.String() == "true" {
		return false
	}
	if f := flag.Lookup("test.run"); f != nil && f.Value.String() == "^$" {
		return false
	}
	return true
}
