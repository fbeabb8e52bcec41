package explain

import "github.com/shardid/shardid/tidb"

// Doc is a plan as shardid tidb render --json prints it: the statements
// render prints, and the choices it prints on stderr without --json.
type Doc struct {
	Target     string   `json:"target"`
	Statements string   `json:"statements"`
	Tables     []Table  `json:"tables"`
	Notes      []string `json:"notes"`
	ByHand     int      `json:"by_hand"`      // statements no migration runs
	ByHandFile string   `json:"by_hand_file"` // where they went ("" when none)
}

// Table is one table's choice in a Doc.
type Table struct {
	Table    string   `json:"table"`
	Strategy string   `json:"strategy"`
	Why      string   `json:"why"`
	Changed  []string `json:"changed"`
	Costs    []string `json:"costs"`
	Warnings []string `json:"warnings"` // the key warnings, then the others
}

// Document returns p as a Doc; byHandFile is where the statements to
// apply by hand were written (kept only when p has any).
func Document(p *tidb.Plan, byHandFile string) Doc {
	doc := Doc{Target: string(p.Target), Statements: p.SQL(), Notes: p.Notes, ByHand: len(p.ByHand)}
	if len(p.ByHand) > 0 {
		doc.ByHandFile = byHandFile
	}
	for _, d := range p.Tables {
		doc.Tables = append(doc.Tables, Table{Table: d.Table.QualifiedName(), Strategy: string(d.Options.Strategy), Why: d.Reason,
			Changed: d.Notes, Costs: d.Costs, Warnings: append(append([]string{}, d.KeyWarnings...), d.Warnings...)})
	}
	return doc
}
