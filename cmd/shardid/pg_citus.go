package main

import (
	"fmt"

	"github.com/shardid/shardid/pgfunc"
	"github.com/shardid/shardid/pgfunc/citus"
)

// printCitus prints, after pg status's table on a Citus coordinator, the
// cluster as the coordinator's metadata and every node show it (st, read by migrate.Migrator.Report): nodes and
// slots, each shard's placement, every node's counter of every shard, and
// what could repeat an ID; it returns how many problems it found (none on
// a server without Citus).
func printCitus(env *cliEnv, st *citus.Status) int {
	if st == nil {
		return 0
	}
	fmt.Fprintf(env.stdout, "\nCitus cluster: %d node %s (slots of %d)\n", len(st.Nodes), plural(len(st.Nodes), "group", "groups"), pgfunc.CitusSlots)
	for _, n := range st.Nodes {
		fmt.Fprintf(env.stdout, "  %s\n", n)
	}
	for _, c := range st.Counters {
		placed := ""
		schema := c.Schema[:len(c.Schema)-len(pgfunc.NodeSchemaSuffix)]
		if g, ok := st.Placements[schema]; ok && g == c.Node.Group {
			placed = "  (holds the schema's tables)"
		}
		fmt.Fprintf(env.stdout, "  shard %-5d %s: slot %d, last value %d%s\n", c.Shard, c, c.Slot, c.Last, placed)
	}
	for _, p := range st.Problems {
		fmt.Fprintf(env.stdout, "CITUS: %s\n", p)
	}
	return len(st.Problems)
}
