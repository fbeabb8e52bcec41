package tidb_test

import (
	"context"
	"github.com/shardid/shardid/tidb/internal/tidbtest"
	"strings"
	"testing"

	"github.com/shardid/shardid/tidb"
	"github.com/shardid/shardid/tidb/apply"
)

// TestInputClausesSurvive checks item by item that the input's clauses
// reach the output: the primary key's COMMENT and USING BTREE, IF NOT
// EXISTS (render keeps it, migrations leave it out and say so), and what a
// strategy changes is listed in Notes.
func TestInputClausesSurvive(t *testing.T) {
	tb, err := tidb.Parse("CREATE TABLE IF NOT EXISTS t (id BIGINT NOT NULL AUTO_INCREMENT COMMENT 'c:\\\\x', k VARCHAR(3), PRIMARY KEY USING BTREE (id) COMMENT 'the key', KEY kk (k) USING HASH COMMENT 'kk') COMMENT='tab'")
	if err != nil {
		t.Fatal(err)
	}
	d, err := tidb.Render(tb, tidb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sql := d.Statements[0].SQL
	for _, w := range []string{"CREATE TABLE IF NOT EXISTS", "USING BTREE COMMENT 'the key'", "COMMENT 'kk'", "COMMENT = 'tab'", `COMMENT 'c:\\x'`} {
		if !strings.Contains(sql, w) {
			t.Errorf("output lacks %q:\n%s", w, sql)
		}
	}
	checkDDL(t, d, false)
	back, err := tidb.Parse(sql)
	if err != nil || back.PrimaryKey.Option != tb.PrimaryKey.Option || back.Columns[0].Options[len(back.Columns[0].Options)-1] != tb.Columns[0].Options[len(tb.Columns[0].Options)-1] {
		t.Errorf("round trip: %+v %v", back, err)
	}
	if len(d.Notes) != 1 || !strings.Contains(d.Notes[0], "AUTO_INCREMENT on id replaced by AUTO_RANDOM") {
		t.Errorf("notes %q", d.Notes)
	}
	ms, err := apply.Migrations(&tidb.Plan{Tables: []*tidb.DDL{d}}, apply.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(ms[0].Text, "CREATE TABLE IF NOT EXISTS") || !strings.Contains(ms[0].Text, "-- changed: IF NOT EXISTS left out") {
		t.Errorf("migration:\n%s", ms[0].Text)
	}
}

// TestStringsSurviveGoose applies comments and defaults holding ";" at line
// ends, newlines (escaped and real), "--", backslashes, quotes and CJK
// through goose to TiDB and MariaDB, and reads them back from
// information_schema unchanged. The negative control writes the same
// migration the way TiDB's restorer prints it (raw newlines, no
// StatementBegin/End) and checks goose then breaks the statement: the test
// would catch a regression.
func TestStringsSurviveGoose(t *testing.T) {
	const input = "CREATE TABLE s (\n" +
		"  id BIGINT PRIMARY KEY COMMENT 'order status;\\n0 = new;',\n" +
		"  st VARCHAR(20) DEFAULT 'a;\nb' COMMENT 'real newline;\n-- +goose Down\nnext; -- x',\n" +
		"  p VARCHAR(20) DEFAULT 'C:\\\\dir\\\\' COMMENT 'it''s \"quoted\" 中文;\\r\\n'\n" +
		") COMMENT 'table;\\nend'"
	want := map[string]string{
		"id": "order status;\n0 = new;",
		"st": "real newline;\n-- +goose Down\nnext; -- x",
		"p":  "it's \"quoted\" 中文;\r\n",
	}
	for _, target := range tidbtest.Targets(t) {
		t.Run(target.Name, func(t *testing.T) {
			t.Parallel()
			dsn := target.Database(t)
			ms := tidbtest.Migrations(t, tidbtest.RenderSQL(t, input, tidb.Options{Strategy: tidb.StrategyShardRowID}))
			if _, _, err := tidbtest.Up(t, dsn, ms, ""); err != nil {
				t.Fatal(err)
			}
			db, _ := apply.Open(dsn)
			defer db.Close()
			rows, err := db.Query("SELECT COLUMN_NAME, COLUMN_COMMENT, COALESCE(COLUMN_DEFAULT, '') FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 's'")
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			n := 0
			for rows.Next() {
				var name, comment, def string
				if err := rows.Scan(&name, &comment, &def); err != nil {
					t.Fatal(err)
				}
				n++
				if comment != want[name] {
					t.Errorf("%s comment %q, want %q", name, comment, want[name])
				}
				wantDef := map[string]string{"p": `C:\dir\`, "st": "a;\nb"}[name]
				if !target.TiDB { // MariaDB shows a default as its SQL literal
					wantDef = map[string]string{"p": `'C:\\dir\\'`, "st": `'a;\nb'`, "id": "NULL"}[name]
				}
				if strings.TrimPrefix(def, "NULL") != strings.TrimPrefix(wantDef, "NULL") {
					t.Errorf("%s default %q, want %q", name, def, wantDef)
				}
			}
			var tc string
			if err := db.QueryRow("SELECT TABLE_COMMENT FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 's'").Scan(&tc); err != nil || tc != "table;\nend" || n != 3 {
				t.Errorf("table comment %q (%v), %d columns", tc, err, n)
			}
			// Negative control: the restorer's raw text, split by goose.
			broken := ms[0]
			broken.Text = strings.NewReplacer(`\n`, "\n", "-- +goose StatementBegin\n", "", "-- +goose StatementEnd\n", "").Replace(broken.Text)
			broken.Text = strings.Replace(broken.Text, "TABLE `s`", "TABLE `s2`", 1)
			broken.Name, broken.Version = "1_create_s2.sql", 1
			db2, _ := apply.Open(dsn)
			defer db2.Close()
			m, err := apply.NewMigrator(db2, []apply.Migration{broken}, apply.Options{TableName: "broken_versions"})
			if err == nil {
				_, err = m.Up(context.Background())
			}
			if err == nil {
				t.Error("the unescaped migration applied: the check cannot see the breakage it guards against")
			}
		})
	}
}
