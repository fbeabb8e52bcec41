package inventory

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/shardid/shardid/pgfunc/internal/sqlt"
)

// Instance is what one connection says about the running PostgreSQL
// server it reaches. A copy of a data directory (pg_basebackup, a
// promoted replica, a file copy) keeps the system identifier of the server
// it was copied from, so System alone cannot tell a clone from its origin;
// Mark and Marks can.
type Instance struct {
	// System is the system identifier initdb chose (pg_control_system()),
	// or "" when the role may not read it.
	System string
	// Started is when the server's postmaster started.
	Started time.Time
	// Standby is true while the server is in recovery: a streaming or log
	// shipping standby, or a server still restoring a backup.
	Standby bool
	// Address is the server's own address and port for this connection
	// (inet_server_addr, inet_server_port); "" over a Unix socket.
	Address string
}

// ReadInstance reads who answers on conn.
func ReadInstance(ctx context.Context, conn *sql.Conn) (Instance, error) {
	var in Instance
	q, err := sqlt.Query("instance", nil)
	if err != nil {
		return in, err
	}
	if err := conn.QueryRowContext(ctx, q).Scan(&in.Started, &in.Standby, &in.Address); err != nil {
		return in, fmt.Errorf("read the server's identity: %w", err)
	}
	if q, err = sqlt.Query("system_identifier", nil); err != nil {
		return in, err
	}
	if err := conn.QueryRowContext(ctx, q).Scan(&in.System); err != nil {
		if ctx.Err() != nil {
			return in, fmt.Errorf("system identifier: %w", err)
		}
		in.System = "" // revoked: the marks still tell servers apart
	}
	return in, nil
}

// MarkClass is the first key of the advisory locks Mark takes ("SID3"),
// apart from Up's server lock and goose's locks.
const MarkClass = 0x53494433

// Mark takes the mark key on conn: a session advisory lock (MarkClass,
// key) that every other session of the same running server sees in
// pg_locks, and that no other server can see, whatever it was copied
// from, since a server's lock table lives in its memory, not in its data
// directory. It holds while conn stays open. It returns false when some
// session already holds that key (choose another).
func Mark(ctx context.Context, conn *sql.Conn, key int32) (bool, error) {
	q, err := sqlt.Query("mark", nil)
	if err != nil {
		return false, err
	}
	var got bool
	if err := conn.QueryRowContext(ctx, q, MarkClass, key).Scan(&got); err != nil {
		return false, fmt.Errorf("mark the session: %w", err)
	}
	return got, nil
}

// Marks lists the keys of the marks that other sessions of conn's running
// server hold (see Mark).
func Marks(ctx context.Context, conn *sql.Conn) ([]int32, error) {
	q, err := sqlt.Query("marks", nil)
	if err != nil {
		return nil, err
	}
	rows, err := conn.QueryContext(ctx, q, MarkClass)
	if err != nil {
		return nil, fmt.Errorf("read the marks: %w", err)
	}
	defer rows.Close()
	var out []int32
	for rows.Next() {
		var k int64
		if err := rows.Scan(&k); err != nil {
			return nil, fmt.Errorf("read the marks: %w", err)
		}
		out = append(out, int32(k))
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read the marks: %w", err)
	}
	return out, nil
}
