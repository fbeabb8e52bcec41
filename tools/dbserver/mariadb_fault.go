package dbserver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Faults a test inflicts on a server of its own: a hung process, a data
// directory copied and put back, a dump reloaded. Each reproduces what an
// operator or the machine does to a production server.

// DataDir returns the server's data directory.
func (s *MariaDB) DataDir() string { return filepath.Join(s.Dir, "data") }

// CopyData copies the data directory of a stopped server (Crash it first:
// the copy is then what a crash left, which InnoDB recovers on start) to
// dst, which must not exist. It is the cold backup an operator takes.
func (s *MariaDB) CopyData(dst string) error {
	if s.Proc.Running() {
		return errors.New("copy mariadb data: the server is running (Crash it first)")
	}
	if _, err := os.Stat(dst); err == nil {
		return fmt.Errorf("copy mariadb data: %s exists", dst)
	}
	return copyTree(s.DataDir(), dst)
}

// RestoreData replaces the data directory of a stopped server by a copy of
// src (from CopyData): the server forgets everything written after that
// copy was taken. Restart it afterwards.
func (s *MariaDB) RestoreData(src string) error {
	if s.Proc.Running() {
		return errors.New("restore mariadb data: the server is running (Crash it first)")
	}
	if err := os.RemoveAll(s.DataDir()); err != nil {
		return fmt.Errorf("restore mariadb data: %w", err)
	}
	return copyTree(src, s.DataDir())
}

// copyTree copies the regular files and directories under src to dst.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		to := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return os.MkdirAll(to, info.Mode().Perm()|0o700)
		case !info.Mode().IsRegular():
			return nil // sockets and the like: the server makes them anew
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(to, b, info.Mode().Perm())
	})
}

// pid reads the server's process id from its pid file.
func (s *MariaDB) pid() (int, error) {
	if !s.Proc.Running() {
		return 0, errors.New("mariadb: the server is not running")
	}
	b, err := os.ReadFile(filepath.Join(s.Dir, "mysqld.pid"))
	if err != nil {
		return 0, fmt.Errorf("mariadb pid: %w", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid < 2 {
		return 0, fmt.Errorf("mariadb pid: %q is not a process id", b)
	}
	return pid, nil
}

// Pause stops the server process (SIGSTOP) and returns once it is
// stopped: it keeps its port and its connections but answers nothing, as
// a server hung on a stuck disk, a swap storm or a debugger would.
// Continue lets it run again.
func (s *MariaDB) Pause() error {
	return s.signal(syscall.SIGSTOP, true)
}

// Continue resumes a paused server (SIGCONT) and returns once it runs.
func (s *MariaDB) Continue() error {
	return s.signal(syscall.SIGCONT, false)
}

// signal sends sig to the server and waits until the process is stopped
// (or no longer stopped): a signal is delivered asynchronously.
func (s *MariaDB) signal(sig syscall.Signal, stopped bool) error {
	pid, err := s.pid()
	if err != nil {
		return err
	}
	if err := syscall.Kill(pid, sig); err != nil {
		return fmt.Errorf("mariadb: %v: %w", sig, err)
	}
	if err := waitStopped(pid, stopped); err != nil {
		return fmt.Errorf("mariadb: %v: %w", sig, err)
	}
	return nil
}

// waitStopped waits, up to 10 s, until process pid is stopped (state T),
// or no longer stopped.
func waitStopped(pid int, stopped bool) error {
	for deadline := time.Now().Add(10 * time.Second); ; {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			return err
		}
		// pid (comm) state …: the state follows the last ')'.
		i := bytes.LastIndexByte(b, ')')
		if i < 0 || i+2 >= len(b) {
			return fmt.Errorf("cannot read the process state from %q", b)
		}
		if (b[i+2] == 'T') == stopped {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the process state is still %q after 10s", b[i+2])
		}
		time.Sleep(time.Millisecond)
	}
}

// DumpMariaDB runs mariadb-dump (or mysqldump) against database db of the
// MySQL-protocol server on 127.0.0.1:port as root without a password and
// returns the dump of tables (all of the database's when none are named):
// the logical backup an operator takes. It works on MariaDB, MySQL and
// TiDB.
func DumpMariaDB(ctx context.Context, port int, db string, tables ...string) ([]byte, error) {
	bin, err := client("mariadb-dump", "mysqldump")
	if err != nil {
		return nil, err
	}
	args := append([]string{"--no-defaults", "--protocol=tcp", "--host=127.0.0.1", "--port=" + strconv.Itoa(port), "--user=root",
		"--skip-lock-tables", "--no-tablespaces", "--skip-add-locks", "--skip-triggers", db}, tables...)
	var out, errb bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("dump %s: %w: %s", db, err, strings.TrimSpace(errb.String()))
	}
	return out.Bytes(), nil
}

// LoadMariaDB feeds dump (from DumpMariaDB) to the mariadb (or mysql) client against
// database db on 127.0.0.1:port: the tables it holds go back to what they
// were when it was taken.
func LoadMariaDB(ctx context.Context, port int, db string, dump []byte) error {
	bin, err := client("mariadb", "mysql")
	if err != nil {
		return err
	}
	var errb bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, "--no-defaults", "--protocol=tcp", "--host=127.0.0.1", "--port="+strconv.Itoa(port), "--user=root", db)
	cmd.Stdin, cmd.Stderr = bytes.NewReader(dump), &errb
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("load into %s: %w: %s", db, err, strings.TrimSpace(errb.String()))
	}
	return nil
}

// client finds the first of names on PATH or in /usr/bin.
func client(names ...string) (string, error) {
	for _, n := range names {
		if p, err := find("", n); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("%w: no %s", ErrMariaDBNotInstalled, strings.Join(names, " or "))
}
