package migrate_test

import (
	"os"
	"time"

	"github.com/shardid/shardid/pgfunc"
	"github.com/shardid/shardid/pgfunc/inventory"
	"github.com/shardid/shardid/pgfunc/migrate"
	"github.com/shardid/shardid/pgfunc/privilege"
)

// What pg status prints of a server: the table of the shards, with what
// is wrong under a shard, then what the census found beyond them and the
// privileges that let a role break a generator.
func ExampleReport_WriteText() {
	meta := func(shard int64) *pgfunc.Meta {
		return &pgfunc.Meta{Shard: shard, Mode: pgfunc.ModeUnique, TimeBits: 41, ShardBits: 13, SeqBits: 10, UnitMS: 1, EpochMS: 1293840000000, LeadMS: 5000}
	}
	r := migrate.Report{
		Statuses: []migrate.Status{
			{Shard: pgfunc.Shard{Schema: "insta0", ID: 0}, Version: 1, Installed: meta(0), Matches: true},
			{Shard: pgfunc.Shard{Schema: "insta1", ID: 1}, Installed: meta(1), Matches: true, CounterRead: true, Ahead: 9 * time.Second,
				Elsewhere: []inventory.Installed{{Database: "copy", Schema: "insta1"}}},
			{Shard: pgfunc.Shard{Schema: "insta2", ID: 2}},
		},
		Census:  inventory.Census{Database: "app", Closed: []string{"secret"}},
		Dangers: privilege.DangerList{{Schema: "insta0", Role: "app", Object: "insta0.next_id_seq", Privilege: "UPDATE", Effect: "setval can move the counter back"}},
	}
	_ = r.WriteText(os.Stdout, false)
	// Output:
	// SCHEMA               SHARD  VERSION  MODE         GENERATOR
	// insta0               0      1        unique       shard 0, 41/13/10 bits of 1ms since 2011-01-01T00:00:00Z, lead 5s
	// insta1               1      goose    unique       shard 1, 41/13/10 bits of 1ms since 2011-01-01T00:00:00Z, lead 5s
	//                      1      AHEAD: the counter stands 9s ahead of the clock, past its lead of 5s: next_id() waits, then fails (SQLSTATE SHR10), until the clock catches up (nextval called on the counter directly, or a clock behind the one that drew it)
	//                      1      ALSO IN copy.insta1: two schemas with one shard id hand out the same IDs
	// insta2               2      0        -            none
	//
	// NOT READ: secret: the role may not connect (no CONNECT privilege, or connections not allowed); grant CONNECT to prove no copy of a shard is there
	//
	// privileges that let a role break a generator (revoke them; shardid pg grant --role ROLE gives an application exactly what it needs):
	//   insta0               role app has UPDATE on insta0.next_id_seq: setval can move the counter back
}
