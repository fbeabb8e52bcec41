package tickets_test

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pingcap/tidb/pkg/parser"
	_ "github.com/pingcap/tidb/pkg/parser/test_driver" // value expressions for the parser

	"github.com/shardid/shardid/dialect"
	"github.com/shardid/shardid/tickets"
	"github.com/shardid/shardid/tools/testsrv"
)

// goldenCases are the migrations pinned under testdata.
var goldenCases = []struct {
	file    string
	dialect dialect.Dialect
	set     tickets.Counter
}{
	{"mysql_table.sql", dialect.MySQL, tickets.Counter{Name: "tickets64", Increment: 2, Offset: 1}},
	{"mysql_table_start.sql", dialect.MySQL, tickets.Counter{Name: "photos", Increment: 3, Offset: 2, Start: 72157623227190423}},
	{"tidb_table.sql", dialect.TiDB, tickets.Counter{Name: "tickets64", Increment: 2, Offset: 2}},
	{"tidb_sequence.sql", dialect.TiDB, tickets.Counter{Name: "tickets64", Increment: 2, Offset: 2, Kind: tickets.KindSequence, Cache: 500}},
}

// TestMigrationsGolden pins the migrations (go test ./tickets -run
// Golden -update rewrites them).
func TestMigrationsGolden(t *testing.T) {
	t.Parallel()
	for _, c := range goldenCases {
		files := migrationFiles(t, c.dialect, c.set)
		got := files[tickets.MigrationName(c.set.Name)]
		testsrv.CheckGolden(t, filepath.Join("testdata", c.file), got)
		if len(files) != 2 {
			t.Errorf("%s: %d files, want the ticket's and its class table's", c.file, len(files))
		}
	}
	for _, c := range []struct {
		file    string
		dialect dialect.Dialect
	}{{"mysql_class.sql", dialect.MySQL}, {"tidb_class.sql", dialect.TiDB}} {
		files := migrationFiles(t, c.dialect, tickets.Counter{Name: "tickets64", Increment: 2, Offset: 1})
		testsrv.CheckGolden(t, filepath.Join("testdata", c.file), files[tickets.ClassMigrationName("tickets64")])
	}
}

// TestFirstTicket: the first ticket is the smallest value ≥ Start in the
// server's class; the migration seeds the row one increment below it.
func TestFirstTicket(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		inc, off, start int64
		want            string
	}{
		{2, 1, 1, "VALUES ('a', -1, 2, 1)"},
		{2, 2, 1, "VALUES ('a', 0, 2, 2)"},
		{3, 2, 10, "VALUES ('a', 8, 3, 2)"}, // first 11
		{3, 2, 11, "VALUES ('a', 8, 3, 2)"},
		{3, 2, 12, "VALUES ('a', 11, 3, 2)"}, // first 14
		{1, 1, 500, "VALUES ('a', 499, 1, 1)"},
	} {
		files := migrationFiles(t, dialect.MySQL, tickets.Counter{Name: "t", Increment: c.inc, Offset: c.off, Start: c.start})
		if got := string(files[tickets.MigrationName("t")]); !strings.Contains(got, c.want) {
			t.Errorf("increment %d offset %d start %d: want %s in\n%s", c.inc, c.off, c.start, c.want, got)
		}
	}
}

// TestSettingsRefused: every bad setting is refused with a message that
// names the value and what is allowed, and a *SettingError naming the
// field when one field is at fault (a cache with kind table included:
// refused, not ignored).
func TestSettingsRefused(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		d     dialect.Dialect
		s     tickets.Counter
		field string
		want  string
	}{
		{dialect.MySQL, tickets.Counter{Name: "Tickets64"}, "name", `name "Tickets64" is not a ticket name (allowed: lower-case letters`},
		{dialect.MySQL, tickets.Counter{Name: "t`; DROP TABLE x; --"}, "name", "allowed: lower-case letters"},
		{dialect.MySQL, tickets.Counter{Name: strings.Repeat("t", 47)}, "name", "at most 46 bytes"},
		{dialect.MySQL, tickets.Counter{Name: "photos_class"}, "name", `name "photos_class" ends in _class, the suffix of class tables (photos_class is the class table of ticket name photos)`},
		{dialect.MySQL, tickets.Counter{Name: "t", Increment: 65536}, "increment", "increment 65536 is out of range (allowed 1-65535)"},
		{dialect.MySQL, tickets.Counter{Name: "t", Increment: 2, Offset: 3}, "offset", "offset 3 is out of range (allowed 1-2, the increment)"},
		{dialect.MySQL, tickets.Counter{Name: "t", Increment: -1}, "increment", "increment -1 is out of range"},
		{dialect.MySQL, tickets.Counter{Name: "t", Start: -5}, "start", "start -5 is out of range"},
		{dialect.MySQL, tickets.Counter{Name: "t", Kind: "queue"}, "kind", `kind "queue" is not a kind (allowed: table, sequence)`},
		{dialect.MySQL, tickets.Counter{Name: "t", Cache: 5}, "cache", "cache 5 is not taken by kind table (a cache applies only to kind sequence)"},
		{dialect.TiDB, tickets.Counter{Name: "t", Kind: tickets.KindSequence, Cache: -1}, "cache", "cache -1 is out of range (allowed 1-1000000)"},
		{dialect.MySQL, tickets.Counter{Name: "t", Kind: tickets.KindSequence}, "", "kind sequence needs TiDB"},
		{dialect.Postgres, tickets.Counter{Name: "t"}, "", `dialect "postgres" (allowed: mysql, tidb)`},
	} {
		_, err := tickets.Migrations(c.d, c.s)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%+v: %v; want one line containing %q", c.s, err, c.want)
		}
		var se *tickets.SettingError
		if got := errors.As(err, &se); got != (c.field != "") || got && (se.Field != c.field || !errors.Is(err, tickets.ErrInvalidSettings)) {
			t.Errorf("%+v: %#v; want a SettingError for field %q wrapping ErrInvalidSettings", c.s, err, c.field)
		}
	}
}

// TestCheck: different increments and shared classes are refused, with
// the servers named.
func TestCheck(t *testing.T) {
	t.Parallel()
	s := func(name string, inc, off int64) tickets.ServerSettings {
		return tickets.ServerSettings{Server: name, Increment: inc, Offset: off}
	}
	if err := tickets.Check([]tickets.ServerSettings{s("a", 3, 1), s("b", 3, 2), s("c", 3, 3)}); err != nil {
		t.Errorf("three classes of 3: %v", err)
	}
	if err := tickets.Check([]tickets.ServerSettings{s("a", 2, 1), s("b", 3, 2)}); !errors.Is(err, tickets.ErrIncrementMismatch) || !strings.Contains(err.Error(), "a has increment 2, b has 3") {
		t.Errorf("increments 2 and 3: %v", err)
	}
	if err := tickets.Check([]tickets.ServerSettings{s("a", 2, 1), s("b", 2, 2), s("c", 2, 1)}); !errors.Is(err, tickets.ErrOverlap) || !strings.Contains(err.Error(), "a and c both have offset 1") {
		t.Errorf("a and c share offset 1: %v", err)
	}
}

// TestStatementsParseWithTiDB hands every statement sent to TiDB to TiDB's
// own parser: the migrations' statements and the client's.
func TestStatementsParseWithTiDB(t *testing.T) {
	t.Parallel()
	var stmts []string
	for _, c := range goldenCases {
		if c.dialect != dialect.TiDB {
			continue
		}
		files := migrationFiles(t, c.dialect, c.set)
		stmts = append(stmts, upStatements(t, string(files[tickets.MigrationName(c.set.Name)]))...)
		stmts = append(stmts, upStatements(t, string(files[tickets.ClassMigrationName(c.set.Name)]))...)
		for _, name := range []string{"draw", "explain", "kind", "settings", "sequence", "sequence_next", "class", "seen", "rewound", "resumed", "resume"} {
			s, err := tickets.Statement("tidb", c.set, name)
			if err != nil {
				t.Fatal(err)
			}
			stmts = append(stmts, s)
		}
	}
	p := parser.New()
	for _, s := range stmts {
		if nodes, _, err := p.Parse(s, "", ""); err != nil || len(nodes) != 1 {
			t.Errorf("TiDB's parser: %d statements, %v:\n%s", len(nodes), err, s)
		}
	}
}

// upStatements returns the statements between "-- +goose Up" and "--
// +goose Down", comment lines dropped.
func upStatements(t *testing.T, migration string) []string {
	t.Helper()
	_, up, ok := strings.Cut(migration, "-- +goose Up\n")
	up, _, ok2 := strings.Cut(up, "-- +goose Down")
	if !ok || !ok2 {
		t.Fatalf("no Up/Down sections:\n%s", migration)
	}
	var keep []string
	for _, l := range strings.Split(up, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "--") {
			keep = append(keep, l)
		}
	}
	var out []string
	for _, s := range strings.Split(strings.Join(keep, "\n"), ";\n") {
		if s = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), ";")); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// migrationFiles returns the migrations of s on dialect d, file name →
// content.
func migrationFiles(t *testing.T, d dialect.Dialect, s tickets.Counter) map[string][]byte {
	t.Helper()
	fsys, err := tickets.Migrations(d, s)
	if err != nil {
		t.Fatal(err)
	}
	names, err := fs.Glob(fsys, "*.sql")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, name := range names {
		if files[name], err = fs.ReadFile(fsys, name); err != nil {
			t.Fatal(err)
		}
	}
	return files
}
