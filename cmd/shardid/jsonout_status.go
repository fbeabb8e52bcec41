package main

import (
	"github.com/shardid/shardid/segment"
	"github.com/shardid/shardid/tickets"
	"github.com/shardid/shardid/tidb"
	"github.com/shardid/shardid/tidb/apply"
)

// segmentTagRow is one tag of segment status --json.
type segmentTagRow = segment.TagRow

// tidbStatusRow is one migration of tidb status --json.
type tidbStatusRow = apply.StatusRow

// tidbStatusJSON adds st to r.
func tidbStatusJSON(r *jsonReport, st []apply.Status) {
	for _, s := range st {
		r.row(s.Row())
	}
	r.total("migrations", len(st))
	r.total("drifted", apply.CountStatus(st).Drifted)
}

// ticketsRow is one server of tickets status --json.
type ticketsRow = tickets.ServerRow

// renderJSON is tidb render --json: the statements render prints, and
// the choices it prints on stderr without --json.
type renderJSON struct {
	Target     string        `json:"target"`
	Statements string        `json:"statements"`
	Tables     []renderTable `json:"tables"`
	Notes      []string      `json:"notes"`
	ByHand     int           `json:"by_hand"`      // statements no migration runs
	ByHandFile string        `json:"by_hand_file"` // where they went ("" when none)
}

// renderTable is one table's choice.
type renderTable struct {
	Table    string   `json:"table"`
	Strategy string   `json:"strategy"`
	Why      string   `json:"why"`
	Changed  []string `json:"changed"`
	Costs    []string `json:"costs"`
	Warnings []string `json:"warnings"`
}

// renderDoc is p as tidb render --json prints it; byHand is --by-hand.
func renderDoc(p *tidb.Plan, byHand string) renderJSON {
	doc := renderJSON{Target: string(p.Target), Statements: p.SQL(), Notes: p.Notes, ByHand: len(p.ByHand)}
	if len(p.ByHand) > 0 {
		doc.ByHandFile = byHand
	}
	for _, d := range p.Tables {
		doc.Tables = append(doc.Tables, renderTable{Table: d.Table.QualifiedName(), Strategy: string(d.Options.Strategy), Why: d.Reason,
			Changed: d.Notes, Costs: d.Costs, Warnings: append(append([]string{}, d.KeyWarnings...), d.Warnings...)})
	}
	return doc
}
