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
