package main

import (
	"context"
	"database/sql"
	"strings"
	"testing"

	"github.com/shardid/shardid/internal/dsn"
	"github.com/shardid/shardid/tickets"
	"github.com/shardid/shardid/tools/testsrv"
)

// TestTicketsResumeRefusesUnsure: resume moves nothing when it cannot be
// sure. A single server without --after exits 2 (its own records go back
// with its counter in a restore; here its counter was pushed far ahead by
// hand, past anything recorded); a class with a server down exits 1
// naming it, every counter as it was. With --after, or with every server
// up, it moves; a resume recorded on one server only is completed by a
// rerun, which moves nothing.
func TestTicketsResumeRefusesUnsure(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := testsrv.MariaDB(t)
	a, b := testsrv.Database(t, srv), testsrv.Database(t, srv)
	dbA, dbB := testsrv.Open(t, "mysql", a), testsrv.Open(t, "mysql", b)
	for i, db := range []*sql.DB{dbA, dbB} {
		if _, _, err := tickets.Up(ctx, db, tickets.Counter{Name: "t", Increment: 2, Offset: int64(i + 1)}); err != nil {
			t.Fatal(err)
		}
	}
	last := func(db *sql.DB) int64 {
		t.Helper()
		got, err := tickets.Read(ctx, db, "t")
		if err != nil {
			t.Fatal(err)
		}
		return got.Last
	}
	if code, _, stderr := runCLI(t, "", nil, "tickets", "next", "--dsn", a, "--dsn", b, "--name", "t", "-n", "10", "--timeout", patient); code != 0 {
		t.Fatalf("next: exit %d, %s", code, stderr)
	}
	if _, err := dbA.Exec("UPDATE t SET id = 3000001"); err != nil { // handed out by hand, recorded nowhere
		t.Fatal(err)
	}
	fromA, fromB := last(dbA), last(dbB)

	code, out, stderr := runCLI(t, "", nil, "tickets", "resume", "--dsn", a, "--name", "t", "--offset", "1")
	if code != 2 || out != "" || !strings.Contains(stderr, "--after is required here: nothing says how far "+dsn.Redact(a)+" handed out (the only server given") ||
		strings.Count(stderr, "\n") != 1 || last(dbA) != fromA {
		t.Errorf("single server without --after: exit %d, %q, %q; counter %d (was %d)", code, out, stderr, last(dbA), fromA)
	}
	dead := "app:S3cretPW@tcp(127.0.0.1:1)/ids?timeout=1s"
	code, out, stderr = runCLI(t, "", nil, "tickets", "resume", "--dsn", dead, "--dsn", b, "--name", "t", "--offset", "2")
	if code != 1 || out != "" || !strings.Contains(stderr, "could not read: "+dsn.Redact(dead)+": ") || !strings.Contains(stderr, "nothing moved") ||
		strings.Contains(stderr, "S3cretPW") || strings.Count(stderr, "\n") != 1 || last(dbB) != fromB {
		t.Errorf("a server down: exit %d, %q, %q; counter %d (was %d)", code, out, stderr, last(dbB), fromB)
	}

	code, out, stderr = runCLI(t, "", nil, "tickets", "resume", "--dsn", a, "--name", "t", "--offset", "1", "--after", "3000001", "--skip", "10")
	if code != 0 || !strings.Contains(out, "counter moved from 3000001 to 3000021") {
		t.Errorf("single server with --after: exit %d, %q, %q", code, out, stderr)
	}
	both := []string{"tickets", "resume", "--dsn", a, "--dsn", b, "--name", "t", "--offset", "2"}
	if code, out, stderr = runCLI(t, "", nil, both...); code != 0 || !strings.Contains(out, "resume recorded on "+dsn.Redact(a)+", "+dsn.Redact(b)) {
		t.Fatalf("both up: exit %d, %q, %q", code, out, stderr)
	}
	to := last(dbB)
	if _, err := dbA.Exec("UPDATE t_class SET resumes = 0, resumed_to = 0 WHERE `offset` = 2"); err != nil { // as if a had missed the record
		t.Fatal(err)
	}
	code, out, stderr = runCLI(t, "", nil, both...)
	if code != 0 || !strings.Contains(out, "not gone back since: left as it is") || !strings.Contains(out, "resume now recorded on "+dsn.Redact(a)+" too") || last(dbB) != to {
		t.Errorf("rerun after a partial record: exit %d, %q, %q; counter %d (was %d)", code, out, stderr, last(dbB), to)
	}
	if rows, err := tickets.ReadClass(ctx, dbA, "t"); err != nil || tickets.MergeClass(rows)[1].ResumedTo != to {
		t.Errorf("a's class rows after the rerun: %+v, %v; want resumed to %d", rows, err, to)
	}
}
