package tidb_test

import (
	"errors"
	"testing"

	"github.com/shardid/shardid/tidb"
)

// FuzzParseScript: any text is either refused with one of ParseScript's
// errors or gives tables that render under the automatic strategy; it
// never panics, whatever its quotes, comments and DELIMITER lines.
func FuzzParseScript(f *testing.F) {
	for _, s := range []string{
		"CREATE TABLE t (id BIGINT PRIMARY KEY AUTO_INCREMENT, c VARCHAR(10) COMMENT 'a;\\nb');",
		"/*!40101 SET NAMES utf8 */;\nDROP TABLE IF EXISTS `t`;\nCREATE TABLE `t` (`id` int NOT NULL, PRIMARY KEY (`id`));\n",
		"DELIMITER //\nCREATE TRIGGER x BEFORE INSERT ON t FOR EACH ROW BEGIN SET NEW.a = 1; END//\nDELIMITER ;\n",
		"\ufeffCREATE TABLE a (x int); CREATE INDEX i ON a (x); ALTER TABLE a ADD COLUMN y int;",
		"CREATE TABLE a (id int PRIMARY KEY, b int REFERENCES b(id)); CREATE TABLE b (id int PRIMARY KEY);",
		"-- c\n# c\n/* c */ CREATE TABLE `x``y` (`id` bigint) ;; ",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if len(text) > 2048 {
			return
		}
		s, err := tidb.ParseScript(text, tidb.ScriptOptions{SkipData: true})
		if err != nil {
			for _, want := range []error{tidb.ErrParse, tidb.ErrScript, tidb.ErrNoCreateTable, tidb.ErrNotCreateTable, tidb.ErrInvalidIdentifier} {
				if errors.Is(err, want) {
					return
				}
			}
			t.Fatalf("%q: error %v wraps none of ParseScript's sentinels", text, err)
		}
		for _, tb := range s.Tables {
			_, _ = tidb.Render(tb, tidb.Options{}) // may refuse; must not panic
		}
	})
}
