package script_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/shardid/shardid/tidb/script"
)

// TestParseScript reads a mysqldump-shaped script: BOM, conditional
// comments, session SETs, DROP, CREATE DATABASE/USE, views, a trigger and a
// procedure behind DELIMITER, CREATE INDEX and ALTER … ADD folded in, data
// skipped on request. Every CREATE TABLE comes out, FOREIGN KEY targets
// first, and every other statement is accounted for in the notes.
func TestParseScript(t *testing.T) {
	scriptText := "\uFEFF-- MySQL dump\n" +
		"/*!40101 SET @OLD_CHARACTER_SET_CLIENT=@@CHARACTER_SET_CLIENT */;\n" +
		"/*!40014 SET @OLD_FOREIGN_KEY_CHECKS=@@FOREIGN_KEY_CHECKS, FOREIGN_KEY_CHECKS=0 */;\n" +
		"CREATE DATABASE /*!32312 IF NOT EXISTS*/ `shop` /*!40100 DEFAULT CHARACTER SET utf8mb4 */;\n" +
		"USE `shop`;\n" +
		"DROP TABLE IF EXISTS `orders`;\n" +
		"CREATE TABLE `orders` (\n  `id` bigint NOT NULL AUTO_INCREMENT,\n  `customer` varchar(9) NOT NULL,\n  `note` varchar(40) DEFAULT 'a;\nb -- +goose Down',\n  PRIMARY KEY (`id`),\n  CONSTRAINT `fk_c` FOREIGN KEY (`customer`) REFERENCES `customers` (`code`)\n) ENGINE=InnoDB AUTO_INCREMENT=5 DEFAULT CHARSET=utf8mb4;\n" +
		"LOCK TABLES `orders` WRITE;\n/*!40000 ALTER TABLE `orders` DISABLE KEYS */;\nINSERT INTO `orders` VALUES (1,'c1','x;y');\n/*!40000 ALTER TABLE `orders` ENABLE KEYS */;\nUNLOCK TABLES;\n" +
		"CREATE TABLE customers (code varchar(9) NOT NULL PRIMARY KEY);\n" +
		"CREATE INDEX by_customer ON orders (customer);\n" +
		"ALTER TABLE customers ADD COLUMN name varchar(20) AFTER code, ADD UNIQUE KEY uk_name (name);\n" +
		"/*!50001 CREATE ALGORITHM=UNDEFINED */ /*!50001 VIEW `v` AS SELECT 1 AS `x` */;\n" +
		"DELIMITER ;;\n/*!50003 CREATE*/ /*!50017 DEFINER=`root`@`localhost`*/ /*!50003 TRIGGER `t1` BEFORE INSERT ON `orders` FOR EACH ROW BEGIN SET NEW.note = 'x'; END */;;\n" +
		"CREATE DEFINER=`root`@`%` PROCEDURE `p`() BEGIN SELECT 1; SELECT 2; END ;;\nDELIMITER ;\n" +
		"# done\n/*!40014 SET FOREIGN_KEY_CHECKS=@OLD_FOREIGN_KEY_CHECKS */;\n"
	s, err := script.ParseScript(scriptText, script.Options{SkipData: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Tables) != 2 || s.Tables[0].Name != "customers" || s.Tables[1].Name != "orders" {
		t.Fatalf("tables %v", s.Tables)
	}
	cust, orders := s.Tables[0], s.Tables[1]
	if len(cust.Columns) != 2 || cust.Columns[1].Name != "name" || len(cust.Indexes) != 1 || len(orders.Indexes) != 2 || orders.Line != 7 {
		t.Errorf("folded: customers %+v, orders indexes %+v line %d", cust.Columns, orders.Indexes, orders.Line)
	}
	notes := strings.Join(s.Notes, "\n")
	for _, w := range []string{"lines 2, 3, 15, 16, 18", "line 6: DROP", "lines 4, 5: CREATE DATABASE/USE", "line 17: data statements left out",
		"line 21: CREATE INDEX by_customer folded", "line 22: ALTER TABLE customers (ADD COLUMN, ADD KEY) folded", "line 7: CREATE TABLE orders moved after customers: its FOREIGN KEYs reference it"} {
		if !strings.Contains(notes, w) {
			t.Errorf("notes lack %q:\n%s", w, notes)
		}
	}
	var kept []string
	for _, st := range s.Statements {
		kept = append(kept, fmt.Sprintf("%d %s %s %s %v", st.Line, st.Kind, st.Object, st.ObjectType, st.Verbatim))
	}
	if want := []string{"23 view v  false", "25 routine t1 TRIGGER true", "26 routine p PROCEDURE true"}; !slices.Equal(kept, want) {
		t.Errorf("statements kept %q, want %q", kept, want)
	}
	if s.Read != s.Accounted || s.Read != 18 {
		t.Errorf("%d statements read, %d accounted for; want 18 and 18", s.Read, s.Accounted)
	}
	// Without SkipData the INSERT is kept, with the FOREIGN_KEY_CHECKS=0
	// the script set before it.
	s, err = script.ParseScript(scriptText, script.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if st := s.Statements[0]; st.Kind != script.KindData || st.Line != 17 || st.ForeignKeyChecks || !slices.Equal(st.Writes, []string{"orders"}) || st.SQL != "INSERT INTO `orders` VALUES (1,'c1','x;y')" {
		t.Errorf("data statement %+v", st)
	}
}

// TestParseScriptRefusals checks each refusal names the line and the way
// out.
func TestParseScriptRefusals(t *testing.T) {
	for scriptText, want := range map[string]string{
		"CREATE TABLE a (x INT);\nALTER TABLE a DROP COLUMN x;":                               "line 2: ALTER TABLE a: only ADD COLUMN",
		"CREATE INDEX i ON elsewhere (x);":                                                    "line 1: CREATE INDEX i on elsewhere, which the script does not create",
		"CREATE TABLE a (x INT);\nCREATE TABLE a (y INT);":                                    "line 2: table a is created twice (first at line 1)",
		"CREATE TABLE a (x INT);\nSELECT x FROM a INTO OUTFILE '/tmp/x';":                     "line 2: \"SELECT x FROM …\": SELECT … INTO keeps a value",
		"CREATE TABLE a (\n  id INT,\n  at POINT NOT NULL\n);":                                "line 3: column at POINT: TiDB has no spatial types",
		"CREATE TABLE a (id INT);\nCREATE SPATIAL INDEX sp ON a (id);":                        "line 2: CREATE INDEX sp: only plain, UNIQUE and FULLTEXT",
		"CREATE TABLE a (id INT);\nALTER TABLE a ADD PRIMARY KEY (id), ADD PRIMARY KEY (id);": "ADD PRIMARY KEY: a already has one",
		"SET NAMES utf8;\n\nCREATE TABLE a (x INT);\nCREATE TABLE b (x INT,);":                "line 4",
		"SET NAMES utf8;":  `no CREATE TABLE statement (only "SET NAMES utf8")`,
		"":                 "no CREATE TABLE statement (the script is empty or holds only comments)",
		"-- a\n/* b */\n#": "no CREATE TABLE statement (the script is empty or holds only comments)",
		"SET a=1; SET b=2; DROP TABLE t; SET c=3; SET d=4;": `no CREATE TABLE statement (only "SET a=1", "SET b=2", "DROP TABLE t", …)`,
		"CREATE TABLE a (x INT); RENAME TABLE a TO b;":      `"RENAME TABLE a …" is not supported`,
	} {
		_, err := script.ParseScript(scriptText, script.Options{})
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: %v; want one line with %q", scriptText, err, want)
		}
	}
}
