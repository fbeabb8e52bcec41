package dbserver

// This file holds what the PostgreSQL, MariaDB and TiDB harnesses share.

import (
	"context"
	"database/sql"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
)

// FreePort asks the kernel for a free loopback TCP port. Another process
// may take it before the server binds it; callers retry on a new port.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// LastLines returns the last n lines of s joined by " | ", to quote a
// server log in a one-line error.
func LastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}

// PlainName reports whether name is a non-empty run of lower-case letters,
// digits and _, safe to use unquoted as a database name.
func PlainName(name string) bool {
	return name != "" && !strings.ContainsFunc(name, func(r rune) bool {
		return r != '_' && (r < 'a' || r > 'z') && (r < '0' || r > '9')
	})
}

// Proc is a server process started by a harness: its exit is watched so
// that waiting for the server notices a crash at once.
type Proc struct {
	cmd  *exec.Cmd
	done chan error
}

// StartProc starts cmd and watches for its exit.
func StartProc(cmd *exec.Cmd) (*Proc, error) {
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &Proc{cmd: cmd, done: make(chan error, 1)}
	go func() { p.done <- cmd.Wait() }()
	return p, nil
}

// Running reports whether the process has been started and not killed.
func (p *Proc) Running() bool { return p != nil && p.cmd != nil }

// Kill ends the process, if it runs, and waits for it. It is safe on a nil
// Proc and more than once.
func (p *Proc) Kill() {
	if !p.Running() {
		return
	}
	_ = p.cmd.Process.Kill()
	<-p.done
	p.done <- nil
	p.cmd = nil
}

// MySQLDSN is a go-sql-driver/mysql DSN for root without a password on
// 127.0.0.1:port, with db as the default database ("" for none) and
// parseTime=true.
func MySQLDSN(port int, db string) string {
	cfg := mysql.NewConfig()
	cfg.User = "root"
	cfg.Net = "tcp"
	cfg.Addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	cfg.DBName = db
	cfg.ParseTime = true
	return cfg.FormatDSN()
}

// WaitMySQL pings the MySQL-protocol server at dsn until it answers, p
// exits (logTail then says why), ctx ends, or timeout passes.
func WaitMySQL(ctx context.Context, p *Proc, dsn string, timeout time.Duration, logTail func() string) error {
	db, err := sql.Open("mysql", dsn)
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
		case werr := <-p.done:
			p.done <- werr
			return fmt.Errorf("%s exited (%v): %s", filepath.Base(p.cmd.Path), werr, logTail())
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("no answer within %s: %v: %s", timeout, err, logTail())
		}
	}
}

// CreateMySQLDatabase creates database name (lower-case letters, digits
// and _) on the MySQL-protocol server on 127.0.0.1:port and returns a DSN
// for it.
func CreateMySQLDatabase(ctx context.Context, port int, name string) (string, error) {
	if !PlainName(name) {
		return "", fmt.Errorf("create database %q: want lower-case letters, digits and _", name)
	}
	db, err := sql.Open("mysql", MySQLDSN(port, ""))
	if err != nil {
		return "", err
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, "CREATE DATABASE `"+name+"`"); err != nil {
		return "", fmt.Errorf("create database %s: %w", name, err)
	}
	return MySQLDSN(port, name), nil
}

// MySQLServer is what the MariaDB and TiDB harnesses share: a server
// process speaking MySQL's protocol on a loopback port, user root without
// a password, with a directory of its own.
type MySQLServer struct {
	// Dir is the server's directory, removed by Stop.
	Dir string
	// LoopbackPort is the server's TCP port on 127.0.0.1.
	LoopbackPort int
	// Proc is the running process, if any.
	Proc *Proc
}

// DSN returns a go-sql-driver/mysql DSN for root on the server, with db as
// the default database ("" for none) and parseTime=true.
func (s *MySQLServer) DSN(db string) string { return MySQLDSN(s.LoopbackPort, db) }

// Port returns the server's TCP port on 127.0.0.1.
func (s *MySQLServer) Port() int { return s.LoopbackPort }

// CreateDatabase creates a database named name (lower-case letters,
// digits and _) and returns a DSN for it.
func (s *MySQLServer) CreateDatabase(ctx context.Context, name string) (string, error) {
	return CreateMySQLDatabase(ctx, s.LoopbackPort, name)
}

// Stop kills the server and removes its directory. It is safe to call on a
// nil server and more than once.
func (s *MySQLServer) Stop() error {
	if s == nil {
		return nil
	}
	s.Proc.Kill()
	if s.Dir != "" {
		_ = os.RemoveAll(s.Dir)
		s.Dir = ""
	}
	return nil
}
