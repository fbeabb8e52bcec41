package dbserver

// This file runs a stand-alone backend (postgres --single) on a halted
// throwaway server's data directory, for measurements that want one
// process and no postmaster (instruction counts under valgrind).

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
)

// Halt shuts the server down (fast shutdown) and keeps its directory, so
// that SingleUser can run on its data, or Restart start it again; Stop
// still removes it.
func (s *PG) Halt() error { return s.stopWith(syscall.SIGINT) }

// Dir is the server's directory (data/, socket, log), owned by the user
// the server runs as: a stand-alone backend can write files there.
func (s *PG) Dir() string { return s.dir }

// SingleUser returns the command that runs a stand-alone backend
// (postgres --single) on the halted server's data directory in database
// db, reading one statement per line from its standard input, as the
// user the server runs as and in Dir. wrap, when not empty, is a command
// and its arguments that run the backend (valgrind, say); env is added to
// the environment.
func (s *PG) SingleUser(ctx context.Context, db string, wrap []string, env ...string) *exec.Cmd {
	args := []string{filepath.Join(s.binDir, "postgres"), "--single", "-D", s.dataDir(), db}
	if len(wrap) > 0 {
		args = append(append([]string(nil), wrap...), args...)
	}
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.Dir = s.dir
	cmd.Env = append(s.command(ctx, "postgres").Env, env...)
	if s.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: s.cred}
	}
	return cmd
}

// SaveData copies the halted server's data directory beside it, for
// RestoreData: stand-alone backends that each start from the same data
// do the same work, down to the instruction.
func (s *PG) SaveData() error {
	saved := s.dataDir() + ".saved"
	if err := os.RemoveAll(saved); err != nil {
		return fmt.Errorf("save postgres data: %w", err)
	}
	return s.copyOwned(s.dataDir(), saved)
}

// RestoreData puts back the data directory SaveData copied.
func (s *PG) RestoreData() error {
	if err := os.RemoveAll(s.dataDir()); err != nil {
		return fmt.Errorf("restore postgres data: %w", err)
	}
	return s.copyOwned(s.dataDir()+".saved", s.dataDir())
}

// copyOwned copies the tree src to dst, owned by the server's user.
func (s *PG) copyOwned(src, dst string) error {
	if err := copyTree(src, dst); err != nil {
		return fmt.Errorf("copy postgres data: %w", err)
	}
	if s.cred == nil {
		return nil
	}
	return filepath.WalkDir(dst, func(p string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, int(s.cred.Uid), int(s.cred.Gid))
	})
}
