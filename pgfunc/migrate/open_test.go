package migrate_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/shardid/shardid"
	"github.com/shardid/shardid/internal/dsn"
	"github.com/shardid/shardid/pgfunc"
	"github.com/shardid/shardid/pgfunc/migrate"
	"github.com/shardid/shardid/tools/dbserver"
	"github.com/shardid/shardid/tools/testsrv"
)

// endedLayout is js53 from 1980: its time field ended in 2023.
func endedLayout(t *testing.T) shardid.Layout {
	l, err := shardid.ParseLayoutEpoch("js53", "1980-01-01T00:00:00Z")
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestOptionsValidate: Validate refuses what New would, and with CheckEnd
// a layout that ends too soon, before anything connects.
func TestOptionsValidate(t *testing.T) {
	ended := endedLayout(t)
	for _, c := range []struct {
		name string
		o    pgfunc.Options
		mo   migrate.Options
		want error
	}{
		{"zero values", pgfunc.Options{}, migrate.Options{}, nil},
		{"parallel too high", pgfunc.Options{}, migrate.Options{Parallel: migrate.MaxParallel + 1}, migrate.ErrInvalidParallel},
		{"negative lock timeout", pgfunc.Options{}, migrate.Options{LockTimeout: -time.Second}, migrate.ErrInvalidLockTimeout},
		{"bad lead", pgfunc.Options{Lead: time.Nanosecond}, migrate.Options{}, pgfunc.ErrInvalidLead},
		{"ended layout, not checked", pgfunc.Options{Layout: ended}, migrate.Options{}, nil},
		{"ended layout, checked", pgfunc.Options{Layout: ended}, migrate.Options{CheckEnd: true}, pgfunc.ErrLayoutEnds},
		{"ended layout, only an end refused", pgfunc.Options{Layout: ended}, migrate.Options{CheckEnd: true, EndMargin: -1}, pgfunc.ErrLayoutEnds},
		{"live layout, checked", pgfunc.Options{}, migrate.Options{CheckEnd: true}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := c.mo.Validate(c.o)
			if c.want == nil && err != nil || !errors.Is(err, c.want) {
				t.Fatalf("Validate: %v; want %v", err, c.want)
			}
		})
	}
}

// TestOpen: Open refuses bad options and DSNs before it connects (a port
// nobody listens on would fail to connect instead), fails a server that
// does not answer as dsn.ErrConnect without showing the password, and
// opens a Migrator that reads the whole server and reports it in one
// call.
func TestOpen(t *testing.T) {
	ctx := context.Background()
	nobody := "postgres://u:s3cret@127.0.0.1:1/x?connect_timeout=1"
	ended := endedLayout(t)
	if _, err := migrate.Open(ctx, "--dsn", nobody, pgfunc.Options{Layout: ended}, migrate.Options{CheckEnd: true}); !errors.Is(err, pgfunc.ErrLayoutEnds) {
		t.Errorf("Open with an ended layout: %v; want ErrLayoutEnds before connecting", err)
	}
	var ce *dsn.CheckError
	if _, err := migrate.Open(ctx, "--dsn", "mysql://u:s3cret@h/db", pgfunc.Options{}, migrate.Options{}); !errors.As(err, &ce) || !strings.HasPrefix(err.Error(), "--dsn: ") || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("Open with a MySQL URL: %v; want a *dsn.CheckError naming --dsn, without the password", err)
	}
	if _, err := migrate.Open(ctx, "--dsn", nobody, pgfunc.Options{}, migrate.Options{}); !errors.Is(err, dsn.ErrConnect) || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("Open on a port nobody listens on: %v; want ErrConnect, without the password", err)
	}

	source := testsrv.Database(t, testsrv.NewPG(t, dbserver.PGOptions{}))
	m, err := migrate.Open(ctx, "--dsn", source, pgfunc.Options{}, migrate.Options{CheckEnd: true})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	shards := []pgfunc.Shard{{Schema: "insta10", ID: 10}, {Schema: "insta2", ID: 2}}
	if _, err := m.Up(ctx, shards, nil); err != nil {
		t.Fatal(err)
	}
	r, err := m.Report(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Statuses) != 2 || r.Statuses[0].Shard.ID != 2 || r.Statuses[1].Shard.ID != 10 {
		t.Fatalf("Report statuses %+v; want insta2 then insta10, in shard id order", r.Statuses)
	}
	for _, s := range r.Statuses {
		if s.Installed == nil || !s.Matches {
			t.Errorf("%s: installed %v, matches %v; want this generator", s.Shard.Schema, s.Installed, s.Matches)
		}
	}
	if r.Census.Database == "" || len(r.Census.Closed) > 0 || r.Citus != nil {
		t.Errorf("census of %q, closed %v, citus %v: want the whole server read, no Citus", r.Census.Database, r.Census.Closed, r.Citus)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Report(ctx, nil); err == nil {
		t.Error("Report after Close: no error; want the closed pool's")
	}
}

// TestReportErr: a status's verdict on a clean server is nil; a shard id
// held in two other databases of the server is found by
// Census.HeldElsewhere, named by Where, and judged by Err; a generator of
// other options is a problem only when the options were asked for.
func TestReportErr(t *testing.T) {
	ctx := context.Background()
	srv := testsrv.NewPG(t, dbserver.PGOptions{})
	var dsns []string
	for _, name := range []string{"report_own", "report_other1", "report_other2"} {
		source, err := srv.CreateDatabase(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		dsns = append(dsns, source)
	}
	own := dsns[0]
	open := func(source string, o pgfunc.Options, mo migrate.Options) *migrate.Migrator {
		m, err := migrate.Open(ctx, "--dsn", source, o, mo)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { m.Close() })
		return m
	}
	m := open(own, pgfunc.Options{}, migrate.Options{})
	if _, err := m.Up(ctx, []pgfunc.Shard{{Schema: "insta1", ID: 1}}, nil); err != nil {
		t.Fatal(err)
	}
	r, err := m.Report(ctx, nil)
	if err != nil || r.Err(true) != nil || len(r.Census.HeldElsewhere()) != 0 {
		t.Fatalf("clean server: report error %v, verdict %v, held elsewhere %v; want none", err, r.Err(true), r.Census.HeldElsewhere())
	}
	classic := pgfunc.Options{Mode: pgfunc.ModeClassic}
	if r, err = open(own, classic, migrate.Options{}).Report(ctx, nil); err != nil || r.Err(false) != nil || r.Err(true) == nil || !strings.Contains(r.Err(true).Error(), "differs from the requested options") {
		t.Fatalf("another mode: %v; verdict unasked %v, asked %v; want a mismatch only when asked", err, r.Err(false), r.Err(true))
	}
	// Two copies of shard 7 in other databases (each up looking after its
	// own database alone, as a restore of a dump into a second database
	// makes them).
	for _, source := range dsns[1:] {
		if _, err := open(source, pgfunc.Options{}, migrate.Options{OwnDatabaseOnly: true}).Up(ctx, []pgfunc.Shard{{Schema: "insta7", ID: 7}}, nil); err != nil {
			t.Fatal(err)
		}
	}
	if r, err = m.Report(ctx, nil); err != nil {
		t.Fatal(err)
	}
	held := r.Census.HeldElsewhere()
	if len(held) != 1 || len(held[0]) != 2 || held[0][0].Meta.Shard != 7 || !strings.HasSuffix(r.Census.Where(held[0][0]), ".insta7") || strings.HasPrefix(r.Census.Where(held[0][0]), r.Census.Database+".") {
		t.Fatalf("held elsewhere: %+v; want shard 7 in two other databases", held)
	}
	if err := r.Err(false); err == nil || !strings.Contains(err.Error(), "1 shard id is held by more than one schema in other databases") {
		t.Fatalf("verdict: %v; want shard 7 named as held twice elsewhere", err)
	}
}
