package dbserver

// This file starts a throwaway Citus cluster: a coordinator and workers,
// each a server of StartPG's kind with the Citus extension preloaded.
//
// Citus keeps its cluster metadata (pg_dist_node, pg_dist_partition …) per
// database, and the coordinator reaches a worker's database of the same
// name. So a cluster here is a set of servers, and each database made by
// CreateDatabase is a Citus cluster of its own over them: tests sharing
// the servers add and remove nodes in their own database without touching
// another test's.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"
)

// ErrCitusNotInstalled is returned by StartCitus and StartCitusNode when no
// PostgreSQL server binaries with the Citus extension beside them can be
// found.
var ErrCitusNotInstalled = errors.New("no PostgreSQL with the Citus extension found")

// citusSettings are what every Citus node runs with, before
// CitusOptions.Settings.
var citusSettings = map[string]string{
	"shared_preload_libraries": "citus",
	// Shard moves (citus_schema_move, the rebalancer) copy by logical
	// replication unless told to block writes.
	"wal_level":                          "logical",
	"max_replication_slots":              "32",
	"max_wal_senders":                    "32",
	"max_logical_replication_workers":    "16",
	"max_worker_processes":               "128", // a maintenance daemon per Citus database
	"max_connections":                    "300", // the coordinator opens several per worker and session
	"citus.enable_statistics_collection": "off",
	// Nodes reach each other on loopback without TLS (the test servers
	// have no certificates; Citus's default asks for sslmode=require).
	"citus.node_conninfo": "sslmode=disable",
}

// CitusOptions configures StartCitus and StartCitusNode. The zero value is
// ready to use.
type CitusOptions struct {
	// BinDir holds initdb and postgres of a PostgreSQL the Citus extension
	// is installed into. Empty means: the first of FindPGBinDir's places
	// that has Citus (FindCitusBinDir).
	BinDir string
	// Workers is how many workers StartCitus starts; 0 means 2.
	Workers int
	// Settings are extra server settings for every node, applied after the
	// ones Citus needs (which they may override).
	Settings map[string]string
}

// Citus is a running throwaway Citus cluster: a coordinator and its
// workers, all on loopback. Each database CreateDatabase makes is a Citus
// cluster over all of them; database postgres is one too.
type Citus struct {
	coord   *PG
	workers []*PG
	opts    CitusOptions

	mu    sync.Mutex
	nodes []*PG // started by StartNode, stopped with the cluster

	moves sync.Mutex // see Moves
}

// Moves holds off every other change of placement or membership on these
// servers (a shard move, a node added, drained, removed or updated, a
// database made a cluster) until unlock is called. The clusters of
// different databases share the servers, and Citus names what such a
// change makes on a node by node ids and takes its metadata connections
// as essential: two at once in two databases collide ("role
// citus_shard_move_subscription_role_10_1 already exists", "failure on
// connection marked as essential" from citus_add_node). CreateDatabase,
// AddNode, DrainNode, RemoveNode and UpdateNode hold it; a test that runs
// citus_schema_move or the rebalancer itself holds it around the call.
func (c *Citus) Moves() (unlock func()) {
	c.moves.Lock()
	return c.moves.Unlock
}

// FindCitusBinDir returns the directory of server binaries whose
// PostgreSQL has the Citus extension installed: explicit if not empty
// (and only it), else the first of FindPGBinDir's places that has Citus;
// or ErrCitusNotInstalled.
func FindCitusBinDir(explicit string) (string, error) {
	candidates := []string{explicit}
	if explicit == "" {
		candidates = pgBinCandidates("")
	}
	var looked []string
	for _, d := range candidates {
		if !isPGBinDir(d) {
			continue
		}
		lib, ext := citusFiles(d)
		if isFile(lib) && isFile(ext) {
			return d, nil
		}
		looked = append(looked, lib)
	}
	if len(looked) == 0 {
		return "", fmt.Errorf("%w: %w (looked in %s)", ErrCitusNotInstalled, ErrPGNotInstalled, strings.Join(candidates, ", "))
	}
	return "", fmt.Errorf("%w (no %s; install Citus into that PostgreSQL: see ../shared/citus/README.md)", ErrCitusNotInstalled, strings.Join(looked, ", "))
}

// citusFiles returns where the Citus library and its extension control
// file of the PostgreSQL in binDir would be: pg_config's directories, or
// Debian's layout (binDir's parent holds lib/) when pg_config is missing.
func citusFiles(binDir string) (lib, control string) {
	libDir := filepath.Join(filepath.Dir(binDir), "lib")
	shareDir := filepath.Join("/usr/share/postgresql", filepath.Base(filepath.Dir(binDir)))
	if out, err := exec.Command(filepath.Join(binDir, "pg_config"), "--pkglibdir", "--sharedir").Output(); err == nil {
		if f := strings.Fields(string(out)); len(f) == 2 {
			libDir, shareDir = f[0], f[1]
		}
	}
	return filepath.Join(libDir, "citus.so"), filepath.Join(shareDir, "extension", "citus.control")
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

// StartCitusNode starts one server ready to be a Citus node (Citus
// preloaded, logical WAL for shard moves), member of no cluster yet: a
// worker to add with Citus.AddNode. Stop it with Stop.
func StartCitusNode(ctx context.Context, o CitusOptions) (*PG, error) {
	bin, err := FindCitusBinDir(o.BinDir)
	if err != nil {
		return nil, err
	}
	settings := make(map[string]string, len(citusSettings)+len(o.Settings))
	for k, v := range citusSettings {
		settings[k] = v
	}
	for k, v := range o.Settings {
		settings[k] = v
	}
	s, err := StartPG(ctx, PGOptions{BinDir: bin, Settings: settings})
	if err != nil {
		return nil, fmt.Errorf("citus node: %w", err)
	}
	return s, nil
}

// StartCitus starts a coordinator and o.Workers workers (2 by default) and
// makes database postgres a Citus cluster over them: the extension on
// every node, the coordinator's host set, the workers added. Stop it with
// Stop.
func StartCitus(ctx context.Context, o CitusOptions) (*Citus, error) {
	n := o.Workers
	if n == 0 {
		n = 2
	}
	if n < 0 {
		return nil, fmt.Errorf("start citus: %d workers: want 0 (meaning 2) or more", n)
	}
	bin, err := FindCitusBinDir(o.BinDir)
	if err != nil {
		return nil, err
	}
	o.BinDir = bin
	c := &Citus{opts: o}
	// The servers start one after another: on a busy machine initdb is
	// most of the time, and it is CPU-bound.
	if c.coord, err = StartCitusNode(ctx, o); err != nil {
		return nil, fmt.Errorf("start citus coordinator: %w", err)
	}
	for i := range n {
		w, err := StartCitusNode(ctx, o)
		if err != nil {
			_ = c.Stop()
			return nil, fmt.Errorf("start citus worker %d: %w", i+1, err)
		}
		c.workers = append(c.workers, w)
	}
	if err := c.setUp(ctx, "postgres"); err != nil {
		_ = c.Stop()
		return nil, fmt.Errorf("start citus: %w", err)
	}
	return c, nil
}

// Coordinator is the coordinator's server.
func (c *Citus) Coordinator() *PG { return c.coord }

// Workers are the workers StartCitus started, in order (not those of
// StartNode).
func (c *Citus) Workers() []*PG { return append([]*PG(nil), c.workers...) }

// Nodes are the coordinator and then the workers.
func (c *Citus) Nodes() []*PG { return append([]*PG{c.coord}, c.workers...) }

// Port is the coordinator's loopback TCP port.
func (c *Citus) Port() int { return c.coord.Port() }

// DSN returns a connection URL for database db on the coordinator, as
// user postgres.
func (c *Citus) DSN(db string) string { return c.coord.DSN(db) }

// CreateDatabase creates database name (lower-case letters, digits and _)
// on every node, makes it a Citus cluster (the extension on every node,
// the coordinator's host set, each worker added) and returns the
// coordinator's DSN for it.
func (c *Citus) CreateDatabase(ctx context.Context, name string) (string, error) {
	if !PlainName(name) {
		return "", fmt.Errorf("create citus database %q: want lower-case letters, digits and _", name)
	}
	for _, n := range c.Nodes() {
		if _, err := n.CreateDatabase(ctx, name); err != nil {
			return "", fmt.Errorf("citus node %d: %w", n.Port(), err)
		}
	}
	unlock := c.Moves()
	defer unlock()
	if err := c.setUp(ctx, name); err != nil {
		return "", fmt.Errorf("create citus database %s: %w", name, err)
	}
	return c.DSN(name), nil
}

// setUp makes the existing database db a Citus cluster over the
// coordinator and the workers.
func (c *Citus) setUp(ctx context.Context, db string) error {
	for _, n := range c.Nodes() {
		if err := createCitusExtension(ctx, n, db); err != nil {
			return err
		}
	}
	conn, err := pgx.Connect(ctx, c.DSN(db))
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, "SELECT pg_catalog.citus_set_coordinator_host('127.0.0.1', $1::int)", c.coord.Port()); err != nil {
		return fmt.Errorf("citus_set_coordinator_host: %w", err)
	}
	for _, w := range c.workers {
		if _, err := conn.Exec(ctx, "SELECT pg_catalog.citus_add_node('127.0.0.1', $1::int)", w.Port()); err != nil {
			return fmt.Errorf("citus_add_node 127.0.0.1:%d: %w", w.Port(), err)
		}
	}
	return nil
}

// createCitusExtension creates the Citus extension in database db of n.
func createCitusExtension(ctx context.Context, n *PG, db string) error {
	conn, err := pgx.Connect(ctx, n.DSN(db))
	if err != nil {
		return fmt.Errorf("citus node %d: %w", n.Port(), err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, "CREATE EXTENSION IF NOT EXISTS citus"); err != nil {
		return fmt.Errorf("citus node %d: create extension citus: %w", n.Port(), err)
	}
	return nil
}

// StartNode starts a server ready to be a Citus node, with the cluster's
// settings, and stops it with the cluster; it is a member of no database's
// cluster until AddNode.
func (c *Citus) StartNode(ctx context.Context) (*PG, error) {
	n, err := StartCitusNode(ctx, c.opts)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.nodes = append(c.nodes, n)
	c.mu.Unlock()
	return n, nil
}

// AddNode adds server n (from StartCitusNode or StartNode, or a worker
// removed before) as a worker of database db's cluster: it creates db on
// n if missing, the Citus extension in it, and runs citus_add_node on the
// coordinator, which copies the cluster's metadata and objects to n.
func (c *Citus) AddNode(ctx context.Context, db string, n *PG) error {
	if !PlainName(db) {
		return fmt.Errorf("citus add node: database %q: want lower-case letters, digits and _", db)
	}
	var exists bool
	if err := n.queryRow(ctx, "SELECT EXISTS (SELECT FROM pg_catalog.pg_database WHERE datname = $1)", []any{db}, &exists); err != nil {
		return fmt.Errorf("citus add node %d: %w", n.Port(), err)
	}
	if !exists {
		if _, err := n.CreateDatabase(ctx, db); err != nil {
			return fmt.Errorf("citus add node %d: %w", n.Port(), err)
		}
	}
	if err := createCitusExtension(ctx, n, db); err != nil {
		return fmt.Errorf("citus add node: %w", err)
	}
	defer c.Moves()()
	return c.onCoordinator(ctx, db, "citus_add_node", "SELECT pg_catalog.citus_add_node('127.0.0.1', $1::int)", n.Port())
}

// DrainNode moves every shard placement off worker n in database db's
// cluster (citus_drain_node, which moves whole colocation groups, so a
// distributed schema moves as one), so that RemoveNode can remove it.
// Writes to a moving shard are blocked only while it switches over (the
// transfer mode is force_logical).
func (c *Citus) DrainNode(ctx context.Context, db string, n *PG) error {
	defer c.Moves()()
	return c.onCoordinator(ctx, db, "citus_drain_node",
		"SELECT pg_catalog.citus_drain_node('127.0.0.1', $1::int, 'force_logical')", n.Port())
}

// RemoveNode removes worker n from database db's cluster
// (citus_remove_node). Citus refuses while n holds shard placements:
// DrainNode first. The server keeps running.
func (c *Citus) RemoveNode(ctx context.Context, db string, n *PG) error {
	defer c.Moves()()
	return c.onCoordinator(ctx, db, "citus_remove_node",
		"SELECT pg_catalog.citus_remove_node('127.0.0.1', $1::int)", n.Port())
}

// UpdateNode points database db's cluster at server to instead of worker
// from (citus_update_node): a worker restored from a backup, or a standby
// promoted in its place, on another port.
func (c *Citus) UpdateNode(ctx context.Context, db string, from, to *PG) error {
	defer c.Moves()()
	return c.onCoordinator(ctx, db, "citus_update_node",
		"SELECT pg_catalog.citus_update_node(n.nodeid, '127.0.0.1', $2::int) FROM pg_catalog.pg_dist_node AS n WHERE n.nodename = '127.0.0.1' AND n.nodeport = $1::int",
		from.Port(), to.Port())
}

// onCoordinator runs q with args on database db of the coordinator; what
// names the operation in errors.
func (c *Citus) onCoordinator(ctx context.Context, db, what, q string, args ...any) error {
	conn, err := pgx.Connect(ctx, c.DSN(db))
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	tag, err := conn.Exec(ctx, q, args...)
	if err != nil {
		return fmt.Errorf("%s (ports %v): %w", what, args, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("%s (ports %v): no such node in database %s's cluster", what, args, db)
	}
	return nil
}

// Stop shuts every node down (those of StartNode too) and removes their
// directories. It is safe to call more than once.
func (c *Citus) Stop() error {
	c.mu.Lock()
	nodes := append(c.Nodes(), c.nodes...)
	c.nodes = nil
	c.mu.Unlock()
	var errs []error
	for _, n := range nodes {
		if n != nil {
			errs = append(errs, n.Stop())
		}
	}
	return errors.Join(errs...)
}
