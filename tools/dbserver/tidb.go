package dbserver

// This file starts a throwaway TiDB server for tests, demos and
// benchmarks: TiDB's own tidb-server binary with its embedded unistore
// storage engine (one process, no PD or TiKV, data in memory), on a free
// loopback port, user root without a password. Nothing is mocked; callers
// talk to the same SQL layer a production cluster runs.
//
// The binary is found in TiDBOptions.Bin, else $TIDB_BIN, else tidb-server on
// PATH. .ci/run unpacks the shared TiDB v8.5 build and sets TIDB_BIN.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// ErrTiDBNotInstalled is returned by StartTiDB when no tidb-server binary is found.
var ErrTiDBNotInstalled = errors.New("tidb-server binary not found (set TIDB_BIN; .ci/run unpacks ../shared/tidb/tidb-server.xz)")

// TiDBOptions configures StartTiDB. The zero value finds the binary and waits up
// to 60 seconds for the server.
type TiDBOptions struct {
	// Bin is the tidb-server binary; "" means $TIDB_BIN, else tidb-server
	// on PATH.
	Bin string
	// StartTimeout bounds the wait for the server to answer; 0 means 60s.
	StartTimeout time.Duration
}

// TiDB is a running throwaway TiDB server.
type TiDB struct {
	MySQLServer
	log string
}

// FindTiDB returns the tidb-server binary StartTiDB would use, or an error
// wrapping ErrTiDBNotInstalled.
func FindTiDB(bin string) (string, error) {
	if bin == "" {
		bin = os.Getenv("TIDB_BIN")
	}
	if bin == "" {
		p, err := exec.LookPath("tidb-server")
		if err != nil {
			return "", ErrTiDBNotInstalled
		}
		return p, nil
	}
	if st, err := os.Stat(bin); err != nil || st.IsDir() || st.Mode()&0o111 == 0 {
		return "", fmt.Errorf("%w: %s is not an executable file", ErrTiDBNotInstalled, bin)
	}
	return bin, nil
}

// StartTiDB starts tidb-server with the unistore engine on a free 127.0.0.1
// port (and a free status port) and waits until it answers. It returns an
// error wrapping ErrTiDBNotInstalled when the binary is missing. Call Stop when
// done.
func StartTiDB(ctx context.Context, o TiDBOptions) (*TiDB, error) {
	bin, err := FindTiDB(o.Bin)
	if err != nil {
		return nil, err
	}
	timeout := o.StartTimeout
	if timeout == 0 {
		timeout = 60 * time.Second
	}
	dir, err := os.MkdirTemp("", "shardid-tidb-")
	if err != nil {
		return nil, fmt.Errorf("start tidb: %w", err)
	}
	s := &TiDB{MySQLServer: MySQLServer{Dir: dir}, log: filepath.Join(dir, "tidb.log")}
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		if lastErr = s.start(ctx, bin, timeout); lastErr == nil {
			return s, nil
		}
		if ctx.Err() != nil {
			break
		}
	}
	_ = s.Stop()
	return nil, lastErr
}

// start runs the server on fresh free ports and waits for it.
func (s *TiDB) start(ctx context.Context, bin string, timeout time.Duration) error {
	port, err := FreePort()
	if err != nil {
		return fmt.Errorf("start tidb: %w", err)
	}
	status, err := FreePort()
	if err != nil {
		return fmt.Errorf("start tidb: %w", err)
	}
	s.LoopbackPort = port
	return s.launch(ctx, bin, "", status, timeout)
}

// launch runs bin with the unistore engine on s.LoopbackPort and status
// port status, its data at path ("" keeps it in memory), and waits up to
// timeout until it answers.
func (s *TiDB) launch(ctx context.Context, bin, path string, status int, timeout time.Duration) error {
	cmd := exec.Command(bin, "-store", "unistore", "-path", path, "-host", "127.0.0.1", "-P", strconv.Itoa(s.LoopbackPort),
		"-status-host", "127.0.0.1", "-status", strconv.Itoa(status), "-log-file", s.log,
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

func (s *TiDB) logTail() string {
	b, _ := os.ReadFile(s.log)
	var keep []string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, "[FATAL]") || strings.Contains(l, "[ERROR]") {
			keep = append(keep, l)
		}
	}
	if len(keep) == 0 {
		return LastLines(string(b), 3)
	}
	return LastLines(strings.Join(keep, "\n"), 3)
}
