// Package mariadb starts a throwaway MariaDB server for tests, demos and
// benchmarks: Debian's mariadb-server binaries, a fresh data directory in a
// temporary directory, a free loopback port, a root user without a
// password. Nothing is mocked; callers talk to a real server over the MySQL
// protocol.
//
// Tests get one through internal/testsrv, which starts it on first use.
package mariadb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/shardid/shardid/internal/localsrv"
)

// ErrNotInstalled is returned by Start when the MariaDB server binaries
// (mariadb-install-db, mariadbd) are not found.
var ErrNotInstalled = errors.New("MariaDB server binaries not found (Debian: apt-get install mariadb-server)")

// Options configures Start. The zero value finds the binaries on PATH and
// in /usr/sbin and /usr/bin, and waits up to 60 seconds for the server.
type Options struct {
	// BinDir is where mariadb-install-db and mariadbd live; "" searches
	// PATH, /usr/sbin and /usr/bin.
	BinDir string
	// StartTimeout bounds the wait for the server to answer; 0 means 60s.
	StartTimeout time.Duration
}

// Server is a running throwaway MariaDB server.
type Server struct {
	dir  string
	port int
	bin  string   // mariadbd
	args []string // mariadbd's arguments, for Restart
	cmd  *exec.Cmd
	done chan error
	log  string
}

// find returns the path of a MariaDB binary.
func find(binDir, name string) (string, error) {
	if binDir != "" {
		p := filepath.Join(binDir, name)
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("%w: %s", ErrNotInstalled, p)
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
	return "", fmt.Errorf("%w: no %s", ErrNotInstalled, name)
}

// Installed reports whether Start can find the server binaries.
func Installed(o Options) bool {
	_, err1 := find(o.BinDir, "mariadb-install-db")
	_, err2 := find(o.BinDir, "mariadbd")
	return err1 == nil && err2 == nil
}

// Start initializes a data directory in a new temporary directory, starts
// mariadbd on a free 127.0.0.1 port and waits until it answers. It returns
// an error wrapping ErrNotInstalled when the binaries are missing. Call
// Stop when done.
func Start(ctx context.Context, o Options) (*Server, error) {
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
	s := &Server{dir: dir, log: filepath.Join(dir, "server.log")}
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
	if s.port, err = localsrv.FreePort(); err != nil {
		return nil, fmt.Errorf("start mariadb: %w", err)
	}
	args = []string{"--no-defaults", "--datadir=" + data,
		"--socket=" + filepath.Join(dir, "mysqld.sock"), "--pid-file=" + filepath.Join(dir, "mysqld.pid"), "--tmpdir=" + dir,
		"--port=" + strconv.Itoa(s.port), "--bind-address=127.0.0.1", "--log-error=" + s.log,
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
func (s *Server) run(ctx context.Context, timeout time.Duration) error {
	s.cmd = exec.Command(s.bin, s.args...)
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL} // no orphaned server if we die
	if err := s.cmd.Start(); err != nil {
		return fmt.Errorf("start mariadb: %w", err)
	}
	s.done = make(chan error, 1)
	go func() { s.done <- s.cmd.Wait() }()
	if err := s.wait(ctx, timeout); err != nil {
		return fmt.Errorf("start mariadb: %w", err)
	}
	return nil
}

// Crash kills the server (SIGKILL) and keeps its data directory, as a
// power cut or the OOM killer would; Restart brings it back on the same
// port, running InnoDB crash recovery.
func (s *Server) Crash() {
	s.kill()
}

// Restart starts a crashed server again on the same port and data
// directory and waits up to a minute until it answers.
func (s *Server) Restart(ctx context.Context) error {
	if s.cmd != nil {
		return errors.New("restart mariadb: server is still running")
	}
	return s.run(ctx, 60*time.Second)
}

// kill ends the process, if it runs.
func (s *Server) kill() {
	if s.cmd != nil && s.cmd.Process != nil {
		_ = s.cmd.Process.Kill()
		<-s.done
		s.done <- nil
		s.cmd = nil
	}
}

// wait pings the server until it answers, it exits, or the time is up.
func (s *Server) wait(ctx context.Context, timeout time.Duration) error {
	db, err := sql.Open("mysql", s.DSN(""))
	if err != nil {
		return err
	}
	defer db.Close()
	deadline := time.Now().Add(timeout)
	for {
		pctx, cancel := context.WithTimeout(ctx, time.Second)
		err = db.PingContext(pctx)
		cancel()
		if err == nil {
			return nil
		}
		select {
		case werr := <-s.done:
			s.done <- werr
			return fmt.Errorf("mariadbd exited (%v): %s", werr, s.logTail())
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("no answer within %s: %v: %s", timeout, err, s.logTail())
		}
	}
}

// DSN returns a go-sql-driver/mysql DSN for root on the server, with db as
// the default database ("" for none) and parseTime=true.
func (s *Server) DSN(db string) string {
	cfg := mysql.NewConfig()
	cfg.User = "root"
	cfg.Net = "tcp"
	cfg.Addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port))
	cfg.DBName = db
	cfg.ParseTime = true
	return cfg.FormatDSN()
}

// Port returns the server's TCP port on 127.0.0.1.
func (s *Server) Port() int { return s.port }

// CreateDatabase creates a database named name (a plain identifier) and
// returns a DSN for it.
func (s *Server) CreateDatabase(ctx context.Context, name string) (string, error) {
	if !localsrv.PlainName(name) {
		return "", fmt.Errorf("create database %q: want lower-case letters, digits and _", name)
	}
	db, err := sql.Open("mysql", s.DSN(""))
	if err != nil {
		return "", err
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, "CREATE DATABASE `"+name+"`"); err != nil {
		return "", fmt.Errorf("create database %s: %w", name, err)
	}
	return s.DSN(name), nil
}

// Stop kills the server and removes its directory. It is safe to call on a
// nil Server and more than once.
func (s *Server) Stop() error {
	if s == nil {
		return nil
	}
	s.kill()
	if s.dir != "" {
		_ = os.RemoveAll(s.dir)
		s.dir = ""
	}
	return nil
}

func (s *Server) logTail() string {
	b, _ := os.ReadFile(s.log)
	return localsrv.LastLines(string(b), 5)
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
		return localsrv.LastLines(strings.Join(strings.SplitN(out, "\n", 6)[:min(5, strings.Count(out, "\n"))], "\n"), 5)
	}
	return strings.Join(keep[:min(len(keep), 5)], " | ")
}
