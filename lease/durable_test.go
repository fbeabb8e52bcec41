package lease_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/shardid/shardid/dialect"
	"github.com/shardid/shardid/lease"
	"github.com/shardid/shardid/tools/testsrv"
)

// TestLeaseRefusesLossyCommit: on PostgreSQL with synchronous_commit=off
// (set on the database, so new sessions get it) AcquireLease is refused
// with ErrLossyCommit, and a lease acquired before fails its renewal with
// it: a failed renewal (the generator draws on until the last one runs
// out), not a lost lease. AllowLossyCommit, the negative control, acquires
// and renews on the same database.
func TestLeaseRefusesLossyCommit(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, _ := testsrv.PGDB(t)
	if _, err := lease.Up(ctx, db, dialect.Postgres, ""); err != nil {
		t.Fatal(err)
	}
	before := acquire(t, db, lease.Settings{Holder: "before", RenewEvery: -1})
	var dbname string
	if err := db.QueryRowContext(ctx, "SELECT current_database()").Scan(&dbname); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, fmt.Sprintf("ALTER DATABASE %q SET synchronous_commit = off", dbname)); err != nil {
		t.Fatal(err)
	}
	db.SetMaxIdleConns(0) // new sessions pick the setting up
	db.SetMaxIdleConns(2)
	if _, err := lease.Acquire(ctx, db, lease.Settings{Holder: "new", RenewEvery: -1}); !errors.Is(err, lease.ErrLossyCommit) {
		t.Errorf("acquire with synchronous_commit=off: %v; want ErrLossyCommit", err)
	}
	err := before.Renew(ctx)
	if !errors.Is(err, lease.ErrLossyCommit) || errors.Is(err, lease.ErrLost) {
		t.Errorf("renewal with synchronous_commit=off: %v; want ErrLossyCommit, the lease kept", err)
	}
	if _, err := before.Next(); err != nil {
		t.Errorf("drawing after a refused renewal, within the last good one: %v", err)
	}
	l, err := lease.Acquire(ctx, db, lease.Settings{Holder: "lossy", RenewEvery: -1, AllowLossyCommit: true})
	if err != nil {
		t.Fatalf("with AllowLossyCommit: %v", err)
	}
	defer l.Close()
	if err := l.Renew(ctx); err != nil {
		t.Errorf("renewal with AllowLossyCommit: %v", err)
	}
}

// TestLeaseRefusesLossyCommitMariaDB: the same on a MariaDB server of the
// test's own (the setting is global): innodb_flush_log_at_trx_commit=2 is
// refused, AllowLossyCommit accepts it, 1 is accepted.
func TestLeaseRefusesLossyCommitMariaDB(t *testing.T) {
	if testing.Short() {
		t.Skip("starts its own server")
	}
	t.Parallel()
	ctx := context.Background()
	db := testsrv.Open(t, "mysql", testsrv.Database(t, testsrv.NewMariaDB(t)))
	if _, err := lease.Up(ctx, db, dialect.MySQL, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, "SET GLOBAL innodb_flush_log_at_trx_commit = 2"); err != nil {
		t.Fatal(err)
	}
	if _, err := lease.Acquire(ctx, db, lease.Settings{RenewEvery: -1}); !errors.Is(err, lease.ErrLossyCommit) {
		t.Errorf("flush at commit 2: %v; want ErrLossyCommit", err)
	}
	l, err := lease.Acquire(ctx, db, lease.Settings{RenewEvery: -1, AllowLossyCommit: true})
	if err != nil {
		t.Fatalf("with AllowLossyCommit: %v", err)
	}
	l.Close()
	if _, err := db.ExecContext(ctx, "SET GLOBAL innodb_flush_log_at_trx_commit = 1"); err != nil {
		t.Fatal(err)
	}
	acquire(t, db, lease.Settings{RenewEvery: -1})
}
