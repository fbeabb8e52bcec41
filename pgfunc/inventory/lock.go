package inventory

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/shardid/shardid/pgfunc/internal/sqlt"
)

// LockDatabase is the database in which Up takes its server-wide lock
// when migrate.Options.Connect is set: "postgres", which every PostgreSQL
// server has and PUBLIC may connect to. It is fixed, not an option,
// because advisory locks are scoped to one database: two runs locking in
// two databases would not exclude each other.
const LockDatabase = "postgres"

// DefaultLockTimeout is how long Up waits for the server-wide lock unless
// migrate.Options.LockTimeout says otherwise.
const DefaultLockTimeout = time.Minute

// ErrServerLocked is returned (per shard) by migrate.Migrator.Up when the
// server-wide lock stayed held for migrate.Options.LockTimeout; the message
// names the sessions holding it.
var ErrServerLocked = errors.New("server lock held by another session")

// serverLockKey is the second key of Up's server-wide advisory lock; the
// first is serverLockClass ("SID2"), apart from goose's single-bigint
// lock ids.
const (
	serverLockClass = 0x53494432
	serverLockKey   = 0
)

// Lock takes Up's server-wide lock on a connection of its own, in
// LockDatabase, or in the Server's database with OwnDatabaseOnly. While another session holds it, it tries again every 200 ms
// for up to migrate.Options.LockTimeout, then fails naming the holders.
// unlock releases it.
func (s *Server) Lock(ctx context.Context) (unlock func(), err error) {
	db, closeDB := s.db, func() {}
	connect, err := s.Connector(ctx)
	if err != nil {
		return nil, err
	}
	if connect != nil {
		if db, err = connect(ctx, LockDatabase); err != nil {
			return nil, fmt.Errorf("server lock: database %s: %w", LockDatabase, err)
		}
		closeDB = func() { db.Close() }
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		closeDB()
		return nil, fmt.Errorf("server lock: %w", err)
	}
	fail := func(err error) (func(), error) {
		conn.Close()
		closeDB()
		return nil, err
	}
	lock, err := sqlt.Query("server_lock", nil)
	if err != nil {
		return fail(err)
	}
	deadline := time.Now().Add(s.lockWait)
	for {
		var got bool
		if err := conn.QueryRowContext(ctx, lock, serverLockClass, serverLockKey).Scan(&got); err != nil {
			return fail(fmt.Errorf("server lock: %w", err))
		}
		if got {
			break
		}
		if time.Now().After(deadline) {
			return fail(fmt.Errorf("%w for %s (in database %s): %s; shardid runs take it while they apply shards, anybody can take it with pg_advisory_lock(%d, %d)",
				ErrServerLocked, s.lockWait, LockDatabase, holders(ctx, conn), serverLockClass, serverLockKey))
		}
		select {
		case <-ctx.Done():
			return fail(fmt.Errorf("server lock: %w", ctx.Err()))
		case <-time.After(200 * time.Millisecond):
		}
	}
	return func() {
		// The unlock runs after a cancelled run too, so it does not take
		// ctx's cancel, but it is bounded: a server that stopped answering
		// mid-run (hung, not down) would hold it without end, and the run
		// with it, SIGTERM or not. Closing the connection lets the lock go
		// whenever the server notices the session ended.
		uctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), unlockWait)
		defer cancel()
		if q, err := sqlt.Query("server_unlock", nil); err == nil {
			_, _ = conn.ExecContext(uctx, q, serverLockClass, serverLockKey)
		}
		conn.Close() // a session lock never outlives its connection
		closeDB()
	}, nil
}

// unlockWait bounds the release of the server-wide lock.
const unlockWait = 5 * time.Second

// holders describes the sessions holding the server-wide lock, as far as
// this role may see them.
func holders(ctx context.Context, conn *sql.Conn) string {
	q, err := sqlt.Query("server_lock_holders", nil)
	if err != nil {
		return "holder unknown"
	}
	rows, err := conn.QueryContext(ctx, q, serverLockClass, serverLockKey)
	if err != nil {
		return "holder unknown (" + err.Error() + ")"
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var pid int64
		var user, app string
		if rows.Scan(&pid, &user, &app) == nil {
			out = append(out, fmt.Sprintf("pid %d, role %s, application %q", pid, user, app))
		}
	}
	if len(out) == 0 {
		return "its holder has just let it go"
	}
	return "held by " + strings.Join(out, "; ")
}
