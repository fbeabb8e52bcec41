// Package target is the server a bench measures: the one a DSN names, or,
// without one, a throwaway server started from this machine's binaries
// (tools/dbserver), with the words a report prints for where it ran.
//
// A throwaway PostgreSQL or Citus cluster runs with durable commits
// (fsync and full_page_writes on), unlike the test servers, so that
// synchronous_commit on and off differ as they do on a real server; a
// throwaway TiDB runs on its embedded unistore engine.
package target

import (
	"context"
	"database/sql"
	"fmt"
	"io"

	_ "github.com/jackc/pgx/v5/stdlib" // the pgx driver, to ask a server whether it is a Citus coordinator

	"github.com/shardid/shardid/internal/dsn"
	"github.com/shardid/shardid/pgfunc/citus"
	"github.com/shardid/shardid/tools/dbserver"
)

// Target is a server to measure. The zero value names no server.
type Target struct {
	// DSN connects to it.
	DSN string
	// Where names it in a report: the DSN without its password, or the
	// throwaway server and how it runs.
	Where string
	// Citus is set for a Citus coordinator (see PG).
	Citus bool
	// stop stops a throwaway server; nil for one a DSN names.
	stop func() error
}

// Stop stops a throwaway server and removes its files; for a server a
// DSN names it does nothing.
func (t Target) Stop() {
	if t.stop != nil {
		_ = t.stop()
	}
}

// durable are the settings of a throwaway PostgreSQL or Citus node.
var durable = map[string]string{"fsync": "on", "full_page_writes": "on"}

// PG is the PostgreSQL server d names or, when d is "", a throwaway one
// started from the installed server binaries: a Citus cluster (a
// coordinator and two workers) when cluster is set, one server otherwise;
// a line on notes (io.Discard for none) says which is starting. The
// target is Citus when it is the throwaway cluster or d names a Citus
// coordinator.
func PG(ctx context.Context, d string, cluster bool, notes io.Writer) (Target, error) {
	switch {
	case d != "":
		return Target{DSN: d, Where: dsn.Redact(d), Citus: isCoordinator(ctx, d)}, nil
	case cluster:
		fmt.Fprintln(notes, "starting a throwaway Citus cluster (a coordinator and two workers, fsync on) ...")
		c, err := dbserver.StartCitus(ctx, dbserver.CitusOptions{Settings: durable})
		if err != nil {
			return Target{}, err
		}
		where := fmt.Sprintf("a throwaway Citus cluster, coordinator on 127.0.0.1:%d (fsync on)", c.Port())
		return Target{DSN: c.DSN("postgres"), Where: where, Citus: true, stop: c.Stop}, nil
	}
	fmt.Fprintln(notes, "starting a throwaway PostgreSQL from the installed server binaries (fsync on) ...")
	srv, err := dbserver.StartPG(ctx, dbserver.PGOptions{Settings: durable})
	if err != nil {
		return Target{}, err
	}
	where := fmt.Sprintf("a throwaway server on 127.0.0.1:%d (%s, fsync on)", srv.Port(), srv.BinDir())
	return Target{DSN: srv.DSN("postgres"), Where: where, stop: srv.Stop}, nil
}

// isCoordinator reports whether the PostgreSQL server d names is a Citus
// coordinator; false too when it cannot be asked (the bench of a single
// server then reports why).
func isCoordinator(ctx context.Context, d string) bool {
	db, err := sql.Open("pgx", d)
	if err != nil {
		return false
	}
	defer db.Close()
	isCitus, coordinator, err := citus.Detect(ctx, db)
	return err == nil && isCitus && coordinator
}

// TiDB is the TiDB server d names or, when d is "", a throwaway one
// (its embedded unistore engine) of the tidb-server binary bin names as
// dbserver.FindTiDB takes it (the value of TIDB_BIN; "" looks for it),
// after a line on notes (io.Discard for none) saying so.
func TiDB(ctx context.Context, d, bin string, notes io.Writer) (Target, error) {
	if d != "" {
		return Target{DSN: d, Where: dsn.Redact(d)}, nil
	}
	bin, err := dbserver.FindTiDB(bin)
	if err != nil {
		return Target{}, err
	}
	fmt.Fprintf(notes, "starting a throwaway TiDB (%s, its embedded unistore engine) ...\n", bin)
	srv, err := dbserver.StartTiDB(ctx, dbserver.TiDBOptions{Bin: bin})
	if err != nil {
		return Target{}, err
	}
	return Target{DSN: srv.DSN(""), Where: fmt.Sprintf("a throwaway server on 127.0.0.1:%d", srv.Port()), stop: srv.Stop}, nil
}
