package main

import (
	"context"
	"strings"
	"testing"

	"github.com/shardid/shardid/dialect"
	"github.com/shardid/shardid/internal/dsn"
	"github.com/shardid/shardid/tools/dbserver"
	"github.com/shardid/shardid/tools/testsrv"
)

// TestSegmentBadInput: each invalid flag exits 2 with one line naming the
// flag and what it allows, before anything connects.
func TestSegmentBadInput(t *testing.T) {
	t.Parallel()
	pgURL := "postgres://u@127.0.0.1:1/x"
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"segment", "up", "--dsn", pgURL}, "--tag is required"},
		{[]string{"segment", "up", "--dsn", pgURL, "--tag", "a b"}, `--tag: invalid segment tag "a b": want 1 to 128 letters, digits, _ . : or -`},
		{[]string{"segment", "up", "--dsn", pgURL, "--tag", "t", "--step", "-1"}, "--step: -1 is out of range"},
		{[]string{"segment", "up", "--dsn", pgURL, "--tag", "t", "--start", "-1"}, "--start: -1 is out of range"},
		{[]string{"segment", "up", "--dsn", pgURL, "--tag", "t", "--table", "Ids"}, `--table: invalid table name "Ids"`},
		{[]string{"segment", "up", "--tag", "t"}, "--dsn is required"},
		{[]string{"segment", "next", "--dsn", pgURL}, "--tag is required"},
		{[]string{"segment", "next", "--dsn", pgURL, "--tag", "t", "-n", "-3"}, "-n: -3 is out of range"},
		{[]string{"segment", "status", "--dsn", pgURL, "--table", "a.b.c"}, `--table: invalid table name "a.b.c"`},
		{[]string{"segment", "next", "--dsn", "mysql://u@h/db", "--tag", "t"}, "go-sql-driver/mysql wants user:password@tcp(host:3306)/db"},
	} {
		code, _, stderr := runCLI(t, "", nil, c.args...)
		if code != 2 || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and one line containing %q", c.args, code, stderr, c.want)
		}
	}
	for _, d := range []string{"postgres://app:s3cret@127.0.0.1:1/x?connect_timeout=2", "app:s3cret@tcp(127.0.0.1:1)/x?timeout=2s"} {
		code, out, stderr := runCLI(t, "", nil, "segment", "up", "--dsn", d, "--tag", "t")
		if code != 1 || strings.Contains(out+stderr, "s3cret") || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%s: exit %d, %q %q; want exit 1, one line, no password", dsn.Redact(d), code, out, stderr)
		}
	}
}

// TestSegmentUpNextStatus on PostgreSQL, MariaDB and TiDB: up creates the
// table and the tag and reruns as a no-op; a new step is applied and
// reported; next prints consecutive IDs from 1; status lists the tag and
// how far IDs were handed out; next, run again, starts above that.
func TestSegmentUpNextStatus(t *testing.T) {
	t.Parallel()
	for name, dsn := range map[string]string{
		"postgres": testsrv.Database(t, testsrv.PG(t)),
		"mariadb":  testsrv.Database(t, testsrv.MariaDB(t)),
		"tidb":     testsrv.Database(t, testsrv.TiDB(t)),
	} {
		t.Run(name, func(t *testing.T) {
			// Before up: the missing table is named with the command that makes it.
			code, _, stderr := runCLI(t, "", nil, "segment", "next", "--dsn", dsn, "--tag", "orders")
			if code != 1 || !strings.Contains(stderr, "create it with `shardid segment up`") || strings.Count(stderr, "\n") != 1 {
				t.Fatalf("next before up: exit %d %q", code, stderr)
			}
			code, out, stderr := runCLI(t, "", nil, "segment", "up", "--dsn", dsn, "--tag", "orders")
			if code != 0 || !strings.Contains(out, ": created\n") || !strings.Contains(out, "tag orders: created, step 1000, first ID 1") {
				t.Fatalf("up: exit %d\n%s%s", code, out, stderr)
			}
			code, out, _ = runCLI(t, "", nil, "segment", "up", "--dsn", dsn, "--tag", "orders")
			if code != 0 || !strings.Contains(out, ": already there\n") || !strings.Contains(out, "tag orders: already there, unchanged (step 1000, IDs handed out up to 0)") {
				t.Fatalf("rerun: exit %d\n%s", code, out)
			}
			code, out, _ = runCLI(t, "", nil, "segment", "up", "--dsn", dsn, "--tag", "orders", "--step", "100")
			if code != 0 || !strings.Contains(out, "tag orders: step 1000 → 100, IDs handed out up to 0 → 0") {
				t.Fatalf("new step: exit %d\n%s", code, out)
			}
			code, out, stderr = runCLI(t, "", nil, "segment", "next", "--dsn", dsn, "--tag", "orders", "-n", "2500")
			ids := parseIDs(t, out)
			if code != 0 || len(ids) != 2500 || ids[0] != 1 || ids[2499] != 2500 {
				t.Fatalf("next: exit %d, %d IDs; stderr %q", code, len(ids), stderr)
			}
			code, out, _ = runCLI(t, "", nil, "segment", "status", "--dsn", dsn)
			fields := strings.Fields(strings.Split(out, "\n")[1])
			if code != 0 || len(fields) != 4 || fields[0] != "orders" {
				t.Fatalf("status: exit %d\n%s", code, out)
			}
			code, out, _ = runCLI(t, "", nil, "segment", "next", "--dsn", dsn, "--tag", "orders", "-n", "3")
			again := parseIDs(t, out)
			if code != 0 || len(again) != 3 || again[0] <= 2500 || again[0] <= parseIDs(t, fields[1])[0] {
				t.Errorf("second run: exit %d, %v; want to start above %s", code, again, fields[1])
			}
			code, _, stderr = runCLI(t, "", nil, "segment", "next", "--dsn", dsn, "--tag", "missing")
			if code != 1 || !strings.Contains(stderr, `unknown segment tag "missing"`) {
				t.Errorf("unknown tag: exit %d %q", code, stderr)
			}
		})
	}
}

// TestSegmentIDSpaceEndCLI: up refuses a start that leaves less than one
// step below the largest int64 (exit 2, naming the largest start) and
// creates no tag; at the largest start, next prints the last step of IDs
// and then says the tag's ID space is used up, not the server's overflow.
func TestSegmentIDSpaceEndCLI(t *testing.T) {
	t.Parallel()
	dsn := testsrv.Database(t, testsrv.PG(t))
	code, _, stderr := runCLI(t, "", nil, "segment", "up", "--dsn", dsn, "--tag", "big", "--start", "9223372036854775000")
	if code != 2 || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "--start: tag big: start out of range: 9223372036854775000 leaves less than one step (1000 IDs)") ||
		!strings.Contains(stderr, "the largest start for step 1000 is 9223372036854774808") {
		t.Fatalf("up past the last step: exit %d, stderr %q", code, stderr)
	}
	if code, out, _ := runCLI(t, "", nil, "segment", "status", "--dsn", dsn); code != 0 || strings.Contains(out, "big") {
		t.Fatalf("refused, yet status: exit %d\n%s", code, out)
	}
	code, out, stderr := runCLI(t, "", nil, "segment", "up", "--dsn", dsn, "--tag", "big", "--start", "9223372036854774808")
	if code != 0 || !strings.Contains(out, "tag big: created, step 1000, first ID 9223372036854774808") {
		t.Fatalf("up at the largest start: exit %d\n%s%s", code, out, stderr)
	}
	code, out, stderr = runCLI(t, "", nil, "segment", "next", "--dsn", dsn, "--tag", "big", "-n", "1001")
	ids := strings.Fields(out)
	if code != 1 || len(ids) != 1000 || ids[999] != "9223372036854775807" || strings.Count(stderr, "\n") != 1 ||
		!strings.Contains(stderr, "after 1000 of 1001 IDs: segments exhausted: tag big: ID space used up") || strings.Contains(stderr, "out of range") {
		t.Errorf("next past the end: exit %d, %d IDs, stderr %q", code, len(ids), stderr)
	}
	// A step that would use a tag up at once, or strand what it has left,
	// is refused and changes nothing.
	// (Refused before the allocation table is touched: no "created" line.)
	code, out, stderr = runCLI(t, "", nil, "segment", "up", "--dsn", dsn, "--tag", "huge", "--step", "9223372036854775807")
	if out != "" {
		t.Errorf("a refused step printed %q", out)
	}
	if code != 2 || !strings.Contains(stderr, "--step: 9223372036854775807 is out of range (allowed: 1-1000000000, or 0 to keep)") {
		t.Fatalf("up with a huge step: exit %d, stderr %q", code, stderr)
	}
	if code, out, stderr := runCLI(t, "", nil, "segment", "up", "--dsn", dsn, "--tag", "g", "--start", "9223372036854773808"); code != 0 {
		t.Fatalf("up with 2000 IDs left: exit %d\n%s%s", code, out, stderr)
	}
	code, _, stderr = runCLI(t, "", nil, "segment", "up", "--dsn", dsn, "--tag", "g", "--step", "5000")
	if code != 2 || !strings.Contains(stderr, "step 5000 is more than the 2000 IDs the tag has left") {
		t.Fatalf("a step past what the tag has left: exit %d, stderr %q", code, stderr)
	}
	code, out, stderr = runCLI(t, "", nil, "segment", "next", "--dsn", dsn, "--tag", "g", "-n", "2000")
	if ids := strings.Fields(out); code != 0 || len(ids) != 2000 || ids[1999] != "9223372036854775807" {
		t.Fatalf("the 2000 IDs left after the refused step: exit %d, %d IDs, stderr %q", code, len(ids), stderr)
	}
}

// TestSegmentRecordsElsewhere: the allocation table and its record table
// on one PostgreSQL database, the tags' records kept in a second one too
// (--records-dsn). The whole first database goes back to a copy made
// before segment next printed 10,000 IDs. segment status with the second
// database shows the tag below its record and exits 1 (without it: exit 0,
// the record having gone back with the table, the limit the docs name);
// segment next refuses and prints nothing; resume with the second
// database moves the tag past the record, and next prints none of the
// first run's IDs.
func TestSegmentRecordsElsewhere(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dsn, recs := testsrv.Database(t, testsrv.PG(t)), testsrv.Database(t, testsrv.PG(t))
	both := []string{"--dsn", dsn, "--records-dsn", recs}
	code, out, stderr := runCLI(t, "", nil, append([]string{"segment", "up", "--tag", "orders"}, both...)...)
	if code != 0 || !strings.Contains(out, "record table shardid_segments_record on ") || !strings.Contains(out, "): created") {
		t.Fatalf("up: exit %d\n%s%s", code, out, stderr)
	}
	var copies []dbserver.TableDump
	for _, table := range []string{"shardid_segments", "shardid_segments_record"} {
		dump, err := dbserver.TakeTable(ctx, dialect.Postgres, dsn, table)
		if err != nil {
			t.Fatal(err)
		}
		copies = append(copies, dump)
	}
	code, out, stderr = runCLI(t, "", nil, append([]string{"segment", "next", "--tag", "orders", "-n", "10000"}, both...)...)
	first := parseIDs(t, out)
	if code != 0 || len(first) != 10000 {
		t.Fatalf("next: exit %d, %d IDs, %q", code, len(first), stderr)
	}
	for _, dump := range copies {
		if err := dbserver.RestoreTable(ctx, dsn, dump); err != nil {
			t.Fatal(err)
		}
	}
	if code, out, _ := runCLI(t, "", nil, "segment", "status", "--dsn", dsn); code != 0 {
		t.Errorf("status of the restored database alone: exit %d (its record went back with it)\n%s", code, out)
	}
	code, out, _ = runCLI(t, "", nil, append([]string{"segment", "status"}, both...)...)
	if code != 1 || !strings.Contains(out, "BELOW ITS RECORD: clients recorded IDs up to ") {
		t.Errorf("status with the records kept elsewhere: exit %d\n%s", code, out)
	}
	code, out, stderr = runCLI(t, "", nil, append([]string{"segment", "next", "--tag", "orders", "-n", "10"}, both...)...)
	if code != 1 || out != "" || !strings.Contains(stderr, "were taken from it before: it was restored from an older copy") {
		t.Errorf("next after the restore: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
	if code, out, stderr := runCLI(t, "", nil, append([]string{"segment", "resume", "--tag", "orders", "--skip", "0"}, both...)...); code != 0 {
		t.Fatalf("resume: exit %d\n%s%s", code, out, stderr)
	}
	code, out, stderr = runCLI(t, "", nil, append([]string{"segment", "next", "--tag", "orders", "-n", "5000"}, both...)...)
	again := parseIDs(t, out)
	if code != 0 || len(again) != 5000 || dupCount(append(first, again...)) != 0 {
		t.Errorf("next after the resume: exit %d, %d IDs, %d of the first run's again; %q", code, len(again), dupCount(append(first, again...)), stderr)
	}
}
