package main

import (
	"fmt"
	"math"
	"os"
	"strings"

	"github.com/shardid/shardid/internal/gooseup"
)

// offsetVersions renames pg gen's files (versioned shard id + 1) to
// version offset + shard id + 1, so that they can join a goose directory
// whose own migrations use the versions below: sequential ones (offset
// the highest of them) or timestamps (offset a timestamp past them).
func offsetVersions(files map[string][]byte, offset int64) (map[string][]byte, error) {
	if offset == 0 {
		return files, nil
	}
	out := make(map[string][]byte, len(files))
	for name, text := range files {
		v, err := gooseup.Version(name)
		if err != nil {
			return nil, err
		}
		if v > math.MaxInt64-offset {
			return nil, flagUsagef("version-offset", "%d + version %d is past the largest goose version (%d)", offset, v, int64(math.MaxInt64))
		}
		_, rest, _ := strings.Cut(name, "_")
		out[fmt.Sprintf("%05d_%s", v+offset, rest)] = text
	}
	return out, nil
}

// checkAboveExisting refuses shard migrations that would sort below a
// migration of dir that is not one of pg gen's (its name holds no
// "_shardid_"): goose applies migrations in version order and, once a
// higher version is applied, refuses the lower ones ("missing
// migrations"), so the shards must come after what the directory holds.
func checkAboveExisting(dir string, files map[string][]byte) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil // no directory yet: nothing to sort below (Write reports real errors)
	}
	var top int64
	var topName string
	for _, e := range entries {
		v, err := gooseup.Version(e.Name())
		if err != nil || e.IsDir() || strings.Contains(e.Name(), "_shardid_") || v <= top {
			continue
		}
		top, topName = v, e.Name()
	}
	for name := range files {
		if v, err := gooseup.Version(name); err == nil && v <= top {
			return flagUsagef("version-offset", "shard migration %s (version %d) would sort at or below %s, which %s already holds: give --version-offset %d or more, so the shards follow its migrations", name, v, topName, dir, top)
		}
	}
	return nil
}
