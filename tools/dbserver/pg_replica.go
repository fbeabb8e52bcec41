package dbserver

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// PGBackup is a base backup of a running PG (pg_basebackup), from which
// Restore starts new servers, as an operator restores a backup.
type PGBackup struct {
	src *PG
	dir string // holds data/
}

// BaseBackup takes a base backup of s with pg_basebackup: a fast
// checkpoint, and the WAL written meanwhile streamed alongside, so that the
// backup is consistent on its own. Everything s writes after BaseBackup
// returns is missing from it. Remove it with Remove.
func (s *PG) BaseBackup(ctx context.Context) (*PGBackup, error) {
	dir, err := s.newDir()
	if err != nil {
		return nil, fmt.Errorf("base backup: %w", err)
	}
	if err := s.basebackup(ctx, filepath.Join(dir, "data")); err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	return &PGBackup{src: s, dir: dir}, nil
}

// Remove deletes the backup.
func (b *PGBackup) Remove() error { return os.RemoveAll(b.dir) }

// Restore starts a new server from a copy of the backup's data directory,
// on a free port of its own: it replays the WAL the backup holds, ends
// recovery and takes writes, as a server restored from a backup does. It
// keeps the origin's system identifier and settings. Stop it with Stop;
// the backup can be restored again.
func (b *PGBackup) Restore(ctx context.Context) (*PG, error) {
	n, err := b.src.sibling()
	if err != nil {
		return nil, fmt.Errorf("restore: %w", err)
	}
	cp := b.src.commandAt(ctx, "cp", "-a", filepath.Join(b.dir, "data"), n.dataDir())
	if out, err := cp.CombinedOutput(); err != nil {
		n.removeDir()
		return nil, fmt.Errorf("restore: copy the backup: %w: %s", err, LastLines(string(out), 3))
	}
	if err := n.startOnFreePort(ctx); err != nil {
		return nil, fmt.Errorf("restore: %w", err)
	}
	return n, nil
}

// StartStandby takes a base backup of s and starts it as an asynchronous
// streaming standby of s (pg_basebackup -R: standby.signal, and
// primary_conninfo pointing at s), on a free port of its own. It is in
// recovery and takes read-only queries; Promote makes it a primary. Stop
// it with Stop.
func (s *PG) StartStandby(ctx context.Context) (*PG, error) {
	n, err := s.sibling()
	if err != nil {
		return nil, fmt.Errorf("start standby: %w", err)
	}
	if err := s.basebackup(ctx, n.dataDir(), "-R"); err != nil {
		n.removeDir()
		return nil, err
	}
	if err := n.startOnFreePort(ctx); err != nil {
		return nil, fmt.Errorf("start standby: %w", err)
	}
	return n, nil
}

// WaitReplay waits until standby has replayed every WAL record s had
// written when WaitReplay was called.
func (s *PG) WaitReplay(ctx context.Context, standby *PG) error {
	var lsn string
	if err := s.queryRow(ctx, "SELECT pg_current_wal_lsn()::text", nil, &lsn); err != nil {
		return fmt.Errorf("wait for replay: %w", err)
	}
	for {
		var done bool
		err := standby.queryRow(ctx, "SELECT coalesce(pg_last_wal_replay_lsn() >= $1::pg_lsn, false)", []any{lsn}, &done)
		if err != nil {
			return fmt.Errorf("wait for replay: %w", err)
		}
		if done {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("wait for replay of %s: %w", lsn, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// Isolate shuts standby s down and starts it again with no primary to
// stream from: it stays in recovery and receives no more WAL, as a
// standby whose primary is gone, or that lags behind it. Everything the
// primary writes from now on never reaches it.
func (s *PG) Isolate(ctx context.Context) error {
	if err := s.stopWith(syscall.SIGINT); err != nil {
		return fmt.Errorf("isolate standby: %w", err)
	}
	s.args = append(s.args, "-c", "primary_conninfo=")
	if err := s.start(ctx); err != nil {
		return fmt.Errorf("isolate standby: %w", err)
	}
	return nil
}

// Promote ends a standby's recovery (pg_promote) and returns once it takes
// writes, as a failover does.
func (s *PG) Promote(ctx context.Context) error {
	var ok bool
	if err := s.queryRow(ctx, "SELECT pg_promote(true, 60)", nil, &ok); err != nil {
		return fmt.Errorf("promote: %w", err)
	}
	if !ok {
		return errors.New("promote: the standby did not end recovery within 60 s")
	}
	return nil
}

// basebackup runs pg_basebackup of s into dir, with extra arguments.
func (s *PG) basebackup(ctx context.Context, dir string, extra ...string) error {
	args := append([]string{"-D", dir, "-h", "127.0.0.1", "-p", fmt.Sprint(s.port), "-U", "postgres",
		"-X", "stream", "-c", "fast", "--no-sync"}, extra...)
	if out, err := s.command(ctx, "pg_basebackup", args...).CombinedOutput(); err != nil {
		return fmt.Errorf("pg_basebackup: %w: %s", err, LastLines(string(out), 5))
	}
	return nil
}

// sibling returns a server, not started, that runs the same binaries with
// the same settings as s in a directory of its own (its data directory
// not yet there).
func (s *PG) sibling() (*PG, error) {
	dir, err := s.newDir()
	if err != nil {
		return nil, err
	}
	n := &PG{binDir: s.binDir, dir: dir, cred: s.cred, logPath: filepath.Join(dir, "server.log")}
	for _, a := range s.args {
		if v, ok := strings.CutPrefix(a, "unix_socket_directories="); ok && v == s.dir {
			a = "unix_socket_directories=" + dir
		}
		n.args = append(n.args, a)
	}
	return n, nil
}

// newDir makes a temporary directory the server's user owns.
func (s *PG) newDir() (string, error) {
	dir, err := os.MkdirTemp("", "shardid-pg-")
	if err != nil {
		return "", err
	}
	if s.cred != nil {
		if err := os.Chown(dir, int(s.cred.Uid), int(s.cred.Gid)); err != nil {
			_ = os.RemoveAll(dir)
			return "", err
		}
	}
	return dir, nil
}

// startOnFreePort starts s on a free loopback port, trying another port
// when the one found is taken meanwhile; on failure it removes s's
// directory.
func (s *PG) startOnFreePort(ctx context.Context) error {
	var err error
	for range 5 {
		if s.port, err = FreePort(); err != nil {
			break
		}
		if err = s.start(ctx); err == nil {
			return nil
		}
	}
	s.removeDir()
	return err
}

// commandAt is command for a program found on $PATH rather than among
// the server binaries, run as the server's user.
func (s *PG) commandAt(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	if s.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: s.cred}
	}
	return cmd
}

// queryRow runs a one-row query with bind values args on database
// postgres of s.
func (s *PG) queryRow(ctx context.Context, q string, args []any, dest ...any) error {
	conn, err := pgx.Connect(ctx, s.DSN("postgres"))
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	return conn.QueryRow(ctx, q, args...).Scan(dest...)
}
