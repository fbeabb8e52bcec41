package main

import (
	"database/sql"
	"fmt"
	"strings"
	"testing"

	"github.com/shardid/shardid"
	"github.com/shardid/shardid/tools/dbserver"
	"github.com/shardid/shardid/tools/testsrv"
)

// TestPGCitusUpStatus: shardid pg up on a Citus coordinator installs the
// generator on every node (an INSERT through each worker succeeds, its ID
// decoding to the shard), pg status reads every node's counter through
// the coordinator and exits 0; a worker's counter set into another
// node's slot makes it exit 1 naming the node and the counter.
func TestPGCitusUpStatus(t *testing.T) {
	c, dsn, db, name := citusCLIUp(t, "0-3", "insta2")
	for _, w := range c.Workers() {
		var id int64
		if err := openPG(t, w.DSN(name)).QueryRow(`INSERT INTO insta2.photos (v) VALUES (1) RETURNING id`).Scan(&id); err != nil {
			t.Fatalf("INSERT through worker %d: %v", w.Port(), err)
		}
		if p, err := shardid.Instagram().Decompose(id); err != nil || p.Shard != 2 {
			t.Fatalf("ID %d through worker %d decodes to %+v, %v; want shard 2", id, w.Port(), p, err)
		}
	}
	// On a worker: refused in one line, with no table that shows its
	// shards without a generator.
	for _, args := range [][]string{{"--shards", "0-3"}, nil} {
		code, out, errOut := runCLI(t, "", nil, append([]string{"pg", "status", "--dsn", c.Workers()[0].DSN(name)}, args...)...)
		if code != 1 || out != "" || errOut != "shardid: a Citus worker, not the coordinator: pg status reads a Citus cluster through its coordinator\n" {
			t.Fatalf("pg status %v on a worker: exit %d, want 1, nothing on stdout and one line\n%s%s", args, code, out, errOut)
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

// TestPGCitusResume: a worker restored in place (its counter of shard 0
// set back below what it handed out to insta0.photos, where a backup
// taken ahead of the clock left it) makes pg status exit 1 naming it;
// pg resume on the coordinator is a dry run that names every node's
// counters and moves none; with --apply it moves them, the worker's
// next ID is past everything it handed out, and pg status exits 0.
func TestPGCitusResume(t *testing.T) {
	c, dsn, _, name := citusCLIUp(t, "0-1", "insta0")
	w := c.Workers()[0]
	wdb := openPG(t, w.DSN(name))
	// The backup: the worker's counter 3s ahead of the clock, in its slot.
	var backup, top int64
	if err := wdb.QueryRow(`SELECT setval('insta0_node.next_id_node_seq',
		((((extract(epoch FROM clock_timestamp()) * 1000)::bigint + 3000 - $1) << 10) & ~15::bigint) + (SELECT last_value & 15 FROM insta0_node.next_id_node_seq))`,
		shardid.Instagram().EpochMillis()).Scan(&backup); err != nil {
		t.Fatal(err)
	}
	if err := wdb.QueryRow(`WITH i AS (INSERT INTO insta0.photos (v) SELECT g FROM generate_series(1, 200) AS g RETURNING id) SELECT max(id) FROM i`).Scan(&top); err != nil {
		t.Fatal(err)
	}
	if _, err := wdb.Exec(`SELECT setval('insta0_node.next_id_node_seq', $1)`, backup); err != nil { // the restore
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, "", nil, "pg", "status", "--dsn", dsn, "--shards", "0-1")
	want := fmt.Sprintf("(127.0.0.1:%d) stands at %d, behind", w.Port(), backup)
	if code != 1 || !strings.Contains(out, want) {
		t.Fatalf("pg status of the restored worker: exit %d, want 1 and %q\n%s%s", code, want, out, errOut)
	}
	code, out, errOut = runCLI(t, "", nil, "pg", "resume", "--dsn", dsn, "--lead", "5s")
	if code != 0 || strings.Count(out, "would    insta") != 6 || !strings.Contains(out, fmt.Sprintf("insta0_node on node group 1 (127.0.0.1:%d", w.Port())) {
		t.Fatalf("pg resume (dry run) on the coordinator: exit %d, want 0 and 6 counters that would move\n%s%s", code, out, errOut)
	}
	var last int64
	if err := wdb.QueryRow(`SELECT last_value FROM insta0_node.next_id_node_seq`).Scan(&last); err != nil || last != backup {
		t.Fatalf("the dry run moved the worker's counter: %d, %v; want %d", last, err, backup)
	}
	if code, out, errOut = runCLI(t, "", nil, "pg", "resume", "--dsn", dsn, "--lead", "5s", "--apply"); code != 0 || strings.Count(out, "moved    insta") != 6 {
		t.Fatalf("pg resume --apply on the coordinator: exit %d, want 0 and 6 counters moved\n%s%s", code, out, errOut)
	}
	var id int64
	if err := wdb.QueryRow(`INSERT INTO insta0.photos (v) VALUES (1) RETURNING id`).Scan(&id); err != nil || id <= top {
		t.Fatalf("the worker's first ID after resume: %d, %v; want past %d, the last it handed out", id, err, top)
	}
	if code, out, errOut = runCLI(t, "", nil, "pg", "status", "--dsn", dsn, "--shards", "0-1"); code != 0 {
		t.Fatalf("pg status after resume: exit %d\n%s%s", code, out, errOut)
	}
}

// citusCLIUp runs shardid pg up --shards shards on the coordinator of the
// shared test cluster, in a database of the test's own, and creates
// table.photos keyed by DEFAULT next_id(); it returns the cluster, the
// coordinator's DSN and pool, and the database's name.
func citusCLIUp(t *testing.T, shards, schema string) (*dbserver.Citus, string, *sql.DB, string) {
	t.Helper()
	c := testsrv.Citus(t)
	dsn := testsrv.Database(t, c)
	db := openPG(t, dsn)
	var name string
	if err := db.QueryRow(`SELECT current_database()`).Scan(&name); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := runCLI(t, "", nil, "pg", "up", "--dsn", dsn, "--shards", shards); code != 0 {
		t.Fatalf("pg up on the coordinator: exit %d\n%s%s", code, out, errOut)
	}
	if _, err := db.Exec(fmt.Sprintf(`CREATE TABLE %s.photos (id bigint PRIMARY KEY DEFAULT %s.next_id(), v int)`, schema, schema)); err != nil {
		t.Fatal(err)
	}
	return c, dsn, db, name
}

// TestPGCitusDown: pg down on a Citus coordinator exits 1 naming the table
// whose DEFAULT calls next_id(); with the DEFAULT dropped it takes the
// generator off every node (a worker's draw fails) and keeps the
// worker's counter; pg up brings it back carrying the counter on.
func TestPGCitusDown(t *testing.T) {
	c, dsn, db, name := citusCLIUp(t, "0", "insta0")
	wdb := openPG(t, c.Workers()[0].DSN(name))
	var id int64
	if err := wdb.QueryRow(`INSERT INTO insta0.photos (v) VALUES (1) RETURNING id`).Scan(&id); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := runCLI(t, "", nil, "pg", "down", "--dsn", dsn, "--shards", "0"); code != 1 || !strings.Contains(out+errOut, "photos") {
		t.Fatalf("pg down while insta0.photos's DEFAULT calls next_id(): exit %d, want 1 naming the table\n%s%s", code, out, errOut)
	}
	if _, err := db.Exec(`ALTER TABLE insta0.photos ALTER COLUMN id DROP DEFAULT`); err != nil {
		t.Fatal(err)
	}
	var before, after int64
	if err := wdb.QueryRow(`SELECT last_value FROM insta0_node.next_id_node_seq`).Scan(&before); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := runCLI(t, "", nil, "pg", "down", "--dsn", dsn, "--shards", "0"); code != 0 {
		t.Fatalf("pg down on the coordinator: exit %d\n%s%s", code, out, errOut)
	}
	if _, err := wdb.Exec(`SELECT insta0.next_id()`); err == nil {
		t.Fatal("a worker still draws after pg down")
	}
	if err := wdb.QueryRow(`SELECT last_value FROM insta0_node.next_id_node_seq`).Scan(&after); err != nil || after != before {
		t.Fatalf("the worker's counter after down: %d, %v; want it kept at %d", after, err, before)
	}
	if code, out, errOut := runCLI(t, "", nil, "pg", "up", "--dsn", dsn, "--shards", "0"); code != 0 {
		t.Fatalf("pg up after down: exit %d\n%s%s", code, out, errOut)
	}
	var next int64
	if err := wdb.QueryRow(`SELECT insta0.next_id()`).Scan(&next); err != nil || next <= id {
		t.Fatalf("the worker's draw after up: %d, %v; want past %d", next, err, id)
	}
}

// TestPGCitusMove: pg move moves a shard's schema to the other worker
// through the coordinator (citus_schema_move), and refuses a node that is
// not in the cluster, naming it.
func TestPGCitusMove(t *testing.T) {
	c, dsn, db, _ := citusCLIUp(t, "0", "insta0")
	placed := func() int {
		t.Helper()
		var port int
		if err := db.QueryRow(`SELECT nodeport FROM citus_shards WHERE citus_table_type = 'schema' AND table_name::text = 'insta0.photos'`).Scan(&port); err != nil {
			t.Fatal(err)
		}
		return port
	}
	to := c.Workers()[0]
	if to.Port() == placed() {
		to = c.Workers()[1]
	}
	if code, out, errOut := runCLI(t, "", nil, "pg", "move", "--dsn", dsn, "--shard", "0", "--to", "127.0.0.1:1"); code == 0 || !strings.Contains(errOut, "127.0.0.1:1 is no active primary") {
		t.Fatalf("pg move to a node outside the cluster: exit %d\n%s%s", code, out, errOut)
	}
	func() {
		defer c.Moves()() // one change of placement at a time on the shared servers
		if code, out, errOut := runCLI(t, "", nil, "pg", "move", "--dsn", dsn, "--shard", "0", "--to", fmt.Sprintf("127.0.0.1:%d", to.Port()), "--transfer-mode", "force_logical"); code != 0 {
			t.Fatalf("pg move: exit %d\n%s%s", code, out, errOut)
		}
	}()
	if got := placed(); got != to.Port() {
		t.Fatalf("insta0 on %d after pg move to %d", got, to.Port())
	}
}
