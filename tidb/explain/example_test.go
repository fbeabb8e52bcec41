package explain_test

import (
	"os"

	"github.com/shardid/shardid/tidb"
	"github.com/shardid/shardid/tidb/explain"
	"github.com/shardid/shardid/tidb/script"
)

// A plan said as shardid tidb render says it on stderr.
func ExampleChoices() {
	s, err := script.ParseScript("CREATE TABLE t (code VARCHAR(20) PRIMARY KEY, n INT);\n", script.Options{})
	if err != nil {
		panic(err)
	}
	p, err := tidb.RenderScript(s, tidb.Options{})
	if err != nil {
		panic(err)
	}
	if err := (explain.Choices{Plan: p}).WriteText(os.Stdout); err != nil {
		panic(err)
	}
	// Output:
	// table  strategy     why
	// t      shard-rowid  VARCHAR key
}
