package tickets_test

import (
	"context"
	"database/sql"
	"fmt"
	"testing"

	"github.com/go-sql-driver/mysql"

	"github.com/shardid/shardid/tickets"
	"github.com/shardid/shardid/tools/bench"
	"github.com/shardid/shardid/tools/testsrv"
)

// drawForm is one way to draw a ticket, measured against the others.
type drawForm struct {
	name  string
	setup []string // run once
	draw  func(db *sql.DB, cl *tickets.Client) bench.Draw
}

// flickrSetup is Flickr's published ticket table; its draws get the
// server's class from the session variables, which the benchmark's DSN
// sets for every connection (increment 2, offset 1).
var flickrSetup = []string{
	"CREATE TABLE tickets64_flickr (id bigint unsigned NOT NULL auto_increment, stub char(1) NOT NULL default '', PRIMARY KEY (id), UNIQUE KEY stub (stub)) ENGINE=InnoDB",
}

func execDraw(db *sql.DB, q string) bench.Draw {
	return func(ctx context.Context) (int64, error) {
		res, err := db.ExecContext(ctx, q)
		if err != nil {
			return 0, err
		}
		return res.LastInsertId()
	}
}

var drawForms = []drawForm{
	// The baseline: a plain AUTO_INCREMENT insert into a growing table.
	{"auto_increment", []string{"CREATE TABLE ai (id bigint NOT NULL AUTO_INCREMENT PRIMARY KEY) ENGINE=InnoDB"},
		func(db *sql.DB, _ *tickets.Client) bench.Draw { return execDraw(db, "INSERT INTO ai () VALUES ()") }},
	{"replace", flickrSetup, func(db *sql.DB, _ *tickets.Client) bench.Draw {
		return execDraw(db, "REPLACE INTO tickets64_flickr (stub) VALUES ('a')")
	}},
	{"iodku", flickrSetup, func(db *sql.DB, _ *tickets.Client) bench.Draw {
		return execDraw(db, "INSERT INTO tickets64_flickr (stub) VALUES ('a') ON DUPLICATE KEY UPDATE id = LAST_INSERT_ID(id + 2)")
	}},
	// The package's form: UPDATE … LAST_INSERT_ID(id + increment) by primary key.
	{"update", nil, func(_ *sql.DB, cl *tickets.Client) bench.Draw { return cl.Next }},
}

// innodbStatus reads InnoDB's lock-wait and deadlock counters.
func innodbStatus(b *testing.B, db *sql.DB) (waits, deadlocks int64) {
	rows, err := db.Query("SHOW GLOBAL STATUS WHERE Variable_name IN ('Innodb_row_lock_waits', 'Innodb_deadlocks')")
	if err != nil {
		b.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		var v int64
		if err := rows.Scan(&name, &v); err != nil {
			b.Fatal(err)
		}
		if name == "Innodb_row_lock_waits" {
			waits = v
		} else {
			deadlocks = v
		}
	}
	return waits, deadlocks
}

// BenchmarkDrawForms draws tickets on MariaDB (InnoDB) from 1, 4 and 16
// concurrent clients in four forms: a plain AUTO_INCREMENT insert (the
// baseline), Flickr's REPLACE INTO, INSERT … ON DUPLICATE KEY UPDATE id =
// LAST_INSERT_ID(id + 2) on Flickr's table, and this package's UPDATE by
// primary key. Every round runs each form for the same number of tickets;
// the figures are medians over the rounds: tickets per second per client,
// each as a multiple of the same round's baseline, and InnoDB row-lock waits,
// deadlocks and failed draws per 1,000 tickets.
//
//	go test ./tickets -run '^$' -bench DrawForms -benchtime 5x
func BenchmarkDrawForms(b *testing.B) {
	ctx := context.Background()
	_, dsn := testsrv.MariaDBDB(b)
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		b.Fatal(err)
	}
	cfg.Params = map[string]string{"auto_increment_increment": "2", "auto_increment_offset": "1"}
	db := testsrv.Open(b, "mysql", cfg.FormatDSN())
	db.SetMaxIdleConns(32)
	done := map[string]bool{}
	for _, f := range drawForms {
		for _, q := range f.setup {
			if !done[q] {
				if _, err := db.ExecContext(ctx, q); err != nil {
					b.Fatal(err)
				}
				done[q] = true
			}
		}
	}
	if _, _, err := tickets.Up(ctx, db, tickets.Counter{Name: "tickets64", Increment: 2, Offset: 1}); err != nil {
		b.Fatal(err)
	}
	cl, err := tickets.NewClient(ctx, []tickets.Server{{Name: "m", DB: db}}, tickets.Settings{Name: "tickets64"})
	if err != nil {
		b.Fatal(err)
	}
	for _, clients := range []int{1, 4, 16} {
		b.Run(fmt.Sprintf("clients=%d", clients), func(b *testing.B) {
			perClient := 4000 / clients
			var s bench.Samples
			for range b.N {
				var base float64 // this round's baseline, the first form
				for _, f := range drawForms {
					w0, d0 := innodbStatus(b, db)
					r, err := bench.Drive(ctx, clients, perClient, nil, func() (bench.Draw, error) { return f.draw(db, cl), nil })
					if err != nil {
						b.Fatalf("%s: %v", f.name, err)
					}
					w1, d1 := innodbStatus(b, db)
					if base == 0 {
						base = r.PerClient
					}
					s.Add("ids/s/client-"+f.name, r.PerClient)
					s.Add("x/"+f.name, r.PerClient/base)
					s.Add("lockwaits/1k-"+f.name, float64(w1-w0)*1000/float64(r.IDs))
					s.Add("deadlocks/1k-"+f.name, float64(d1-d0)*1000/float64(r.IDs))
					s.Add("errors/1k-"+f.name, float64(r.Errors)*1000/float64(r.IDs))
				}
			}
			for _, name := range s.Names() {
				b.ReportMetric(s.Median(name), name)
			}
			b.ReportMetric(0, "ns/op")
		})
	}
}
