package bench_test

import (
	"context"
	"database/sql"
	"fmt"
	"testing"

	"github.com/shardid/shardid/dialect"
	"github.com/shardid/shardid/pgfunc"
	"github.com/shardid/shardid/pgfunc/migrate"
	"github.com/shardid/shardid/segment"
	"github.com/shardid/shardid/tickets"
	"github.com/shardid/shardid/tools/bench"
	"github.com/shardid/shardid/tools/testsrv"
)

// runCost measures each method, baseline first, for 1 and 4 concurrent
// clients: every round runs each method once; the figures are medians over
// the rounds of IDs per second per client, of each as a multiple of the
// same round's baseline (the first method, or the one named by vs), and of
// round trips per 1,000 IDs.
func runCost(b *testing.B, ctr *bench.Counter, methods []bench.Method) {
	ctx := context.Background()
	for _, clients := range []int{1, 4} {
		b.Run(fmt.Sprintf("clients=%d", clients), func(b *testing.B) {
			var s bench.Samples
			for range b.N {
				rate := map[string]float64{}
				for _, m := range methods {
					r, _, err := m.Run(ctx, clients, ctr)
					if err != nil {
						b.Fatal(err)
					}
					rate[m.Name] = r.PerClient
					base := methods[0].Name
					if m.Vs != "" {
						base = m.Vs
					}
					s.Add("ids/s/client-"+m.Name, r.PerClient)
					s.Add("x/"+m.Name, r.PerClient/rate[base])
					s.Add("rt/1k-"+m.Name, r.RoundTripsPer1000)
				}
			}
			for _, name := range s.Names() {
				b.ReportMetric(s.Median(name), name)
			}
			b.ReportMetric(0, "ns/op")
		})
	}
}

// mustExec runs setup statements.
func mustExec(b *testing.B, db *sql.DB, stmts ...string) {
	b.Helper()
	for _, q := range stmts {
		if _, err := db.Exec(q); err != nil {
			b.Fatalf("%s: %v", q, err)
		}
	}
}

// segmentTag applies the allocation table and creates tag "bench" (step
// 1000).
func segmentTag(b *testing.B, db *sql.DB, d dialect.Dialect) {
	b.Helper()
	if err := bench.SegmentTag(context.Background(), db, d, "", "bench"); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkCostMariaDB: a ticket (one server, the UPDATE form) and a
// segment ID against a native AUTO_INCREMENT insert on the same MariaDB.
//
//	go test ./tools/bench -run '^$' -bench Cost -benchtime 5x
func BenchmarkCostMariaDB(b *testing.B) {
	_, dsn := testsrv.MariaDBDB(b)
	db, ctr, err := bench.OpenMySQL(dsn)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	db.SetMaxIdleConns(8)
	mustExec(b, db, "CREATE TABLE ai (id bigint NOT NULL AUTO_INCREMENT PRIMARY KEY) ENGINE=InnoDB")
	if _, _, err := tickets.Up(context.Background(), db, tickets.Counter{Name: "tickets64"}); err != nil {
		b.Fatal(err)
	}
	segmentTag(b, db, dialect.MySQL)
	runCost(b, ctr, []bench.Method{
		{"auto_increment", 2000, "", bench.ExecLastID(db, "INSERT INTO ai () VALUES ()")},
		{"tickets", 2000, "", bench.TicketDraws(db, "tickets64")},
		{"segments", 200_000, "", bench.SegmentDraws(db, segment.Settings{Tag: "bench"})},
	})
}

// BenchmarkCostTiDB: tickets (table and SEQUENCE) and segments against a
// native AUTO_INCREMENT insert on the same TiDB (unistore: one process, no
// network between TiDB and storage, so round trips cost less than in a
// cluster).
func BenchmarkCostTiDB(b *testing.B) {
	_, dsn := testsrv.TiDBDB(b)
	db, ctr, err := bench.OpenMySQL(dsn)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	db.SetMaxIdleConns(8)
	mustExec(b, db, "CREATE TABLE ai (id bigint NOT NULL AUTO_INCREMENT PRIMARY KEY)")
	ctx := context.Background()
	if _, _, err := tickets.Up(ctx, db, tickets.Counter{Name: "tickets64"}); err != nil {
		b.Fatal(err)
	}
	if _, _, err := tickets.Up(ctx, db, tickets.Counter{Name: "tickets64_seq", Kind: tickets.KindSequence}); err != nil {
		b.Fatal(err)
	}
	segmentTag(b, db, dialect.TiDB)
	runCost(b, ctr, []bench.Method{
		{"auto_increment", 1000, "", bench.ExecLastID(db, "INSERT INTO ai () VALUES ()")},
		{"tickets", 1000, "", bench.TicketDraws(db, "tickets64")},
		{"tickets-sequence", 2000, "", bench.TicketDraws(db, "tickets64_seq")},
		{"segments", 200_000, "", bench.SegmentDraws(db, segment.Settings{Tag: "bench"})},
	})
}

// BenchmarkCostPostgres: segments, a shard's next_id() (applied with
// migrate.Migrator) called alone and as a column DEFAULT in a single-row
// INSERT … RETURNING, against nextval() on the same server; the DEFAULT
// next_id() INSERT's ratio is against the bigserial INSERT.
func BenchmarkCostPostgres(b *testing.B) {
	_, dsn := testsrv.PGDB(b)
	db, ctr, err := bench.OpenPG(dsn)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	db.SetMaxIdleConns(8)
	ctx := context.Background()
	m, err := migrate.New(db, pgfunc.Options{}, migrate.Options{OwnDatabaseOnly: true})
	if err != nil {
		b.Fatal(err)
	}
	res, _ := m.Up(ctx, []pgfunc.Shard{{Schema: "insta1", ID: 1}}, nil) // a partial error: each result says
	for _, r := range res {
		if r.Err != nil {
			b.Fatal(r.Err)
		}
	}
	mustExec(b, db,
		"CREATE SEQUENCE bench_seq",
		"CREATE TABLE k_bigserial (id bigserial PRIMARY KEY)",
		"CREATE TABLE insta1.k (id bigint PRIMARY KEY DEFAULT insta1.next_id())")
	segmentTag(b, db, dialect.Postgres)
	runCost(b, ctr, []bench.Method{
		{"nextval", 2000, "", bench.QueryID(db, "SELECT nextval('bench_seq')")},
		{"segments", 200_000, "", bench.SegmentDraws(db, segment.Settings{Tag: "bench"})},
		{"next_id", 2000, "", bench.QueryID(db, "SELECT insta1.next_id()")},
		{"insert-bigserial", 2000, "", bench.QueryID(db, "INSERT INTO k_bigserial DEFAULT VALUES RETURNING id")},
		{"insert-default-next_id", 2000, "insert-bigserial", bench.QueryID(db, "INSERT INTO insta1.k DEFAULT VALUES RETURNING id")},
	})
}
