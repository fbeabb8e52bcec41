package gooseup_test

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/shardid/shardid/internal/gooseup"
)

// TestJoin: Join renames the files by the offset, refuses a negative one
// and one past the largest version, and refuses files that would sort at
// or below a migration of the directory that is not its own, naming the
// least offset that fits; with that offset the files land above it.
func TestJoin(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "00007_app.sql"), []byte("-- app\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "00002_own_shardid_x.sql"), []byte("-- own\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{"00001_a_shardid_a.sql": []byte("a"), "00003_a_shardid_b.sql": []byte("b")}
	var ve *gooseup.VersionError
	for _, o := range []gooseup.JoinOptions{{Offset: -1}, {Offset: math.MaxInt64 - 1}} {
		if _, err := gooseup.Join(dir, files, o); !errors.As(err, &ve) {
			t.Errorf("Join offset %d: %v; want a *gooseup.VersionError", o.Offset, err)
		}
	}
	for _, offset := range []int64{0, 6} {
		_, err := gooseup.Join(dir, files, gooseup.JoinOptions{Offset: offset, Own: "_shardid_"})
		if !errors.As(err, &ve) || ve.Least != 7 || ve.Existing != "00007_app.sql" {
			t.Fatalf("Join offset %d: %v (%+v); want a *gooseup.VersionError naming 00007_app.sql and offset 7", offset, err, ve)
		}
	}
	res, err := gooseup.Join(dir, files, gooseup.JoinOptions{Offset: 7, Own: "_shardid_"})
	if err != nil || len(res.Written) != 2 || res.Written[0] != "00008_a_shardid_a.sql" || res.Written[1] != "00010_a_shardid_b.sql" {
		t.Fatalf("Join offset 7: %+v, %v; want 00008 and 00010 written", res, err)
	}
}
