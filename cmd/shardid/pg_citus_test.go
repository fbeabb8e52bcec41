package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/shardid/shardid"
	"github.com/shardid/shardid/tools/testsrv"
)

// TestPGCitusUpStatus: shardid pg up on a Citus coordinator installs the
// generator on every node (an INSERT through each worker succeeds, its ID
// decoding to the shard), pg status reads every node's counter through
// the coordinator and exits 0; a worker's counter set into another
// node's slot makes it exit 1 naming the node and the counter.
func TestPGCitusUpStatus(t *testing.T) {
	c := testsrv.Citus(t)
	dsn := testsrv.Database(t, c)
	db := openPG(t, dsn)
	var name string
	if err := db.QueryRow(`SELECT current_database()`).Scan(&name); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := runCLI(t, "", nil, "pg", "up", "--dsn", dsn, "--shards", "0-3"); code != 0 {
		t.Fatalf("pg up on the coordinator: exit %d\n%s%s", code, out, errOut)
	}
	if _, err := db.Exec(`CREATE TABLE insta2.photos (id bigint PRIMARY KEY DEFAULT insta2.next_id(), v int)`); err != nil {
		t.Fatal(err)
	}
	for _, w := range c.Workers() {
		var id int64
		if err := openPG(t, w.DSN(name)).QueryRow(`INSERT INTO insta2.photos (v) VALUES (1) RETURNING id`).Scan(&id); err != nil {
			t.Fatalf("INSERT through worker %d: %v", w.Port(), err)
		}
		if p, err := shardid.Instagram().Decompose(id); err != nil || p.Shard != 2 {
			t.Fatalf("ID %d through worker %d decodes to %+v, %v; want shard 2", id, w.Port(), p, err)
		}
	}
	code, out, errOut := runCLI(t, "", nil, "pg", "status", "--dsn", dsn, "--shards", "0-3")
	if code != 0 || !strings.Contains(out, "Citus cluster: 3 node groups") || strings.Count(out, ".next_id_node_seq on node group") != 12 {
		t.Fatalf("pg status of a healthy Citus cluster: exit %d\n%s%s", code, out, errOut)
	}

	w1, w2 := c.Workers()[0], c.Workers()[1]
	var s1, g2 int
	if err := db.QueryRow(`SELECT s.slot, (SELECT groupid FROM pg_dist_node WHERE nodeport = $2) FROM shardid_citus.node_slots s
		WHERE s.groupid = (SELECT groupid FROM pg_dist_node WHERE nodeport = $1)`, w1.Port(), w2.Port()).Scan(&s1, &g2); err != nil {
		t.Fatal(err)
	}
	if _, err := openPG(t, w2.DSN(name)).Exec(`SELECT setval('insta1_node.next_id_node_seq', (last_value & ~15::bigint) + 16 + $1) FROM insta1_node.next_id_node_seq`, s1); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = runCLI(t, "", nil, "pg", "status", "--dsn", dsn, "--shards", "0-3")
	want := fmt.Sprintf("CITUS: insta1_node.next_id_node_seq on node group %d (127.0.0.1:%d) counts by 16 at remainder %d", g2, w2.Port(), s1)
	if code != 1 || !strings.Contains(out, want) || !strings.Contains(errOut, "on the Citus cluster") {
		t.Fatalf("pg status with worker 2's counter in worker 1's slot: exit %d, want 1 and %q\n%s%s", code, want, out, errOut)
	}
}
