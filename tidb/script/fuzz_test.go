package script_test

import (
	"errors"
	"testing"

	"github.com/shardid/shardid/tidb"
	"github.com/shardid/shardid/tidb/apply"
	"github.com/shardid/shardid/tidb/script"
)

// FuzzParseScript: any text is either refused with one of ParseScript's
// errors or gives tables that render under the automatic strategy, every
// statement accounted for, and a plan for every target whose statements
// TiDB's parser reads back; it never panics, whatever its quotes,
// comments and DELIMITER lines.
func FuzzParseScript(f *testing.F) {
	for _, s := range []string{
		"CREATE TABLE t (id BIGINT PRIMARY KEY AUTO_INCREMENT, c VARCHAR(10) COMMENT 'a;\\nb');",
		"/*!40101 SET NAMES utf8 */;\nDROP TABLE IF EXISTS `t`;\nCREATE TABLE `t` (`id` int NOT NULL, PRIMARY KEY (`id`));\n",
		"DELIMITER //\nCREATE TRIGGER x BEFORE INSERT ON t FOR EACH ROW BEGIN SET NEW.a = 1; END//\nDELIMITER ;\n",
		"\ufeffCREATE TABLE a (x int); CREATE INDEX i ON a (x); ALTER TABLE a ADD COLUMN y int;",
		"CREATE TABLE a (id int PRIMARY KEY, b int REFERENCES b(id)); CREATE TABLE b (id int PRIMARY KEY);",
		"-- c\n# c\n/* c */ CREATE TABLE `x``y` (`id` bigint) ;; ",
		"CREATE TABLE a (id INT PRIMARY KEY, /*!50705 g GEOMETRY,*/ v INT);\nINSERT INTO a VALUES (1, /*!50705 0x00,*/ 2),(3,4);\nsource x.dump\nCREATE VIEW v AS SELECT * FROM a;",
		"USE d;\nCREATE TABLE d.a (id BIGINT AUTO_INCREMENT PRIMARY KEY, b INT, FOREIGN KEY (b) REFERENCES d.b (id));\nCREATE TABLE b (id INT PRIMARY KEY, a BIGINT, FOREIGN KEY (a) REFERENCES a (id));\nALTER TABLE a ENGINE=InnoDB, AUTO_INCREMENT=5;",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if len(text) > 2048 {
			return
		}
		s, err := script.ParseScript(text, script.Options{})
		if err != nil {
			for _, want := range []error{script.ErrParse, script.ErrScript, script.ErrNoCreateTable, script.ErrNotCreateTable, script.ErrInvalidIdentifier} {
				if errors.Is(err, want) {
					return
				}
			}
			t.Fatalf("%q: error %v wraps none of ParseScript's sentinels", text, err)
		}
		for _, tb := range s.Tables {
			_, _ = tidb.Render(tb, tidb.Options{}) // may refuse; must not panic
		}
		if s.Read != s.Accounted {
			t.Fatalf("%q: %d statements read, %d accounted for", text, s.Read, s.Accounted)
		}
		// The whole script, for each target: what TiDB's parser must read
		// back is read back (an error that wraps none of Render's
		// sentinels is a statement shardid wrote wrong), and the files and
		// the by-hand list are written.
		for _, target := range tidb.Targets() {
			p, err := tidb.RenderScript(s, tidb.Options{Target: target})
			if err != nil {
				if !errors.Is(err, tidb.ErrKey) && !errors.Is(err, tidb.ErrConflict) && !errors.Is(err, tidb.ErrRangeBits) && !errors.Is(err, tidb.ErrDigits) && !errors.Is(err, script.ErrInvalidIdentifier) && !errors.Is(err, script.ErrScript) {
					t.Fatalf("%q: RenderScript: %v", text, err)
				}
				continue
			}
			if _, err := apply.Migrations(p, apply.Options{}); err != nil && !errors.Is(err, apply.ErrMigrationFile) {
				t.Fatalf("%q: Migrations: %v", text, err)
			}
			if _, err := p.ByHandText(); err != nil {
				t.Fatalf("%q: ByHandText: %v", text, err)
			}
		}
	})
}
