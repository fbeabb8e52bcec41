package apply

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/shardid/shardid/tidb"
)

// DefaultLockTimeout is how long Migrator.Up waits for the run lock while
// another run holds it, unless Options.LockTimeout says otherwise.
const DefaultLockTimeout = time.Minute

// maxLockTimeout is the longest wait TiDB's GET_LOCK allows.
const maxLockTimeout = time.Hour

// Errors of the run lock.
var (
	// ErrLocked is returned by Migrator.Up, before it reads or applies
	// anything, when another session held the run lock (LockName) for the
	// whole Options.LockTimeout.
	ErrLocked = errors.New("another shardid tidb up holds the migration lock on this database")
	// ErrInvalidLockTimeout is returned by Options.Validate for a
	// LockTimeout below zero or above an hour.
	ErrInvalidLockTimeout = errors.New("invalid lock timeout")
)

// checkLockTimeout returns an error wrapping ErrInvalidLockTimeout unless
// d is within 0 (the default) and an hour.
func checkLockTimeout(d time.Duration) error {
	if d < 0 || d > maxLockTimeout {
		return fmt.Errorf("%w %s: want 0 (%s) up to %s", ErrInvalidLockTimeout, d, DefaultLockTimeout, maxLockTimeout)
	}
	return nil
}

// lockSeconds is the GET_LOCK timeout of o: whole seconds, rounded up,
// at least 1 (TiDB's least).
func (o Options) lockSeconds() int64 {
	d := o.LockTimeout
	if d == 0 {
		d = DefaultLockTimeout
	}
	return max(1, int64((d+time.Second-1)/time.Second))
}

// LockName returns the name of the GET_LOCK lock Up holds for its whole
// run: shardid_tidb_up_ and a hash of the version table's schema (the
// DSN's database when TableName names none) and name, lowercased, so that
// runs for one history wait for each other and runs for others do not.
// A script may hold it (SELECT GET_LOCK(name, timeout)) to keep tidb up
// out meanwhile.
func (m *Migrator) LockName(ctx context.Context) (string, error) {
	conn, err := m.db.Conn(ctx)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	return m.lockName(ctx, conn)
}

// lockName is LockName on conn.
func (m *Migrator) lockName(ctx context.Context, conn *sql.Conn) (string, error) {
	v := m.view()
	schema := v.Schema
	if schema == "" {
		q, err := execute("current_database", nil)
		if err != nil {
			return "", err
		}
		var db sql.NullString
		if err := conn.QueryRowContext(ctx, q).Scan(&db); err != nil {
			return "", fmt.Errorf("run lock: the DSN's database: %w", err)
		}
		schema = db.String
	}
	h := sha256.Sum256([]byte(strings.ToLower(schema + "." + v.Goose)))
	return "shardid_tidb_up_" + hex.EncodeToString(h[:20]), nil
}

// lock takes the run lock on a connection of its own, waiting up to
// Options.LockTimeout; unlock releases it and returns the connection.
// The work runs on the pool's other connections: the lock belongs to the
// session, not to what it runs.
func (m *Migrator) lock(ctx context.Context) (unlock func(), err error) {
	if m.db.Stats().MaxOpenConnections == 1 {
		return nil, errors.New("run lock: Up holds its lock on one connection and migrates on others: the pool must allow at least 2 (SetMaxOpenConns)")
	}
	conn, err := m.db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("run lock: %w", err)
	}
	fail := func(err error) (func(), error) {
		conn.Close()
		return nil, err
	}
	name, err := m.lockName(ctx, conn)
	if err != nil {
		return fail(err)
	}
	q, err := execute("run_lock", nil)
	if err != nil {
		return fail(err)
	}
	secs := m.o.lockSeconds()
	var got sql.NullInt64
	if err := conn.QueryRowContext(ctx, q, name, secs).Scan(&got); err != nil {
		return fail(fmt.Errorf("run lock %s: %w", name, err))
	}
	if !got.Valid { // GET_LOCK's NULL: an error on the server's side
		return fail(fmt.Errorf("run lock %s: GET_LOCK returned NULL (the server failed to take it); nothing was read or applied", name))
	}
	if got.Int64 != 1 {
		return fail(fmt.Errorf("%w (version table %s, lock %s, %s): waited %ds; nothing was read or applied: let it finish and run up again (a longer lock timeout, tidb up --lock-timeout, waits longer)",
			ErrLocked, m.history(), name, m.holder(ctx, conn, name), secs))
	}
	return func() {
		// The release runs after a cancelled run too, so it does not take
		// ctx's cancel, but it is bounded; closing the connection ends
		// the session, which lets the lock go in any case.
		uctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), unlockWait)
		defer cancel()
		if q, err := execute("run_unlock", nil); err == nil {
			_, _ = conn.ExecContext(uctx, q, name)
		}
		conn.Close()
	}, nil
}

// unlockWait bounds the release of the run lock.
const unlockWait = 5 * time.Second

// holder names the session holding the lock where the server says
// (MySQL and MariaDB: its connection id; TiDB does not tell).
func (m *Migrator) holder(ctx context.Context, conn *sql.Conn, name string) string {
	target, _, err := m.server(ctx)
	q, qerr := execute("run_lock_holder", nil)
	if err != nil || qerr != nil || target == tidb.TargetTiDB {
		return "SHOW PROCESSLIST shows the sessions"
	}
	var id sql.NullInt64
	if err := conn.QueryRowContext(ctx, q, name).Scan(&id); err != nil || !id.Valid {
		return "its holder has just let it go"
	}
	return fmt.Sprintf("held by connection %d", id.Int64)
}
