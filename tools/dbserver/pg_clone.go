package dbserver

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// StartClone copies the running server's data directory with
// pg_basebackup and starts the copy as a server of its own, a primary, on
// another free port: what a base backup restored beside its origin, or a
// replica promoted while its old primary still runs, looks like. The copy
// has the origin's system identifier and everything the origin held when
// the copy was taken; from then on the two go their own ways. Stop it
// with Stop.
func (s *PG) StartClone(ctx context.Context) (*PG, error) {
	return s.startCopy(ctx, false)
}

// StartCloneStandby copies the running server's data directory with
// pg_basebackup -R and starts the copy as a hot standby streaming the
// server's WAL: it stays in recovery (pg_is_in_recovery() is true),
// accepts read-only sessions and follows what the server writes. Stop it
// with Stop.
func (s *PG) StartCloneStandby(ctx context.Context) (*PG, error) {
	return s.startCopy(ctx, true)
}

// startCopy takes a base backup of s into a new directory (with the
// standby settings when standby) and starts a server on it.
func (s *PG) startCopy(ctx context.Context, standby bool) (*PG, error) {
	c := &PG{binDir: s.binDir, cred: s.cred}
	var err error
	if c.dir, err = os.MkdirTemp("", "shardid-pg-copy-"); err != nil {
		return nil, fmt.Errorf("copy postgres: %w", err)
	}
	if c.cred != nil {
		if err := os.Chown(c.dir, int(c.cred.Uid), int(c.cred.Gid)); err != nil {
			c.removeDir()
			return nil, fmt.Errorf("copy postgres: %w", err)
		}
	}
	c.logPath = filepath.Join(c.dir, "server.log")
	args := []string{"-D", c.dataDir(), "-d", fmt.Sprintf("host=127.0.0.1 port=%d user=postgres", s.port),
		"-X", "stream", "--checkpoint=fast", "--no-sync"}
	if standby {
		args = append(args, "-R") // standby.signal and primary_conninfo
	}
	if out, err := c.command(ctx, "pg_basebackup", args...).CombinedOutput(); err != nil {
		c.removeDir()
		return nil, fmt.Errorf("copy postgres: pg_basebackup: %w: %s", err, LastLines(string(out), 5))
	}
	// The origin's settings, with the copy's own socket directory.
	for i := 0; i < len(s.args); i++ {
		arg := s.args[i]
		if name, _, ok := strings.Cut(arg, "="); ok && name == "unix_socket_directories" {
			arg = name + "=" + c.dir
		}
		c.args = append(c.args, arg)
	}
	var lastErr error
	for range 5 {
		if c.port, err = FreePort(); err != nil {
			c.removeDir()
			return nil, fmt.Errorf("copy postgres: %w", err)
		}
		if lastErr = c.start(ctx); lastErr == nil {
			return c, nil
		}
	}
	c.removeDir()
	return nil, fmt.Errorf("copy postgres (port %s): %w", strconv.Itoa(c.port), lastErr)
}
