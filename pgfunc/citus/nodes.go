package citus

// This file opens every node of a Citus cluster through its coordinator,
// with the node's counters, for what moves them (pg resume: package
// resume) rather than only reads them.

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/shardid/shardid/pgfunc"
)

// Cluster is the nodes of a Citus cluster, opened through the
// coordinator Open was given, each with its counters. Close it.
type Cluster struct {
	// Nodes are the cluster's primary node groups, the coordinator first.
	Nodes []NodeCounters
	// coordinator is the pool Open was given, never closed by Close.
	coordinator *sql.DB
}

// NodeCounters is one node of a Cluster.
type NodeCounters struct {
	// Node is the node group, with the slot the ledger gave it.
	Node Node
	// DB is a pool on the node's database (the coordinator's own pool for
	// group 0); nil when Err is set.
	DB *sql.DB
	// Counters are the node's counters of the shards Open was asked
	// for, each with its shard's metadata in Meta.
	Counters []NodeCounter
	// Err, when not nil, says why the node or its counters could not be
	// read: nothing of it can move.
	Err error
}

// NodeCounter is one node's counter of one shard, with what the shard's
// generator records (read from next_id_meta() on the coordinator).
type NodeCounter struct {
	Counter
	// Meta is the shard's generator's metadata (layout, lead); Known is
	// false when it could not be read, and Unreadable then says why.
	Meta       pgfunc.Meta
	Known      bool
	Unreadable string
	// Kept is true for a counter a down kept (the shard's public
	// functions gone): nobody draws from it, the next up carries on from
	// it.
	Kept bool
}

// ShardSchema is the schema of the shard the counter draws for: its
// companion schema without NodeSchemaSuffix.
func (c NodeCounter) ShardSchema() string {
	return strings.TrimSuffix(c.Schema, pgfunc.NodeSchemaSuffix)
}

// Open opens, through the coordinator db is connected to, every primary
// node of its Citus cluster with the node's counters of shards (all
// shards when nil); a node that cannot be reached is a NodeCounters with
// Err, not an error. It returns nil when db's database has no Citus and
// ErrWorker on a worker: a cluster's counters are reached through its
// coordinator.
func Open(ctx context.Context, db *sql.DB, shards []pgfunc.Shard) (*Cluster, error) {
	nodes, err := clusterNodes(ctx, db, "a Citus cluster's counters are reached through its coordinator, which reaches every node")
	if err != nil || nodes == nil {
		return nil, err
	}
	wanted := map[string]bool{}
	for _, sh := range shards {
		wanted[sh.Schema+pgfunc.NodeSchemaSuffix] = true
	}
	metas := map[string]NodeCounter{} // shard schema -> its metadata
	meta := func(schema string) NodeCounter {
		if m, ok := metas[schema]; ok {
			return m
		}
		var c NodeCounter
		m, live, ok, err := readMeta(ctx, db, schema)
		switch {
		case err != nil:
			c.Unreadable = err.Error()
		case !ok:
			c.Unreadable = "no next_id_meta() in schema " + schema + " on the coordinator"
		default:
			c.Meta, c.Known, c.Kept = m, true, !live
		}
		metas[schema] = c
		return c
	}
	cl := &Cluster{coordinator: db}
	var connect func(context.Context, Node) (*sql.DB, error)
	for _, n := range nodes {
		nc := NodeCounters{Node: n, DB: db}
		if n.Group != 0 {
			if connect == nil {
				if connect, err = connector(ctx, db); err != nil {
					cl.Close()
					return nil, err
				}
			}
			if nc.DB, err = connect(ctx, n); err != nil {
				nc.DB, nc.Err = nil, fmt.Errorf("%s: %w", n, err)
				cl.Nodes = append(cl.Nodes, nc)
				continue
			}
		}
		cs, err := readNodeCounters(ctx, nc.DB, n)
		if err != nil {
			nc.Err = fmt.Errorf("%s: %w", n, err)
		}
		for _, c := range cs {
			if len(shards) > 0 && !wanted[c.Schema] {
				continue
			}
			m := meta(strings.TrimSuffix(c.Schema, pgfunc.NodeSchemaSuffix))
			m.Counter = c
			if m.Known && c.Shard >= 0 && m.Meta.Shard != c.Shard {
				m.Known, m.Unreadable = false, fmt.Sprintf("the counter was made for shard %d, the generator of %s stamps shard %d", c.Shard, m.ShardSchema(), m.Meta.Shard)
			}
			if c.Slot < 0 || c.Slots != pgfunc.CitusSlots {
				m.Known, m.Unreadable = false, "its comment does not say which slot it draws in"
			}
			nc.Counters = append(nc.Counters, m)
		}
		cl.Nodes = append(cl.Nodes, nc)
	}
	return cl, nil
}

// clusterNodes lists, through the coordinator db is connected to, the
// cluster's primary node groups with their slots; nil when db's database
// has no Citus, ErrWorker (saying why with onWorker) on a worker.
func clusterNodes(ctx context.Context, db *sql.DB, onWorker string) ([]Node, error) {
	citus, coordinator, err := nodeRole(ctx, db)
	if err != nil || !citus {
		return nil, err
	}
	if !coordinator {
		return nil, fmt.Errorf("%w: %s", ErrWorker, onWorker)
	}
	ledger, err := readLedger(ctx, db)
	if err != nil {
		return nil, err
	}
	return listNodes(ctx, db, ledger)
}

// Close closes the pools Open opened on the workers.
func (cl *Cluster) Close() {
	for _, n := range cl.Nodes {
		if n.DB != nil && n.DB != cl.coordinator {
			_ = n.DB.Close()
		}
	}
}
