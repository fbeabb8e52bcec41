package adopt_test

import (
	"testing"

	"github.com/shardid/shardid/pgfunc/internal/pgtest"
	"github.com/shardid/shardid/tools/testsrv"
)

func TestMain(m *testing.M) { testsrv.Main(m) }

// The helpers the pgfunc packages' tests share (see internal/pgtest).
var (
	newDB   = pgtest.NewDB
	newRole = pgtest.NewRole
	asRole  = pgtest.AsRole
	newConn = pgtest.NewConn
)

// results is a batch operation's results, its error (a
// *pgfunc.PartialError when some shard failed) left to each result.
func results[R any](rs []R, _ error) []R { return rs }
