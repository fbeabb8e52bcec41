package tidb_test

import (
	"errors"
	"github.com/shardid/shardid/tidb/internal/tidbtest"
	"strings"
	"testing"

	"github.com/shardid/shardid/tidb"
	"github.com/shardid/shardid/tidb/apply"
	"github.com/shardid/shardid/tidb/script"
	"github.com/shardid/shardid/tools/testsrv"
)

// zmScript is what ZoneMinder's zm_create.sql (Debian zoneminder
// 1.36.33) has that TiDB refuses: a Device TINYTEXT NOT NULL column
// whose DEFAULT is the empty string,
// in a table after others, so a run that finds out only when it gets
// there has applied those before it.
const zmScript = "CREATE TABLE Config (Id INT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY, Name VARCHAR(32) NOT NULL);\n" +
	"CREATE TABLE Controls (Id INT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY, Type VARCHAR(8));\n" +
	"CREATE TABLE Monitors (Id INT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY, `Device` tinytext NOT NULL default '', Notes TEXT);\n" +
	"INSERT INTO Config (Name) VALUES ('ZM_LANG');\n"

// TestTextDefaultOnTiDB checks that a TINYTEXT column with a DEFAULT is
// rendered for TiDB as VARCHAR(255) keeping the DEFAULT (noted), so the
// whole script applies on TiDB and an INSERT leaving the column out gets
// the DEFAULT; that a larger TEXT with a DEFAULT is refused at render
// time, naming the column; and that Up on TiDB refuses a migration
// directory holding such a table before it applies anything, while a
// failure TiDB only finds when it runs says how many are applied and how
// to go on.
func TestTextDefaultOnTiDB(t *testing.T) {
	s, err := script.ParseScript(zmScript, script.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := tidb.RenderScript(s, tidb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	mon := p.Tables[2]
	if sql := mon.Statements[0].SQL; !strings.Contains(sql, "`Device` VARCHAR(255) NOT NULL DEFAULT ''") || !strings.Contains(strings.Join(mon.Notes, "\n"), "column Device TINYTEXT DEFAULT '' made VARCHAR(255)") {
		t.Errorf("Monitors for TiDB:\n%s\nnotes %q", sql, mon.Notes)
	}
	ms, err := apply.Migrations(p, apply.Options{})
	if err != nil {
		t.Fatal(err)
	}
	dsn := testsrv.Database(t, testsrv.TiDB(t))
	if _, _, err := tidbtest.Up(t, dsn, ms, ""); err != nil {
		t.Fatal(err)
	}
	db := testsrv.Open(t, "mysql", dsn)
	if _, err := db.Exec("INSERT INTO Monitors (Notes) VALUES ('x')"); err != nil {
		t.Fatal(err)
	}
	var device string
	if err := db.QueryRow("SELECT Device FROM Monitors").Scan(&device); err != nil || device != "" {
		t.Errorf("Device %q, %v; want the DEFAULT ''", device, err)
	}

	// Rendered for MariaDB the column stays as written.
	pm, err := tidb.RenderScript(s, tidb.Options{Target: tidb.TargetMariaDB})
	if err != nil {
		t.Fatal(err)
	}
	if sql := pm.Tables[2].Statements[0].SQL; !strings.Contains(sql, "`Device` TINYTEXT NOT NULL DEFAULT ''") {
		t.Errorf("Monitors for MariaDB:\n%s", sql)
	}

	// A TEXT with a DEFAULT has no type that keeps it on TiDB: refused
	// when rendering, with the line and the column.
	big, err := script.ParseScript("CREATE TABLE a (id INT PRIMARY KEY);\nCREATE TABLE b (id INT PRIMARY KEY, body MEDIUMTEXT NOT NULL DEFAULT 'none');\n", script.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = tidb.RenderScript(big, tidb.Options{})
	if !errors.Is(err, tidb.ErrTiDBRefuses) || !strings.Contains(err.Error(), "line 2: render b: TiDB refuses the table: column body MEDIUMTEXT DEFAULT 'none': TiDB takes no DEFAULT on a TEXT, BLOB or JSON column (ERROR 1101)") {
		t.Errorf("MEDIUMTEXT DEFAULT for TiDB: %v", err)
	}
	if _, err := tidb.RenderScript(big, tidb.Options{Target: tidb.TargetMariaDB}); err != nil {
		t.Errorf("MEDIUMTEXT DEFAULT for MariaDB: %v", err)
	}

	// Files rendered for MariaDB (or written by hand) applied to TiDB:
	// refused before the first one runs.
	mms, err := apply.Migrations(pm, apply.Options{})
	if err != nil {
		t.Fatal(err)
	}
	dsn2 := testsrv.Database(t, testsrv.TiDB(t))
	_, res, err := tidbtest.Up(t, dsn2, mms, "")
	if !errors.Is(err, tidb.ErrTiDBRefuses) || !strings.Contains(err.Error(), "column Device TINYTEXT DEFAULT ''") || !strings.Contains(err.Error(), "nothing was applied") || tidbtest.CountApplied(res) != 0 {
		t.Errorf("MariaDB files on TiDB: %d applied, %v", tidbtest.CountApplied(res), err)
	}
	db2 := testsrv.Open(t, "mysql", dsn2)
	var tables int
	if err := db2.QueryRow("SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME IN ('Config', 'Controls')").Scan(&tables); err != nil || tables != 0 {
		t.Errorf("%d of the tables before Monitors exist (%v); want none", tables, err)
	}

	// A failure found only when it runs: how many are applied, what to do.
	failing, err := script.ParseScript("CREATE TABLE a (id INT PRIMARY KEY);\nINSERT INTO a VALUES (1), (1);\nCREATE TABLE b (id INT PRIMARY KEY);\n", script.Options{})
	if err != nil {
		t.Fatal(err)
	}
	fp, err := tidb.RenderScript(failing, tidb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	fms, err := apply.Migrations(fp, apply.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, res, err = tidbtest.Up(t, testsrv.Database(t, testsrv.TiDB(t)), fms, "")
	if err == nil || !strings.Contains(err.Error(), "2 of 3 migrations applied (2 by this run); this one is not recorded and the 0 after it were not run: fix it and run up again") {
		t.Errorf("failing data: %d applied, %v", tidbtest.CountApplied(res), err)
	}
}
