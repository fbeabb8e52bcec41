package adopt_test

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/shardid/shardid"
	"github.com/shardid/shardid/pgfunc"
	"github.com/shardid/shardid/pgfunc/adopt"
)

// What pg adopt prints for a published next_id() adopted, a
// bigserial-like schema in a dry run, a schema shardid's already and one
// refused, then the summary of the dry run and its error.
func ExampleAdoption_WriteText() {
	l := shardid.Instagram()
	clock := l.Epoch.Add(2 * time.Hour)
	id, _ := l.Compose(l.Epoch.Add(time.Hour), 3, 7)
	parts, _ := l.Decompose(id)
	start := (int64(2*time.Hour/l.TimeUnit) + 1) << l.SeqBits
	first, _ := l.Compose(l.TickTime(start>>l.SeqBits), 3, 0)
	rep := adopt.Report{Asked: 4}
	for _, a := range []adopt.Adoption{
		{Result: pgfunc.Result{Shard: pgfunc.Shard{Schema: "shard_3", ID: 3}, Applied: true, Note: "adopted"}, Kind: adopt.AdoptPublished,
			Sequence: "shard_3.table_id_seq", Layout: l, Clock: clock, Start: start, FirstID: first, Roles: []string{"app"},
			Keys: []adopt.AdoptKey{{Table: "shard_3.t", Column: "id", Max: id, Parts: parts}, {Table: "shard_3.u", Column: "id", Empty: true}}},
		{Result: pgfunc.Result{Shard: pgfunc.Shard{Schema: "shard_4", ID: 4}, Note: "dry run"}, Kind: adopt.AdoptSerial, Layout: l, Clock: clock, Start: start, FirstID: first,
			Keys: []adopt.AdoptKey{{Table: "shard_4.t", Column: "id", Max: 41, Sequence: "shard_4.t_id_seq", Last: 42}, {Table: "shard_4.u", Column: "id", Empty: true, Sequence: "shard_4.u_id_seq", Last: 0}}},
		{Result: pgfunc.Result{Shard: pgfunc.Shard{Schema: "shard_5", ID: 5}, Note: "current"}, Layout: l},
		{Result: pgfunc.Result{Shard: pgfunc.Shard{Schema: "shard_6", ID: 6}, Err: errors.New("cannot infer:\nno next_id()")}},
	} {
		_ = a.WriteText(os.Stdout)
		rep.Add(a)
	}
	rep.Took = "5ms"
	_ = rep.WriteText(os.Stdout)
	fmt.Println(rep.Err())
	rep.Apply = true
	_ = rep.WriteText(os.Stdout)
	// Output:
	// shard_3              shard 3     adopted  Instagram's published next_id()
	//   layout    instagram (time 41 bits of 1ms since 2025-01-01T00:00:00Z, shard 13 bits, sequence 10 bits)
	//   as flags  --layout instagram (what pg up, status and decode take)
	//   sequence  shard_3.table_id_seq (retired: a draw through the old body fails)
	//   key       shard_3.t.id: highest 30198988803079 = 2025-01-01T01:00:00.000Z shard 3 seq 7
	//   key       shard_3.u.id: no rows
	//   counter   starts at 2025-01-01T02:00:00.001Z: past the clock (2025-01-01T02:00:00.000Z) and the keys above; first new ID 60397985991680
	//   granted   app (it could draw from the old sequence): what drawing needs, as pg grant gives it
	// shard_4              shard 4     dry run  bigserial-like keys, no next_id()
	//   layout    instagram (time 41 bits of 1ms since 2025-01-01T00:00:00Z, shard 13 bits, sequence 10 bits)
	//   as flags  --layout instagram (what pg up, status and decode take)
	//   key       shard_4.t.id: highest 41, shard_4.t_id_seq handed out up to 42; defaults to next_id() with --apply, the sequence capped below the first new ID
	//   key       shard_4.u.id: highest none, shard_4.u_id_seq handed out up to 0; defaults to next_id() with --apply, the sequence capped below the first new ID
	//   counter   starts at 2025-01-01T02:00:00.001Z: past the clock (2025-01-01T02:00:00.000Z) and the keys above; first new ID 60397985991680
	// shard_5              shard 5     current  shardid's generator already (instagram): pg status shows it
	// shard_6              shard 6     REFUSED  cannot infer: | no next_id()
	// 4 schemas: 1 would be adopted (a dry run: nothing changed; --apply replaces each next_id()), 1 already shardid's, 1 refused (5ms)
	// 1 schema was refused (each says why); nothing was changed in it
	// 4 schemas: 1 adopted, 1 already shardid's, 1 refused (5ms)
}
