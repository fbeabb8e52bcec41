package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shardid/shardid/pgfunc"
	"github.com/shardid/shardid/pgfunc/migrate"
	"github.com/shardid/shardid/segment"
	"github.com/shardid/shardid/tickets"
	"github.com/shardid/shardid/tidb/apply"
	"github.com/shardid/shardid/tidb/explain"
	"github.com/shardid/shardid/tools/testsrv"
)

// TestWriteJSONEmptyLists: the one writer writes a nil list as [], at
// any depth (fields, pointers, map values, elements), never null.
func TestWriteJSONEmptyLists(t *testing.T) {
	type inner struct {
		L []string `json:"l"`
	}
	type doc struct {
		A []int            `json:"a"`
		P *inner           `json:"p"`
		N *inner           `json:"n"`
		M map[string]any   `json:"m"`
		E []inner          `json:"e"`
		I any              `json:"i"`
		S map[string][]int `json:"s"`
	}
	var b bytes.Buffer
	err := writeJSON(&b, doc{P: &inner{}, M: map[string]any{"x": []string(nil)}, E: []inner{{}}, I: inner{}, S: map[string][]int{"y": nil}})
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(strings.Fields(b.String()), "")
	want := `{"a":[],"p":{"l":[]},"n":null,"m":{"x":[]},"e":[{"l":[]}],"i":{"l":[]},"s":{"y":[]}}`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// report is what every --json document of a status or summary has.
type report struct {
	Command  string            `json:"command"`
	OK       bool              `json:"ok"`
	Rows     []json.RawMessage `json:"rows"`
	Notes    []string          `json:"notes"`
	Problems []string          `json:"problems"`
	Totals   map[string]any    `json:"totals"`
}

// jsonOf runs a command with --json and parses its stdout as one report
// of that command, all of whose lists are lists; the command's exit
// status must be code.
func jsonOf(t *testing.T, code int, args ...string) report {
	t.Helper()
	words := 2 // group and subcommand: pg up
	if _, group := groups()[args[0]]; !group {
		words = 1 // a command of its own: idgen
	}
	got, out, errOut := runCLI(t, "", nil, append(append(args[:words:words], "--json"), args[words:]...)...)
	var r report
	if err := json.Unmarshal([]byte(out), &r); err != nil || got != code {
		t.Fatalf("%v --json: exit %d (want %d), %v\n%s%s", args, got, code, err, out, errOut)
	}
	name := strings.Join(args[:words], " ")
	for _, list := range []string{`"rows": [`, `"notes": [`, `"problems": [`} {
		if !strings.Contains(out, list) {
			t.Errorf("%s --json: no list %s…]:\n%s", name, list, out)
		}
	}
	if strings.Contains(out, "null") && !strings.Contains(name, "status") {
		t.Errorf("%s --json holds null:\n%s", name, out)
	}
	if r.Command != name || r.OK != (code == 0) || (code != 0) != (len(r.Problems) > 0) {
		t.Errorf("%s --json: command %q ok %v problems %q; exit %d", name, r.Command, r.OK, r.Problems, code)
	}
	return r
}

// rowsOf decodes r's rows into a []T.
func rowsOf[T any](t *testing.T, r report) []T {
	t.Helper()
	out := make([]T, len(r.Rows))
	for i, raw := range r.Rows {
		if err := json.Unmarshal(raw, &out[i]); err != nil {
			t.Fatalf("%s row %d: %v: %s", r.Command, i, err, raw)
		}
	}
	return out
}

// TestPGJSON: pg up, status, grant and down --json print one document
// each, whose rows are the shards (sorted by shard id) and whose totals
// count them; pg status asked about other options than the generators
// have says so in each row and as its problem, exit 1.
func TestPGJSON(t *testing.T) {
	t.Parallel()
	dsn := pgDSN(t) // shards of its own: pg up checks every database of a server
	db := testsrv.Open(t, "pgx", dsn)
	role := "app_" + testsrv.DBName(t)
	if _, err := db.Exec("CREATE ROLE " + role); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Exec("DROP OWNED BY " + role + "; DROP ROLE " + role) })

	up := jsonOf(t, 0, "pg", "up", "--dsn", dsn, "--shards", "0-2,10")
	res := rowsOf[pgfunc.ProgressRow](t, up)
	if len(res) != 4 || up.Totals["applied"] != float64(4) || up.Totals["failed"] != float64(0) {
		t.Fatalf("pg up --json: %+v %v", res, up.Totals)
	}
	again := jsonOf(t, 0, "pg", "up", "--dsn", dsn, "--shards", "0-2,10")
	if rows := rowsOf[pgfunc.ProgressRow](t, again); len(rows) != 4 || rows[0].State != "current" || again.Totals["unchanged"] != float64(4) {
		t.Errorf("pg up again --json: %+v %v", rows, again.Totals)
	}

	st := jsonOf(t, 0, "pg", "status", "--dsn", dsn)
	rows := rowsOf[migrate.StatusRow](t, st)
	var ids []int64
	for _, r := range rows {
		ids = append(ids, r.Shard)
		if r.State != "ok" || r.Generator == nil || r.Generator.Shard != r.Shard || r.AlsoIn == nil {
			t.Errorf("pg status --json row %+v", r)
		}
	}
	if len(ids) != 4 || ids[0] != 0 || ids[1] != 1 || ids[2] != 2 || ids[3] != 10 {
		t.Errorf("pg status --json shards %v, want 0 1 2 10 (by shard id)", ids)
	}
	if _, ok := st.Totals["dangerous_privileges"].([]any); !ok {
		t.Errorf("pg status --json totals: %v", st.Totals)
	}

	g := jsonOf(t, 0, "pg", "grant", "--dsn", dsn, "--shards", "0-2", "--role", role)
	if rows := rowsOf[pgfunc.ProgressRow](t, g); len(rows) != 3 || rows[0].State != "granted" || g.Totals["role"] != role {
		t.Errorf("pg grant --json: %+v %v", rows, g.Totals)
	}

	// Asked about another mode than the one applied: status fails and
	// each row says it differs.
	bad := jsonOf(t, 1, "pg", "status", "--dsn", dsn, "--shards", "0-1", "--mode", "classic")
	if rows := rowsOf[migrate.StatusRow](t, bad); len(rows) != 2 || rows[0].State != "differs" || len(bad.Problems) != 1 {
		t.Errorf("pg status --json against other options: %+v %q", rows, bad.Problems)
	}

	down := jsonOf(t, 0, "pg", "down", "--dsn", dsn, "--shards", "10")
	if rows := rowsOf[pgfunc.ProgressRow](t, down); len(rows) != 1 || rows[0].State != "removed" || down.Totals["removed"] != float64(1) {
		t.Errorf("pg down --json: %+v %v", rows, down.Totals)
	}
}

// TestSegmentAndTicketsJSON: segment status and tickets status --json
// list the tags and the servers.
func TestSegmentAndTicketsJSON(t *testing.T) {
	t.Parallel()
	pg := testsrv.Database(t, testsrv.PG(t))
	if code, _, errOut := runCLI(t, "", nil, "segment", "up", "--dsn", pg, "--tag", "orders"); code != 0 {
		t.Fatal(errOut)
	}
	seg := jsonOf(t, 0, "segment", "status", "--dsn", pg)
	if tags := rowsOf[segment.TagRow](t, seg); len(tags) != 1 || tags[0].Tag != "orders" || tags[0].LastRewind != nil {
		t.Errorf("segment status --json: %+v", tags)
	}

	srv := testsrv.MariaDB(t)
	a, b := testsrv.Database(t, srv), testsrv.Database(t, srv)
	for i, d := range []string{a, b} {
		if code, _, errOut := runCLI(t, "", nil, "tickets", "up", "--dsn", d, "--name", "ord", "--increment", "2", "--offset", []string{"1", "2"}[i]); code != 0 {
			t.Fatal(errOut)
		}
	}
	// (A ticket drawn from each first: tickets status over servers none
	// has drawn from reads offset 1's counter, -1, as gone back below
	// the 0 it takes for "nothing recorded".)
	if code, _, errOut := runCLI(t, "", nil, "tickets", "next", "--dsn", a, "--dsn", b, "--name", "ord", "-n", "4", "--timeout", patient); code != 0 {
		t.Fatal(errOut)
	}
	tk := jsonOf(t, 0, "tickets", "status", "--dsn", a, "--dsn", b, "--name", "ord")
	rows := rowsOf[tickets.ServerRow](t, tk)
	if len(rows) != 2 || rows[0].Offset != 1 || rows[1].Offset != 2 || rows[0].Increment != 2 || rows[0].Last == nil || tk.Totals["servers"] != float64(2) {
		t.Errorf("tickets status --json: %+v %v", rows, tk.Totals)
	}

	// One server: its count in the singular.
	one := testsrv.Database(t, srv)
	if code, _, errOut := runCLI(t, "", nil, "tickets", "up", "--dsn", one, "--name", "solo", "--increment", "1", "--offset", "1"); code != 0 {
		t.Fatal(errOut)
	}
	runCLI(t, "", nil, "tickets", "next", "--dsn", one, "--name", "solo", "--timeout", patient)
	if code, out, errOut := runCLI(t, "", nil, "tickets", "status", "--dsn", one, "--name", "solo"); code != 0 || !strings.Contains(out, "\n1 server, increment 1,") {
		t.Errorf("tickets status of one server: exit %d\n%s%s", code, out, errOut)
	}
}

// TestTiDBJSON: tidb status --json lists the migrations (applied after
// up), and tidb render --json holds the statements render prints and each
// table's choice.
func TestTiDBJSON(t *testing.T) {
	t.Parallel()
	schema := filepath.Join(t.TempDir(), "schema.sql")
	if err := os.WriteFile(schema, []byte("CREATE TABLE t (id BIGINT PRIMARY KEY AUTO_INCREMENT, x INT);\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, text, _ := runCLI(t, "", nil, "tidb", "render", schema)
	code2, out, errOut := runCLI(t, "", nil, "tidb", "render", "--json", schema)
	var doc explain.Doc
	if err := json.Unmarshal([]byte(out), &doc); code != 0 || code2 != 0 || err != nil || errOut != "" {
		t.Fatalf("tidb render --json: exit %d %v %q\n%s", code2, err, errOut, out)
	}
	if doc.Statements != text || len(doc.Tables) != 1 || doc.Tables[0].Table != "t" || doc.Tables[0].Strategy == "" || doc.Tables[0].Why == "" || doc.Notes == nil || doc.Tables[0].Warnings == nil {
		t.Errorf("tidb render --json: %+v", doc)
	}

	dsn := serverDSN(t, "tidb")
	pending := jsonOf(t, 1, "tidb", "status", "--dsn", dsn, schema) // exit 1: a migration is pending
	if rows := rowsOf[apply.StatusRow](t, pending); len(rows) != 1 || rows[0].State != "pending" || rows[0].AppliedAt != nil {
		t.Errorf("tidb status --json before up: %+v", rows)
	}
	if code, _, errOut := runCLI(t, "", nil, "tidb", "up", "--dsn", dsn, schema); code != 0 {
		t.Fatal(errOut)
	}
	applied := jsonOf(t, 0, "tidb", "status", "--dsn", dsn, schema)
	if rows := rowsOf[apply.StatusRow](t, applied); len(rows) != 1 || rows[0].State != "applied" || rows[0].AppliedAt == nil || rows[0].Drift == nil {
		t.Errorf("tidb status --json after up: %+v", rows)
	}
}
