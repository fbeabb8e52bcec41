package tidb_test

import (
	"github.com/shardid/shardid/tidb/internal/tidbtest"
	"slices"
	"strings"
	"testing"

	"github.com/shardid/shardid/tidb"
	"github.com/shardid/shardid/tidb/script"
	"github.com/shardid/shardid/tools/testsrv"
)

// routinesScript holds routines, a trigger, an event, a view and a grant,
// and no table: a script written apart from the schema, for a database
// whose table (existing) is already there.
const routinesScript = "DELIMITER ;;\n" +
	"CREATE FUNCTION f1(x INT) RETURNS INT DETERMINISTIC BEGIN RETURN x + 1; END;;\n" +
	"CREATE PROCEDURE p1() BEGIN SELECT f1(1); END;;\n" +
	"CREATE TRIGGER tr1 BEFORE INSERT ON existing FOR EACH ROW BEGIN SET NEW.v = f1(NEW.v); END;;\n" +
	"DELIMITER ;\n" +
	"CREATE EVENT e1 ON SCHEDULE EVERY 1 DAY DO DELETE FROM existing WHERE v < 0;\n" +
	"CREATE VIEW v1 AS SELECT v AS w FROM existing;\n" +
	"GRANT SELECT ON v1 TO 'app'@'%';\n"

// TestRoutinesOnlyScript checks that a script without a CREATE TABLE is
// not refused when it holds other objects: on MariaDB the function, the
// procedure, the trigger, the event and the view are migrations that
// apply (the trigger then runs), and the GRANT is by hand; for TiDB the
// routines are by hand and the view a migration. A script of data alone
// is still refused (its tables are in another file).
func TestRoutinesOnlyScript(t *testing.T) {
	s, err := script.ParseScript(routinesScript, script.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := tidb.RenderScript(s, tidb.Options{Target: tidb.TargetTiDB})
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, st := range p.Steps {
		kinds = append(kinds, string(st.Kind)+" "+st.Object)
	}
	if !slices.Equal(kinds, []string{"view v1"}) || len(p.ByHand) != 5 {
		t.Errorf("TiDB: steps %q, %d by hand; want the view, and 5 by hand", kinds, len(p.ByHand))
	}
	if p, err = tidb.RenderScript(s, tidb.Options{Target: tidb.TargetMariaDB}); err != nil {
		t.Fatal(err)
	}
	if len(p.Steps) != 5 || len(p.ByHand) != 1 || !strings.HasPrefix(p.ByHand[0].SQL, "GRANT") {
		t.Fatalf("MariaDB: %d steps, by hand %v; want 5 steps and the GRANT", len(p.Steps), p.ByHand)
	}
	dsn := testsrv.Database(t, testsrv.MariaDB(t))
	db := testsrv.Open(t, "mysql", dsn)
	if _, err := db.Exec("CREATE TABLE existing (v INT)"); err != nil {
		t.Fatal(err)
	}
	tidbtest.UpAll(t, dsn, tidbtest.PlanMigrations(t, p))
	var routines, triggers, events, views, v int
	for q, n := range map[string]*int{
		"SELECT COUNT(*) FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = DATABASE()": &routines,
		"SELECT COUNT(*) FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = DATABASE()": &triggers,
		"SELECT COUNT(*) FROM information_schema.EVENTS WHERE EVENT_SCHEMA = DATABASE()":     &events,
		"SELECT COUNT(*) FROM information_schema.VIEWS WHERE TABLE_SCHEMA = DATABASE()":      &views,
	} {
		if err := db.QueryRow(q).Scan(n); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if _, err := db.Exec("INSERT INTO existing VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow("SELECT w FROM v1").Scan(&v); err != nil {
		t.Fatal(err)
	}
	if routines != 2 || triggers != 1 || events != 1 || views != 1 || v != 2 {
		t.Errorf("%d routines, %d triggers, %d events, %d views, v1 gives %d; want 2, 1, 1, 1 and 2 (the trigger ran f1)", routines, triggers, events, views, v)
	}
	if _, err := script.ParseScript("INSERT INTO a VALUES (1);\n", script.Options{}); err == nil {
		t.Error("a script of data alone was read; want ErrNoCreateTable")
	}
}
