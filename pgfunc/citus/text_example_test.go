package citus_test

import (
	"os"

	"github.com/shardid/shardid/pgfunc"
	"github.com/shardid/shardid/pgfunc/citus"
)

// What pg status prints of a Citus cluster after its table.
func ExampleStatus_WriteText() {
	w1 := citus.Node{Group: 1, Host: "worker1", Port: 5432, Slot: 0}
	w2 := citus.Node{Group: 2, Host: "worker2", Port: 5432, Slot: 1}
	st := &citus.Status{
		Nodes:      []citus.Node{w1, w2},
		Placements: map[string]int{"insta3": 2},
		Counters: []citus.Counter{
			{Node: w1, Schema: "insta3_node", Shard: 3, Group: 1, Slot: 0, Last: 40},
			{Node: w2, Schema: "insta3_node", Shard: 3, Group: 2, Slot: 1, Last: 41},
		},
		Problems: []string{"insta4_node.next_id_node_seq on node group 2 (worker2:5432): no counter"},
	}
	_ = st.WriteText(os.Stdout)
	var none *citus.Status
	_ = none.WriteText(os.Stdout) // no Citus: nothing
	// Output:
	//
	// Citus cluster: 2 node groups (slots of 16)
	//   node group 1 (worker1:5432, slot 0)
	//   node group 2 (worker2:5432, slot 1)
	//   shard 3     insta3_node.next_id_node_seq on node group 1 (worker1:5432): slot 0, last value 40
	//   shard 3     insta3_node.next_id_node_seq on node group 2 (worker2:5432): slot 1, last value 41  (holds the schema's tables)
	// CITUS: insta4_node.next_id_node_seq on node group 2 (worker2:5432): no counter
}

// The line pg move prints.
func ExampleMoved_WriteText() {
	_ = citus.Moved{Shard: pgfunc.Shard{Schema: "insta3", ID: 3}, Host: "worker2", Port: 5432}.WriteText(os.Stdout)
	// Output:
	// moved shard 3 (schema insta3) to worker2:5432
}
