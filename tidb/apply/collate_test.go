package apply_test

import (
	"context"
	"errors"
	"github.com/shardid/shardid/tidb/internal/tidbtest"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"

	"github.com/shardid/shardid/tidb"
	"github.com/shardid/shardid/tidb/apply"
	"github.com/shardid/shardid/tidb/script"
	"github.com/shardid/shardid/tools/testsrv"
)

// TestCollationsChecked applies two tables, the second with a collation
// the server lacks (TiDB: latin1_general_cs; MariaDB 10.11:
// utf8mb4_0900_ai_ci): Up refuses before applying anything, so the first
// table is not created either, and names --collate; the server itself
// refuses the statement (ERROR 1273), which is what the check spares the
// user half-way through. Renamed with --collate (ScriptOptions.Collations)
// the script applies, the rename noted.
func TestCollationsChecked(t *testing.T) {
	for _, srv := range tidbtest.Targets(t) {
		t.Run(srv.Name, func(t *testing.T) {
			t.Parallel()
			missing, have := "utf8mb4_0900_ai_ci", "utf8mb4_unicode_ci"
			target := tidb.TargetMariaDB
			if srv.TiDB {
				missing, have, target = "latin1_general_cs", "latin1_bin", tidb.TargetTiDB
			}
			scriptText := "CREATE TABLE first (id INT PRIMARY KEY);\nCREATE TABLE second (id INT PRIMARY KEY, name VARCHAR(20) CHARACTER SET " + strings.Split(missing, "_")[0] + " COLLATE " + missing + ") DEFAULT CHARSET=" + strings.Split(missing, "_")[0] + " COLLATE=" + missing + ";\n"
			plan := func(o script.Options) []apply.Migration {
				s, err := script.ParseScript(scriptText, o)
				if err != nil {
					t.Fatal(err)
				}
				p, err := tidb.RenderScript(s, tidb.Options{Target: target})
				if err != nil {
					t.Fatal(err)
				}
				ms, err := apply.Migrations(p, apply.Options{})
				if err != nil {
					t.Fatal(err)
				}
				if o.Collations != nil && !strings.Contains(strings.Join(s.Notes, "\n"), "COLLATE "+missing+" → "+have+" (--collate)") {
					t.Errorf("notes %q", s.Notes)
				}
				return ms
			}
			dsn := srv.Database(t)
			_, res, err := tidbtest.Up(t, dsn, plan(script.Options{}), "")
			if !errors.Is(err, script.ErrCollation) || len(res) != 0 || !strings.Contains(err.Error(), "no collation "+missing+"; nothing was applied: give tidb up (or render, or gen) --collate "+missing+"=NAME") {
				t.Fatalf("up: %d results, %v", len(res), err)
			}
			if tidbtest.ShowCreate(t, dsn, "first") != "" {
				t.Error("the table before the refused one was created")
			}
			var me *mysql.MySQLError
			if _, err := testsrv.Open(t, "mysql", dsn).ExecContext(context.Background(), "CREATE TABLE probe (v VARCHAR(2) COLLATE "+missing+")"); !errors.As(err, &me) || me.Number != 1273 {
				t.Errorf("the server took COLLATE %s (%v): the check refuses what the server runs", missing, err)
			}
			collations, err := script.ParseCollations([]string{strings.ToUpper(missing) + " = " + have})
			if err != nil {
				t.Fatal(err)
			}
			if _, res, err := tidbtest.Up(t, dsn, plan(script.Options{Collations: collations}), ""); err != nil || tidbtest.CountApplied(res) != 2 {
				t.Fatalf("renamed: %d applied, %v", tidbtest.CountApplied(res), err)
			}
			if c := tidbtest.ShowCreate(t, dsn, "second"); !strings.Contains(c, have) || strings.Contains(c, missing) {
				t.Errorf("second:\n%s", c)
			}
		})
	}
	if _, err := script.ParseCollations([]string{"latin1_general_cs"}); !errors.Is(err, script.ErrCollation) {
		t.Errorf("no =: %v", err)
	}
}
