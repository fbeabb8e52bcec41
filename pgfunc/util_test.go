package pgfunc_test

import (
	"github.com/shardid/shardid/pgfunc/internal/pgtest"
)

// The helpers the pgfunc packages' tests share (see internal/pgtest).
var (
	dbNameOf   = pgtest.DBNameOf
	newRole    = pgtest.NewRole
	dsnAs      = pgtest.DSNAs
	asRole     = pgtest.AsRole
	newConn    = pgtest.NewConn
	backendPID = pgtest.BackendPID
)

// results is a batch operation's results, its error (a
// *pgfunc.PartialError when some shard failed) left to each result.
func results[R any](rs []R, _ error) []R { return rs }
