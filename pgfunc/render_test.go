package pgfunc_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shardid/shardid"
	"github.com/shardid/shardid/pgfunc"
	"github.com/shardid/shardid/tools/testsrv"
)

// TestGolden compares the rendered SQL of every preset and mode with
// testdata/<layout>_<mode>.sql; go test ./pgfunc -update rewrites them.
func TestGolden(t *testing.T) {
	t.Parallel()
	for _, name := range shardid.LayoutNames() {
		l, err := shardid.LayoutByName(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, mode := range pgfunc.Modes() {
			got, err := pgfunc.Render(pgfunc.Shard{Schema: "insta5", ID: 5}, pgfunc.Options{Layout: l, Mode: mode})
			if err != nil {
				t.Fatal(err)
			}
			testsrv.CheckGolden(t, filepath.Join("testdata", name+"_"+string(mode)+".sql"), got)
		}
	}
}

// TestGoldenApplies runs every golden file's Up part on a real server, so
// the goldens are known-good SQL, checks that the planner inlines each
// SQL draw (next_id_bulk() in mode unique, whose next_id() it must not
// inline; next_id() in mode classic-sql), and that the shifts never overflow: the largest ID of each
// layout decodes back to its parts in SQL. Each layout gets a database of
// its own: generators of different layouts in one database can hand out
// the same IDs, and the migration refuses them.
func TestGoldenApplies(t *testing.T) {
	t.Parallel()
	i := 0
	for _, name := range shardid.LayoutNames() {
		l, _ := shardid.LayoutByName(name)
		db, _ := newDB(t)
		for _, mode := range pgfunc.Modes() {
			i++
			schema := name + "_" + strings.ReplaceAll(string(mode), "-", "_")
			installWith(t, db, pgfunc.Shard{Schema: schema, ID: int64(i)}, pgfunc.Options{Layout: l, Mode: mode})
			var id, shard, seq int64
			var ts time.Time
			before := time.Now()
			err := db.QueryRow("SELECT x, "+schema+".id_shard(x), "+schema+".id_seq(x), "+schema+".id_timestamp(x) FROM (SELECT "+schema+".next_id() AS x) s").Scan(&id, &shard, &seq, &ts)
			if err != nil {
				t.Fatalf("%s: %v", schema, err)
			}
			p, err := l.Decompose(id)
			if err != nil || p.Shard != shard || p.Seq != seq || !p.Time.Equal(ts) || shard != int64(i) {
				t.Fatalf("%s: id %d: Go %+v %v; SQL shard %d seq %d time %v", schema, id, p, err, shard, seq, ts)
			}
			// The ID's tick lies between the clock before the query and
			// the clock after it (a second either way for the tick, a
			// jump landing ahead and the two clocks' reading), however
			// long the query took on a loaded machine.
			if after := time.Now(); ts.Before(before.Add(-time.Second-l.TimeUnit)) || ts.After(after.Add(time.Second)) {
				t.Fatalf("%s: id time %v is not within a second of the query (%v to %v)", schema, ts, before, after)
			}
			if mode != pgfunc.ModeClassic {
				conn, err := db.Conn(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				inlined, plan := isInlined(t, conn, schema, inlinable(mode))
				// next_id() in mode unique is the DEFAULT form: planned
				// like nextval(), its body never read back by the planner.
				wrapped, wplan := mode == pgfunc.ModeUnique, ""
				if wrapped {
					wrapped, wplan = isInlined(t, conn, schema, "next_id")
				}
				conn.Close()
				if !inlined {
					t.Fatalf("%s: %s() is not inlined: %s", schema, inlinable(mode), plan)
				}
				if wrapped {
					t.Fatalf("%s: next_id() is inlined (%s): every plan naming it would read its body back", schema, wplan)
				}
			}
			maxID := l.MaxID()
			var sqlShard, sqlSeq int64
			var sqlTS time.Time
			if err := db.QueryRow("SELECT "+schema+".id_shard($1), "+schema+".id_seq($1), "+schema+".id_timestamp($1)", maxID).Scan(&sqlShard, &sqlSeq, &sqlTS); err != nil {
				t.Fatal(err)
			}
			pm, _ := l.Decompose(maxID)
			if sqlShard != pm.Shard || sqlSeq != pm.Seq || !sqlTS.Equal(pm.Time) {
				t.Fatalf("%s: max id %d decodes differently in SQL (%d %d %v) and Go (%+v)", schema, maxID, sqlShard, sqlSeq, sqlTS, pm)
			}
			if name == "js53" && maxID != 1<<53-1 {
				t.Fatalf("js53 max id %d, want 2^53-1", maxID)
			}
		}
	}
}

func TestParsing(t *testing.T) {
	t.Parallel()
	for _, bad := range []string{"Insta", "1abc", "pg_x", "a-b", strings.Repeat("a", 64), "", `x"y`} {
		if err := pgfunc.CheckSchema(bad); !errors.Is(err, pgfunc.ErrInvalidSchema) {
			t.Errorf("CheckSchema(%q): %v", bad, err)
		}
	}
	for _, bad := range []string{"insta", "insta%d%d", "%s", "x%d%%"} {
		if _, err := pgfunc.SchemaName(bad, 1); !errors.Is(err, pgfunc.ErrInvalidSchema) {
			t.Errorf("SchemaName(%q): %v", bad, err)
		}
	}
	if n, err := pgfunc.SchemaName("shard_%d", 42); err != nil || n != "shard_42" {
		t.Errorf("SchemaName: %q %v", n, err)
	}
	if _, err := pgfunc.ParseMode("fast"); !errors.Is(err, pgfunc.ErrInvalidMode) {
		t.Errorf("ParseMode: %v", err)
	}
	if _, err := pgfunc.Render(pgfunc.Shard{Schema: "insta1", ID: 8192}, pgfunc.Options{}); !errors.Is(err, shardid.ErrShardRange) {
		t.Errorf("Render shard 8192: %v", err)
	}
	if _, err := pgfunc.Render(pgfunc.Shard{Schema: "Bad", ID: 1}, pgfunc.Options{}); !errors.Is(err, pgfunc.ErrInvalidSchema) {
		t.Errorf("Render bad schema: %v", err)
	}
	if _, err := pgfunc.Render(pgfunc.Shard{Schema: "s", ID: 1}, pgfunc.Options{Mode: "fast"}); !errors.Is(err, pgfunc.ErrInvalidMode) {
		t.Errorf("Render bad mode: %v", err)
	}
	bad := shardid.Instagram()
	bad.TimeBits = 42
	if _, err := pgfunc.Render(pgfunc.Shard{Schema: "s", ID: 1}, pgfunc.Options{Layout: bad}); !errors.Is(err, shardid.ErrInvalidLayout) {
		t.Errorf("Render accepted an invalid layout: %v", err)
	}
}
