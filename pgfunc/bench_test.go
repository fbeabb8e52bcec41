package pgfunc_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/shardid/shardid/pgfunc"
)

// BenchmarkServerSideCost measures what one ID costs inside the server, the
// way DESIGN.md measured it: SELECT count(*) FROM (SELECT f() FROM
// generate_series(1, calls)) s, so that no client round trip is counted;
// unique-jump is mode unique with every call taking the slow path;
// unique-unbounded is mode unique without the bounded lead (the body
// before it), the baseline of what the lead costs.
// Every round runs each body once, in the same order, and the reported
// figures are medians over the rounds: ns per call for each body and each
// body's cost as a multiple of bare nextval() measured in the same run.
//
//	go test ./pgfunc -run '^$' -bench ServerSideCost -benchtime 7x
func BenchmarkServerSideCost(b *testing.B) {
	db, _ := newDB(b)
	ctx := context.Background()
	type body struct {
		name, expr string
		calls      int
	}
	bodies := []body{
		{"nextval", "nextval('bench_seq')", 200_000},
		{"unique", "b_unique.next_id()", 200_000},
		{"unique-unbounded", "b_unbounded.next_id()", 200_000},
		{"unique-jump", "b_jump.next_id()", 20_000},
		{"classic", "b_classic.next_id()", 200_000},
		{"classic-sql", "b_sql.next_id()", 200_000},
		{"published", "b_classic.next_id_published()", 200_000},
		{"uuid", "gen_random_uuid()", 200_000},
	}
	setup := []struct {
		sh   pgfunc.Shard
		mode pgfunc.Mode
	}{
		{pgfunc.Shard{Schema: "b_unique", ID: 1}, pgfunc.ModeUnique},
		{pgfunc.Shard{Schema: "b_classic", ID: 2}, pgfunc.ModeClassic},
		{pgfunc.Shard{Schema: "b_sql", ID: 3}, pgfunc.ModeClassicSQL},
	}
	for _, s := range setup {
		installWith(b, db, s.sh, pgfunc.Options{Mode: s.mode})
	}
	installVariant(b, db, pgfunc.Shard{Schema: "b_unbounded", ID: 5}, pgfunc.Options{}, withoutLead)
	// unique-jump: racingClock runs 300 times fast, so the counter is behind
	// on every call and every call takes the slow path (lock,
	// subtransaction, setval): the cost of one jump.
	installWith(b, db, pgfunc.Shard{Schema: "b_jump", ID: 4}, pgfunc.WithClock(pgfunc.Options{}, racingClock))
	if _, err := db.ExecContext(ctx, fmt.Sprintf("ALTER DATABASE %s SET shardid_test.base = '%s'", dbNameOf(b, db), time.Now().UTC().Format(time.RFC3339Nano))); err != nil {
		b.Fatal(err)
	}
	db.SetMaxIdleConns(0) // new sessions pick up the setting
	db.SetMaxIdleConns(2)
	published, err := pgfunc.RenderPublished(setup[1].sh, pgfunc.Options{})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, string(published)); err != nil {
		b.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, "CREATE SEQUENCE bench_seq CACHE 1"); err != nil {
		b.Fatal(err)
	}
	// One connection for every query, so each body runs in the same backend.
	conn, err := db.Conn(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	for _, bd := range bodies { // warm plans and caches
		if _, err := conn.ExecContext(ctx, fmt.Sprintf("SELECT count(*) FROM (SELECT %s FROM generate_series(1, 1000)) s", bd.expr)); err != nil {
			b.Fatalf("%s: %v", bd.name, err)
		}
	}
	samples := make(map[string][]float64)
	b.ResetTimer()
	for range b.N {
		for _, bd := range bodies {
			q := fmt.Sprintf("SELECT count(*) FROM (SELECT %s FROM generate_series(1, %d)) s", bd.expr, bd.calls)
			start := time.Now()
			var n int64
			if err := conn.QueryRowContext(ctx, q).Scan(&n); err != nil || n != int64(bd.calls) {
				b.Fatalf("%s: %v (count %d)", bd.name, err, n)
			}
			samples[bd.name] = append(samples[bd.name], float64(time.Since(start).Nanoseconds())/float64(bd.calls))
		}
	}
	b.StopTimer()
	names := make([]string, len(bodies))
	for i, bd := range bodies {
		names[i] = bd.name
	}
	reportMedians(b, samples, names, "ns/")
}

// reportMedians reports, for each name, the median of its samples with
// unit prefix and, for all but the first (the baseline), the median as a
// multiple of the baseline's, as "x/<name>". The custom metrics are the
// result, so ns/op is zeroed.
func reportMedians(b *testing.B, samples map[string][]float64, names []string, unit string) {
	base := median(samples[names[0]])
	for i, name := range names {
		med := median(samples[name])
		b.ReportMetric(med, unit+name)
		if i > 0 {
			b.ReportMetric(med/base, "x/"+name)
		}
	}
	b.ReportMetric(0, "ns/op")
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// BenchmarkInsertRow measures what a client sees: single-row autocommit
// INSERTs from 2 concurrent clients into a table whose key is a bigserial,
// DEFAULT next_id() in each mode, or a uuid v4. Every round runs each table
// for the same number of rows; the figures are medians over the rounds:
// rows per second for each key, and each as a fraction of bigserial's.
//
//	go test ./pgfunc -run '^$' -bench InsertRow -benchtime 5x
func BenchmarkInsertRow(b *testing.B) {
	db, _ := newDB(b)
	ctx := context.Background()
	db.SetMaxOpenConns(4)
	keys := []struct{ name, table, key string }{ // bigserial first: the baseline
		{"bigserial", "k_bigserial", "id bigserial PRIMARY KEY"},
		{"unique", "b_unique.k", "id bigint PRIMARY KEY DEFAULT b_unique.next_id()"},
		{"classic", "b_classic.k", "id bigint PRIMARY KEY DEFAULT b_classic.next_id()"},
		{"classic-sql", "b_sql.k", "id bigint PRIMARY KEY DEFAULT b_sql.next_id()"},
		{"uuid", "k_uuid", "id uuid PRIMARY KEY DEFAULT gen_random_uuid()"},
	}
	for i, mode := range []pgfunc.Mode{pgfunc.ModeUnique, pgfunc.ModeClassic, pgfunc.ModeClassicSQL} {
		schema := []string{"b_unique", "b_classic", "b_sql"}[i]
		installWith(b, db, pgfunc.Shard{Schema: schema, ID: int64(i + 1)}, pgfunc.Options{Mode: mode})
	}
	for _, k := range keys {
		if _, err := db.ExecContext(ctx, "CREATE TABLE "+k.table+" ("+k.key+", v int)"); err != nil {
			b.Fatal(err)
		}
	}
	const clients, rowsPerClient = 2, 3000
	samples := map[string][]float64{}
	b.ResetTimer()
	for range b.N {
		for _, k := range keys {
			q := "INSERT INTO " + k.table + " (v) VALUES ($1)"
			start := time.Now()
			errs := make(chan error, clients)
			for c := range clients {
				go func() {
					conn, err := db.Conn(ctx)
					if err != nil {
						errs <- err
						return
					}
					defer conn.Close()
					for i := range rowsPerClient {
						if _, err := conn.ExecContext(ctx, q, c*rowsPerClient+i); err != nil {
							errs <- err
							return
						}
					}
					errs <- nil
				}()
			}
			for range clients {
				if err := <-errs; err != nil {
					b.Fatalf("%s: %v", k.name, err)
				}
			}
			samples[k.name] = append(samples[k.name], clients*rowsPerClient/time.Since(start).Seconds())
		}
	}
	b.StopTimer()
	names := make([]string, len(keys))
	for i, k := range keys {
		names[i] = k.name
	}
	reportMedians(b, samples, names, "rows/s-")
}
