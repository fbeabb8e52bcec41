package resume

import (
	"github.com/shardid/shardid/pgfunc/internal/sqlt"
	"github.com/shardid/shardid/pgfunc/inventory"
)

// counter names what a resume moves for one counter, and how: its
// sequence, jump counters and jump lock (quoted), and the remainder its
// values keep.
type counter struct {
	seq, begun, done string
	lock             string // the lock's statement: resume_lock or resume_node_lock
	lockOf           string // what that statement locks, for messages
	record           string // the table a move is recorded on
	fix              string // what records the metadata of a counter that lacks it
	slot, slots      int64  // every value keeps remainder slot of slots
}

// serverCounter is the counter of a single server's generator, live or
// kept by a down.
func serverCounter(ref inventory.Counter) counter {
	q := sqlt.Ident(ref.Schema)
	c := counter{seq: q + ".next_id_seq", begun: q + ".next_id_jumps_begun", done: q + ".next_id_jumps_done",
		lock: "resume_lock", lockOf: q + ".next_id_jump_lock", record: q + ".next_id_jump_lock", slots: 1,
		fix: "record its metadata (COMMENT ON SEQUENCE " + q + ".next_id_seq IS the metadata pg status --json shows where it came from)"}
	if ref.Retired {
		c.seq = q + ".next_id_retired_seq"
	}
	return c
}
