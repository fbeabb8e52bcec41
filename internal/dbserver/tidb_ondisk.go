package dbserver

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
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
	cmd := exec.Command(s.bin, "-store", "unistore", "-path", filepath.Join(s.Dir, "data"), "-host", "127.0.0.1",
		"-P", strconv.Itoa(s.LoopbackPort), "-status-host", "127.0.0.1", "-status", strconv.Itoa(s.status), "-log-file", s.log,
		"-temp-dir", filepath.Join(s.Dir, "tmp"), "-socket", filepath.Join(s.Dir, "tidb.sock"))
	cmd.Dir = s.Dir
	out, err := os.OpenFile(filepath.Join(s.Dir, "stdout.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("start tidb: %w", err)
	}
	defer out.Close()
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	p, err := StartProc(cmd)
	if err != nil {
		return fmt.Errorf("start tidb: %w", err)
	}
	s.Proc = p
	if err := WaitMySQL(ctx, p, s.DSN(""), timeout, s.logTail); err != nil {
		p.Kill()
		return fmt.Errorf("start tidb: %w", err)
	}
	return nil
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
