package dbserver

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// TiDBOnDisk is a throwaway TiDB server whose unistore data lives in a
// directory, so that it survives Crash and Restart as a production
// server's does: a restart drops what the process held in memory (each
// sequence's cache of values, for one) and keeps the rest.
type TiDBOnDisk struct {
	TiDB
	bin    string
	status int
}

// StartTiDBOnDisk starts tidb-server like StartTiDB, with its data in a directory
// of its own. Call Stop when done.
func StartTiDBOnDisk(ctx context.Context, o TiDBOptions) (*TiDBOnDisk, error) {
	bin, err := FindTiDB(o.Bin)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "shardid-tidb-disk-")
	if err != nil {
		return nil, fmt.Errorf("start tidb: %w", err)
	}
	s := &TiDBOnDisk{TiDB: TiDB{MySQLServer: MySQLServer{Dir: dir}, log: filepath.Join(dir, "tidb.log")}, bin: bin}
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		if s.LoopbackPort, lastErr = FreePort(); lastErr != nil {
			break
		}
		if s.status, lastErr = FreePort(); lastErr != nil {
			break
		}
		if lastErr = s.run(ctx, o.StartTimeout); lastErr == nil {
			return s, nil
		}
		if ctx.Err() != nil {
			break
		}
	}
	_ = s.Stop()
	return nil, lastErr
}

// run starts the server on its ports and data directory and waits for it.
func (s *TiDBOnDisk) run(ctx context.Context, timeout time.Duration) error {
	if timeout == 0 {
		timeout = 60 * time.Second
	}
	return s.launch(ctx, s.bin, filepath.Join(s.Dir, "data"), s.status, timeout)
}

// Crash kills the server (SIGKILL) and keeps its data directory.
func (s *TiDBOnDisk) Crash() { s.Proc.Kill() }

// Restart starts a crashed server again on the same ports and data and
// waits up to a minute until it answers.
func (s *TiDBOnDisk) Restart(ctx context.Context) error {
	if s.Proc.Running() {
		return errors.New("restart tidb: server is still running")
	}
	return s.run(ctx, 60*time.Second)
}
