package table

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/shardid/shardid/tools/bench"
)

// PG is a bench pg run on one server as the CLI shows it: where it ran
// and the report. Its JSON form is the document of bench pg --json.
type PG struct {
	// Where names the server measured (its DSN without the password, or
	// the throwaway server).
	Where string `json:"where"`
	*bench.PGReport
}

// NewPG is rep as measured on where.
func NewPG(where string, rep *bench.PGReport) PG { return PG{Where: where, PGReport: rep} }

// pgBodyNames name the bodies of the server-side cost table (a peer by
// its own name).
var pgBodyNames = map[string]string{
	"nextval":     "nextval()",
	"unique":      "next_id() unique (default)",
	"unique-bulk": "next_id_bulk() unique",
	"unique-ids":  "next_ids(n) unique, per ID",
	"classic":     "next_id() classic",
	"classic-sql": "next_id() classic-sql",
	"published":   "Instagram's published body",
	"uuid-v4":     "gen_random_uuid()",
	"uuid-v7":     "UUID v7 in PL/pgSQL",
}

// pgKeyNames name the INSERT tables' keys (a peer by its own name).
var pgKeyNames = map[string]string{
	"bigserial":   "bigserial",
	"unique":      "DEFAULT next_id() unique",
	"unique-bulk": "DEFAULT next_id_bulk() unique",
	"classic":     "DEFAULT next_id() classic",
	"classic-sql": "DEFAULT next_id() classic-sql",
	"uuid-v4":     "uuid DEFAULT gen_random_uuid()",
	"uuid-v7":     "uuid DEFAULT UUID v7",
}

// pgName is the printed name of a key or body: a peer's is "DEFAULT
// <its expression> (peer NAME)" or "<expression> (peer NAME)".
func pgName(names map[string]string, key string, peers []bench.Peer, asDefault bool) string {
	if name, ok := strings.CutPrefix(key, "peer:"); ok {
		for _, p := range peers {
			if p.Name == name {
				if asDefault {
					return fmt.Sprintf("DEFAULT %s (peer %s)", p.Expr, name)
				}
				return fmt.Sprintf("%s (peer %s)", p.Expr, name)
			}
		}
	}
	return names[key]
}

// pgPhaseColumn heads a phase's column: "SIMPLE, SYNC OFF".
func pgPhaseColumn(ph bench.PGPhase) string {
	return strings.ToUpper(ph.Protocol) + ", SYNC " + strings.ToUpper(ph.SynchronousCommit)
}

// pgTable writes one row per key and a column per phase, cell giving the
// figure of a key's row (first is true for the first key, bigserial);
// skip, when set, leaves a key's row out.
func pgTable(w io.Writer, phases []bench.PGPhase, peers []bench.Peer, skip func(bench.PGInsertRow) bool, cell func(r bench.PGInsertRow, first bool) string) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "KEY")
	for _, ph := range phases {
		fmt.Fprintf(tw, "\t%s", pgPhaseColumn(ph))
	}
	fmt.Fprintln(tw)
	if len(phases) > 0 {
		for i, k := range phases[0].Keys {
			if skip != nil && skip(k) {
				continue
			}
			fmt.Fprint(tw, pgName(pgKeyNames, k.Key, peers, true))
			for _, ph := range phases {
				fmt.Fprintf(tw, "\t%s", cell(ph.Keys[i], i == 0))
			}
			fmt.Fprintln(tw)
		}
	}
	tw.Flush()
}

// WriteText writes the report as bench pg prints it: what ran where; the
// single-row INSERT rates, the server's CPU per row, the slow path's
// share and the planning time per key and phase; the server-side cost per
// ID of each body; the IDs a client gets per method; and how to read
// them. A PG without a report writes nothing. It returns the first write
// error.
func (p PG) WriteText(w io.Writer) error {
	if p.PGReport == nil {
		return nil
	}
	return writeReport(w, "pg", p.Where, p.Run, p.writeTables)
}

// writeTables writes the tables of WriteText, after its header.
func (p PG) writeTables(ew io.Writer) {
	rep := p.PGReport
	s := rep.Settings
	peers := s.Peers
	fmt.Fprintf(ew, "\nSingle-row INSERT, %d clients at once, %d statements each per table, phase and round, each its own transaction:\n", s.Clients, s.Rows)
	base := ""
	if len(rep.Insert) > 0 && len(rep.Insert[0].Keys) > 0 {
		base = rep.Insert[0].Keys[0].Key
	}
	fmt.Fprintf(ew, "rows/s for %s, then each key × that (higher is faster)\n", pgKeyNames[base])
	pgTable(ew, rep.Insert, peers, nil, func(r bench.PGInsertRow, first bool) string {
		if first {
			return spreadOf(r.RowsPerSecond) + "/s"
		}
		x := ratio(r.VsBase)
		if r.DuplicateKeys > 0 {
			x += fmt.Sprintf(" (%d duplicate keys)", r.DuplicateKeys)
		}
		return x
	})
	if rep.CPU.Read {
		fmt.Fprintf(ew, "\nServer CPU per row (the clients' server processes, %s): ns for bigserial, then each key × that (lower is cheaper)\n", rep.CPU.From)
		pgTable(ew, rep.Insert, peers, nil, func(r bench.PGInsertRow, first bool) string {
			if first {
				return trimFloat(r.CPUPerRow.Median) + " ns"
			}
			return ratio(*r.CPUVsBase)
		})
	} else {
		fmt.Fprintf(ew, "\nServer CPU per row: not read (%s)\n", rep.CPU.Why)
	}
	fmt.Fprintln(ew, "\nSlow path: rows whose draw jumped (the jump counters' count over the rows)")
	pgTable(ew, rep.Insert, peers, func(r bench.PGInsertRow) bool { return r.SlowPath == nil }, func(r bench.PGInsertRow, _ bool) string {
		return share(*r.SlowPath)
	})
	writePlanning(ew, rep.Planning, peers)
	writeCost(ew, s, rep.Cost)
	writeIDRows(ew, s, rep.IDs)
	fmt.Fprintln(ew, pgHowToRead)
}

// writePlanning writes the planning time of each key's single-row INSERT.
func writePlanning(w io.Writer, rows []bench.PlanRow, peers []bench.Peer) {
	fmt.Fprintf(w, "\nPlanning a single-row INSERT (EXPLAIN (SUMMARY ON)'s planning time: per table and round, the mean of the middle half of %d plans)\n", bench.PlanRuns)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "KEY\tµS\t× BIGSERIAL")
	for i, r := range rows {
		x := ratio(r.VsBase)
		if i == 0 {
			x = "1"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", pgName(pgKeyNames, r.Key, peers, true), spreadOf(r.Micros), x)
	}
	tw.Flush()
}

// writeCost writes the server-side cost per ID of each body and the IDs
// it repeated.
func writeCost(w io.Writer, s bench.Settings, rows []bench.CostRow) {
	fmt.Fprintf(w, "\nServer-side cost per ID: SELECT count(*) FROM (SELECT f() FROM generate_series(1, %d)) s (next_ids(n): %d IDs, reserved 100,000 at a time)\n", s.Calls, s.Calls)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "BODY\tNS PER ID\t× NEXTVAL()\tREPEATED IDS (%d×%d)\n", s.Rounds, s.Calls)
	for _, c := range rows {
		x := ratio(c.VsNextval)
		if c.Body == "nextval" {
			x = "1"
		}
		dups := fmt.Sprint(c.Duplicates)
		switch {
		case strings.HasPrefix(c.Body, "peer:") && c.Duplicates > 0:
			dups += " (a peer: yours to judge)"
		case !c.MustBeUnique && c.Duplicates > 0:
			dups += " (its documented limit)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", pgName(pgBodyNames, c.Body, s.Peers, false), spreadOf(c.NsPerID), x, dups)
	}
	tw.Flush()
}

// pgHowToRead closes bench pg's tables.
const pgHowToRead = `
How to read it:
- INSERT: × bigserial is the key's rows/s over bigserial's in the same round. The simple protocol (psql,
  psycopg2, many ORMs) has the server parse and plan every statement; prepared statements are planned once
  per connection. synchronous_commit off takes the WAL flush out of each commit and leaves the generator's
  own cost; on, the disk's flush rate dominates every key alike.
- CPU per row: the time the clients' server processes spent on the CPU per row, where the generator's cost
  shows without the client, the network or the other work on the machine.
- Slow path: mode unique draws from a sequence and checks the draw against two counters; when the counter
  must jump to the clock (about once per 9 ms at these rates) the draw takes a lock, a subtransaction and
  setvals. The share is jumps per row.
- Planning: a DEFAULT whose function is inlined is read back from the catalog by every plan (the simple
  protocol plans every statement); next_id() is PL/pgSQL and plans like bigserial's nextval().
- Server-side cost: many IDs in one statement, no round trip per ID. For INSERT ... SELECT or any
  statement that draws many IDs use next_id_bulk(), or next_ids(n) when the count is known; as a DEFAULT,
  next_id().
- Each figure is the median [min–max] over the rounds; other work on the machine widens the ranges. Compare
  ratios within one run, not rates across machines.`
