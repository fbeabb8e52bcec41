package main

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/shardid/shardid/dialect"
	"github.com/shardid/shardid/segment"
	"github.com/shardid/shardid/tools/bench"
	"github.com/shardid/shardid/tools/dbserver"
	"github.com/shardid/shardid/tools/testsrv"
)

// TestSegmentResumeCLI on PostgreSQL, MariaDB and TiDB: the allocation
// table is restored from a dump while a client of the library runs. The
// table's row is below its record (the record table, which the restore
// leaves): status exits 1 saying so, segment next fences the tag and is
// refused with the reason; a client that took IDs up to 10,000 reports
// them; status shows the fence (exit 1); up --start raises the tag and
// exits 1 naming the fence; segment resume --skip 0 moves the tag past
// what was reported and lifts the fence; next then draws above every ID
// from before, and a rerun with the printed --to changes nothing. The
// negative control: with the record table renamed away (nothing
// remembers), next hands the same IDs out again.
func TestSegmentResumeCLI(t *testing.T) {
	t.Parallel()
	for name, b := range map[string]struct {
		d      dialect.Dialect
		driver string
		dsn    func(t *testing.T) string
	}{
		"postgres": {dialect.Postgres, "pgx", func(t *testing.T) string { return testsrv.Database(t, testsrv.PG(t)) }},
		"mariadb":  {dialect.MySQL, "mysql", func(t *testing.T) string { return testsrv.Database(t, testsrv.MariaDB(t)) }},
		"tidb":     {dialect.TiDB, "mysql", func(t *testing.T) string { return testsrv.Database(t, testsrv.TiDB(t)) }},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			dsn := b.dsn(t)
			next := func(n string) ([]int64, int, string) {
				t.Helper()
				code, out, stderr := runCLI(t, "", nil, "segment", "next", "--dsn", dsn, "--tag", "orders", "-n", n)
				return parseIDs(t, out), code, stderr
			}
			if code, out, stderr := runCLI(t, "", nil, "segment", "up", "--dsn", dsn, "--tag", "orders", "--step", "100"); code != 0 {
				t.Fatalf("up: %s%s", out, stderr)
			}
			before, _, stderr := next("150")
			if !strings.Contains(stderr, "shardid segment next: tag orders: ") || !strings.Contains(stderr, " buffered IDs (151-") ||
				!strings.Contains(stderr, "discarded unused at close") || strings.Count(stderr, "\n") != 1 {
				t.Errorf("next's stderr: %q; want the IDs it dropped from 151 on, one line", stderr)
			}
			dump, err := dbserver.TakeTable(ctx, b.d, dsn, segment.DefaultTable)
			if err != nil {
				t.Fatal(err)
			}
			more, _, _ := next("500")
			before = append(before, more...)
			if err := dbserver.RestoreTable(ctx, dsn, dump); err != nil {
				t.Fatal(err)
			}
			code, out, stderr := runCLI(t, "", nil, "segment", "status", "--dsn", dsn)
			if code != 1 || !strings.Contains(out, "BELOW ITS RECORD: clients recorded IDs up to ") || !strings.Contains(stderr, "orders (below its record)") {
				t.Fatalf("status right after the restore: exit %d\n%s%s", code, out, stderr)
			}
			db := testsrv.Open(t, b.driver, dsn)
			rename := func(from, to string) {
				t.Helper()
				if _, err := db.ExecContext(ctx, "ALTER TABLE "+from+" RENAME TO "+to); err != nil {
					t.Fatal(err)
				}
			}
			// Negative control: without the record table, nothing remembers.
			rename(segment.RecordTable(""), "record_off")
			again, code, _ := next("10")
			rename("record_off", segment.RecordTable(""))
			if code != 0 || bench.Repeats(before, again) == 0 {
				t.Fatalf("negative control: next on the restored table without its record: exit %d, %v; want IDs from before again", code, again)
			}
			// With it, the first client fences the tag.
			_, code, stderr = next("1")
			if code != 1 || !strings.Contains(stderr, "table rewound: tag orders: the table would hand out IDs from ") {
				t.Errorf("next on the restored table: exit %d, %q", code, stderr)
			}

			// A client that took IDs up to 10,000 (its memory) reports that.
			if _, err := segment.New(ctx, db, segment.Settings{Tag: "orders", Floor: 10_000}); err == nil {
				t.Fatal("a client that took IDs up to 10,000 accepted the restored table")
			}
			code, out, stderr = runCLI(t, "", nil, "segment", "status", "--dsn", dsn)
			if code != 1 || !strings.Contains(out, "after taking IDs up to 10000; FENCED") || !strings.Contains(stderr, "1 tag cannot hand out IDs safely: orders (fenced, below its record)") {
				t.Errorf("status after the rewind was found: exit %d\n%s%s", code, out, stderr)
			}
			code, out, stderr = runCLI(t, "", nil, "segment", "up", "--dsn", dsn, "--tag", "orders", "--start", "20000")
			if code != 1 || !strings.Contains(out, "→ 19999") || !strings.Contains(stderr, "tag orders is FENCED") || !strings.Contains(stderr, "shardid segment resume --tag orders") {
				t.Errorf("up --start on a fenced tag: exit %d\n%s%s", code, out, stderr)
			}
			_, code, stderr = next("1")
			if code != 1 || !strings.Contains(stderr, "table rewound: tag orders is fenced") || strings.Count(stderr, "\n") != 1 {
				t.Errorf("next on a fenced tag: exit %d, %q", code, stderr)
			}
			code, out, stderr = runCLI(t, "", nil, "segment", "resume", "--dsn", dsn, "--skip", "0")
			if code != 0 || !strings.Contains(out, "tag orders: IDs handed out up to 19999 → 19999 (clients reported IDs up to 10000); fence lifted; next ID 20000 (to repeat this exactly: --tag orders --to 20000)") {
				t.Fatalf("resume: exit %d\n%s%s", code, out, stderr)
			}
			code, out, _ = runCLI(t, "", nil, "segment", "resume", "--dsn", dsn, "--tag", "orders", "--to", "20000")
			if code != 0 || !strings.Contains(out, "19999 → 19999") || strings.Contains(out, "fence lifted") {
				t.Errorf("resume rerun with --to: exit %d\n%s", code, out)
			}
			after, code, _ := next("300")
			if code != 0 || after[0] != 20000 || after[0] <= slices.Max(before) || bench.Repeats(before, after) != 0 {
				t.Errorf("next after the resume: exit %d, from %d; want 20000, above %d", code, after[0], slices.Max(before))
			}
			code, out, _ = runCLI(t, "", nil, "segment", "status", "--dsn", dsn)
			if code != 0 || !strings.Contains(out, "after taking IDs up to 10000; resumed since") {
				t.Errorf("status after the resume: exit %d\n%s", code, out)
			}
		})
	}
}

// TestSegmentResumeBadInput: resume without --skip or --to, or with a
// negative one, exits 2 before connecting.
func TestSegmentResumeBadInput(t *testing.T) {
	t.Parallel()
	dsn := "postgres://u@127.0.0.1:1/x"
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"segment", "resume", "--dsn", dsn}, "give --skip N"},
		{[]string{"segment", "resume", "--dsn", dsn, "--skip", "-1"}, "--skip: -1 is out of range"},
		{[]string{"segment", "resume", "--dsn", dsn, "--to", "-5"}, "--to: -5 is out of range"},
		{[]string{"segment", "resume", "--dsn", dsn, "--to", "5", "--tag", "a b"}, `--tag: invalid segment tag "a b"`},
		{[]string{"segment", "resume", "--dsn", dsn, "--to", "5", "--table", "Bad"}, `--table: invalid table name "Bad"`},
		{[]string{"segment", "resume", "--to", "5"}, "--dsn is required"},
	} {
		code, _, stderr := runCLI(t, "", nil, c.args...)
		if code != 2 || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and one line containing %q", c.args, code, stderr, c.want)
		}
	}
}

// TestSegmentMissingTagCLI on PostgreSQL: the allocation table is dumped
// before tag late exists; late is created and drawn from; the dump is
// restored. Status exits 1 naming late MISSING with its record; segment
// next is refused (ErrRewound); segment up --tag late refuses to create it
// at 1, naming the start; with that start it is created, and next draws
// above every ID from before.
func TestSegmentMissingTagCLI(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dsn := testsrv.Database(t, testsrv.PG(t))
	if code, out, stderr := runCLI(t, "", nil, "segment", "up", "--dsn", dsn, "--tag", "early"); code != 0 {
		t.Fatalf("up: %s%s", out, stderr)
	}
	dump, err := dbserver.TakeTable(ctx, dialect.Postgres, dsn, segment.DefaultTable)
	if err != nil {
		t.Fatal(err)
	}
	if code, out, stderr := runCLI(t, "", nil, "segment", "up", "--dsn", dsn, "--tag", "late", "--step", "100"); code != 0 {
		t.Fatalf("up: %s%s", out, stderr)
	}
	code, out, stderr := runCLI(t, "", nil, "segment", "next", "--dsn", dsn, "--tag", "late", "-n", "450")
	before := parseIDs(t, out)
	if code != 0 || len(before) != 450 {
		t.Fatalf("next: exit %d, %d IDs, %s", code, len(before), stderr)
	}
	if err := dbserver.RestoreTable(ctx, dsn, dump); err != nil {
		t.Fatal(err)
	}
	code, out, stderr = runCLI(t, "", nil, "segment", "status", "--dsn", dsn)
	if code != 1 || !strings.Contains(out, "MISSING: created before, clients recorded IDs up to ") || !strings.Contains(stderr, "late (missing)") {
		t.Errorf("status after the restore: exit %d\n%s%s", code, out, stderr)
	}
	code, _, stderr = runCLI(t, "", nil, "segment", "next", "--dsn", dsn, "--tag", "late", "-n", "1")
	if code != 1 || !strings.Contains(stderr, "table rewound: tag late is missing from ") {
		t.Errorf("next of the missing tag: exit %d %q", code, stderr)
	}
	code, out, stderr = runCLI(t, "", nil, "segment", "up", "--dsn", dsn, "--tag", "late")
	if code != 1 || strings.Contains(out, "created, step") || !strings.Contains(stderr, "(shardid segment up --tag late --start ") {
		t.Errorf("up of the missing tag at 1: exit %d\n%s%s", code, out, stderr)
	}
	if code, out, stderr = runCLI(t, "", nil, "segment", "up", "--dsn", dsn, "--tag", "late", "--start", "1001"); code != 0 || !strings.Contains(out, "tag late: created, step 1000, first ID 1001") {
		t.Fatalf("up of the missing tag at 1001: exit %d\n%s%s", code, out, stderr)
	}
	code, out, _ = runCLI(t, "", nil, "segment", "next", "--dsn", dsn, "--tag", "late", "-n", "100")
	after := parseIDs(t, out)
	if code != 0 || len(after) != 100 || bench.Repeats(before, after) != 0 || after[0] != 1001 {
		t.Errorf("next after the tag was made again: exit %d, %d IDs from %v", code, len(after), after[:min(1, len(after))])
	}
	if code, _, stderr = runCLI(t, "", nil, "segment", "status", "--dsn", dsn); code != 0 {
		t.Errorf("status at the end: exit %d %s", code, stderr)
	}
}
