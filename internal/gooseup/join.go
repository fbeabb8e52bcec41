package gooseup

import (
	"fmt"
	"math"
	"os"
	"strings"
)

// VersionError is returned by Join for a version offset that does not
// fit.
type VersionError struct {
	// Msg says why, without naming the offset's source.
	Msg string
	// File, Existing, Dir, Version and Least are set when a file (File, version Version) would sort at or
	// below Existing, a migration Dir holds: Least is the least offset
	// that puts the files above it.
	File, Existing, Dir string
	Version, Least      int64
}

func (e *VersionError) Error() string { return e.Msg }

// JoinOptions say how Join adds files to a directory.
type JoinOptions struct {
	// Offset is added to every file's version, so that the files can join
	// a goose directory whose own migrations use the versions up to it:
	// sequential ones (the highest of them) or timestamps (a timestamp
	// past them). Zero leaves the versions as they are; negative is
	// refused.
	Offset int64
	// Own is a substring of the names of the files this writer makes
	// (e.g. "_shardid_"): every other migration of the directory must
	// sort below the files, since goose, once a higher version is
	// applied, refuses the lower ones ("missing migrations"). Empty
	// checks nothing.
	Own string
	// Force is Write's force.
	Force bool
}

// Join renames files to their versions plus o.Offset, refuses them
// (a *VersionError) when one would sort at or below a migration of dir
// that is not its own (o.Own), and writes them with Write.
func Join(dir string, files map[string][]byte, o JoinOptions) (Result, error) {
	if o.Offset < 0 {
		return Result{}, &VersionError{Msg: fmt.Sprintf("%d is negative (allowed 0 or more)", o.Offset)}
	}
	files, err := offsetVersions(files, o.Offset)
	if err != nil {
		return Result{}, err
	}
	if o.Own != "" {
		if err := checkAbove(dir, files, o.Own); err != nil {
			return Result{}, err
		}
	}
	return Write(dir, files, o.Force)
}

// offsetVersions renames files (version N) to version offset + N.
func offsetVersions(files map[string][]byte, offset int64) (map[string][]byte, error) {
	if offset == 0 {
		return files, nil
	}
	out := make(map[string][]byte, len(files))
	for name, text := range files {
		v, err := Version(name)
		if err != nil {
			return nil, err
		}
		if v > math.MaxInt64-offset {
			return nil, &VersionError{Msg: fmt.Sprintf("%d + version %d is past the largest goose version (%d)", offset, v, int64(math.MaxInt64))}
		}
		_, rest, _ := strings.Cut(name, "_")
		out[fmt.Sprintf("%05d_%s", v+offset, rest)] = text
	}
	return out, nil
}

// checkAbove refuses files that would sort at or below a migration of dir
// whose name does not hold own.
func checkAbove(dir string, files map[string][]byte, own string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil // no directory yet: nothing to sort below (Write reports real errors)
	}
	var top int64
	var topName string
	for _, e := range entries {
		v, err := Version(e.Name())
		if err != nil || e.IsDir() || strings.Contains(e.Name(), own) || v <= top {
			continue
		}
		top, topName = v, e.Name()
	}
	for name := range files {
		if v, err := Version(name); err == nil && v <= top {
			return &VersionError{Msg: fmt.Sprintf("migration %s (version %d) would sort at or below %s, which %s already holds: give an offset of %d or more", name, v, topName, dir, top),
				File: name, Existing: topName, Dir: dir, Version: v, Least: top}
		}
	}
	return nil
}
