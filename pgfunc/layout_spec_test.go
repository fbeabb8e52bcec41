package pgfunc_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/shardid/shardid"
	"github.com/shardid/shardid/pgfunc"
	"github.com/shardid/shardid/pgfunc/migrate"
	"github.com/shardid/shardid/tools/testsrv"
)

// specLayout is a layout written as fields, not a preset: Baidu
// uid-generator's split, 28 bits of seconds, 22 shard bits (4,194,304
// shards) and 13 sequence bits (8,192 IDs per second per shard).
const specLayout = "time:28@1s,shard:22,seq:13"

func mustLayout(t testing.TB, spec string) shardid.Layout {
	t.Helper()
	l, err := shardid.ParseLayout(spec)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestGoldenSpec compares the rendered SQL of specLayout, shard 4,000,000
// (past the presets' shard bits), with its golden file; go test ./pgfunc
// -update rewrites it.
func TestGoldenSpec(t *testing.T) {
	t.Parallel()
	got, err := pgfunc.Render(pgfunc.Shard{Schema: "spec4000000", ID: 4000000}, pgfunc.Options{Layout: mustLayout(t, specLayout)})
	if err != nil {
		t.Fatal(err)
	}
	testsrv.CheckGolden(t, filepath.Join("testdata", "time28s-shard22-seq13_unique.sql"), got)
}

// TestSpecLayoutOnServer applies specLayout's generator in every mode on a
// real server: mode unique hands out no ID twice in a one-statement burst
// and from concurrent sessions, every ID decodes in SQL (id_timestamp,
// id_shard, id_seq) to what Go's Decompose says and to a time near the
// clock, the largest ID decodes back to its parts, and the SQL bodies are
// inlined. The classic body, fed the same burst on a frozen clock, repeats
// all but 8,192 IDs: the duplicate count would catch a repeat.
func TestSpecLayoutOnServer(t *testing.T) {
	t.Parallel()
	l := mustLayout(t, specLayout)
	db, _ := newDB(t)
	db.SetMaxOpenConns(8)
	ctx := context.Background()
	for i, mode := range pgfunc.Modes() {
		sh := pgfunc.Shard{Schema: fmt.Sprintf("spec_%d", i), ID: 4000000 + int64(i)}
		installWith(t, db, sh, pgfunc.Options{Layout: l, Mode: mode})
		if mode != pgfunc.ModeClassic {
			conn, err := db.Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			inlined, plan := isInlined(t, conn, sh.Schema, inlinable(mode))
			conn.Close()
			if !inlined {
				t.Fatalf("%s: %s() is not inlined: %s", mode, inlinable(mode), plan)
			}
		}
		var shard, seq int64
		var ts time.Time
		if err := db.QueryRow(fmt.Sprintf("SELECT %[1]s.id_shard($1), %[1]s.id_seq($1), %[1]s.id_timestamp($1)", sh.Schema), l.MaxID()).Scan(&shard, &seq, &ts); err != nil {
			t.Fatal(err)
		}
		if p, _ := l.Decompose(l.MaxID()); p.Shard != shard || p.Seq != seq || !p.Time.Equal(ts) {
			t.Fatalf("%s: max id %d decodes in SQL to %d %d %v, in Go to %+v", mode, l.MaxID(), shard, seq, ts, p)
		}
	}

	const schema, shard = "spec_0", 4000000 // mode unique
	createTable(t, db, schema)
	if _, err := db.Exec("INSERT INTO spec_0.items (session) SELECT 0 FROM generate_series(1, 30000)"); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for s := 1; s <= 4; s++ {
		wg.Go(func() {
			for i := range 300 {
				q := "INSERT INTO spec_0.items (session) VALUES ($1)"
				if i%100 == 0 {
					q = "INSERT INTO spec_0.items (session) SELECT $1 FROM generate_series(1, 1000)"
				}
				if _, err := db.Exec(q, s); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	rows, dups := duplicates(t, db, schema)
	if rows != 30000+4*(297+3000) || dups != 0 {
		t.Fatalf("%d rows, %d duplicate ids", rows, dups)
	}
	// Every ID, decoded by the schema's helpers and by Go.
	r, err := db.Query(`SELECT id, spec_0.id_shard(id), spec_0.id_seq(id), spec_0.id_timestamp(id), before FROM spec_0.items`)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	n := 0
	for r.Next() {
		var id, sqlShard, sqlSeq int64
		var sqlTS, before time.Time
		if err := r.Scan(&id, &sqlShard, &sqlSeq, &sqlTS, &before); err != nil {
			t.Fatal(err)
		}
		p, err := l.Decompose(id)
		if err != nil || p.Shard != sqlShard || p.Seq != sqlSeq || !p.Time.Equal(sqlTS) || p.Shard != shard {
			t.Fatalf("id %d: SQL shard %d seq %d time %v; Go %+v, %v", id, sqlShard, sqlSeq, sqlTS, p, err)
		}
		// An ID's tick starts no later than the lead after the insert's
		// clock, and no earlier than the tick the clock was in.
		if p.Time.Before(before.Truncate(time.Second)) || p.Time.After(before.Add(pgfunc.DefaultLead)) {
			t.Fatalf("id %d decodes to %v; the insert began at %v", id, p.Time, before)
		}
		n++
	}
	if err := r.Err(); err != nil || n != int(rows) {
		t.Fatalf("decoded %d of %d rows: %v", n, rows, err)
	}

	// The negative control: the classic body on a clock frozen for the
	// statement puts all 30,000 calls in one tick of 8,192 IDs.
	frozen := pgfunc.WithClock(pgfunc.Options{Layout: l, Mode: pgfunc.ModeClassicSQL}, "pg_catalog.statement_timestamp()")
	installWith(t, db, pgfunc.Shard{Schema: "spec_frozen", ID: 4000010}, frozen)
	var cdups int64
	if err := db.QueryRow("SELECT count(*) - count(DISTINCT id) FROM (SELECT spec_frozen.next_id() AS id FROM generate_series(1, 30000)) s").Scan(&cdups); err != nil {
		t.Fatal(err)
	}
	if cdups != 30000-8192 {
		t.Fatalf("classic-sql, frozen clock: %d duplicates; want %d (8,192 IDs fit one tick)", cdups, 30000-8192)
	}
}

// TestRouteLayoutRefused: a layout with route bits is refused in the
// classic modes (which fill no route field) and by the published body, by
// every entry point, in one line naming the route bits, before anything
// runs; mode unique takes it (route_test.go).
func TestRouteLayoutRefused(t *testing.T) {
	t.Parallel()
	l := mustLayout(t, "time:41,node:6,seq:12,route:4")
	const want = "route bits unsupported: layout time:41,shard:6,seq:12,route:4 has 4 route bits; mode classic fills no route field (allowed: mode unique, whose next_id(route) fills it, or a layout without route)"
	o := pgfunc.Options{Layout: l, Mode: pgfunc.ModeClassic}
	_, errRender := pgfunc.Render(pgfunc.Shard{Schema: "r1", ID: 1}, o)
	_, errPublished := pgfunc.RenderPublished(pgfunc.Shard{Schema: "r1", ID: 1}, pgfunc.Options{Layout: l})
	_, errMeta := pgfunc.MetaFor(pgfunc.Shard{Schema: "r1", ID: 1}, o)
	_, errMigrator := migrate.New(nil, o, migrate.Options{OwnDatabaseOnly: true})
	for _, err := range []error{errRender, errPublished, errMeta, errMigrator} {
		if !errors.Is(err, pgfunc.ErrRouteUnsupported) || err.Error() != want {
			t.Errorf("got %v; want %q", err, want)
		}
	}
	if err := pgfunc.CheckLayout(l); err != nil {
		t.Errorf("CheckLayout(%s): %v", l, err)
	}
	if err := pgfunc.CheckLayout(mustLayout(t, specLayout)); err != nil {
		t.Errorf("CheckLayout(%s): %v", specLayout, err)
	}
}

// TestCheckEndNamesSpec: a spec's end is reported under its fields, the
// epoch said apart.
func TestCheckEndNamesSpec(t *testing.T) {
	t.Parallel()
	l := mustLayout(t, specLayout+",epoch=2000-01-01T00:00:00Z")
	err := pgfunc.CheckEnd(l, 0, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	const want = "layout ends too soon: layout time:28@1s,shard:22,seq:13 with epoch 2000-01-01T00:00:00Z ended at 2008-07-03T21:24:16Z: every draw would raise; choose a later epoch"
	if !errors.Is(err, pgfunc.ErrLayoutEnds) || err.Error() != want {
		t.Fatalf("CheckEnd: %v; want %q", err, want)
	}
}
