package lease

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/shardid/shardid/dialect"
	"github.com/shardid/shardid/internal/words"
)

// Place is a lease table where the CLI names it: the table, the server
// (its DSN, the password redacted) and the server's dialect.
type Place struct {
	Table, Server string
	Dialect       dialect.Dialect
}

// String returns "lease table T on S (D)".
func (p Place) String() string {
	return fmt.Sprintf("lease table %s on %s (%s)", p.Table, p.Server, p.Dialect)
}

// TableRow is the one row of `shardid worker up --json`: the table, the
// dialect, created or current, and the goose history table.
type TableRow struct {
	Table   string `json:"table"`
	Dialect string `json:"dialect"`
	State   string `json:"state"` // created or current
	History string `json:"history"`
}

// UpResult is what Up did to a lease table, for `shardid worker up` to
// print.
type UpResult struct {
	Place
	// Applied is Up's: the table was created.
	Applied bool
}

// Row returns r as worker up --json writes it.
func (r UpResult) Row() TableRow {
	row := TableRow{Table: r.Table, Dialect: string(r.Dialect), State: "current", History: HistoryTable(r.Table)}
	if r.Applied {
		row.State = "created"
	}
	return row
}

// WriteText writes the line worker up prints: the table, created or
// already up to date, and where goose keeps its history.
func (r UpResult) WriteText(w io.Writer) error {
	state := "already up to date"
	if r.Applied {
		state = "created"
	}
	_, err := fmt.Fprintf(w, "%s: %s; goose history in %s\n", r.Place, state, HistoryTable(r.Table))
	return err
}

// Status is a lease table's rows (List) for `shardid worker status` to
// print.
type Status struct {
	// Table is the lease table.
	Table string
	// Leases are its rows, in node order.
	Leases []Info
}

// WriteText writes the status as worker status prints it: a table of the
// rows not fenced (NODE, STATE, HOLDER, UNTIL, LAST DRAWN), a line per
// run of fenced node ids, the counts, and FencedNote when any is fenced.
func (s Status) WriteText(w io.Writer) error {
	var b strings.Builder // written at once: the first write error is the one returned
	fmt.Fprintf(&b, "%-6s %-5s %-32s %-27s %s\n", "NODE", "STATE", "HOLDER", "UNTIL (database clock)", "LAST DRAWN (holder clock)")
	for _, l := range s.Leases {
		if row := l.Row(); !row.Fenced {
			fmt.Fprintf(&b, "%-6d %-5s %-32s %-27s %s\n", l.Node, l.State(), l.Holder, row.Until, row.LastDrawn)
		}
	}
	sum := Summarize(s.Leases)
	for _, r := range sum.Runs {
		until := r.From.Format(time.RFC3339Nano)
		if !r.Until.Equal(r.From) {
			until += " to " + r.Until.Format(time.RFC3339Nano)
		}
		fmt.Fprintf(&b, "%-6s %-5s node ids %d-%d (%d): fenced until %s\n", "", "fence", r.First, r.Last, r.Last-r.First+1, until)
	}
	fmt.Fprintf(&b, "node ids leased so far: %d; live now: %d (table %s)\n", sum.Leased, sum.Live, s.Table)
	if note := sum.FencedNote(); note != "" {
		fmt.Fprintln(&b, note)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// FencedNote says how many node ids a fence keeps new holders off, ""
// when none.
func (s Summary) FencedNote() string {
	if s.Fenced == 0 {
		return ""
	}
	return fmt.Sprintf("%d node ids fenced (shardid worker fence): nobody takes them until their UNTIL", s.Fenced)
}

// WriteText writes the line worker fence prints for r on the table at p:
// how many node ids are fenced, for how long and until when; ttlGiven
// says whether the TTL was asked for (else it is the longest a row
// records, or the default).
func (r FenceResult) WriteText(w io.Writer, p Place, ttlGiven bool) error {
	why := "--ttl"
	switch {
	case !ttlGiven && r.Longest > 0:
		why = "the longest TTL a holder of the table records"
	case !ttlGiven:
		why = "no row records a TTL: the default"
	}
	_, err := fmt.Fprintf(w, "%s: %d node ids fenced (%d rows added for ids it had no row for) for %s (%s) until %s (database clock): every holder stops at its next renewal; no new holder before then\n",
		p, r.Fenced, r.Added, r.TTL, why, r.Until.Format(time.RFC3339Nano))
	return err
}

// UnknownNote warns of the live rows that record no TTL, whose holders
// the fence covers only if they lease for r.TTL or less; "" when none.
func (r FenceResult) UnknownNote() string {
	if r.Unknown == 0 {
		return ""
	}
	return fmt.Sprintf("%d live %s no TTL (leased by a shardid from before the table recorded TTLs): the fence covers their holders only if they lease for %s or less; if not, fence again with --ttl their TTL",
		r.Unknown, words.Plural(int(r.Unknown), "row records", "rows record"), r.TTL)
}
