package main

import (
	"time"

	"github.com/shardid/shardid/segment"
	"github.com/shardid/shardid/tickets"
	"github.com/shardid/shardid/tidb"
	"github.com/shardid/shardid/tidb/apply"
)

// segmentTagRow is one tag of segment status --json.
type segmentTagRow struct {
	Tag         string        `json:"tag"`
	MaxID       int64         `json:"max_id"` // handed out up to
	Step        int64         `json:"step"`
	Description string        `json:"description"`
	UpdateTime  time.Time     `json:"update_time"`
	Fenced      bool          `json:"fenced"`
	LastRewind  *segmentRewnd `json:"last_rewind"` // null: none found
}

// segmentRewnd is a rewind a client found.
type segmentRewnd struct {
	Time  time.Time `json:"time"`
	Found int64     `json:"found"`
	Seen  int64     `json:"seen"`
}

// segmentStatusJSON adds tags to r.
func segmentStatusJSON(r *jsonReport, tags []segment.Tag) {
	if r == nil {
		return
	}
	for _, t := range tags {
		row := segmentTagRow{Tag: t.Tag, MaxID: t.MaxID, Step: t.Step, Description: t.Description, UpdateTime: t.UpdateTime.UTC(), Fenced: t.Fenced}
		if w := t.LastRewind; !w.IsZero() {
			row.LastRewind = &segmentRewnd{Time: w.Time.UTC(), Found: w.Found, Seen: w.Seen}
		}
		r.row(row)
	}
	r.total("tags", len(tags))
}

// tidbStatusRow is one migration of tidb status --json.
type tidbStatusRow struct {
	Version   int64      `json:"version"`
	Name      string     `json:"name"`
	State     string     `json:"state"` // pending, applied, skipped, drift or full
	AppliedAt *time.Time `json:"applied_at"`
	TiDBOnly  bool       `json:"tidb_only"`
	Drift     []string   `json:"drift"`
	Unchecked []string   `json:"unchecked"`
	Full      []string   `json:"full,omitempty"` // tables that cannot take an insert
}

// tidbUpRow is one migration of tidb up --json.
type tidbUpRow struct {
	Version int64  `json:"version"`
	Name    string `json:"name"`
	// State is applied, skipped (TiDB only, recorded without running) or
	// already applied.
	State  string `json:"state"`
	Millis int64  `json:"ms,omitempty"`
}

// tidbStatusJSON adds st to r.
func tidbStatusJSON(r *jsonReport, st []apply.Status) {
	if r == nil {
		return
	}
	for _, s := range st {
		row := tidbStatusRow{Version: s.Migration.Version, Name: s.Migration.Name, State: s.State(), TiDBOnly: s.Migration.TiDBOnly, Drift: s.Drift, Unchecked: s.Unchecked, Full: s.Full}
		if s.Applied {
			at := s.AppliedAt.UTC()
			row.AppliedAt = &at
		}
		r.row(row)
	}
	r.total("migrations", len(st))
	r.total("drifted", apply.CountStatus(st).Drifted)
}

// ticketsRow is one server of tickets status --json.
type ticketsRow struct {
	Server    string `json:"server"`
	Kind      string `json:"kind,omitempty"`
	Increment int64  `json:"increment,omitempty"`
	Offset    int64  `json:"offset,omitempty"`
	Last      *int64 `json:"last,omitempty"`     // a table server's counter; the most a sequence may have handed out
	Recorded  int64  `json:"recorded,omitempty"` // highest ticket clients recorded
	Behind    *int64 `json:"behind,omitempty"`   // tickets behind the furthest server
	Error     string `json:"error,omitempty"`    // the server could not be read
}

// ticketsRowOf is server name's row: its settings s, its class row c, and
// top, the furthest counter of the table servers.
func ticketsRowOf(name string, s tickets.ServerSettings, c tickets.ClassRow, top int64) ticketsRow {
	row := ticketsRow{Server: name, Kind: string(s.Kind), Increment: s.Increment, Offset: s.Offset, Recorded: c.Seen}
	switch {
	case s.Kind == tickets.KindTable:
		last, behind := s.Last, max(top-s.Last, 0)/s.Increment
		row.Last, row.Behind = &last, &behind
	case s.LastKnown: // a sequence: the most it may have handed out
		last := s.Last
		row.Last = &last
	}
	return row
}

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
