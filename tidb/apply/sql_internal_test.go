package apply

import (
	"strings"
	"testing"

	"github.com/pingcap/tidb/pkg/parser"
)

// TestStatementsParseOnTiDB: TiDB's own parser reads every statement of
// the package's templates that Migrator sends itself (the steps table and
// the run lock), one statement each, with and without a schema.
func TestStatementsParseOnTiDB(t *testing.T) {
	n := 0
	for _, tm := range templates.Templates() {
		name := tm.Name()
		// The migration files are checked as files; steps_table is a
		// table name inside the others.
		if strings.HasSuffix(name, ".sql.tmpl") || name == "apply" || name == "steps_table" {
			continue
		}
		n++
		for _, v := range []stepsView{{Goose: "goose_db_version"}, {Schema: "app", Goose: "hist"}} {
			s, err := execute(name, v)
			if err != nil {
				t.Fatal(err)
			}
			nodes, _, err := parser.New().Parse(s, "", "")
			if err != nil || len(nodes) != 1 {
				t.Errorf("%s: %d statements, %v\n%s", name, len(nodes), err, s)
			}
		}
	}
	if n < 8 {
		t.Errorf("checked %d statements, want the steps table's and the run lock's (8)", n)
	}
}
