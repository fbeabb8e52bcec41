package dialect_test

import (
	"context"
	"errors"
	"testing"

	"github.com/shardid/shardid/dialect"
	"github.com/shardid/shardid/tools/testsrv"
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
		got  func() (dialect.Dialect, error)
		want dialect.Dialect
	}{
		{"postgres", func() (dialect.Dialect, error) { return dialect.Detect(ctx, pg) }, dialect.Postgres},
		{"mariadb", func() (dialect.Dialect, error) { return dialect.Detect(ctx, my) }, dialect.MySQL},
		{"tidb", func() (dialect.Dialect, error) { return dialect.Detect(ctx, ti) }, dialect.TiDB},
	} {
		if d, err := c.got(); err != nil || d != c.want {
			t.Errorf("%s: %q, %v; want %q", c.name, d, err, c.want)
		}
	}
	if _, err := dialect.Parse("oracle"); !errors.Is(err, dialect.ErrUnknown) {
		t.Errorf("ParseDialect(oracle): %v", err)
	}
}
