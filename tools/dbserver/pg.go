package dbserver

// This file starts throwaway PostgreSQL servers from the locally
// installed server binaries, for tests, benchmarks and the demo.
//
// A server lives in a fresh temporary directory, listens on a free loopback
// port and on a Unix socket inside that directory, trusts local
// connections, and is removed with the directory by Stop. initdb refuses to
// run as root, so when the process is root the server runs as the
// unprivileged "postgres" user (Debian's packages create it).

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// ErrPGNotInstalled is returned by StartPG when no PostgreSQL server binaries
// (initdb and postgres) can be found.
var ErrPGNotInstalled = errors.New("no PostgreSQL server binaries found")

// PGOptions configures StartPG. The zero value is ready to use.
type PGOptions struct {
	// BinDir holds initdb, postgres and pg_ctl. Empty means: $PG_BINDIR,
	// else the newest /usr/lib/postgresql/*/bin, else the directory of
	// initdb on $PATH.
	BinDir string
	// Settings are extra server settings passed as -c name=value.
	Settings map[string]string
}

// PG is a running throwaway PostgreSQL server.
type PG struct {
	binDir  string
	dir     string // temp dir: data/, socket, log
	port    int
	cred    *syscall.Credential
	args    []string
	cmd     *exec.Cmd
	exited  chan struct{}
	logPath string
}

// FindPGBinDir returns the directory holding the server binaries, or
// ErrPGNotInstalled.
func FindPGBinDir(explicit string) (string, error) {
	candidates := pgBinCandidates(explicit)
	for _, d := range candidates {
		if isPGBinDir(d) {
			return d, nil
		}
	}
	return "", fmt.Errorf("%w (looked in %s; install Debian's postgresql-15 or set PG_BINDIR)", ErrPGNotInstalled, strings.Join(candidates, ", "))
}

// pgBinCandidates lists where FindPGBinDir looks, in its order: explicit,
// $PG_BINDIR, /usr/lib/postgresql/*/bin newest first, initdb's directory
// on $PATH.
func pgBinCandidates(explicit string) []string {
	var candidates []string
	if explicit != "" {
		candidates = append(candidates, explicit)
	}
	if env := os.Getenv("PG_BINDIR"); env != "" {
		candidates = append(candidates, env)
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return versionOf(dirs[i]) > versionOf(dirs[j]) })
	candidates = append(candidates, dirs...)
	if p, err := exec.LookPath("initdb"); err == nil {
		candidates = append(candidates, filepath.Dir(p))
	}
	return candidates
}

// isPGBinDir reports whether d holds initdb and postgres.
func isPGBinDir(d string) bool {
	return isExec(filepath.Join(d, "initdb")) && isExec(filepath.Join(d, "postgres"))
}

func versionOf(binDir string) int {
	v, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return v
}

func isExec(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir() && st.Mode()&0o111 != 0
}

// StartPG initialises a cluster in a new temporary directory and starts a
// server on a free loopback port. Stop it with Stop.
func StartPG(ctx context.Context, o PGOptions) (*PG, error) {
	bin, err := FindPGBinDir(o.BinDir)
	if err != nil {
		return nil, err
	}
	s := &PG{binDir: bin}
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			return nil, fmt.Errorf("start postgres: running as root and no unprivileged postgres user to run initdb as: %w", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		s.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
	}
	s.dir, err = os.MkdirTemp("", "shardid-pg-")
	if err != nil {
		return nil, fmt.Errorf("start postgres: %w", err)
	}
	if s.cred != nil {
		if err := os.Chown(s.dir, int(s.cred.Uid), int(s.cred.Gid)); err != nil {
			s.removeDir()
			return nil, fmt.Errorf("start postgres: %w", err)
		}
	}
	s.logPath = filepath.Join(s.dir, "server.log")
	initdb := s.command(ctx, "initdb", "-D", s.dataDir(), "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync")
	if out, err := initdb.CombinedOutput(); err != nil {
		s.removeDir()
		return nil, fmt.Errorf("start postgres: initdb: %w: %s", err, LastLines(string(out), 5))
	}
	settings := map[string]string{
		"listen_addresses":        "127.0.0.1",
		"unix_socket_directories": s.dir,
		"fsync":                   "off", // a test server survives process crashes, not OS crashes
		"full_page_writes":        "off",
		"max_connections":         "100",
		"shared_buffers":          "128MB",
	}
	for k, v := range o.Settings {
		settings[k] = v
	}
	keys := make([]string, 0, len(settings))
	for k := range settings {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		s.args = append(s.args, "-c", k+"="+settings[k])
	}
	var lastErr error
	for attempt := 0; attempt < 5; attempt++ {
		if s.port, err = FreePort(); err != nil {
			s.removeDir()
			return nil, fmt.Errorf("start postgres: %w", err)
		}
		if lastErr = s.start(ctx); lastErr == nil {
			return s, nil
		}
	}
	s.removeDir()
	return nil, lastErr
}

func (s *PG) dataDir() string { return filepath.Join(s.dir, "data") }

func (s *PG) command(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, filepath.Join(s.binDir, name), args...)
	cmd.Dir = s.dir
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	if s.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: s.cred}
	}
	return cmd
}

// start runs the postmaster on s.port and waits until it accepts connections.
func (s *PG) start(ctx context.Context) error {
	logf, err := os.OpenFile(s.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("start postgres: %w", err)
	}
	defer logf.Close()
	args := append([]string{"-D", s.dataDir(), "-p", strconv.Itoa(s.port)}, s.args...)
	// The server must outlive ctx (ctx only bounds startup), so it is not
	// tied to it; Stop and Crash end it.
	cmd := s.command(context.Background(), "postgres", args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	if s.cred == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	cmd.SysProcAttr.Pdeathsig = syscall.SIGQUIT // no orphaned server if we die
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start postgres: %w", err)
	}
	s.cmd = cmd
	s.exited = make(chan struct{})
	go func() { _ = cmd.Wait(); close(s.exited) }()

	deadline := time.Now().Add(60 * time.Second)
	for {
		select {
		case <-s.exited:
			return fmt.Errorf("start postgres: server exited: %s", s.logTail())
		case <-ctx.Done():
			s.signal(syscall.SIGQUIT)
			<-s.exited
			return fmt.Errorf("start postgres: %w", ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
		cctx, cancel := context.WithTimeout(ctx, time.Second)
		conn, err := pgx.Connect(cctx, s.DSN("postgres"))
		cancel()
		if err == nil {
			conn.Close(context.Background())
			return nil
		}
		if time.Now().After(deadline) {
			s.signal(syscall.SIGQUIT)
			<-s.exited
			return fmt.Errorf("start postgres: not ready after 60s: %v: %s", err, s.logTail())
		}
	}
}

func (s *PG) signal(sig syscall.Signal) {
	if s.cmd != nil && s.cmd.Process != nil {
		_ = s.cmd.Process.Signal(sig)
	}
}

// Pause stops every process of the server, the postmaster first and then
// each of its children, the backends included (each child leads a process
// group of its own, so they are found by their parent), and returns once
// they are stopped: the server keeps its port and its connections but
// answers nothing, as a server hung on a stuck disk or a swap storm would.
// Continue lets it run again.
func (s *PG) Pause() error { return s.signalAll(syscall.SIGSTOP, true) }

// Continue resumes a paused server.
func (s *PG) Continue() error { return s.signalAll(syscall.SIGCONT, false) }

// signalAll sends sig to the postmaster and then to each of its children,
// and waits until each is stopped, or no longer stopped.
func (s *PG) signalAll(sig syscall.Signal, stopped bool) error {
	if s.cmd == nil || s.cmd.Process == nil {
		return errors.New("postgres: not running")
	}
	pid := s.cmd.Process.Pid
	pids := append([]int{pid}, children(pid)...)
	for _, p := range pids {
		if err := syscall.Kill(p, sig); err != nil && p == pid {
			return fmt.Errorf("postgres: %v: %w", sig, err)
		}
	}
	for _, p := range pids {
		if err := waitStopped(p, stopped); err != nil && p == pid {
			return fmt.Errorf("postgres: %v: %w", sig, err)
		}
	}
	return nil
}

// children lists the processes whose parent is pid.
func children(pid int) []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid …: the fields after the last ')'.
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		if f := strings.Fields(string(b[i+1:])); len(f) > 1 && f[1] == strconv.Itoa(pid) {
			out = append(out, p)
		}
	}
	return out
}

// Port is the server's loopback TCP port.
func (s *PG) Port() int { return s.port }

// BinDir is the directory of the server binaries in use (pgbench, pg_dump …).
func (s *PG) BinDir() string { return s.binDir }

// DSN returns a connection URL for database db as user postgres.
func (s *PG) DSN(db string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", s.port, db)
}

// CreateDatabase creates database name (lower-case letters, digits and _)
// and returns a DSN for it.
func (s *PG) CreateDatabase(ctx context.Context, name string) (string, error) {
	if !PlainName(name) {
		return "", fmt.Errorf("create database %q: want lower-case letters, digits and _", name)
	}
	conn, err := pgx.Connect(ctx, s.DSN("postgres"))
	if err != nil {
		return "", err
	}
	defer conn.Close(ctx)
	// CREATE DATABASE copies template1 and refuses (55006, after waiting
	// 5 s) while another session is connected to it, as shardid's
	// server-wide reads briefly are: tried again for up to a minute.
	deadline := time.Now().Add(time.Minute)
	for {
		_, err = conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize())
		var pe *pgconn.PgError
		if err == nil || !errors.As(err, &pe) || pe.Code != "55006" || time.Now().After(deadline) {
			break
		}
	}
	if err != nil {
		return "", fmt.Errorf("create database %s: %w", name, err)
	}
	return s.DSN(name), nil
}

// Crash stops the server the way a power cut would look to PostgreSQL:
// immediate shutdown (SIGQUIT), no checkpoint; the next Restart runs crash
// recovery from the WAL.
func (s *PG) Crash() error {
	return s.stopWith(syscall.SIGQUIT)
}

// Restart starts a stopped (or crashed) server again on the same port and
// data directory.
func (s *PG) Restart(ctx context.Context) error {
	select {
	case <-s.exited:
	default:
		return errors.New("restart postgres: server is still running")
	}
	return s.start(ctx)
}

func (s *PG) stopWith(sig syscall.Signal) error {
	if s.cmd == nil {
		return nil
	}
	s.signal(sig)
	select {
	case <-s.exited:
		return nil
	case <-time.After(30 * time.Second):
		s.signal(syscall.SIGKILL)
		<-s.exited
		return fmt.Errorf("stop postgres: no exit 30s after %v; killed", sig)
	}
}

// Stop shuts the server down (fast shutdown) and removes its directory.
func (s *PG) Stop() error {
	err := s.stopWith(syscall.SIGINT)
	s.removeDir()
	return err
}

func (s *PG) removeDir() {
	if s.dir != "" {
		_ = os.RemoveAll(s.dir)
	}
}

func (s *PG) logTail() string {
	b, _ := os.ReadFile(s.logPath)
	return LastLines(string(b), 5)
}
