package citus

import (
	"fmt"
	"io"
	"strings"

	"github.com/shardid/shardid/internal/words"
	"github.com/shardid/shardid/pgfunc"
)

// WriteText writes st as shardid pg status prints it after its table on
// a Citus coordinator: the node groups and their slots, every node's
// counter of every shard (noting the node that holds the schema's
// tables), and a CITUS: line per problem; nothing when st is nil (a
// server without Citus).
func (st *Status) WriteText(w io.Writer) error {
	if st == nil {
		return nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\nCitus cluster: %d node %s (slots of %d)\n", len(st.Nodes), words.Plural(len(st.Nodes), "group", "groups"), pgfunc.CitusSlots)
	for _, n := range st.Nodes {
		fmt.Fprintf(&b, "  %s\n", n)
	}
	for _, c := range st.Counters {
		placed := ""
		schema := strings.TrimSuffix(c.Schema, pgfunc.NodeSchemaSuffix)
		if g, ok := st.Placements[schema]; ok && g == c.Node.Group {
			placed = "  (holds the schema's tables)"
		}
		fmt.Fprintf(&b, "  shard %-5d %s: slot %d, last value %d%s\n", c.Shard, c, c.Slot, c.Last, placed)
	}
	for _, p := range st.Problems {
		fmt.Fprintf(&b, "CITUS: %s\n", p)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Moved is a shard Move moved and the node it went to, as shardid pg
// move reports it.
type Moved struct {
	// Shard is the shard moved.
	Shard pgfunc.Shard
	// Host and Port are the node it was moved to.
	Host string
	Port int
}

// WriteText writes the line shardid pg move prints once the move is done.
func (m Moved) WriteText(w io.Writer) error {
	_, err := fmt.Fprintf(w, "moved shard %d (schema %s) to %s:%d\n", m.Shard.ID, m.Shard.Schema, m.Host, m.Port)
	return err
}
