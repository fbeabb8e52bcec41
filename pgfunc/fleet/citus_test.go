package fleet_test

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"

	"github.com/shardid/shardid/pgfunc/fleet"
	"github.com/shardid/shardid/tools/dbserver"
	"github.com/shardid/shardid/tools/testsrv"
)

// TestVerifyCitusCoordinator: a map naming a Citus cluster by its
// coordinator beside a plain server: up --map installs the cluster's
// shards on every node, verify finds each in place (none missing, though
// the shard schemas hold no counter) and passes; a worker's counter set
// into another node's slot fails it, naming the node and the counter.
func TestVerifyCitusCoordinator(t *testing.T) {
	if testing.Short() {
		t.Skip("starts servers of its own")
	}
	ctx := context.Background()
	c := testsrv.NewCitus(t, dbserver.CitusOptions{}) // a fleet sees every database of its servers
	dsnC := testsrv.Database(t, c)
	dsnA := testsrv.Database(t, testsrv.NewPG(t, dbserver.PGOptions{}))
	m, err := fleet.Parse("fleet.toml", []byte(`
[[servers]]
name = "citus"
dsn_env = "C_DSN"
shards = "0-3"

[[servers]]
name = "a"
dsn_env = "A_DSN"
shards = "4-5"
`), env(map[string]string{"C_DSN": dsnC, "A_DSN": dsnA}))
	if err != nil {
		t.Fatal(err)
	}
	mustUp(t, m)
	rep := m.Verify(ctx)
	if !rep.OK || rep.Servers[0].CitusNodes != 3 || rep.Servers[0].Generators != 4 {
		t.Fatalf("verify of the fleet with a Citus coordinator: ok %v, problems %s, servers %+v", rep.OK, kinds(rep), rep.Servers)
	}

	db := testsrv.Open(t, "pgx", dsnC)
	var name string
	if err := db.QueryRow(`SELECT current_database()`).Scan(&name); err != nil {
		t.Fatal(err)
	}
	w1, w2 := c.Workers()[0], c.Workers()[1]
	var s1 int
	if err := db.QueryRow(`SELECT slot FROM shardid_citus.node_slots WHERE groupid = (SELECT groupid FROM pg_dist_node WHERE nodeport = $1)`, w1.Port()).Scan(&s1); err != nil {
		t.Fatal(err)
	}
	if _, err := testsrv.Open(t, "pgx", w2.DSN(name)).Exec(`SELECT setval('insta1_node.next_id_node_seq', (last_value & ~15::bigint) + 16 + $1) FROM insta1_node.next_id_node_seq`, s1); err != nil {
		t.Fatal(err)
	}
	rep = m.Verify(ctx)
	want := fmt.Sprintf("insta1_node.next_id_node_seq on node group %d (127.0.0.1:%d) counts by 16 at remainder %d", groupOf(t, db, w2.Port()), w2.Port(), s1)
	var msgs []string
	for _, p := range rep.Problems {
		if p.Kind == fleet.ProblemCitus {
			msgs = append(msgs, p.Message)
		}
	}
	if rep.OK || !strings.Contains(strings.Join(msgs, "\n"), want) {
		t.Fatalf("verify with worker 2's counter in worker 1's slot: ok %v, problems %s, citus %q; want %q named", rep.OK, kinds(rep), msgs, want)
	}
}

// groupOf is the Citus node group of the node listening on port.
func groupOf(t *testing.T, db *sql.DB, port int) int {
	t.Helper()
	var g int
	if err := db.QueryRow(`SELECT groupid FROM pg_dist_node WHERE nodeport = $1`, port).Scan(&g); err != nil {
		t.Fatal(err)
	}
	return g
}
