package table

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/shardid/shardid/tools/bench"
)

// idMethodNames name the ways a client gets IDs.
var idMethodNames = map[string]string{
	"nextval":          "SELECT nextval()",
	"next_id":          "SELECT next_id() unique",
	"auto_increment":   "INSERT, AUTO_INCREMENT",
	"tickets":          "tickets (UPDATE form)",
	"tickets-sequence": "tickets (SEQUENCE)",
	"segments":         "segments",
	"leased":           "leased app-side generator",
}

// writeIDRows writes the ways a client gets IDs against the first.
func writeIDRows(w io.Writer, s bench.Settings, rows []bench.IDRow) {
	fmt.Fprintf(w, "\nIDs for a client, %d clients at once (%d IDs each per round; %d from segments and leased generators, which serve from memory)\n",
		s.Clients, s.IDs, s.IDs*bench.InMemoryFactor)
	base := ""
	if len(rows) > 0 {
		base = idMethodNames[rows[0].Method]
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "METHOD\tIDS/S PER CLIENT\t× %s\tROUND TRIPS / 1,000 IDS\tREPEATED IDS\n", strings.ToUpper(base))
	for i, r := range rows {
		x := ratio(r.VsBase)
		if i == 0 {
			x = "1"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\n", idMethodNames[r.Method], spreadOf(r.PerClient), x, trimFloat(r.RoundTripsPer1000.Median), r.Duplicates)
	}
	tw.Flush()
}
