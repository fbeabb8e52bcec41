package inventory_test

import (
	"os"

	"github.com/shardid/shardid/pgfunc"
	"github.com/shardid/shardid/pgfunc/inventory"
)

// What pg status prints of a census after its table: here a counter
// whose metadata cannot be read in another database, a counter a down
// kept, the templates read and a database the role could not read.
func ExampleCensus_WriteText() {
	meta := pgfunc.Meta{Shard: 7, Mode: pgfunc.ModeUnique, TimeBits: 41, ShardBits: 13, SeqBits: 10, UnitMS: 1, EpochMS: 1293840000000}
	c := inventory.Census{
		Database:   "app",
		Retired:    []inventory.Installed{{Schema: "insta7", Meta: meta, Retired: true}},
		Unreadable: []inventory.Installed{{Database: "old", Schema: "insta9", Meta: pgfunc.Meta{Shard: -1}, Unreadable: "no next_id_meta() and no metadata comment"}},
		Templates:  []string{"template1"},
		Closed:     []string{"secret"},
	}
	_ = c.WriteText(os.Stdout)
	// Output:
	//
	// UNREADABLE: old.insta9 (shard unknown): a counter whose metadata cannot be read: no next_id_meta() and no metadata comment
	//
	// counters kept by pg down (an up of the shard id carries on from them, in any schema):
	//   app.insta7                     shard 7     mode unique, 41/13/10 bits of 1ms since 2011-01-01T00:00:00Z
	//
	// template databases read: template1 (template0 accepts no connection: nothing can be in it)
	//
	// NOT READ: secret: the role may not connect (no CONNECT privilege, or connections not allowed); grant CONNECT to prove no copy of a shard is there
}
