package gooseup_test

import (
	"testing"
	"testing/fstest"

	"github.com/shardid/shardid/internal/gooseup"
)

// TestFiles: Files is a well-behaved fs.FS (fstest.TestFS checks Open,
// ReadDir, ReadFile, Stat and reading), empty or not.
func TestFiles(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files gooseup.Files
	}{
		{"two files", gooseup.Files{"00001_a.sql": []byte("-- a\n"), "00002_b.sql": []byte("-- b\n")}},
		{"empty", gooseup.Files{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var names []string
			for name := range tc.files {
				names = append(names, name)
			}
			if err := fstest.TestFS(tc.files, names...); err != nil {
				t.Fatal(err)
			}
		})
	}
}
