package resume

// The counters of a Citus cluster (docs/citus.md): every node holds its
// own counter of each shard, in the shard's companion schema, stepping by
// pgfunc.CitusSlots from its slot. Run on the coordinator moves each of
// them on its node, as it moves a single server's, keeping the slot.

import (
	"context"
	"fmt"

	"github.com/shardid/shardid/pgfunc"
	"github.com/shardid/shardid/pgfunc/citus"
	"github.com/shardid/shardid/pgfunc/internal/sqlt"
	"github.com/shardid/shardid/pgfunc/inventory"
)

// citusRef is a Citus node's counter as the checks of Run read a
// single server's (layout, lead, whether its metadata was read).
func citusRef(c citus.NodeCounter) inventory.Counter {
	return inventory.Counter{Schema: c.Schema, Meta: c.Meta, Known: c.Known, Retired: c.Kept, HasLock: !c.Kept}
}

// citusRefs lists every node's counters of cl as citusRef does.
func citusRefs(cl *citus.Cluster) []inventory.Counter {
	var out []inventory.Counter
	for _, n := range cl.Nodes {
		for _, c := range n.Counters {
			out = append(out, citusRef(c))
		}
	}
	return out
}

// nodeCounter names what a resume moves for a Citus node's counter: the
// companion schema's counter, jump counters and jump lock (a row locked
// FOR UPDATE, as the node's jump does), its values kept in its slot.
func nodeCounter(c citus.NodeCounter) counter {
	q := sqlt.Ident(c.Schema)
	return counter{seq: q + ".next_id_node_seq", begun: q + ".next_id_node_begun", done: q + ".next_id_node_done",
		lock: "resume_node_lock", lockOf: q + ".next_id_node_lock", record: q + ".next_id_node_lock",
		slot: int64(c.Slot), slots: pgfunc.CitusSlots,
		fix: "run shardid pg up for shard " + fmt.Sprint(c.Shard) + " on the coordinator, which renders the node counters and the schema's next_id_meta() again"}
}

// resumeCluster moves every node's counters of cl, node by node, each
// node's m.parallel at a time. A node that could not be read, or a
// counter whose generator's metadata could not, is a failure in the
// results.
func (m *run) resumeCluster(ctx context.Context, cl *citus.Cluster, ro Options, report func(Resumed)) []Resumed {
	var out []Resumed
	for _, n := range cl.Nodes {
		if n.Err != nil {
			r := Resumed{Node: n.Node.String(), Shard: -1, From: -1, To: -1,
				Err: fmt.Errorf("%w: %v: its counters did not move; reach it, then resume again", ErrNodeNotRead, n.Err)}
			report(r)
			out = append(out, r)
			continue
		}
		out = append(out, m.moveAll(ctx, n.DB, len(n.Counters), func(i int) (Resumed, inventory.Counter, counter) {
			c := n.Counters[i]
			r := Resumed{Node: n.Node.String(), Schema: c.Schema, Shard: c.Shard, Meta: c.Meta, Retired: c.Kept, Mode: c.Meta.Mode, From: -1, To: -1}
			ref := citusRef(c)
			if !c.Known {
				ref.Unreadable = c.Unreadable
			}
			return r, ref, nodeCounter(c)
		}, ro, report)...)
	}
	return out
}
