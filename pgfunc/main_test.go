package pgfunc_test

import (
	"testing"

	"github.com/shardid/shardid/pgfunc/internal/pgtest"
	"github.com/shardid/shardid/tools/testsrv"
)

func TestMain(m *testing.M) { testsrv.Main(m) }

// newDB creates a fresh database for one test on the package's shared
// PostgreSQL server and returns a pool over it and its DSN.
var newDB = pgtest.NewDB
