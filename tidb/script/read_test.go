package script_test

import (
	"bytes"
	"compress/gzip"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shardid/shardid/tidb/script"
)

// TestReadFiles: a file and stdin ("-", named stdin) are read as they are,
// gzip data unpacked first; a missing file and corrupt gzip data are
// *InputErrors naming the input, once.
func TestReadFiles(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "a.sql")
	if err := os.WriteFile(plain, []byte("CREATE TABLE a (id INT);"), 0o644); err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte("CREATE TABLE b (id INT);"))
	zw.Close()
	files, err := script.ReadFiles([]string{plain, "-"}, bytes.NewReader(gz.Bytes()))
	if err != nil || len(files) != 2 || files[0].Text != "CREATE TABLE a (id INT);" || files[1].Name != "stdin" || files[1].Text != "CREATE TABLE b (id INT);" {
		t.Fatalf("ReadFiles: %+v, %v", files, err)
	}
	missing := filepath.Join(dir, "none.sql")
	_, err = script.ReadFiles([]string{missing}, nil)
	var ie *script.InputError
	if !errors.As(err, &ie) || strings.Count(err.Error(), missing) != 1 || !strings.Contains(err.Error(), "want a readable FILE.sql") {
		t.Errorf("a missing file: %v", err)
	}
	_, err = script.ReadFiles([]string{"-"}, bytes.NewReader(gz.Bytes()[:12]))
	if !errors.As(err, &ie) || !strings.HasPrefix(err.Error(), "stdin: gzip data that does not unpack") {
		t.Errorf("cut gzip data: %v", err)
	}
}
