package testsrv

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"github.com/shardid/shardid/tools/dbserver"
)

// The shared Citus cluster: a coordinator and two workers, started on
// first use like the other servers, under the same policy (no Citus
// installed: fail when CI=true, skip otherwise).
var citus = &server[*dbserver.Citus]{name: "Citus", installed: dbserver.ErrCitusNotInstalled,
	start: func(ctx context.Context) (*dbserver.Citus, error) {
		return dbserver.StartCitus(ctx, dbserver.CitusOptions{})
	},
	stop: (*dbserver.Citus).Stop}

// Citus returns the package's shared Citus cluster (a coordinator and two
// workers), starting it on first use. Every database made on it
// (CitusDB, Database) is a Citus cluster of its own over the same
// servers, so a test adds and removes nodes in its database without
// disturbing another's; tests must not stop or crash the servers: use
// NewCitus for that.
func Citus(tb testing.TB) *dbserver.Citus { return citus.get(tb) }

// NewCitus starts a Citus cluster of the test's own (for tests that crash,
// restore or reconfigure its servers), stopped when the test ends.
func NewCitus(tb testing.TB, o dbserver.CitusOptions) *dbserver.Citus {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	c, err := dbserver.StartCitus(ctx, o)
	if err != nil {
		need(tb, "Citus", dbserver.ErrCitusNotInstalled, err)
	}
	tb.Cleanup(func() { _ = c.Stop() })
	return c
}

// CitusDB creates a fresh database for tb on the shared Citus cluster
// (a Citus cluster over the coordinator and both workers) and returns a
// pool over it on the coordinator and the coordinator's DSN for it.
func CitusDB(tb testing.TB) (*sql.DB, string) {
	tb.Helper()
	dsn := Database(tb, Citus(tb))
	return Open(tb, "pgx", dsn), dsn
}

// NewCitusNode starts a server ready to join a cluster of Citus or
// NewCitus as a worker (Citus preloaded, the default node settings),
// stopped when the test ends; the cluster's AddNode adds it to a
// database's cluster. It is how a test adds a node.
func NewCitusNode(tb testing.TB) *dbserver.PG {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	n, err := dbserver.StartCitusNode(ctx, dbserver.CitusOptions{})
	if err != nil {
		need(tb, "Citus", dbserver.ErrCitusNotInstalled, err)
	}
	tb.Cleanup(func() { _ = n.Stop() })
	return n
}
