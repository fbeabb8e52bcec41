package tidb_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/shardid/shardid/tidb"
	"github.com/shardid/shardid/tidb/script"
)

// TestTableSpecs checks the NAME=STRATEGY[,KEY=VALUE…] form: what it
// takes, and a one-line refusal naming the mistake for what it does not.
func TestTableSpecs(t *testing.T) {
	for _, tc := range []struct {
		in, err string
		want    tidb.Options
	}{
		{in: "orders=shard-rowid", want: tidb.Options{Strategy: tidb.StrategyShardRowID}},
		{in: " shop.Orders = auto-random , range=64 ,shard-bits=6", want: tidb.Options{Strategy: tidb.StrategyAutoRandom, RangeBits: 64, ShardBits: 6}},
		{in: "log=auto,rows=500", want: tidb.Options{Strategy: tidb.StrategyAuto, Rows: 500}},
		{in: "t=rotated-int,digits=2,lead=5,id-digits=18", want: tidb.Options{Strategy: tidb.StrategyRotatedInt, Digits: 2, Lead: 5, IDDigits: 18}},
		{in: "orders", err: "want NAME=STRATEGY"},
		{in: "=shard-rowid", err: "want NAME=STRATEGY"},
		{in: "orders=fast", err: `invalid strategy "fast"`},
		{in: "orders=shard-rowid,range=54", err: "shard-rowid cannot take range bits"},
		{in: "orders=shard-rowid,pre-split=9", err: "PRE_SPLIT_REGIONS=9 above SHARD_ROW_ID_BITS=4"},
		{in: "orders=shard-rowid,color=red", err: `unknown key "color"`},
		{in: "orders=shard-rowid,rows=-3", err: "rows=-3 is not a number of 1 or more"},
		{in: "a`b=shard-rowid", err: "invalid identifier"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			spec, err := tidb.ParseTableSpec(tc.in)
			if tc.err != "" {
				if !errors.Is(err, tidb.ErrTableSpec) || !strings.Contains(err.Error(), tc.err) || strings.Contains(err.Error(), "\n") {
					t.Fatalf("%v; want one line with %q", err, tc.err)
				}
				return
			}
			if err != nil || spec.Options.Strategy != tc.want.Strategy || spec.Options.RangeBits != tc.want.RangeBits || spec.Options.ShardBits != tc.want.ShardBits ||
				spec.Options.Rows != tc.want.Rows || spec.Options.Digits != tc.want.Digits || spec.Options.Lead != tc.want.Lead || spec.Options.IDDigits != tc.want.IDDigits {
				t.Fatalf("%+v, %v; want %+v", spec.Options, err, tc.want)
			}
		})
	}
	specs, err := tidb.ParseTableSpecs("steer.txt", "# steering\n\norders=shard-rowid  # cursor readers\n  log = auto-random\n")
	if err != nil || len(specs) != 2 || specs[0].Name != "orders" || specs[1].Source != "steer.txt:4" {
		t.Errorf("file: %+v, %v", specs, err)
	}
	if _, err := tidb.ParseTableSpecs("steer.txt", "a=shard-rowid\nb=nope\n"); err == nil || !strings.HasPrefix(err.Error(), "steer.txt:2: ") {
		t.Errorf("bad line: %v", err)
	}
}

// TestSteeredTables renders one script three ways: --strategy auto-random
// for all refuses the table whose key is text, naming --table; steering
// that one table to shard-rowid renders the script; steering the key a
// reader pages through keeps it AUTO_INCREMENT (shard-rowid); and a spec
// naming no table of the script is refused.
func TestSteeredTables(t *testing.T) {
	s, err := script.ParseScript("CREATE TABLE users (name VARCHAR(20) PRIMARY KEY);\nCREATE TABLE events (id BIGINT AUTO_INCREMENT PRIMARY KEY, v INT);\nCREATE TABLE history (id BIGINT AUTO_INCREMENT PRIMARY KEY, v INT);", script.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = tidb.RenderScript(s, tidb.Options{Strategy: tidb.StrategyAutoRandom})
	if !errors.Is(err, tidb.ErrKey) || !strings.Contains(err.Error(), "line 1: ") || !strings.Contains(err.Error(), "--table users=shard-rowid") {
		t.Fatalf("unsteered: %v", err)
	}
	spec := func(s string) tidb.TableSpec {
		sp, err := tidb.ParseTableSpec(s)
		if err != nil {
			t.Fatal(err)
		}
		sp.Source = "--table " + s
		return sp
	}
	p, err := tidb.RenderScript(s, tidb.Options{Strategy: tidb.StrategyAutoRandom, RangeBits: 60, Tables: []tidb.TableSpec{spec("USERS=shard-rowid"), spec("history=shard-rowid,pre-split=none")}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range p.Tables {
		checkDDL(t, d, false)
		got = append(got, string(d.Options.Strategy))
	}
	if !slices.Equal(got, []string{"shard-rowid", "auto-random", "shard-rowid"}) {
		t.Errorf("strategies %q", got)
	}
	if h := p.Tables[2].Statements[0].SQL; !strings.Contains(h, "AUTO_INCREMENT") || strings.Contains(h, "PRE_SPLIT") || !strings.Contains(h, "SHARD_ROW_ID_BITS=4") {
		t.Errorf("history keeps AUTO_INCREMENT, not pre-split:\n%s", h)
	}
	if p.Tables[1].Options.RangeBits != 60 {
		t.Errorf("the global --range did not reach events: %+v", p.Tables[1].Options)
	}
	_, err = tidb.RenderScript(s, tidb.Options{Tables: []tidb.TableSpec{spec("histroy=shard-rowid")}})
	if !errors.Is(err, tidb.ErrTableSpec) || !strings.Contains(err.Error(), "no table histroy in the scripts (they create users, events, history)") {
		t.Errorf("misspelt table: %v", err)
	}
}

// TestFoldedAlters reads what phpMyAdmin and mysqldump write after their
// CREATE TABLEs: keys added by ALTER TABLE, MODIFY … AUTO_INCREMENT with
// AUTO_INCREMENT=N, an ENGINE change and a partitioning in conditional
// comments. All of it lands in the table, so auto picks AUTO_RANDOM for
// the BIGINT AUTO_INCREMENT key and the ENGINE is the last one given.
func TestFoldedAlters(t *testing.T) {
	scriptText := "CREATE TABLE `orders` (\n  `id` bigint(20) NOT NULL,\n  `code` varchar(9) NOT NULL,\n  `day` date NOT NULL\n) ENGINE=MyISAM DEFAULT CHARSET=utf8mb4;\n" +
		"ALTER TABLE `orders`\n  ADD PRIMARY KEY (`id`,`day`),\n  ADD KEY `code` (`code`);\n" +
		"ALTER TABLE `orders`\n  MODIFY `id` bigint(20) NOT NULL AUTO_INCREMENT, AUTO_INCREMENT=42;\n" +
		"/*!50610 ALTER TABLE orders ENGINE=InnoDB */;\n" +
		"/*!50510 ALTER TABLE orders PARTITION BY RANGE COLUMNS (`day`) (PARTITION p0 VALUES LESS THAN ('2020-01-01'), PARTITION p1 VALUES LESS THAN (MAXVALUE)) */;\n"
	s, err := script.ParseScript(scriptText, script.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tb := s.Tables[0]
	if tb.PrimaryKey == nil || len(tb.PrimaryKey.Parts) != 2 || len(tb.Indexes) != 1 || !tb.Columns[0].AutoIncrement || tb.Partitions != 2 {
		t.Fatalf("folded table %+v", tb)
	}
	if !slices.Contains(tb.Options, "ENGINE = InnoDB") || slices.Contains(tb.Options, "ENGINE = MyISAM") || !slices.Contains(tb.Options, "AUTO_INCREMENT = 42") {
		t.Errorf("options %q", tb.Options)
	}
	notes := strings.Join(s.Notes, "\n")
	for _, w := range []string{"line 6: ALTER TABLE orders (ADD PRIMARY KEY, ADD KEY) folded", "line 9: ALTER TABLE orders (MODIFY COLUMN, table options) folded", "line 11: ALTER TABLE orders (table options) folded", "line 12: ALTER TABLE orders (PARTITION BY) folded"} {
		if !strings.Contains(notes, w) {
			t.Errorf("notes lack %q:\n%s", w, notes)
		}
	}
	d, err := tidb.Render(tb, tidb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	checkDDL(t, d, false)
	if d.Options.Strategy != tidb.StrategyShardRowID || !strings.Contains(d.Statements[0].SQL, "PARTITION BY RANGE COLUMNS") {
		t.Errorf("two-column key renders %s:\n%s", d.Options.Strategy, d.Statements[0].SQL)
	}
}

// TestRealScriptStatements reads the statements published scripts carry
// around their tables (the employees sample database's, among them) and
// checks each is accounted for: printing SELECTs, FLUSH, a client source
// command with and without its semicolon, DROP FUNCTION before its CREATE,
// LOAD DATA and GRANT kept for applying by hand.
func TestRealScriptStatements(t *testing.T) {
	scriptText := "SELECT 'CREATING DATABASE STRUCTURE' as 'INFO';\n" +
		"/*!50503 set default_storage_engine = InnoDB */;\n/*!50503 select CONCAT('storage engine: ', @@default_storage_engine) as INFO */;\n" +
		"CREATE TABLE t (id INT PRIMARY KEY);\n" +
		"flush /*!50503 binary */ logs;\n" +
		"source load_t.dump ;\n" +
		"source other.dump\n" +
		"DROP FUNCTION IF EXISTS f;\nDELIMITER //\nCREATE FUNCTION f() RETURNS INT DETERMINISTIC BEGIN RETURN 1; END //\nDELIMITER ;\n" +
		"LOAD DATA LOCAL INFILE 't.csv' INTO TABLE t;\n" +
		"GRANT SELECT ON t TO 'app'@'%';\n"
	s, err := script.ParseScript(scriptText, script.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s.Read != s.Accounted || s.Read != 11 {
		t.Errorf("%d read, %d accounted; want 11", s.Read, s.Accounted)
	}
	notes := strings.Join(s.Notes, "\n")
	for _, w := range []string{"lines 1, 3: SELECTs not run", "line 2: session statements", "line 5: maintenance statements not run"} {
		if !strings.Contains(notes, w) {
			t.Errorf("notes lack %q:\n%s", w, notes)
		}
	}
	var kept []string
	for _, st := range s.Statements {
		kept = append(kept, st.What+map[bool]string{true: " (by hand)"}[st.ByHand])
	}
	want := []string{"source load_t.dump (by hand)", "source other.dump (by hand)", "DROP FUNCTION f", "CREATE FUNCTION f", `"LOAD DATA LOCAL …" (by hand)`, `"GRANT SELECT ON …" (by hand)`}
	if !slices.Equal(kept, want) {
		t.Errorf("kept %q\nwant %q", kept, want)
	}
	for _, target := range tidb.Targets() {
		p, err := tidb.RenderScript(s, tidb.Options{Target: target})
		if err != nil {
			t.Fatal(err)
		}
		text, err := p.ByHandText()
		if err != nil {
			t.Fatal(err)
		}
		// On TiDB the function goes by hand (with its DROP); elsewhere it
		// is a migration and its DROP is not run.
		onTiDB := target == tidb.TargetTiDB
		if strings.Contains(text, "CREATE FUNCTION f()") != onTiDB || !strings.Contains(text, "source other.dump\n") || !strings.Contains(text, "LOAD DATA LOCAL INFILE 't.csv' INTO TABLE t;") {
			t.Errorf("%s: by hand:\n%s", target, text)
		}
		if onTiDB && !strings.Contains(text, "DELIMITER ;;\nCREATE FUNCTION f() RETURNS INT DETERMINISTIC BEGIN RETURN 1; END ;;\nDELIMITER ;") {
			t.Errorf("routine not delimited:\n%s", text)
		}
		routines := 0
		for _, st := range p.Steps {
			if st.Kind == script.KindRoutine {
				routines++
				if st.Down != "DROP FUNCTION IF EXISTS `f`" || !slices.Equal(st.OnlyOn, []tidb.Target{tidb.TargetMySQL, tidb.TargetMariaDB}) {
					t.Errorf("routine step %+v", st)
				}
			}
		}
		if routines != map[bool]int{true: 0, false: 1}[onTiDB] {
			t.Errorf("%s: %d routine migrations", target, routines)
		}
	}
}

// TestVersionCutoff reads the spatial Sakila pattern: a GEOMETRY column and
// its SPATIAL KEY inside /*!50705 … */, and the data's matching values
// inside the same version's comments, in a second file. TiDB cannot read
// the column, so every 50705 comment goes (in both files) and the rest
// stays, as MySQL before 5.7.5 runs the scripts; the row then has as many
// values as the table has columns. The same column outside a comment is
// refused with a line that says what to do.
func TestVersionCutoff(t *testing.T) {
	schema := "/*!40101 SET NAMES utf8 */;\nCREATE TABLE address (\n  id SMALLINT UNSIGNED NOT NULL AUTO_INCREMENT,\n  /*!50705 location GEOMETRY NOT NULL,*/\n  phone VARCHAR(20) NOT NULL,\n  PRIMARY KEY (id)\n  /*!50705 , SPATIAL KEY idx_location (location)*/\n) /*!40101 ENGINE=InnoDB */;\n"
	data := "INSERT INTO address VALUES (1,/*!50705 0x000000000101,*/'555'),\n(2,/*!50705 0x000000000102,*/'556');\n"
	s, err := script.ParseScripts([]script.File{{Name: "schema.sql", Text: schema}, {Name: "data.sql", Text: data}}, script.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tb := s.Tables[0]
	if len(tb.Columns) != 2 || tb.Column("location") != nil || len(tb.Indexes) != 0 || !slices.Contains(tb.Options, "ENGINE = InnoDB") {
		t.Errorf("table %+v", tb)
	}
	if got := s.Statements[0].SQL; got != "INSERT INTO `address` VALUES\n(1,'555'),\n(2,'556')" {
		t.Errorf("data %q", got)
	}
	notes := strings.Join(s.Notes, "\n")
	for _, w := range []string{"schema.sql: line 2: 2 conditional comment(s) /*!50705… */ or later left out, as MySQL before 5.7.5", "data.sql: line 1: 2 conditional comment(s)"} {
		if !strings.Contains(notes, w) {
			t.Errorf("notes lack %q:\n%s", w, notes)
		}
	}
	_, err = script.ParseScripts([]script.File{{Name: "plain.sql", Text: strings.NewReplacer("/*!50705 ", "", ",*/", ",", "*/", "").Replace(schema)}}, script.Options{})
	if !errors.Is(err, script.ErrScript) || !strings.Contains(err.Error(), "plain.sql: schema script: line 4: column location GEOMETRY: TiDB has no spatial types") || !strings.Contains(err.Error(), "LONGBLOB") {
		t.Errorf("plain GEOMETRY: %v", err)
	}
}

// TestForeignKeyOrder checks the order and the notes: a table that
// references one created later moves after it, and so does one that
// references a moved table; only those are noted, never a table that did
// not move after a later one. A cycle is broken at its first table, whose
// key closing the cycle becomes an ALTER TABLE step after the tables.
func TestForeignKeyOrder(t *testing.T) {
	scriptText := "CREATE TABLE staff (id INT PRIMARY KEY, store_id INT, addr INT, CONSTRAINT fk_staff_store FOREIGN KEY (store_id) REFERENCES store (id), FOREIGN KEY (addr) REFERENCES address (id));\n" +
		"CREATE TABLE country (id INT PRIMARY KEY);\n" +
		"CREATE TABLE store (id INT PRIMARY KEY, manager INT, CONSTRAINT fk_store_staff FOREIGN KEY (manager) REFERENCES staff (id));\n" +
		"CREATE TABLE address (id INT PRIMARY KEY, boss INT, FOREIGN KEY (boss) REFERENCES address (id));\n"
	s, err := script.ParseScript(scriptText, script.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, tb := range s.Tables {
		order = append(order, tb.Name)
	}
	if !slices.Equal(order, []string{"country", "address", "staff", "store"}) {
		t.Errorf("order %q", order)
	}
	if len(s.ForeignKeys) != 1 || s.ForeignKeys[0].Table.Name != "staff" || s.ForeignKeys[0].Key.Name != "fk_staff_store" {
		t.Fatalf("deferred keys %+v", s.ForeignKeys)
	}
	notes := strings.Join(s.Notes, "\n")
	for _, w := range []string{"line 1: FOREIGN KEY fk_staff_store (→ store) of staff closes a cycle", "line 1: CREATE TABLE staff moved after address: its FOREIGN KEYs reference it",
		"line 3: CREATE TABLE store moved after staff: its FOREIGN KEYs reference it"} {
		if !strings.Contains(notes, w) {
			t.Errorf("notes lack %q:\n%s", w, notes)
		}
	}
	for _, w := range []string{"CREATE TABLE country moved", "CREATE TABLE address moved"} {
		if strings.Contains(notes, w) {
			t.Errorf("notes hold %q (it did not move after a table that comes later):\n%s", w, notes)
		}
	}
	p, err := tidb.RenderScript(s, tidb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.ForeignKeys) != 1 || p.ForeignKeys[0].Statements[0] != "ALTER TABLE `staff` ADD CONSTRAINT `fk_staff_store` FOREIGN KEY (`store_id`) REFERENCES `store`(`id`)" || p.ForeignKeys[0].Down != "ALTER TABLE `staff` DROP FOREIGN KEY `fk_staff_store`" {
		t.Errorf("key step %+v", p.ForeignKeys)
	}
	if strings.Contains(p.Tables[2].Statements[0].SQL, "fk_staff_store") {
		t.Errorf("the key stays in CREATE TABLE staff:\n%s", p.Tables[2].Statements[0].SQL)
	}
}

// TestUseUnqualifies checks that names qualified with the database a USE
// selected lose the qualifier (the tables go into the connection's
// database), in tables, keys, views and data, while a qualified name
// before the USE, or of another database, keeps it.
func TestUseUnqualifies(t *testing.T) {
	scriptText := "CREATE TABLE sakila.before (id INT PRIMARY KEY);\nUSE sakila;\nCREATE TABLE sakila.film (id INT PRIMARY KEY, o INT, FOREIGN KEY (o) REFERENCES sakila.film (id));\n" +
		"CREATE VIEW v AS SELECT f.id FROM sakila.film f JOIN other.t USING (id) WHERE sakila.f.id > 0;\nINSERT INTO sakila.film VALUES (1, NULL);\n"
	s, err := script.ParseScript(scriptText, script.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s.Tables[0].QualifiedName() != "sakila.before" || s.Tables[1].QualifiedName() != "film" || s.Tables[1].Indexes[0].ReferencesSchema != "" {
		t.Errorf("tables %s, %s %+v", s.Tables[0].QualifiedName(), s.Tables[1].QualifiedName(), s.Tables[1].Indexes)
	}
	if v := s.Statements[0].SQL; strings.Contains(v, "`sakila`") || !strings.Contains(v, "`other`.`t`") {
		t.Errorf("view %s", v)
	}
	if d := s.Statements[1].SQL; d != "INSERT INTO `film` VALUES (1,NULL)" {
		t.Errorf("data %s", d)
	}
}

// TestSeedKeys checks the keys a plan gives seed rows that leave a
// generated key out: what MySQL's AUTO_INCREMENT gives them, from the
// table's AUTO_INCREMENT=N, past explicit keys, across statements, for an
// AUTO_RANDOM key and for a key that stays AUTO_INCREMENT; an INSERT …
// SELECT that leaves it out is named as a cost.
func TestSeedKeys(t *testing.T) {
	scriptText := "CREATE TABLE album (id BIGINT AUTO_INCREMENT PRIMARY KEY, title VARCHAR(9)) AUTO_INCREMENT=5;\n" +
		"CREATE TABLE track (id INT AUTO_INCREMENT PRIMARY KEY, album BIGINT, name VARCHAR(9));\n" +
		"INSERT INTO album (title) VALUES ('a'),('b');\n" +
		"INSERT INTO album VALUES (20,'c'),(NULL,'d'),(0,'e');\n" +
		"INSERT INTO track (album, name) VALUES (5,'x'),(6,'y');\n" +
		"INSERT INTO track (album, name) SELECT id, title FROM album;\n"
	s, err := script.ParseScript(scriptText, script.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := tidb.RenderScript(s, tidb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var data []string
	for _, st := range p.Steps {
		data = append(data, st.Statements[1:len(st.Statements)-1]...)
	}
	want := []string{
		"INSERT INTO `album` (`id`,`title`) VALUES\n(5,'a'),\n(6,'b')",
		"INSERT INTO `album` VALUES\n(20,'c'),\n(21,'d'),\n(22,'e')",
		"INSERT INTO `track` (`id`,`album`,`name`) VALUES\n(1,5,'x'),\n(2,6,'y')",
		"INSERT INTO `track` (`album`,`name`) SELECT `id`,`title` FROM `album`",
	}
	if !slices.Equal(data, want) {
		t.Errorf("data\n%q\nwant\n%q", data, want)
	}
	p, err = tidb.RenderScript(s, tidb.Options{NoWiden: true}) // track's INT key stays AUTO_INCREMENT
	if err != nil {
		t.Fatal(err)
	}
	if p.Tables[0].Options.Strategy != tidb.StrategyAutoRandom || p.Tables[1].Options.Strategy != tidb.StrategyShardRowID {
		t.Errorf("strategies %s, %s", p.Tables[0].Options.Strategy, p.Tables[1].Options.Strategy)
	}
	if costs := strings.Join(p.Tables[1].Costs, "\n"); !strings.Contains(costs, "line 6: \"INSERT INTO track …\": INSERT … SELECT leaves the key id out") {
		t.Errorf("track costs %q", costs)
	}
	if notes := strings.Join(p.Notes, "\n"); !strings.Contains(notes, "lines 3, 4: 2 INSERT(s) into album: 4 row(s) leave the key out: given keys from 5 to 22") {
		t.Errorf("notes:\n%s", notes)
	}
}

// TestScriptFormsKept checks three forms a script's meaning rests on: a
// national character type stays national (MySQL gives it utf8mb3, TiDB's
// parser would print a plain VARCHAR); an ALTER TABLE … ADD FOREIGN KEY
// after data stays after it (the data loads without the key, as in the
// script); and a data file alone is refused with the way to give it its
// schema.
func TestScriptFormsKept(t *testing.T) {
	s, err := script.ParseScript("CREATE TABLE a (id INT PRIMARY KEY, n NVARCHAR(10), m NATIONAL CHAR(2), b INT);\nCREATE TABLE b (id INT PRIMARY KEY);\nINSERT INTO a VALUES (1, 'x', 'y', 7);\nALTER TABLE a ADD CONSTRAINT fk_b FOREIGN KEY (b) REFERENCES b (id);\nINSERT INTO b VALUES (7);\n", script.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if a := s.Tables[0]; a.Columns[1].Type != "NATIONAL VARCHAR(10)" || a.Columns[2].Type != "NATIONAL CHAR(2)" || len(a.Indexes) != 0 {
		t.Errorf("table a %+v", a)
	}
	p, err := tidb.RenderScript(s, tidb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, st := range p.Steps {
		kinds = append(kinds, string(st.Kind)+" "+st.Object)
	}
	if !slices.Equal(kinds, []string{"data a", "fk a", "data b"}) || p.Steps[1].Statements[0] != "ALTER TABLE `a` ADD CONSTRAINT `fk_b` FOREIGN KEY (`b`) REFERENCES `b`(`id`)" {
		t.Errorf("steps %q %q", kinds, p.Steps[1].Statements)
	}
	_, err = script.ParseScripts([]script.File{{Name: "data.sql", Text: "SET NAMES utf8;\nINSERT INTO a VALUES (1);\n"}}, script.Options{})
	if !errors.Is(err, script.ErrNoCreateTable) || !strings.Contains(err.Error(), "data.sql: no CREATE TABLE") || !strings.Contains(err.Error(), "shardid tidb render SCHEMA.sql DATA.sql") {
		t.Errorf("data alone: %v", err)
	}
}

// TestSkipDataAndLoadData checks that --skip-data leaves LOAD DATA out
// with the other data statements (no by-hand statement is left, so render
// needs no --by-hand), and that without it the rows an INSERT after a LOAD
// DATA into the same table numbers are not said to get the keys MySQL
// gives them (MySQL numbers them after the loaded rows, which are loaded
// by hand after the migrations); the notes of many INSERTs into one table
// are one note.
func TestSkipDataAndLoadData(t *testing.T) {
	scriptText := "CREATE TABLE t (id BIGINT AUTO_INCREMENT PRIMARY KEY, v INT);\n" +
		"CREATE TABLE u (id INT AUTO_INCREMENT PRIMARY KEY, v INT);\n" +
		"LOAD DATA LOCAL INFILE '/tmp/x.csv' INTO TABLE t FIELDS TERMINATED BY ',' (v);\n" +
		"INSERT INTO t (v) VALUES (1);\n" +
		"INSERT INTO u (v) VALUES (1);\nINSERT INTO u (v) VALUES (2), (3);\nINSERT INTO u (v) VALUES (4);\n"
	s, err := script.ParseScript(scriptText, script.Options{SkipData: true})
	if err != nil {
		t.Fatal(err)
	}
	p, err := tidb.RenderScript(s, tidb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	notes := strings.Join(p.Notes, "\n")
	if len(p.ByHand) != 0 || len(p.Steps) != 0 || !strings.Contains(notes, "lines 3, 4, 5, 6, 7: data statements left out (--skip-data") {
		t.Errorf("--skip-data: %d by hand, %d steps, notes:\n%s", len(p.ByHand), len(p.Steps), notes)
	}
	s, err = script.ParseScript(scriptText, script.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p, err = tidb.RenderScript(s, tidb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	notes = strings.Join(p.Notes, "\n")
	for _, want := range []string{
		"line 4: 1 INSERT(s) into t: 1 row(s) leave the key out: given keys from 1 to 1, counted as if t were empty; in the script they come after the rows of LOAD DATA at line 3",
		"lines 5, 6, 7: 3 INSERT(s) into u: 4 row(s) leave the key out: given keys from 1 to 4, the keys MySQL's AUTO_INCREMENT gives them",
	} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q:\n%s", want, notes)
		}
	}
	if strings.Contains(notes, "into t: 1 row(s) leave the key out: given keys from 1 to 1, the keys MySQL") || strings.Count(notes, "leave the key out") != 2 {
		t.Errorf("notes:\n%s", notes)
	}
}
