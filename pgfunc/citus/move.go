package citus

// This file moves a logical shard between the nodes of a Citus cluster
// with Citus's own move (docs/citus.md): the schema's tables move, the
// counters stay where they are, and the node that receives them must be
// able to draw.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"

	"github.com/shardid/shardid/pgfunc"
)

// ErrNotReady is returned by Move when the node to move a shard to is not
// a primary of the cluster with a slot and the shard's counter made for
// it: statements entering there would draw nothing (run shardid pg up on
// the coordinator first).
var ErrNotReady = errors.New("Citus node not ready for the shard")

// TransferModes are the transfer modes Move accepts (Citus's
// shard_transfer_mode); the empty mode means "auto".
var TransferModes = []string{"auto", "force_logical", "block_writes"}

// Move moves sh's schema, with its tables, to the node of the Citus
// cluster at host:port through the coordinator db is connected to
// (citus_schema_move, transfer mode mode, see TransferModes), once it
// checked that the node is a primary with a slot holding sh's counter
// made for its group (ErrNotReady otherwise). The counters stay: after
// the move the statements draw on other nodes, each from its own counter
// in its own slot. It refuses a worker (ErrWorker) and a database without
// Citus. Tests on shared servers hold dbserver.Citus.Moves around it.
func Move(ctx context.Context, db *sql.DB, sh pgfunc.Shard, host string, port int, mode string) error {
	if mode == "" {
		mode = "auto"
	}
	if !slices.Contains(TransferModes, mode) {
		return fmt.Errorf("citus move of %s: transfer mode %q (allowed: %v)", sh.Schema, mode, TransferModes)
	}
	cl, err := Open(ctx, db, []pgfunc.Shard{sh})
	if err != nil {
		return fmt.Errorf("citus move of %s: %w", sh.Schema, err)
	}
	if cl == nil {
		return fmt.Errorf("citus move of %s: %w", sh.Schema, pgfunc.ErrNoGenerator)
	}
	defer cl.Close()
	i := slices.IndexFunc(cl.Nodes, func(n NodeCounters) bool { return n.Node.Host == host && n.Node.Port == port })
	if i < 0 {
		return fmt.Errorf("%w: %s:%d is no active primary of the cluster (citus_add_node it, then shardid pg up)", ErrNotReady, host, port)
	}
	to := cl.Nodes[i]
	switch {
	case to.Err != nil:
		return fmt.Errorf("%w: %v", ErrNotReady, to.Err)
	case to.Node.Slot < 0:
		return fmt.Errorf("%w: %s has no slot: run shardid pg up on the coordinator first", ErrNotReady, to.Node)
	}
	ready := slices.ContainsFunc(to.Counters, func(c NodeCounter) bool {
		return c.ShardSchema() == sh.Schema && c.Shard == sh.ID && c.Group == to.Node.Group && c.Slot == to.Node.Slot && c.Known && !c.Kept
	})
	if !ready {
		return fmt.Errorf("%w: %s holds no live counter of shard %d made for it: run shardid pg up --shards %d on the coordinator first", ErrNotReady, to.Node, sh.ID, sh.ID)
	}
	q, err := templates.Query("citusSchemaMove", nil)
	if err != nil {
		return err
	}
	if _, err := db.ExecContext(ctx, q, sh.Schema, host, port, mode); err != nil {
		return fmt.Errorf("citus_schema_move(%s to %s): %w", sh.Schema, to.Node, err)
	}
	return nil
}
