package migrate_test

import (
	"io"
	"os"
	"testing"

	"github.com/shardid/shardid/tools/dbserver"
	"github.com/shardid/shardid/tools/testsrv"
)

// captureStdout runs f with os.Stdout redirected and returns what it printed.
func captureStdout(t *testing.T, f func()) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	saved := os.Stdout
	os.Stdout = w
	done := make(chan []byte)
	go func() { b, _ := io.ReadAll(r); done <- b }()
	defer func() { os.Stdout = saved }()
	f()
	w.Close()
	return string(<-done)
}

// TestExampleMigrator runs ExampleMigrator against a fresh database of a
// throwaway server of its own (the example's Migrator reads every
// database of the server) and checks what it prints.
func TestExampleMigrator(t *testing.T) {
	dsn := testsrv.Database(t, testsrv.NewPG(t, dbserver.PGOptions{}))
	t.Setenv("SHARDID_PG_DSN", dsn)
	got := captureStdout(t, ExampleMigrator)
	want := "insta0 applied: true\ninsta1 applied: true\ninsta2 applied: true\ninsta3 applied: true\nshard 2\ninsta0 applied: false current\n"
	if got != want {
		t.Fatalf("ExampleMigrator printed:\n%s\nwant:\n%s", got, want)
	}
}
