package dbserver

// This file starts a throwaway MariaDB server for tests, demos and
// benchmarks: Debian's mariadb-server binaries, a fresh data directory in a
// temporary directory, a free loopback port, a root user without a
// password. Nothing is mocked; callers talk to a real server over the MySQL
// protocol.
//
// Tests get one through tools/testsrv, which starts it on first use.

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

// ErrMariaDBNotInstalled is returned by StartMariaDB when the MariaDB server binaries
// (mariadb-install-db, mariadbd) are not found.
var ErrMariaDBNotInstalled = errors.New("MariaDB server binaries not found (Debian: apt-get install mariadb-server)")

// MariaDBOptions configures StartMariaDB. The zero value finds the binaries on PATH and
// in /usr/sbin and /usr/bin, and waits up to 60 seconds for the server.
type MariaDBOptions struct {
	// BinDir is where mariadb-install-db and mariadbd live; "" searches
	// PATH, /usr/sbin and /usr/bin.
	BinDir string
	// StartTimeout bounds the wait for the server to answer; 0 means 60s.
	StartTimeout time.Duration
}

// MariaDB is a running throwaway MariaDB server.
type MariaDB struct {
	MySQLServer
	bin  string   // mariadbd
	args []string // mariadbd's arguments, for Restart
	log  string
}

// find returns the path of a MariaDB binary.
func find(binDir, name string) (string, error) {
	if binDir != "" {
		p := filepath.Join(binDir, name)
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("%w: %s", ErrMariaDBNotInstalled, p)
		}
		return p, nil
	}
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	for _, d := range []string{"/usr/sbin", "/usr/bin"} {
		p := filepath.Join(d, name)
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("%w: no %s", ErrMariaDBNotInstalled, name)
}

// MariaDBInstalled reports whether StartMariaDB can find the server binaries.
func MariaDBInstalled(o MariaDBOptions) bool {
	_, err1 := find(o.BinDir, "mariadb-install-db")
	_, err2 := find(o.BinDir, "mariadbd")
	return err1 == nil && err2 == nil
}

// StartMariaDB initializes a data directory in a new temporary directory, starts
// mariadbd on a free 127.0.0.1 port and waits until it answers. It returns
// an error wrapping ErrMariaDBNotInstalled when the binaries are missing. Call
// Stop when done.
func StartMariaDB(ctx context.Context, o MariaDBOptions) (*MariaDB, error) {
	installDB, err := find(o.BinDir, "mariadb-install-db")
	if err != nil {
		return nil, err
	}
	mariadbd, err := find(o.BinDir, "mariadbd")
	if err != nil {
		return nil, err
	}
	timeout := o.StartTimeout
	if timeout == 0 {
		timeout = 60 * time.Second
	}
	dir, err := os.MkdirTemp("", "shardid-mariadb-")
	if err != nil {
		return nil, fmt.Errorf("start mariadb: %w", err)
	}
	s := &MariaDB{MySQLServer: MySQLServer{Dir: dir}, log: filepath.Join(dir, "server.log")}
	data := filepath.Join(dir, "data")
	ok := false
	defer func() {
		if !ok {
			s.Stop()
		}
	}()
	args := []string{"--no-defaults", "--datadir=" + data, "--tmpdir=" + dir, "--auth-root-authentication-method=normal", "--skip-test-db"}
	if os.Geteuid() == 0 {
		args = append(args, "--user=root")
	}
	// mariadb-install-db has been seen to fail once, without saying why,
	// while other packages' tests started servers at the same moment; a
	// second try in a clean data directory costs a second.
	for attempt := 1; ; attempt++ {
		out, err := exec.CommandContext(ctx, installDB, args...).CombinedOutput()
		if err == nil {
			break
		}
		if attempt == 2 {
			return nil, fmt.Errorf("start mariadb: mariadb-install-db: %w: %s", err, errorLines(string(out)))
		}
		if err := os.RemoveAll(data); err != nil {
			return nil, fmt.Errorf("start mariadb: %w", err)
		}
	}
	if s.LoopbackPort, err = FreePort(); err != nil {
		return nil, fmt.Errorf("start mariadb: %w", err)
	}
	args = []string{"--no-defaults", "--datadir=" + data,
		"--socket=" + filepath.Join(dir, "mysqld.sock"), "--pid-file=" + filepath.Join(dir, "mysqld.pid"), "--tmpdir=" + dir,
		"--port=" + strconv.Itoa(s.LoopbackPort), "--bind-address=127.0.0.1", "--log-error=" + s.log,
		"--skip-log-bin", "--innodb-buffer-pool-size=32M", "--skip-name-resolve"}
	if os.Geteuid() == 0 {
		args = append(args, "--user=root")
	}
	s.bin, s.args = mariadbd, args
	if err := s.run(ctx, timeout); err != nil {
		return nil, err
	}
	ok = true
	return s, nil
}

// run starts mariadbd and waits until it answers.
func (s *MariaDB) run(ctx context.Context, timeout time.Duration) error {
	cmd := exec.Command(s.bin, s.args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL} // no orphaned server if we die
	p, err := StartProc(cmd)
	if err != nil {
		return fmt.Errorf("start mariadb: %w", err)
	}
	s.Proc = p
	if err := WaitMySQL(ctx, p, s.DSN(""), timeout, s.logTail); err != nil {
		return fmt.Errorf("start mariadb: %w", err)
	}
	return nil
}

// Crash kills the server (SIGKILL) and keeps its data directory, as a
// power cut or the OOM killer would; Restart brings it back on the same
// port, running InnoDB crash recovery.
func (s *MariaDB) Crash() {
	s.Proc.Kill()
}

// Restart starts a crashed server again on the same port and data
// directory and waits up to a minute until it answers.
func (s *MariaDB) Restart(ctx context.Context) error {
	if s.Proc.Running() {
		return errors.New("restart mariadb: server is still running")
	}
	return s.run(ctx, 60*time.Second)
}

func (s *MariaDB) logTail() string {
	b, _ := os.ReadFile(s.log)
	return LastLines(string(b), 5)
}

// errorLines keeps the lines of mariadb-install-db's output that say what
// went wrong, or its first lines when none do.
func errorLines(out string) string {
	var keep []string
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "ERROR") || strings.Contains(l, "[ERROR]") || strings.Contains(strings.ToLower(l), "error:") {
			keep = append(keep, strings.TrimSpace(l))
		}
	}
	if len(keep) == 0 {
		return LastLines(strings.Join(strings.SplitN(out, "\n", 6)[:min(5, strings.Count(out, "\n"))], "\n"), 5)
	}
	return strings.Join(keep[:min(len(keep), 5)], " | ")
}
