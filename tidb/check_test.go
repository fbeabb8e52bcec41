package tidb_test

import (
	"strings"
	"testing"

	"github.com/pingcap/tidb/pkg/parser"
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/shardid/shardid/tidb"
)

// parsedFacts is what TiDB's parser finds in a rendered statement.
type parsedFacts struct {
	kind            string // "create", "alter", "split"
	shardRowIDBits  int    // -1 when absent
	preSplit        int    // -1 when absent
	autoRandomCol   string // column carrying AUTO_RANDOM
	autoRandomShard int
	autoRandomRange int
	autoIncrement   bool
	clustering      ast.PrimaryKeyType
	hasPrimaryKey   bool
	splitValues     int
}

// parseFacts re-parses one statement with TiDB's parser, failing t unless
// it is exactly one statement, and collects the options from the AST.
func parseFacts(t *testing.T, sql string) parsedFacts {
	t.Helper()
	stmts, _, err := parser.New().Parse(sql, "", "")
	if err != nil {
		t.Fatalf("TiDB's parser rejects the output: %v\n%s", err, sql)
	}
	if len(stmts) != 1 {
		t.Fatalf("got %d statements, want 1:\n%s", len(stmts), sql)
	}
	f := parsedFacts{shardRowIDBits: -1, preSplit: -1}
	tableOpts := func(opts []*ast.TableOption) {
		for _, o := range opts {
			switch o.Tp {
			case ast.TableOptionShardRowID:
				f.shardRowIDBits = int(o.UintValue)
			case ast.TableOptionPreSplitRegion:
				f.preSplit = int(o.UintValue)
			}
		}
	}
	colOpts := func(c *ast.ColumnDef) {
		for _, o := range c.Options {
			switch o.Tp {
			case ast.ColumnOptionAutoRandom:
				f.autoRandomCol = c.Name.Name.O
				f.autoRandomShard, f.autoRandomRange = o.AutoRandOpt.ShardBits, o.AutoRandOpt.RangeBits
			case ast.ColumnOptionAutoIncrement:
				if c.Name.Name.O == f.autoRandomCol || f.autoRandomCol == "" {
					f.autoIncrement = true
				}
			case ast.ColumnOptionPrimaryKey:
				f.hasPrimaryKey, f.clustering = true, o.PrimaryKeyTp
			}
		}
	}
	switch s := stmts[0].(type) {
	case *ast.CreateTableStmt:
		f.kind = "create"
		tableOpts(s.Options)
		for _, c := range s.Cols {
			colOpts(c)
		}
		for _, c := range s.Constraints {
			if c.Tp == ast.ConstraintPrimaryKey {
				f.hasPrimaryKey = true
				if c.Option != nil {
					f.clustering = c.Option.PrimaryKeyTp
				}
			}
		}
	case *ast.AlterTableStmt:
		f.kind = "alter"
		for _, spec := range s.Specs {
			tableOpts(spec.Options)
			for _, c := range spec.NewColumns {
				colOpts(c)
			}
		}
	case *ast.SplitRegionStmt:
		f.kind = "split"
		f.splitValues = len(s.SplitOpt.ValueLists)
	case *ast.SetStmt:
		f.kind = "session"
		if len(s.Variables) != 1 || s.Variables[0].Name != "tidb_allow_remove_auto_inc" || s.Variables[0].IsGlobal {
			t.Fatalf("unexpected SET (want the session's tidb_allow_remove_auto_inc):\n%s", sql)
		}
	default:
		t.Fatalf("unexpected statement %T:\n%s", s, sql)
	}
	return f
}

// checkDDL re-parses every statement of d and checks that TiDB's parser
// sees the options the strategy promises.
func checkDDL(t *testing.T, d *tidb.DDL, alter bool) {
	t.Helper()
	o := d.Options
	for _, st := range d.Statements {
		f := parseFacts(t, st.SQL)
		if f.kind != string(st.Kind) {
			t.Fatalf("statement parses as %s, labelled %s", f.kind, st.Kind)
		}
		switch f.kind {
		case "create":
			if !strings.Contains(st.SQL, "/*T!") && (o.Strategy != tidb.StrategyShardRowID || d.Table.PrimaryKey != nil) {
				t.Errorf("CREATE carries no TiDB comment:\n%s", st.SQL)
			}
			switch o.Strategy {
			case tidb.StrategyShardRowID:
				if f.shardRowIDBits != o.ShardBits {
					t.Errorf("SHARD_ROW_ID_BITS = %d, want %d", f.shardRowIDBits, o.ShardBits)
				}
				wantPre := o.PreSplit
				if o.NoPreSplit {
					wantPre = -1
				}
				if f.preSplit != wantPre {
					t.Errorf("PRE_SPLIT_REGIONS = %d, want %d", f.preSplit, wantPre)
				}
				if f.hasPrimaryKey && f.clustering != ast.PrimaryKeyTypeNonClustered {
					t.Errorf("primary key is %v, want NONCLUSTERED", f.clustering)
				}
				if f.autoRandomCol != "" {
					t.Errorf("AUTO_RANDOM on %s beside SHARD_ROW_ID_BITS", f.autoRandomCol)
				}
			case tidb.StrategyAutoRandom:
				key := d.Table.PrimaryKey.Parts[0].Column
				if f.autoRandomCol != key || f.autoRandomShard != o.ShardBits {
					t.Errorf("AUTO_RANDOM on %q with %d shard bits, want %q with %d", f.autoRandomCol, f.autoRandomShard, key, o.ShardBits)
				}
				if wantR := o.RangeBits; wantR != 64 && f.autoRandomRange != wantR {
					t.Errorf("AUTO_RANDOM range %d, want %d", f.autoRandomRange, wantR)
				}
				wantPre := o.PreSplit
				if o.NoPreSplit {
					wantPre = -1
				}
				if f.preSplit != wantPre {
					t.Errorf("PRE_SPLIT_REGIONS = %d, want %d", f.preSplit, wantPre)
				}
				// TiDB's parser reads AUTO_INCREMENT only in the MySQL text
				// (where TiDB refuses the table); the others carry it for
				// MariaDB in a /*M! comment TiDB skips.
				mysql := o.Target == tidb.TargetMySQL
				if f.clustering != ast.PrimaryKeyTypeClustered || f.shardRowIDBits != -1 || f.autoIncrement != mysql {
					t.Errorf("AUTO_RANDOM needs CLUSTERED, no SHARD_ROW_ID_BITS, AUTO_INCREMENT only for MySQL: got %v, %d, %v", f.clustering, f.shardRowIDBits, f.autoIncrement)
				}
				if !mysql && !strings.Contains(st.SQL, "/*M! AUTO_INCREMENT */ /*T![auto_rand]") && !strings.Contains(strings.Join(d.Notes, " "), "gets no AUTO_INCREMENT for MariaDB") {
					t.Errorf("the AUTO_RANDOM key keeps no AUTO_INCREMENT for MariaDB:\n%s", st.SQL)
				}
			case tidb.StrategyRotatedInt:
				if f.clustering != ast.PrimaryKeyTypeClustered || f.shardRowIDBits != -1 || f.autoRandomCol != "" {
					t.Errorf("rotated-int needs a plain CLUSTERED key: got %v, shard bits %d, AUTO_RANDOM on %q", f.clustering, f.shardRowIDBits, f.autoRandomCol)
				}
			}
		case "alter":
			switch o.Strategy {
			case tidb.StrategyShardRowID:
				if f.shardRowIDBits != o.ShardBits {
					t.Errorf("ALTER sets SHARD_ROW_ID_BITS = %d, want %d", f.shardRowIDBits, o.ShardBits)
				}
			case tidb.StrategyAutoRandom:
				if f.autoRandomCol == "" || f.autoRandomShard != o.ShardBits || f.autoIncrement {
					t.Errorf("ALTER AUTO_RANDOM on %q (%d bits, AUTO_INCREMENT %v), want the key with %d bits and no AUTO_INCREMENT", f.autoRandomCol, f.autoRandomShard, f.autoIncrement, o.ShardBits)
				}
			}
		case "split":
			var want int
			switch {
			case o.Strategy == tidb.StrategyRotatedInt:
				pts, err := tidb.RotatedSplitPoints(o.Digits, o.IDDigits, o.Lead, d.Table.Column(d.Table.PrimaryKey.Parts[0].Column).Unsigned)
				if err != nil {
					t.Fatal(err)
				}
				want = len(pts)
			case alter && (o.Strategy == tidb.StrategyShardRowID || o.Strategy == tidb.StrategyAutoRandom):
				want = 1<<o.PreSplit - 1
			}
			if f.splitValues != want {
				t.Errorf("SPLIT TABLE has %d points, want %d", f.splitValues, want)
			}
		}
	}
}
