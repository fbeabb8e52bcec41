package shardid_test

import (
	"context"
	"errors"
	"testing"

	"github.com/shardid/shardid"
	"github.com/shardid/shardid/internal/testsrv"
)

func TestMain(m *testing.M) { testsrv.Main(m) }

// TestDetectDialect asks real PostgreSQL, MariaDB and TiDB servers.
func TestDetectDialect(t *testing.T) {
	if testing.Short() {
		t.Skip("starts three servers")
	}
	ctx := context.Background()
	pg, _ := testsrv.PGDB(t)
	my, _ := testsrv.MariaDBDB(t)
	ti, _ := testsrv.TiDBDB(t)
	for _, c := range []struct {
		name string
		got  func() (shardid.Dialect, error)
		want shardid.Dialect
	}{
		{"postgres", func() (shardid.Dialect, error) { return shardid.DetectDialect(ctx, pg) }, shardid.DialectPostgres},
		{"mariadb", func() (shardid.Dialect, error) { return shardid.DetectDialect(ctx, my) }, shardid.DialectMySQL},
		{"tidb", func() (shardid.Dialect, error) { return shardid.DetectDialect(ctx, ti) }, shardid.DialectTiDB},
	} {
		if d, err := c.got(); err != nil || d != c.want {
			t.Errorf("%s: %q, %v; want %q", c.name, d, err, c.want)
		}
	}
	if _, err := shardid.ParseDialect("oracle"); !errors.Is(err, shardid.ErrUnknownDialect) {
		t.Errorf("ParseDialect(oracle): %v", err)
	}
}
