package dbserver_test

import (
	"context"
	"testing"
	"time"

	"github.com/shardid/shardid/tools/dbserver"
	"github.com/shardid/shardid/tools/testsrv"
)

// TestCreateDatabaseWhileTemplateInUse: CREATE DATABASE refuses while a
// session is connected to template1 (PostgreSQL waits 5 s, then fails
// with 55006); CreateDatabase tries again, so that a test whose neighbour
// briefly reads template1 still gets its database.
func TestCreateDatabaseWhileTemplateInUse(t *testing.T) {
	t.Parallel()
	srv := testsrv.NewPG(t, dbserver.PGOptions{})
	tmpl := testsrv.Open(t, "pgx", srv.DSN("template1"))
	conn, err := tmpl.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	held := 7 * time.Second // past PostgreSQL's own 5 s wait
	go func() {
		time.Sleep(held)
		conn.Close()
		tmpl.Close()
	}()
	start := time.Now()
	if _, err := srv.CreateDatabase(context.Background(), "while_template_in_use"); err != nil {
		t.Fatalf("create database while template1 was in use for %s: %v", held, err)
	}
	if waited := time.Since(start); waited < held {
		t.Fatalf("created after %s, while template1 was still in use: the test held nothing", waited)
	}
}
