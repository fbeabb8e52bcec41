package apply

import (
	"fmt"
	"time"
)

// State names what Up did with the migration: skipped (TiDB only,
// recorded without running), applied, or "already applied".
func (r Result) State() string {
	switch {
	case r.Skipped:
		return "skipped"
	case r.Applied:
		return "applied"
	}
	return "already applied"
}

// UpCount counts the results of Up that were applied and skipped; the
// rest were applied before.
func UpCount(res []Result) (applied, skipped int) {
	for _, r := range res {
		switch r.State() {
		case "skipped":
			skipped++
		case "applied":
			applied++
		}
	}
	return applied, skipped
}

// State names the migration's state: full (a table it made cannot take an
// insert), drift (the server no longer matches it), skipped, applied or
// pending, the first that holds.
func (s Status) State() string {
	switch {
	case len(s.Full) > 0:
		return "full"
	case len(s.Drift) > 0:
		return "drift"
	case s.Skipped:
		return "skipped"
	case s.Applied:
		return "applied"
	}
	return "pending"
}

// StatusCount adds up the statuses Verify returns (CountStatus).
type StatusCount struct {
	// Drifted counts the migrations with drift.
	Drifted int
	// Pending counts the migrations not applied.
	Pending int
	// Full counts the tables that cannot take an insert.
	Full int
}

// CountStatus adds up st.
func CountStatus(st []Status) StatusCount {
	var c StatusCount
	for _, s := range st {
		if len(s.Drift) > 0 {
			c.Drifted++
		}
		if !s.Applied {
			c.Pending++
		}
		c.Full += len(s.Full)
	}
	return c
}

// Err is what is wrong, the worst first: drift, then full tables, then
// migrations pending; nil when nothing is.
func (c StatusCount) Err() error {
	switch {
	case c.Drifted > 0:
		return fmt.Errorf("%d applied migration(s) no longer match the server (DRIFT above): a table, view, key or routine was dropped or changed outside the migrations", c.Drifted)
	case c.Full > 0:
		return fmt.Errorf("%d table(s) cannot take an insert (FULL above): the next row id or AUTO_RANDOM increment is past the room the shard bits leave", c.Full)
	case c.Pending > 0:
		return fmt.Errorf("%d migration(s) pending: apply them with shardid tidb up", c.Pending)
	}
	return nil
}

// StatusRow is a Status as `shardid tidb status --json` writes it: one row
// of the document.
type StatusRow struct {
	Version   int64      `json:"version"`
	Name      string     `json:"name"`
	State     string     `json:"state"` // Status.State
	AppliedAt *time.Time `json:"applied_at"`
	TiDBOnly  bool       `json:"tidb_only"`
	Drift     []string   `json:"drift"`
	Unchecked []string   `json:"unchecked"`
	Full      []string   `json:"full,omitempty"` // tables that cannot take an insert
}

// Row returns s as a StatusRow.
func (s Status) Row() StatusRow {
	row := StatusRow{Version: s.Migration.Version, Name: s.Migration.Name, State: s.State(), TiDBOnly: s.Migration.TiDBOnly, Drift: s.Drift, Unchecked: s.Unchecked, Full: s.Full}
	if s.Applied {
		at := s.AppliedAt.UTC()
		row.AppliedAt = &at
	}
	return row
}

// ResultRow is a Result as `shardid tidb up --json` writes it.
type ResultRow struct {
	Version int64  `json:"version"`
	Name    string `json:"name"`
	// State is Result.State: applied, skipped (TiDB only, recorded
	// without running) or already applied.
	State  string `json:"state"`
	Millis int64  `json:"ms,omitempty"`
}

// Row returns r as a ResultRow.
func (r Result) Row() ResultRow {
	row := ResultRow{Version: r.Migration.Version, Name: r.Migration.Name, State: r.State()}
	if row.State == "applied" {
		row.Millis = r.Duration.Milliseconds()
	}
	return row
}

// UpTotals are the counts of shardid tidb up --json: migrations, applied,
// skipped and already_applied.
func UpTotals(res []Result) map[string]any {
	applied, skipped := UpCount(res)
	return map[string]any{"migrations": len(res), "applied": applied, "skipped": skipped, "already_applied": len(res) - applied - skipped}
}

// StatusTotals are the counts of shardid tidb status --json: migrations
// and drifted.
func StatusTotals(st []Status) map[string]any {
	return map[string]any{"migrations": len(st), "drifted": CountStatus(st).Drifted}
}
