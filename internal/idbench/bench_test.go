package idbench_test

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"testing"

	"github.com/shardid/shardid"
	"github.com/shardid/shardid/internal/gooseup"
	"github.com/shardid/shardid/internal/idbench"
	"github.com/shardid/shardid/internal/testsrv"
	"github.com/shardid/shardid/pgfunc"
	"github.com/shardid/shardid/tidb/tickets"
)

func TestMain(m *testing.M) { testsrv.Main(m) }

// method is one way to get IDs.
type method struct {
	name string
	ids  int    // per client per round
	vs   string // baseline for the ratio; "" means the first method
	// draw makes one client's draw and what to close after the round.
	draw func(ctx context.Context) (idbench.Draw, io.Closer, error)
}

// nopCloser closes nothing.
type nopCloser struct{}

func (nopCloser) Close() error { return nil }

// execLastID draws with an INSERT or UPDATE whose OK packet carries the ID.
func execLastID(db *sql.DB, q string) func(context.Context) (idbench.Draw, io.Closer, error) {
	return func(context.Context) (idbench.Draw, io.Closer, error) {
		return func(ctx context.Context) (int64, error) {
			res, err := db.ExecContext(ctx, q)
			if err != nil {
				return 0, err
			}
			return res.LastInsertId()
		}, nopCloser{}, nil
	}
}

// queryID draws with a statement that returns the ID as a row.
func queryID(db *sql.DB, q string) func(context.Context) (idbench.Draw, io.Closer, error) {
	return func(context.Context) (idbench.Draw, io.Closer, error) {
		return func(ctx context.Context) (int64, error) {
			var id int64
			err := db.QueryRowContext(ctx, q).Scan(&id)
			return id, err
		}, nopCloser{}, nil
	}
}

// segments draws from a Segments client of the client's own, as a separate
// process would: it starts at the tag's step and adapts.
func segments(db *sql.DB) func(context.Context) (idbench.Draw, io.Closer, error) {
	return func(ctx context.Context) (idbench.Draw, io.Closer, error) {
		c, err := shardid.NewSegments(ctx, db, shardid.SegmentSettings{Tag: "bench"})
		if err != nil {
			return nil, nil, err
		}
		return c.Next, c, nil
	}
}

// ticketDraws draws from a tickets client over one server.
func ticketDraws(db *sql.DB, name string) func(context.Context) (idbench.Draw, io.Closer, error) {
	return func(ctx context.Context) (idbench.Draw, io.Closer, error) {
		c, err := tickets.NewClient(ctx, []tickets.Server{{Name: "bench", DB: db}}, tickets.ClientSettings{Name: name})
		if err != nil {
			return nil, nil, err
		}
		return c.Next, nopCloser{}, nil
	}
}

// runCost measures each method, baseline first, for 1 and 4 concurrent
// clients: every round runs each method once; the figures are medians over
// the rounds of IDs per second per client, of each as a multiple of the
// same round's baseline (the first method, or the one named by vs), and of
// round trips per 1,000 IDs.
func runCost(b *testing.B, ctr *idbench.Counter, methods []method) {
	ctx := context.Background()
	for _, clients := range []int{1, 4} {
		b.Run(fmt.Sprintf("clients=%d", clients), func(b *testing.B) {
			var s idbench.Samples
			for range b.N {
				rate := map[string]float64{}
				for _, m := range methods {
					var closers []io.Closer
					r, err := idbench.Drive(ctx, clients, m.ids, ctr, func() (idbench.Draw, error) {
						d, c, err := m.draw(ctx)
						closers = append(closers, c)
						return d, err
					})
					for _, c := range closers {
						if c != nil {
							c.Close()
						}
					}
					if err != nil {
						b.Fatalf("%s: %v", m.name, err)
					}
					rate[m.name] = r.PerClient
					base := methods[0].name
					if m.vs != "" {
						base = m.vs
					}
					s.Add("ids/s/client-"+m.name, r.PerClient)
					s.Add("x/"+m.name, r.PerClient/rate[base])
					s.Add("rt/1k-"+m.name, r.RoundTripsPer1000)
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
func segmentTag(b *testing.B, db *sql.DB, d shardid.Dialect) {
	b.Helper()
	ctx := context.Background()
	files, err := shardid.SegmentMigrations(d, "")
	if err != nil {
		b.Fatal(err)
	}
	if _, err := gooseup.Up(ctx, db, d, shardid.SegmentHistoryTable(""), files); err != nil {
		b.Fatal(err)
	}
	if _, _, err := shardid.EnsureSegmentTag(ctx, db, d, "", shardid.SegmentTag{Tag: "bench"}, 0); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkCostMariaDB: a ticket (one server, the UPDATE form) and a
// segment ID against a native AUTO_INCREMENT insert on the same MariaDB.
//
//	go test ./internal/idbench -run '^$' -bench Cost -benchtime 5x
func BenchmarkCostMariaDB(b *testing.B) {
	_, dsn := testsrv.MariaDBDB(b)
	db, ctr, err := idbench.OpenMySQL(dsn)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	db.SetMaxIdleConns(8)
	mustExec(b, db, "CREATE TABLE ai (id bigint NOT NULL AUTO_INCREMENT PRIMARY KEY) ENGINE=InnoDB")
	if _, _, err := tickets.Up(context.Background(), db, tickets.Settings{Name: "tickets64"}); err != nil {
		b.Fatal(err)
	}
	segmentTag(b, db, shardid.DialectMySQL)
	runCost(b, ctr, []method{
		{"auto_increment", 2000, "", execLastID(db, "INSERT INTO ai () VALUES ()")},
		{"tickets", 2000, "", ticketDraws(db, "tickets64")},
		{"segments", 200_000, "", segments(db)},
	})
}

// BenchmarkCostTiDB: tickets (table and SEQUENCE) and segments against a
// native AUTO_INCREMENT insert on the same TiDB (unistore: one process, no
// network between TiDB and storage, so round trips cost less than in a
// cluster).
func BenchmarkCostTiDB(b *testing.B) {
	_, dsn := testsrv.TiDBDB(b)
	db, ctr, err := idbench.OpenMySQL(dsn)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	db.SetMaxIdleConns(8)
	mustExec(b, db, "CREATE TABLE ai (id bigint NOT NULL AUTO_INCREMENT PRIMARY KEY)")
	ctx := context.Background()
	if _, _, err := tickets.Up(ctx, db, tickets.Settings{Name: "tickets64"}); err != nil {
		b.Fatal(err)
	}
	if _, _, err := tickets.Up(ctx, db, tickets.Settings{Name: "tickets64_seq", Kind: tickets.KindSequence}); err != nil {
		b.Fatal(err)
	}
	segmentTag(b, db, shardid.DialectTiDB)
	runCost(b, ctr, []method{
		{"auto_increment", 1000, "", execLastID(db, "INSERT INTO ai () VALUES ()")},
		{"tickets", 1000, "", ticketDraws(db, "tickets64")},
		{"tickets-sequence", 2000, "", ticketDraws(db, "tickets64_seq")},
		{"segments", 200_000, "", segments(db)},
	})
}

// BenchmarkCostPostgres: segments, a shard's next_id() (applied with
// pgfunc.Migrator) called alone and as a column DEFAULT in a single-row
// INSERT … RETURNING, against nextval() on the same server; the DEFAULT
// next_id() INSERT's ratio is against the bigserial INSERT.
func BenchmarkCostPostgres(b *testing.B) {
	_, dsn := testsrv.PGDB(b)
	db, ctr, err := idbench.OpenPG(dsn)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	db.SetMaxIdleConns(8)
	ctx := context.Background()
	m, err := pgfunc.NewMigrator(db, pgfunc.Options{}, pgfunc.MigrateOptions{})
	if err != nil {
		b.Fatal(err)
	}
	for _, r := range m.Up(ctx, []pgfunc.Shard{{Schema: "insta1", ID: 1}}, nil) {
		if r.Err != nil {
			b.Fatal(r.Err)
		}
	}
	mustExec(b, db,
		"CREATE SEQUENCE bench_seq",
		"CREATE TABLE k_bigserial (id bigserial PRIMARY KEY)",
		"CREATE TABLE insta1.k (id bigint PRIMARY KEY DEFAULT insta1.next_id())")
	segmentTag(b, db, shardid.DialectPostgres)
	runCost(b, ctr, []method{
		{"nextval", 2000, "", queryID(db, "SELECT nextval('bench_seq')")},
		{"segments", 200_000, "", segments(db)},
		{"next_id", 2000, "", queryID(db, "SELECT insta1.next_id()")},
		{"insert-bigserial", 2000, "", queryID(db, "INSERT INTO k_bigserial DEFAULT VALUES RETURNING id")},
		{"insert-default-next_id", 2000, "insert-bigserial", queryID(db, "INSERT INTO insta1.k DEFAULT VALUES RETURNING id")},
	})
}
