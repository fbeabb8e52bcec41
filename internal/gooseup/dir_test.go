package gooseup_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/shardid/shardid/internal/gooseup"
)

func TestWrite(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "migrations")
	files := map[string][]byte{"00001_a.sql": []byte("a"), "00002_b.sql": []byte("b")}
	res, err := gooseup.Write(dir, files, false)
	if err != nil || !slices.Equal(res.Written, []string{"00001_a.sql", "00002_b.sql"}) || len(res.Unchanged) != 0 {
		t.Fatalf("first write: %+v, %v", res, err)
	}
	res, err = gooseup.Write(dir, files, false)
	if err != nil || len(res.Written) != 0 || len(res.Unchanged) != 2 {
		t.Fatalf("rerun: %+v, %v; want everything unchanged", res, err)
	}
	// A changed file is refused, and nothing else of that call is written.
	_, err = gooseup.Write(dir, map[string][]byte{"00003_c.sql": []byte("c"), "00002_b.sql": []byte("B")}, false)
	if !errors.Is(err, gooseup.ErrChanged) {
		t.Fatalf("changed file: %v; want ErrChanged", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "00003_c.sql")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a refused call wrote 00003_c.sql: %v", err)
	}
	// Forced, it is overwritten.
	if res, err := gooseup.Write(dir, map[string][]byte{"00002_b.sql": []byte("B")}, true); err != nil || len(res.Written) != 1 {
		t.Fatalf("forced: %+v, %v", res, err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "00002_b.sql")); string(b) != "B" {
		t.Fatalf("forced write left %q", b)
	}
	// A duplicate version under another name is refused, even forced.
	for _, force := range []bool{false, true} {
		if _, err := gooseup.Write(dir, map[string][]byte{"00001_other.sql": []byte("x")}, force); !errors.Is(err, gooseup.ErrVersionTaken) {
			t.Fatalf("duplicate version (force %v): %v; want ErrVersionTaken", force, err)
		}
	}
	for _, bad := range []string{"a.sql", "0_x.sql", "00004_x.txt", "00004_x/y.sql", "-1_x.sql"} {
		if _, err := gooseup.Write(dir, map[string][]byte{bad: nil}, false); !errors.Is(err, gooseup.ErrBadName) {
			t.Errorf("name %q: %v; want ErrBadName", bad, err)
		}
	}
}
