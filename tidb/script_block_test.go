package tidb_test

import (
	"github.com/shardid/shardid/tidb/internal/tidbtest"
	"slices"
	"strings"
	"testing"

	"github.com/shardid/shardid/tidb"
	"github.com/shardid/shardid/tidb/apply"
	"github.com/shardid/shardid/tidb/script"
	"github.com/shardid/shardid/tools/testsrv"
)

// blockScript holds triggers the way ZoneMinder's triggers.sql writes
// them (Debian zoneminder 1.36.33): inside `delimiter //`, some DROP
// TRIGGER IF EXISTS statements end at the block's delimiter, others at a
// ";" with their CREATE TRIGGER in the same block; one block holds two
// triggers; a string in a body holds "; CREATE TRIGGER", which splits
// nothing.
const blockScript = "CREATE TABLE ev (id BIGINT AUTO_INCREMENT PRIMARY KEY, disk INT);\n" +
	"CREATE TABLE summary (id INT PRIMARY KEY, n INT, note VARCHAR(60));\n" +
	"delimiter //\n" +
	"DROP TRIGGER IF EXISTS ev_ins//\n" +
	"CREATE TRIGGER ev_ins AFTER INSERT ON ev\nFOR EACH ROW BEGIN\n  UPDATE summary SET n = n + 1 WHERE id = 1;\nEND;\n//\n" +
	"DROP TRIGGER IF EXISTS ev_upd;\n" + // the DROP ends at ";", its CREATE follows in the same block
	"CREATE TRIGGER ev_upd AFTER UPDATE ON ev\nFOR EACH ROW\n  BEGIN\n    declare diff BIGINT default 0;\n    set diff = COALESCE(NEW.disk,0) - COALESCE(OLD.disk,0);\n    UPDATE summary SET n = n + diff, note = 'x; CREATE TRIGGER y' WHERE id = 1;\n  END;\n//\n" +
	"DROP TRIGGER IF EXISTS ev_del;\n" +
	"CREATE TRIGGER ev_del BEFORE DELETE ON ev FOR EACH ROW UPDATE summary SET n = n - 1 WHERE id = 1;\n" +
	"CREATE TRIGGER ev_ins2 BEFORE INSERT ON ev FOR EACH ROW SET NEW.disk = COALESCE(NEW.disk, 0);\n//\n" +
	"delimiter ;\n"

// blockTriggers are the triggers blockScript creates.
var blockTriggers = []string{"ev_ins", "ev_upd", "ev_del", "ev_ins2"}

// TestParseScriptDelimiterBlock checks that every CREATE TRIGGER of a
// DELIMITER block that also holds a DROP TRIGGER (or another CREATE) is
// kept, each at its own line, and every DROP noted: nothing in the block
// is taken for part of the DROP.
func TestParseScriptDelimiterBlock(t *testing.T) {
	s, err := script.ParseScript(blockScript, script.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var created, dropped []string
	lines := map[string]int{}
	for _, st := range s.Statements {
		if st.Kind != script.KindRoutine || st.ObjectType != "TRIGGER" {
			continue
		}
		if st.Drop {
			dropped = append(dropped, st.Object)
			if strings.Contains(st.SQL, "CREATE") {
				t.Errorf("DROP TRIGGER %s holds a CREATE: %q", st.Object, st.SQL)
			}
			continue
		}
		created = append(created, st.Object)
		lines[st.Object] = st.Line
		if !strings.HasPrefix(st.SQL, "CREATE TRIGGER "+st.Object) {
			t.Errorf("trigger %s text %q", st.Object, st.SQL)
		}
	}
	if !slices.Equal(created, blockTriggers) || !slices.Equal(dropped, []string{"ev_ins", "ev_upd", "ev_del"}) {
		t.Errorf("created %q, dropped %q; want created %q, dropped ev_ins, ev_upd, ev_del", created, dropped, blockTriggers)
	}
	if want := map[string]int{"ev_ins": 5, "ev_upd": 11, "ev_del": 20, "ev_ins2": 21}; !maps(lines, want) {
		t.Errorf("trigger lines %v, want %v", lines, want)
	}
	if s.Read != s.Accounted {
		t.Errorf("%d statements read, %d accounted for", s.Read, s.Accounted)
	}
}

func maps(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestDelimiterBlockThroughServers applies blockScript rendered for
// MariaDB there and checks that every trigger exists and fires; rendered
// for TiDB, every CREATE TRIGGER is in the by-hand text.
func TestDelimiterBlockThroughServers(t *testing.T) {
	s, err := script.ParseScript(blockScript, script.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := tidb.RenderScript(s, tidb.Options{Target: tidb.TargetTiDB})
	if err != nil {
		t.Fatal(err)
	}
	byHand, err := p.ByHandText()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range blockTriggers {
		if !strings.Contains(byHand, "CREATE TRIGGER "+name+" ") {
			t.Errorf("TiDB by-hand text lacks CREATE TRIGGER %s:\n%s", name, byHand)
		}
	}

	p, err = tidb.RenderScript(s, tidb.Options{Target: tidb.TargetMariaDB})
	if err != nil {
		t.Fatal(err)
	}
	ms, err := apply.Migrations(p, apply.Options{})
	if err != nil {
		t.Fatal(err)
	}
	dsn := testsrv.Database(t, testsrv.MariaDB(t))
	if _, _, err := tidbtest.Up(t, dsn, ms, ""); err != nil {
		t.Fatal(err)
	}
	db, err := apply.Open(dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query("SELECT TRIGGER_NAME FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = DATABASE() ORDER BY TRIGGER_NAME")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		got = append(got, n)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	want := slices.Sorted(slices.Values(blockTriggers))
	if !slices.Equal(got, want) {
		t.Fatalf("MariaDB triggers %q, want %q", got, want)
	}
	for _, q := range []string{"INSERT INTO summary VALUES (1, 0, '')", "INSERT INTO ev (disk) VALUES (NULL), (5)", "UPDATE ev SET disk = disk + 2"} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	var n int
	var note string
	var disk0 int
	if err := db.QueryRow("SELECT n, note FROM summary WHERE id = 1").Scan(&n, &note); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow("SELECT MIN(disk) FROM ev").Scan(&disk0); err != nil {
		t.Fatal(err)
	}
	// ev_ins: +1 a row (2); ev_upd: +2 a row (4); ev_ins2 made NULL 0.
	if n != 6 || note != "x; CREATE TRIGGER y" || disk0 != 2 {
		t.Errorf("after the triggers: n=%d note=%q min(disk)=%d; want 6, %q, 2", n, note, disk0, "x; CREATE TRIGGER y")
	}
}
