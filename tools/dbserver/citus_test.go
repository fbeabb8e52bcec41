package dbserver_test

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shardid/shardid/tools/dbserver"
	"github.com/shardid/shardid/tools/testsrv"
)

// placement returns the port of the node holding the tables of
// distributed schema schema, read from the coordinator's metadata.
func placement(t *testing.T, db *sql.DB, schema string) int {
	t.Helper()
	var port int
	err := db.QueryRow(`SELECT DISTINCT nodeport FROM pg_catalog.citus_shards
		WHERE table_name::text LIKE $1 || '.%'`, schema).Scan(&port)
	if err != nil {
		t.Fatalf("placement of schema %s: %v", schema, err)
	}
	return port
}

// mustExec runs q on db or fails t.
func mustExec(t *testing.T, db *sql.DB, q string, args ...any) {
	t.Helper()
	if _, err := db.Exec(q, args...); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

// TestCitusCluster: the shared cluster's database is a Citus cluster of a
// coordinator and two workers, each node running with what shard moves
// need (logical WAL); a distributed schema's table is placed on a worker,
// written and read through every node, and moved by citus_schema_move
// with logical replication; and a second database is a cluster of its
// own over the same servers.
func TestCitusCluster(t *testing.T) {
	t.Parallel()
	c := testsrv.Citus(t)
	db, dsn := testsrv.CitusDB(t)
	if dsn != c.DSN(dbName(t, db)) {
		t.Fatalf("CitusDB's DSN %s is not the coordinator's", dsn)
	}
	var coordinators, workers int
	err := db.QueryRow(`SELECT count(*) FILTER (WHERE groupid = 0 AND nodeport = $1),
		count(*) FILTER (WHERE groupid > 0 AND isactive AND noderole = 'primary' AND shouldhaveshards)
		FROM pg_catalog.pg_dist_node`, c.Port()).Scan(&coordinators, &workers)
	if err != nil {
		t.Fatal(err)
	}
	if coordinators != 1 || workers != 2 {
		t.Fatalf("pg_dist_node: %d coordinators on port %d and %d active workers; want 1 and 2", coordinators, c.Port(), workers)
	}
	for _, n := range c.Nodes() {
		node := testsrv.Open(t, "pgx", n.DSN(dbName(t, db)))
		var wal, preload, version string
		if err := node.QueryRow(`SELECT current_setting('wal_level'), current_setting('shared_preload_libraries'),
			(SELECT extversion FROM pg_extension WHERE extname = 'citus')`).Scan(&wal, &preload, &version); err != nil {
			t.Fatalf("node %d: %v", n.Port(), err)
		}
		if wal != "logical" || !strings.HasPrefix(preload, "citus") || version == "" {
			t.Fatalf("node %d: wal_level %s, shared_preload_libraries %q, citus %q; want logical, citus first, the extension created", n.Port(), wal, preload, version)
		}
	}

	mustExec(t, db, `SET citus.enable_schema_based_sharding = on`)
	mustExec(t, db, `CREATE SCHEMA tenant`)
	mustExec(t, db, `RESET citus.enable_schema_based_sharding`)
	mustExec(t, db, `CREATE TABLE tenant.t (id bigint PRIMARY KEY, node int)`)
	from := placement(t, db, "tenant")
	if from == c.Port() {
		t.Fatalf("schema tenant placed on the coordinator (port %d); want a worker", from)
	}
	for i, n := range c.Nodes() {
		node := testsrv.Open(t, "pgx", n.DSN(dbName(t, db)))
		mustExec(t, node, `INSERT INTO tenant.t VALUES ($1, inet_server_port())`, i)
	}
	var to int
	for _, w := range c.Workers() {
		if w.Port() != from {
			to = w.Port()
		}
	}
	func() {
		defer c.Moves()() // see Moves: one move at a time on these servers
		mustExec(t, db, `SELECT citus_schema_move('tenant', '127.0.0.1', $1, 'force_logical')`, to)
	}()
	if got := placement(t, db, "tenant"); got != to {
		t.Fatalf("after citus_schema_move to %d the schema is on %d", to, got)
	}
	var rows int
	if err := db.QueryRow(`SELECT count(*) FROM tenant.t`).Scan(&rows); err != nil {
		t.Fatal(err)
	}
	if rows != len(c.Nodes()) {
		t.Fatalf("%d rows after the move; want one written through each of %d nodes", rows, len(c.Nodes()))
	}

	// Another database: a cluster of its own, which knows nothing of tenant.
	other := testsrv.Open(t, "pgx", testsrv.Database(t, c))
	var schemas int
	if err := other.QueryRow(`SELECT count(*) FROM pg_catalog.pg_dist_schema`).Scan(&schemas); err != nil {
		t.Fatal(err)
	}
	if schemas != 0 {
		t.Fatalf("a second database's cluster has %d distributed schemas; want none", schemas)
	}
}

// dbName returns the name of the database db is connected to.
func dbName(t *testing.T, db *sql.DB) string {
	t.Helper()
	var name string
	if err := db.QueryRow(`SELECT current_database()`).Scan(&name); err != nil {
		t.Fatal(err)
	}
	return name
}

// TestCitusNodeAddDrainRemove: a node started by the test joins one
// database's cluster (and no other), takes a distributed schema, refuses
// removal while it holds it, and is drained and removed; the schema's rows
// are all still there.
func TestCitusNodeAddDrainRemove(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := testsrv.Citus(t)
	db, _ := testsrv.CitusDB(t)
	name := dbName(t, db)
	n := testsrv.NewCitusNode(t)
	if err := c.AddNode(ctx, name, n); err != nil {
		t.Fatal(err)
	}
	var active bool
	if err := db.QueryRow(`SELECT isactive FROM pg_catalog.pg_dist_node WHERE nodeport = $1`, n.Port()).Scan(&active); err != nil || !active {
		t.Fatalf("node %d after AddNode: active %v, %v", n.Port(), active, err)
	}
	var elsewhere int
	shared := testsrv.Open(t, "pgx", c.DSN("postgres"))
	if err := shared.QueryRow(`SELECT count(*) FROM pg_catalog.pg_dist_node WHERE nodeport = $1`, n.Port()).Scan(&elsewhere); err != nil {
		t.Fatal(err)
	}
	if elsewhere != 0 {
		t.Fatalf("node %d joined database postgres's cluster too", n.Port())
	}

	mustExec(t, db, `CREATE SCHEMA moving`)
	mustExec(t, db, `CREATE TABLE moving.t (id bigint PRIMARY KEY)`)
	mustExec(t, db, `SELECT citus_schema_distribute('moving')`)
	mustExec(t, db, `INSERT INTO moving.t SELECT g FROM generate_series(1, 1000) g`)
	// Citus may place the new schema on the new, empty node itself; the
	// move is only asked for when it did not.
	if placement(t, db, "moving") != n.Port() {
		func() {
			defer c.Moves()() // see Moves: one move at a time on these servers
			mustExec(t, db, `SELECT citus_schema_move('moving', '127.0.0.1', $1, 'force_logical')`, n.Port())
		}()
	}
	if got := placement(t, db, "moving"); got != n.Port() {
		t.Fatalf("schema moving is on %d; want the new node %d", got, n.Port())
	}
	if err := c.RemoveNode(ctx, name, n); err == nil {
		t.Fatal("RemoveNode of a node holding a schema succeeded; Citus must refuse")
	}
	if err := c.DrainNode(ctx, name, n); err != nil {
		t.Fatal(err)
	}
	if got := placement(t, db, "moving"); got == n.Port() {
		t.Fatalf("schema moving still on drained node %d", got)
	}
	if err := c.RemoveNode(ctx, name, n); err != nil {
		t.Fatal(err)
	}
	var left, rows int
	if err := db.QueryRow(`SELECT (SELECT count(*) FROM pg_catalog.pg_dist_node WHERE nodeport = $1), (SELECT count(*) FROM moving.t)`,
		n.Port()).Scan(&left, &rows); err != nil {
		t.Fatal(err)
	}
	if left != 0 || rows != 1000 {
		t.Fatalf("after RemoveNode: node listed %d times, %d rows; want 0 and 1000", left, rows)
	}
	if err := c.RemoveNode(ctx, name, n); err == nil {
		t.Fatal("RemoveNode of a node no longer in the cluster succeeded")
	}
}

// TestCitusWorkerRestored: a worker of a cluster of the test's own is
// restored from a base backup onto another port and UpdateNode points the
// cluster at it: the coordinator reads the worker's schema from the
// restored copy, which holds what the backup held and nothing later.
func TestCitusWorkerRestored(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a cluster of its own")
	}
	t.Parallel()
	ctx := context.Background()
	c := testsrv.NewCitus(t, dbserver.CitusOptions{Workers: 1})
	db := testsrv.Open(t, "pgx", c.DSN("postgres"))
	mustExec(t, db, `CREATE SCHEMA r`)
	mustExec(t, db, `CREATE TABLE r.t (id int)`)
	mustExec(t, db, `SELECT citus_schema_distribute('r')`)
	mustExec(t, db, `INSERT INTO r.t VALUES (1)`)
	w := c.Workers()[0]
	backup, err := w.BaseBackup(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer backup.Remove()
	mustExec(t, db, `INSERT INTO r.t VALUES (2)`) // after the backup: lost by the restore
	restored, err := backup.Restore(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = restored.Stop() })
	if err := w.Crash(); err != nil {
		t.Fatal(err)
	}
	if err := c.UpdateNode(ctx, "postgres", w, restored); err != nil {
		t.Fatal(err)
	}
	var ids string
	if err := db.QueryRow(`SELECT string_agg(id::text, ',' ORDER BY id) FROM r.t`).Scan(&ids); err != nil {
		t.Fatal(err)
	}
	if ids != "1" {
		t.Fatalf("rows through the restored worker: %s; want 1 (2 came after the backup)", ids)
	}
	if got := placement(t, db, "r"); got != restored.Port() {
		t.Fatalf("schema r placed on %d; want the restored worker %d", got, restored.Port())
	}
}

// TestFindCitusBinDir: server binaries without the Citus library beside
// them are ErrCitusNotInstalled (which testsrv turns into a skip, or a
// failure when CI=true), not a server that fails to start.
func TestFindCitusBinDir(t *testing.T) {
	t.Parallel()
	real, err := dbserver.FindCitusBinDir("")
	if errors.Is(err, dbserver.ErrCitusNotInstalled) && !testsrv.InCI() {
		t.Skipf("no Citus on this machine: %v", err)
	}
	if err != nil {
		t.Fatalf("CI=true and no Citus: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "15", "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"initdb", "postgres"} {
		if err := os.Symlink(filepath.Join(real, name), filepath.Join(bin, name)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := dbserver.FindPGBinDir(bin); err != nil {
		t.Fatalf("the stand-in directory does not pass as PostgreSQL binaries: %v", err)
	}
	_, err = dbserver.FindCitusBinDir(bin)
	if !errors.Is(err, dbserver.ErrCitusNotInstalled) {
		t.Fatalf("FindCitusBinDir(%s) without citus.so beside it: %v; want ErrCitusNotInstalled", bin, err)
	}
	if !strings.Contains(err.Error(), "citus.so") {
		t.Fatalf("error %q does not say what is missing", err)
	}
}
