package pgfunc_test

import (
	"database/sql"
	"testing"

	"github.com/shardid/shardid/tools/testsrv"
)

func TestMain(m *testing.M) { testsrv.Main(m) }

// newDB creates a fresh database for one test on the package's shared
// PostgreSQL server and returns a pool over it and its DSN.
func newDB(t testing.TB) (*sql.DB, string) {
	t.Helper()
	return testsrv.PGDB(t)
}
