// Package demo is `shardid demo`: the whole path on a real server. goose
// applies four shards, a table per shard takes DEFAULT next_id(), rows go
// in and come back decoded, and a burst of 200,000 IDs from one statement
// is counted. Without Settings.DSN the server is a throwaway one started
// from the installed PostgreSQL binaries and removed afterwards; with a
// DSN the demo's schemas (shardid_demo0..3, holding the layout's top four
// shard ids, checked over the whole server as pg up checks them) are
// dropped at the end.
package demo

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/template"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/shardid/shardid"
	"github.com/shardid/shardid/pgfunc"
	"github.com/shardid/shardid/pgfunc/migrate"
	"github.com/shardid/shardid/tools/dbserver"
)

// Settings say where the demo runs and what it shows.
type Settings struct {
	// DSN names a PostgreSQL server of the user's (the demo works in
	// schemas it creates and drops, and refuses a server that holds any
	// trace of its shard ids); "" starts a throwaway server.
	DSN string
	// Rows is how many rows go into each shard's table; zero means 3.
	Rows int
	// Stdout takes the demo's story, Stderr what it could not clean up;
	// nil discards.
	Stdout, Stderr io.Writer
}

// MaxRows is the most rows per shard Settings.Rows may ask for.
const MaxRows = 1000

// Run runs the demo. Its errors are those of migrate.Open (a DSN it
// refuses, *dsn.CheckError; a server that did not answer, matching
// dsn.ErrConnect) and of the statements it runs; a throwaway server that
// would not start is "demo: …".
func Run(ctx context.Context, s Settings) error {
	stdout, stderr := s.Stdout, s.Stderr
	if stdout == nil {
		stdout = io.Discard
	}
	if stderr == nil {
		stderr = io.Discard
	}
	rows := s.Rows
	if rows == 0 {
		rows = 3
	}
	dsn := s.DSN
	format := pgfunc.DefaultSchemaFormat
	if dsn == "" {
		fmt.Fprintln(stdout, "starting a throwaway PostgreSQL from the installed server binaries ...")
		srv, err := dbserver.StartPG(ctx, dbserver.PGOptions{})
		if err != nil {
			return fmt.Errorf("demo: %w", err)
		}
		defer func() {
			srv.Stop()
			fmt.Fprintln(stdout, "stopped the server and removed its directory")
		}()
		dsn = srv.DSN("postgres")
		fmt.Fprintf(stdout, "server on 127.0.0.1:%d (%s)\n", srv.Port(), srv.BinDir())
	} else {
		format = "shardid_demo%d"
	}
	l := shardid.Instagram()
	// On a throwaway server the demo's shards are 0-3, and its database is
	// all they need to look after. On a server of the user's, which may
	// hold shards of its own, they are the layout's top four shard ids,
	// checked over the whole server as pg up checks them (a shard id held
	// anywhere, a generator whose IDs could meet these): two schemas
	// holding one shard id, even for a moment, hand out the same IDs.
	usersServer := format != pgfunc.DefaultSchemaFormat
	first, mo := int64(0), migrate.Options{OwnDatabaseOnly: true}
	if usersServer {
		first, mo = l.MaxShard()-3, migrate.Options{AllowMixed: true}
	}
	m, err := migrate.Open(ctx, "--dsn", dsn, pgfunc.Options{Layout: l}, mo)
	if err != nil {
		return err
	}
	defer m.Close()
	db := m.Server().DB()
	var shards []pgfunc.Shard
	for i := range int64(4) {
		name, _ := pgfunc.SchemaName(format, i)
		shards = append(shards, pgfunc.Shard{Schema: name, ID: first + i})
	}
	if usersServer {
		if err := demoShardsFree(ctx, m, first, first+3); err != nil {
			return err
		}
		created, err := createDemoSchemas(ctx, db, shards)
		defer func() {
			// After an interrupt too, but bounded: a server that stopped
			// answering would hold the demo without end.
			dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
			defer cancel()
			var left []string
			for _, name := range created {
				q, err := demoSQL("demo_drop", name)
				if err == nil {
					_, err = db.ExecContext(dctx, q)
				}
				if err != nil {
					left = append(left, name)
				}
			}
			switch {
			case len(left) > 0:
				fmt.Fprintf(stderr, "shardid demo: could not drop %s: drop them by hand (DROP SCHEMA … CASCADE)\n", strings.Join(left, ", "))
			case len(created) > 0:
				fmt.Fprintln(stdout, "dropped the demo schemas")
			}
		}()
		if err != nil {
			return err
		}
	}
	fmt.Fprintf(stdout, "\nlayout %s, mode unique\n\n$ shardid pg up --shards %d-%d\n", l.Describe(), first, first+3)
	res, _ := m.Up(ctx, shards, nil) // a partial error: each result says
	for _, r := range res {
		if r.Err != nil {
			return r.Err
		}
		fmt.Fprintf(stdout, "  applied %s (shard %d) in %.1fms; goose history in %s.goose_db_version\n",
			r.Shard.Schema, r.Shard.ID, float64(r.Duration.Microseconds())/1000, r.Shard.Schema)
	}
	fmt.Fprintln(stdout, "\nCREATE TABLE <schema>.photos (id bigint PRIMARY KEY DEFAULT <schema>.next_id(), caption text)")
	for _, sh := range shards {
		for _, step := range []struct {
			name string
			args []any
		}{{"demo_table", nil}, {"demo_insert", []any{rows}}} {
			q, err := demoSQL(step.name, sh.Schema)
			if err != nil {
				return err
			}
			if _, err := db.ExecContext(ctx, q, step.args...); err != nil {
				return err
			}
		}
	}
	fmt.Fprintf(stdout, "INSERT INTO <schema>.photos (caption) ... %d rows per shard\n\n", rows)
	w := len(shards[len(shards)-1].Schema)
	fmt.Fprintf(stdout, "%-20s %-*s %-26s %-6s %-5s %s\n", "id", w, "schema", "decoded time (Go)", "shard", "seq", "SQL id_timestamp / inserted at")
	for _, sh := range shards {
		q, err := demoSQL("demo_rows", sh.Schema)
		if err != nil {
			return err
		}
		rs, err := db.QueryContext(ctx, q)
		if err != nil {
			return err
		}
		for rs.Next() {
			var id int64
			var sqlTS, at time.Time
			if err := rs.Scan(&id, &sqlTS, &at); err != nil {
				rs.Close()
				return err
			}
			p, err := l.Decompose(id)
			if err != nil {
				rs.Close()
				return err
			}
			fmt.Fprintf(stdout, "%-20d %-*s %-26s %-6d %-5d %s / %s\n", id, w, sh.Schema, p.Time.Format("2006-01-02T15:04:05.000Z07:00"),
				p.Shard, p.Seq, sqlTS.UTC().Format("15:04:05.000"), at.UTC().Format("15:04:05.000000"))
		}
		rs.Close()
		if err := rs.Err(); err != nil {
			return err
		}
	}
	var burst, distinct int64
	q, err := demoSQL("demo_burst", shards[0].Schema)
	if err != nil {
		return err
	}
	if err := db.QueryRowContext(ctx, q, 200000).Scan(&burst, &distinct); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\n200000 IDs from one statement on shard %d (well past 1024 per ms): %d distinct\n", shards[0].ID, distinct)
	return nil
}

// createDemoSchemas creates the demo's schemas with plain CREATE SCHEMA
// and returns those it created. Schemas of those names that exist already
// (left by a demo that was killed, or someone else's) are never used or
// dropped: the error names them all with the statement that drops them.
func createDemoSchemas(ctx context.Context, db *sql.DB, shards []pgfunc.Shard) ([]string, error) {
	var created, existing []string
	for _, sh := range shards {
		q, err := demoSQL("demo_schema", sh.Schema)
		if err != nil {
			return created, err
		}
		if _, err := db.ExecContext(ctx, q); err != nil {
			var pe *pgconn.PgError
			if errors.As(err, &pe) && pe.Code == "42P06" { // duplicate_schema
				existing = append(existing, sh.Schema)
				continue
			}
			return created, fmt.Errorf("create schema %s: %w", sh.Schema, err)
		}
		created = append(created, sh.Schema)
	}
	if len(existing) > 0 {
		them := strings.Join(existing, ", ")
		return created, fmt.Errorf("demo: schemas %s exist already: the demo works only in schemas it creates and drops; if an earlier demo run was stopped before its end, drop them (DROP SCHEMA %s CASCADE)", them, them)
	}
	return created, nil
}

// demoTemplates are the demo's statements (sql/demo.sql.tmpl).
var demoTemplates = template.Must(template.ParseFS(sqlFS, "sql/demo.sql.tmpl"))

// demoSQL renders the named demo statement for schema, quoted.
func demoSQL(name, schema string) (string, error) {
	var b strings.Builder
	if err := demoTemplates.ExecuteTemplate(&b, name, pgx.Identifier{schema}.Sanitize()); err != nil {
		return "", fmt.Errorf("render %s: %w", name, err)
	}
	return b.String(), nil
}

// demoShardsFree refuses, before anything is applied, a server that holds
// any trace of shard ids lo to hi: a generator, or a counter a pg down kept.
// pg up would carry such a counter on into the demo's schema and drop it,
// and the demo drops its schemas at its end: the record of the IDs that
// shard handed out would be gone, and a later up of it could repeat them.
func demoShardsFree(ctx context.Context, m *migrate.Migrator, lo, hi int64) error {
	c, err := m.Server().Census(ctx)
	if err != nil {
		return err
	}
	for _, in := range append(c.Generators, c.Retired...) {
		if in.Meta.Shard < lo || in.Meta.Shard > hi {
			continue
		}
		what := "a generator of shard %d is in schema %s"
		if in.Retired {
			what = "a counter pg down kept of shard %d is in schema %s"
		}
		where := ""
		if in.Database != "" {
			where = " of database " + in.Database
		}
		return fmt.Errorf("demo: "+what+"%s; the demo's shards on your server are %d-%d, and it touches none a server holds: run it on a throwaway server (shardid demo without --dsn)",
			in.Meta.Shard, in.Schema, where, lo, hi)
	}
	return nil
}

// sqlFS holds the demo's statements (sql/demo.sql.tmpl): its schema and
// table, the inserts, the rows it reads back, the burst it counts and the
// drop at the end.
//
//go:embed sql/demo.sql.tmpl
var sqlFS embed.FS
