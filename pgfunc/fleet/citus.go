package fleet

// A map may name a Citus cluster by its coordinator (docs/citus.md):
// Verify then reads the cluster's generators, whose shard schemas hold no
// counter of their own, and every node's counters, through it.

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/shardid/shardid/pgfunc/citus"
)

// ProblemCitus: on a Citus cluster the map names by its coordinator, a
// node's counter could hand out an ID another has, or a node draws
// nothing (citus.Survey's problems, each naming the node and the
// counter).
const ProblemCitus = "citus"

// readCitus returns, for a server of the map whose database (on db, named
// database) is a Citus coordinator's, the cluster's live generators as
// places of s, and records in check the nodes read and what could repeat
// an ID; nothing on a server without Citus.
func (m *Map) readCitus(ctx context.Context, s Server, db *sql.DB, database, id string, check *ServerCheck) ([]found, error) {
	gens, ok, err := citus.Generators(ctx, db)
	if err != nil || !ok {
		return nil, err
	}
	st, err := citus.Survey(ctx, db, m.Options(), m.Schemas(s))
	if err != nil {
		return nil, err
	}
	check.CitusNodes = len(st.Nodes)
	check.CitusProblems = st.Problems
	var out []found
	for _, g := range gens {
		switch {
		case g.Unreadable != "":
			check.Unreadable = append(check.Unreadable, database+"."+g.Schema)
		case g.Retired:
			check.Retired++
		default:
			out = append(out, found{place: Place{Server: s.Name, Host: hostOf(s), Database: database, Schema: g.Schema, server: id},
				meta: g.Meta, version: -1, template: false})
		}
	}
	return out, nil
}

// citusProblems are the Problems of sc's Citus cluster, if any.
func citusProblems(s Server, sc ServerCheck) []Problem {
	var out []Problem
	for _, p := range sc.CitusProblems {
		out = append(out, Problem{Kind: ProblemCitus, Shard: -1, Place: Place{Server: s.Name, Host: hostOf(s)},
			Message: fmt.Sprintf("server %s (%s), a Citus coordinator: %s", s.Name, s.Address, p)})
	}
	return out
}
