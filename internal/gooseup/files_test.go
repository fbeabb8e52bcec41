package gooseup_test

import (
	"io/fs"
	"testing"
	"testing/fstest"

	"github.com/shardid/shardid/internal/gooseup"
)

// TestFiles: Files is a well-behaved read-only file system (fstest.TestFS
// opens, reads, stats and lists every file and the root), and goose's
// pattern finds its migrations.
func TestFiles(t *testing.T) {
	files := gooseup.Files{"00001_a.sql": []byte("-- +goose Up\nSELECT 1;\n"), "00002_b.sql": []byte("b"), "README": nil}
	if err := fstest.TestFS(files, "00001_a.sql", "00002_b.sql", "README"); err != nil {
		t.Fatal(err)
	}
	got, err := fs.Glob(files, "*.sql")
	if err != nil || len(got) != 2 || got[0] != "00001_a.sql" || got[1] != "00002_b.sql" {
		t.Errorf("Glob *.sql = %v, %v", got, err)
	}
	for _, bad := range []string{"missing.sql", "../00001_a.sql", "/00001_a.sql"} {
		if _, err := files.Open(bad); err == nil {
			t.Errorf("Open(%q) succeeded", bad)
		}
	}
}
