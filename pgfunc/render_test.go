package pgfunc_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shardid/shardid/pgfunc"
)

// TestGolden compares the rendered SQL of every preset and mode with
// testdata/pg/<layout>_<mode>.sql; go test ./pgfunc -update rewrites them.
func TestGolden(t *testing.T) {
	for _, name := range pgfunc.LayoutNames() {
		l, err := pgfunc.LayoutByName(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, mode := range pgfunc.Modes() {
			got, err := pgfunc.Render(pgfunc.Shard{Schema: "insta5", ID: 5}, pgfunc.Options{Layout: l, Mode: mode})
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("..", "testdata", "pg", name+"_"+string(mode)+".sql")
			if *update {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test ./pgfunc -update)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s differs from the rendered SQL; review the change and run go test ./pgfunc -update", path)
			}
		}
	}
}

// TestGoldenApplies runs every golden file's Up part on a real server, so
// the goldens are known-good SQL, and checks the shifts never overflow: the
// largest ID of each layout decodes back to its parts in SQL.
func TestGoldenApplies(t *testing.T) {
	db, _ := newDB(t)
	i := 0
	for _, name := range pgfunc.LayoutNames() {
		l, _ := pgfunc.LayoutByName(name)
		for _, mode := range pgfunc.Modes() {
			i++
			schema := name + "_" + strings.ReplaceAll(string(mode), "-", "_")
			installWith(t, db, pgfunc.Shard{Schema: schema, ID: int64(i)}, pgfunc.Options{Layout: l, Mode: mode})
			var id, shard, seq int64
			var ts time.Time
			err := db.QueryRow("SELECT x, "+schema+".id_shard(x), "+schema+".id_seq(x), "+schema+".id_timestamp(x) FROM (SELECT "+schema+".next_id() AS x) s").Scan(&id, &shard, &seq, &ts)
			if err != nil {
				t.Fatalf("%s: %v", schema, err)
			}
			p, err := l.Decompose(id)
			if err != nil || p.Shard != shard || p.Seq != seq || !p.Time.Equal(ts) || shard != int64(i) {
				t.Fatalf("%s: id %d: Go %+v %v; SQL shard %d seq %d time %v", schema, id, p, err, shard, seq, ts)
			}
			if d := time.Since(ts); d < -time.Second || d > time.Second+l.TimeUnit {
				t.Fatalf("%s: id time %v is %v from now", schema, ts, d)
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

func TestLayoutValidate(t *testing.T) {
	now := time.Now()
	ok := pgfunc.Instagram()
	cases := []struct {
		name string
		mod  func(*pgfunc.Layout)
		want string
	}{
		{"zero time bits", func(l *pgfunc.Layout) { l.TimeBits = 0 }, "at least 1"},
		{"zero shard bits", func(l *pgfunc.Layout) { l.ShardBits = 0 }, "at least 1"},
		{"zero seq bits", func(l *pgfunc.Layout) { l.SeqBits = 0 }, "at least 1"},
		{"65 bits", func(l *pgfunc.Layout) { l.TimeBits = 42 }, "at most 64"},
		{"unit 0", func(l *pgfunc.Layout) { l.TimeUnit = 0 }, "time unit"},
		{"unit 1.5ms", func(l *pgfunc.Layout) { l.TimeUnit = 1500 * time.Microsecond }, "time unit"},
		{"unit 2s", func(l *pgfunc.Layout) { l.TimeUnit = 2 * time.Second }, "time unit"},
		{"future epoch", func(l *pgfunc.Layout) { l.Epoch = now.Add(time.Hour) }, "future"},
		{"no epoch", func(l *pgfunc.Layout) { l.Epoch = time.Time{} }, "not set"},
		{"pre-1970 epoch", func(l *pgfunc.Layout) { l.Epoch = time.Date(1969, 1, 1, 0, 0, 0, 0, time.UTC) }, "1970"},
	}
	for _, c := range cases {
		l := ok
		c.mod(&l)
		err := l.Validate()
		if !errors.Is(err, pgfunc.ErrInvalidLayout) || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v (want ErrInvalidLayout mentioning %q, one line)", c.name, err, c.want)
		}
		if _, err := pgfunc.Render(pgfunc.Shard{Schema: "s", ID: 1}, pgfunc.Options{Layout: l}); err == nil {
			t.Errorf("%s: Render accepted an invalid layout", c.name)
		}
	}
	for _, name := range pgfunc.LayoutNames() {
		l, _ := pgfunc.LayoutByName(name)
		if err := l.Validate(); err != nil {
			t.Errorf("preset %s: %v", name, err)
		}
	}
}

func TestComposeDecompose(t *testing.T) {
	for _, name := range pgfunc.LayoutNames() {
		l, _ := pgfunc.LayoutByName(name)
		at := l.Epoch.Add(1234567 * l.TimeUnit)
		id, err := l.Compose(at, l.MaxShard(), l.MaxSeq())
		if err != nil {
			t.Fatal(err)
		}
		p, err := l.Decompose(id)
		if err != nil || !p.Time.Equal(at) || p.Shard != l.MaxShard() || p.Seq != l.MaxSeq() {
			t.Fatalf("%s: %d -> %+v, %v", name, id, p, err)
		}
		if _, err := l.Compose(l.Epoch.Add(-time.Millisecond), 0, 0); !errors.Is(err, pgfunc.ErrTimeRange) {
			t.Errorf("%s: before epoch: %v", name, err)
		}
		if _, err := l.Compose(l.End(), 0, 0); !errors.Is(err, pgfunc.ErrTimeRange) {
			t.Errorf("%s: at the end: %v", name, err)
		}
		if _, err := l.Compose(at, l.MaxShard()+1, 0); !errors.Is(err, pgfunc.ErrShardRange) {
			t.Errorf("%s: shard too big: %v", name, err)
		}
		if _, err := l.Compose(at, 0, l.MaxSeq()+1); !errors.Is(err, pgfunc.ErrSeqRange) {
			t.Errorf("%s: seq too big: %v", name, err)
		}
		if _, err := l.Decompose(-1); !errors.Is(err, pgfunc.ErrNegativeID) {
			t.Errorf("%s: negative id: %v", name, err)
		}
		last, err := l.ComposeTicks(l.MaxTicks(), l.MaxShard(), l.MaxSeq())
		if err != nil || last != l.MaxID() || last < 0 {
			t.Errorf("%s: last id %d, MaxID %d, %v", name, last, l.MaxID(), err)
		}
	}
	if got := pgfunc.Instagram().End().Sub(pgfunc.DefaultEpoch); got != (1<<40)*time.Millisecond {
		t.Errorf("instagram time range %v, want 2^40 ms (its top bit is the sign)", got)
	}
}

func TestParsing(t *testing.T) {
	l := pgfunc.Instagram()
	got, err := pgfunc.ParseShards("0-3, 8,10-12,3", l)
	if err != nil || len(got) != 8 || got[0] != 0 || got[7] != 12 {
		t.Fatalf("ParseShards: %v %v", got, err)
	}
	for _, bad := range []string{"", "a", "3-1", "-1", "1-", "0-8192", "8192", "1,,2"} {
		if _, err := pgfunc.ParseShards(bad, l); !errors.Is(err, pgfunc.ErrShardRange) {
			t.Errorf("ParseShards(%q): %v", bad, err)
		}
	}
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
	if _, err := pgfunc.LayoutByName("twitter"); !errors.Is(err, pgfunc.ErrUnknownLayout) {
		t.Errorf("LayoutByName: %v", err)
	}
	e1, err1 := pgfunc.ParseEpoch("2025-01-01T00:00:00Z")
	e2, err2 := pgfunc.ParseEpoch("1735689600000")
	if err1 != nil || err2 != nil || !e1.Equal(e2) {
		t.Errorf("ParseEpoch: %v %v %v %v", e1, e2, err1, err2)
	}
	for _, bad := range []string{"yesterday", "-5", "2025-01-01"} {
		if _, err := pgfunc.ParseEpoch(bad); !errors.Is(err, pgfunc.ErrInvalidEpoch) {
			t.Errorf("ParseEpoch(%q): %v", bad, err)
		}
	}
	if _, err := pgfunc.Render(pgfunc.Shard{Schema: "insta1", ID: 8192}, pgfunc.Options{}); !errors.Is(err, pgfunc.ErrShardRange) {
		t.Errorf("Render shard 8192: %v", err)
	}
	if _, err := pgfunc.Render(pgfunc.Shard{Schema: "Bad", ID: 1}, pgfunc.Options{}); !errors.Is(err, pgfunc.ErrInvalidSchema) {
		t.Errorf("Render bad schema: %v", err)
	}
	if _, err := pgfunc.Render(pgfunc.Shard{Schema: "s", ID: 1}, pgfunc.Options{Mode: "fast"}); !errors.Is(err, pgfunc.ErrInvalidMode) {
		t.Errorf("Render bad mode: %v", err)
	}
}
