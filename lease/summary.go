package lease

import "time"

// State is the row's state as `shardid worker status` names it: "fence"
// while a fence keeps new holders off the node, "live" while a holder's
// lease lasts, "free" otherwise.
func (i Info) State() string {
	switch {
	case i.Fenced && i.Live:
		return "fence"
	case i.Live:
		return "live"
	}
	return "free"
}

// Summary is what the rows of a lease table add up to (Summarize).
type Summary struct {
	// Leased counts the node ids ever leased (rows with a holder).
	Leased int
	// Live counts the node ids a holder's lease holds now.
	Live int
	// Fenced counts the node ids a fence keeps new holders off now.
	Fenced int
	// Runs are the fenced node ids as runs of consecutive ids, in order.
	Runs []FencedRun
}

// FencedRun is a run of consecutive fenced node ids, from First to Last,
// and the earliest and latest end of their fence.
type FencedRun struct {
	First, Last int64
	From, Until time.Time
}

// Summarize adds up rows, in node order as List returns them.
func Summarize(rows []Info) Summary {
	var s Summary
	for _, l := range rows {
		if l.Holder != "" {
			s.Leased++
		}
		switch l.State() {
		case "live":
			s.Live++
			continue
		case "free":
			continue
		}
		s.Fenced++
		if n := len(s.Runs); n > 0 && s.Runs[n-1].Last == l.Node-1 {
			r := &s.Runs[n-1]
			r.Last = l.Node
			if l.Until.After(r.Until) {
				r.Until = l.Until
			}
			if l.Until.Before(r.From) {
				r.From = l.Until
			}
			continue
		}
		s.Runs = append(s.Runs, FencedRun{l.Node, l.Node, l.Until, l.Until})
	}
	return s
}

// InfoRow is an Info as `shardid worker status --json` writes it: one row
// of the document, instants in RFC 3339 with nanoseconds.
type InfoRow struct {
	Node      int64  `json:"node"`
	Holder    string `json:"holder"`
	Live      bool   `json:"live"`
	Until     string `json:"until"`
	LastDrawn string `json:"last_drawn,omitempty"`
	Layout    string `json:"layout"`
	Fenced    bool   `json:"fenced,omitempty"` // a fence holds it now
}

// Row returns i as an InfoRow.
func (i Info) Row() InfoRow {
	row := InfoRow{Node: i.Node, Holder: i.Holder, Live: i.Live, Until: i.Until.Format(time.RFC3339Nano), Layout: i.Layout, Fenced: i.State() == "fence"}
	if !i.LastDrawn.IsZero() {
		row.LastDrawn = i.LastDrawn.Format(time.RFC3339Nano)
	}
	return row
}

// Totals are the counts of shardid worker status --json: leased, live
// and fenced.
func (s Summary) Totals() map[string]any {
	return map[string]any{"leased": s.Leased, "live": s.Live, "fenced": s.Fenced}
}
