package gooseup

// This file writes directories of goose migration files, the one way
// every shardid "gen" command does it.
//
// The rules: every file is checked before any is written, so a refusal
// leaves the directory as it was; a file that already exists with the same
// content is left alone (a rerun is a no-op); a file that exists with other
// content is refused unless forced, because goose never re-runs an applied
// migration and a silently changed file would make the directory lie about
// what the database holds; a new file whose version number an existing
// file of another name already uses is refused, because goose rejects
// duplicate versions; nothing is ever deleted.

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Errors returned by Write; check them with errors.Is.
var (
	// ErrChanged is returned when a file exists with different content.
	ErrChanged = errors.New("migration exists with different content")
	// ErrVersionTaken is returned when another file in the directory has
	// the version number of a file to write.
	ErrVersionTaken = errors.New("migration version already used")
	// ErrBadName is returned for a file name that is not NNN_name.sql.
	ErrBadName = errors.New("bad migration file name")
)

// Result lists what Write did, by file name, sorted.
type Result struct {
	// Written are the files created or (forced) overwritten.
	Written []string
	// Unchanged are the files that already held exactly this content.
	Unchanged []string
}

// Version returns the goose version of a migration file name: the number
// before its first underscore.
func Version(name string) (int64, error) {
	num, _, ok := strings.Cut(name, "_")
	v, err := strconv.ParseInt(num, 10, 64)
	if !ok || err != nil || v < 1 || !strings.HasSuffix(name, ".sql") || strings.ContainsAny(name, `/\`) {
		return 0, fmt.Errorf("%w %q: want NNNNN_name.sql with NNNNN ≥ 1", ErrBadName, name)
	}
	return v, nil
}

// Write writes files (name → content) into dir, creating dir if needed,
// by the rules in the package doc. force overwrites files whose content
// differs; it never allows a duplicate version.
func Write(dir string, files map[string][]byte, force bool) (Result, error) {
	var res Result
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	slices.Sort(names)
	existing := map[int64]string{} // version → name, of .sql files already in dir
	entries, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return res, fmt.Errorf("read %s: %w", dir, err)
	}
	for _, e := range entries {
		if v, err := Version(e.Name()); err == nil && !e.IsDir() {
			existing[v] = e.Name()
		}
	}
	var write []string
	for _, name := range names {
		v, err := Version(name)
		if err != nil {
			return res, err
		}
		if other, ok := existing[v]; ok && other != name {
			return res, fmt.Errorf("%w: %s has version %d, which %s already uses", ErrVersionTaken, name, v, filepath.Join(dir, other))
		}
		old, err := os.ReadFile(filepath.Join(dir, name))
		switch {
		case err == nil && bytes.Equal(old, files[name]):
			res.Unchanged = append(res.Unchanged, name)
			continue
		case err == nil && !force:
			return res, fmt.Errorf("%w: %s (goose never re-runs an applied migration; write to a new directory, or force)", ErrChanged, filepath.Join(dir, name))
		case err != nil && !errors.Is(err, os.ErrNotExist):
			return res, fmt.Errorf("read %s: %w", filepath.Join(dir, name), err)
		}
		write = append(write, name)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return res, fmt.Errorf("create %s: %w", dir, err)
	}
	for _, name := range write {
		if err := os.WriteFile(filepath.Join(dir, name), files[name], 0o644); err != nil {
			return res, fmt.Errorf("write %s: %w", filepath.Join(dir, name), err)
		}
		res.Written = append(res.Written, name)
	}
	return res, nil
}
