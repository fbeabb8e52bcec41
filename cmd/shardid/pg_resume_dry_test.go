package main

import (
	"errors"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// TestPGResumeShowsFirst: a bare pg resume, as a new user runs it from
// the docs, is a dry run that says its scope, where each counter would
// move and until when draws would wait, and moves nothing; --lead below
// the largest lead a generator of the server records is refused (exit 2)
// unless --below-recorded-lead, which the output then names; --apply
// moves, and a draw that then waits past its lead fails with a hint that
// names pg resume and the instant draws go on. A counter whose metadata
// cannot be read is named by its own shard id and fails the run. (Before:
// the bare command moved every counter by an hour, and every INSERT
// failed for the hour with a hint that blamed bursts; --lead below the
// server's largest lead repeated the IDs and exited 0; such a counter was
// "skipped insta3 shard 0" and the run exited 0.)
func TestPGResumeShowsFirst(t *testing.T) {
	t.Parallel()
	dsn := pgDSN(t)
	env := map[string]string{"SHARDID_PG_DSN": dsn}
	db := openPG(t, dsn)
	for _, up := range [][]string{{"--shards", "3"}, {"--shards", "4", "--lead", "30s"}} {
		if code, out, errOut := runCLI(t, "", env, append([]string{"pg", "up"}, up...)...); code != 0 {
			t.Fatalf("up %v: exit %d\n%s%s", up, code, out, errOut)
		}
	}
	if _, err := db.Exec("SELECT insta3.next_id(), insta4.next_id()"); err != nil {
		t.Fatal(err)
	}
	last := func() (v [2]int64) {
		t.Helper()
		if err := db.QueryRow("SELECT pg_sequence_last_value('insta3.next_id_seq'), pg_sequence_last_value('insta4.next_id_seq')").Scan(&v[0], &v[1]); err != nil {
			t.Fatal(err)
		}
		return v
	}
	before := last()
	code, out, errOut := runCLI(t, "", env, "pg", "resume")
	if code != 0 || !strings.Contains(out, "pg resume (dry run: nothing moves; --apply moves the counters): every generator of every database of the server") ||
		strings.Count(out, "would    insta") != 2 || !strings.Contains(out, "counter would move past") || !strings.Contains(out, "draws wait, then fail (SQLSTATE SHR10), until the clock reaches") ||
		!strings.Contains(out, "2 counters: 2 would move") || !strings.Contains(out, "run again with --apply") {
		t.Fatalf("bare pg resume: exit %d\n%s%s", code, out, errOut)
	}
	t.Logf("bare pg resume:\n%s", out)
	if after := last(); after != before {
		t.Fatalf("the dry run moved the counters: %v, then %v", before, after)
	}
	code, out, errOut = runCLI(t, "", env, "pg", "resume", "--apply", "--lead", "5s")
	if code != 2 || !strings.Contains(errOut, "--lead: lead below one recorded on the server: a lead of 5s is below the 30s that insta4 (shard 4) records") || last() != before {
		t.Fatalf("resume --lead below a recorded lead: exit %d, counters %v (were %v)\n%s%s", code, last(), before, out, errOut)
	}
	code, out, errOut = runCLI(t, "", env, "pg", "resume", "--apply", "--lead", "5s", "--below-recorded-lead")
	if code != 0 || !strings.Contains(out, "moved    insta3") || !strings.Contains(out, "below the 30s insta4 records (told to: --below-recorded-lead)") {
		t.Fatalf("resume --lead below a recorded lead, insisted: exit %d\n%s%s", code, out, errOut)
	}
	// --apply by the default lead (an hour): draws wait, and the error
	// says why and until when.
	if code, out, errOut = runCLI(t, "", env, "pg", "resume", "--apply", "--shards", "3"); code != 0 || !strings.Contains(out, "until the clock reaches") {
		t.Fatalf("resume --apply: exit %d\n%s%s", code, out, errOut)
	}
	_, err := db.Exec("SELECT insta3.next_id()")
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "SHR10" || !strings.Contains(pe.Hint, "shardid pg resume moved this counter at ") || !strings.Contains(pe.Hint, "draws go on from ") {
		t.Fatalf("a draw after resume moved the counter an hour ahead: %v (hint %q); want SHR10 whose hint names pg resume and when draws go on", err, pe.Hint)
	}
	// A counter whose metadata cannot be read: named by its own shard id
	// (its jump function's), failed, the run exit 1.
	if _, err := db.Exec("DROP FUNCTION insta3.next_id_meta(); COMMENT ON SEQUENCE insta3.next_id_seq IS NULL"); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = runCLI(t, "", env, "pg", "resume", "--apply", "--shards", "3", "--lead", "5s")
	if code != 1 || !strings.Contains(out, "FAILED   insta3                       shard 3 ") || !strings.Contains(out, "metadata cannot be read") {
		t.Fatalf("resume of a counter whose metadata cannot be read: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = runCLI(t, "", env, "pg", "status")
	if code != 1 || !strings.Contains(out, "UNREADABLE") || !strings.Contains(errOut, "1 counter looks like a generator's but its metadata cannot be read") {
		t.Fatalf("status beside a counter whose metadata cannot be read: exit %d\n%s%s", code, out, errOut)
	}
}

// TestPGStatusNamesReplication: pg status names a table keyed by DEFAULT
// next_id() that a publication copies elsewhere, and what a subscriber
// that takes over must run, without failing the run (replicating is not a
// fault). The subscriber's side: pgfunc's TestLogicalReplicaCutover.
func TestPGStatusNamesReplication(t *testing.T) {
	t.Parallel()
	dsn := pgDSN(t)
	if code, out, errOut := runCLI(t, "", nil, "pg", "up", "--dsn", dsn, "--shards", "5"); code != 0 {
		t.Fatalf("up: exit %d\n%s%s", code, out, errOut)
	}
	if _, err := openPG(t, dsn).Exec("CREATE TABLE public.orders (id bigint PRIMARY KEY DEFAULT insta5.next_id()); CREATE PUBLICATION orders_pub FOR TABLE public.orders"); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, "", nil, "pg", "status", "--dsn", dsn)
	if code != 0 || !strings.Contains(out, ".orders (DEFAULT insta5.next_id()) is published (publication orders_pub): a subscriber that takes over from this server hands out its IDs again unless shardid pg resume --apply runs there first") {
		t.Fatalf("status beside a published table: exit %d\n%s%s", code, out, errOut)
	}
}
