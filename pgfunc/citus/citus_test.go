package citus_test

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/shardid/shardid"
	"github.com/shardid/shardid/pgfunc"
	"github.com/shardid/shardid/pgfunc/citus"
	"github.com/shardid/shardid/pgfunc/migrate"
	"github.com/shardid/shardid/pgfunc/privilege"
	"github.com/shardid/shardid/tools/dbserver"
	"github.com/shardid/shardid/tools/testsrv"
)

// citusShards are the four logical shards the Citus tests install.
func citusShards(t *testing.T) []pgfunc.Shard {
	t.Helper()
	var shards []pgfunc.Shard
	for id := int64(0); id < 4; id++ {
		schema, err := pgfunc.SchemaName(pgfunc.DefaultSchemaFormat, id)
		if err != nil {
			t.Fatal(err)
		}
		shards = append(shards, pgfunc.Shard{Schema: schema, ID: id})
	}
	return shards
}

// citusUp runs up on the coordinator of db's cluster and creates one
// table per shard keyed by DEFAULT next_id().
func citusUp(t *testing.T, db *sql.DB, shards []pgfunc.Shard) *migrate.Migrator {
	t.Helper()
	m, err := migrate.New(db, pgfunc.Options{}, migrate.Options{OwnDatabaseOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	upRes, upErr := m.Up(context.Background(), shards, nil)
	for _, r := range upRes {
		if r.Err != nil {
			t.Fatalf("up %s on the coordinator: %v", r.Shard.Schema, r.Err)
		}
	}
	if upErr != nil {
		t.Fatal(upErr)
	}
	for _, sh := range shards {
		if _, err := db.Exec(fmt.Sprintf(`CREATE TABLE %s.photos (id bigint PRIMARY KEY DEFAULT %s.next_id(), v int)`, sh.Schema, sh.Schema)); err != nil {
			t.Fatal(err)
		}
	}
	return m
}

// citusLoad is a load of inserts through every node: clients per node,
// each inserting into every shard's table single rows, INSERT ... SELECT
// batches and COPY batches, until stop is closed (or rounds are done).
type citusLoad struct {
	mu   sync.Mutex
	ids  map[int64][]int64 // shard -> IDs returned
	errs []error
	wg   sync.WaitGroup
}

func (l *citusLoad) fail(err error) {
	l.mu.Lock()
	l.errs = append(l.errs, err)
	l.mu.Unlock()
}

// start runs clients clients on the database dsnOf(node) of every node,
// each doing rounds rounds (or until stop closes, when rounds is 0).
func (l *citusLoad) start(t *testing.T, dsns []string, shards []pgfunc.Shard, clients, rounds int, stop <-chan struct{}) {
	l.ids = map[int64][]int64{}
	for _, dsn := range dsns {
		for c := 0; c < clients; c++ {
			l.wg.Add(1)
			go func() {
				defer l.wg.Done()
				ctx := context.Background()
				conn, err := pgx.Connect(ctx, dsn)
				if err != nil {
					l.fail(err)
					return
				}
				defer conn.Close(ctx)
				for r := 0; rounds == 0 || r < rounds; r++ {
					select {
					case <-stop:
						return
					default:
					}
					for _, sh := range shards {
						got, err := insertRound(ctx, conn, sh.Schema, r)
						if err != nil {
							l.fail(fmt.Errorf("%s into %s: %w", dsn, sh.Schema, err))
							return
						}
						l.mu.Lock()
						l.ids[sh.ID] = append(l.ids[sh.ID], got...)
						l.mu.Unlock()
					}
				}
			}()
		}
	}
}

// insertRound inserts one single row (simple protocol and prepared), a
// 50-row INSERT ... SELECT and a 50-row COPY into schema's table and
// returns the IDs the inserts returned.
func insertRound(ctx context.Context, conn *pgx.Conn, schema string, round int) ([]int64, error) {
	table := schema + ".photos"
	var ids []int64
	var id int64
	if err := conn.QueryRow(ctx, "INSERT INTO "+table+" (v) VALUES ($1) RETURNING id", pgx.QueryExecModeSimpleProtocol, round).Scan(&id); err != nil {
		return nil, fmt.Errorf("single-row (simple): %w", err)
	}
	ids = append(ids, id)
	if err := conn.QueryRow(ctx, "INSERT INTO "+table+" (v) VALUES ($1) RETURNING id", round).Scan(&id); err != nil {
		return nil, fmt.Errorf("single-row (prepared): %w", err)
	}
	ids = append(ids, id)
	rows, err := conn.Query(ctx, "INSERT INTO "+table+" (v) SELECT g FROM pg_catalog.generate_series(1, 50) AS g RETURNING id")
	if err != nil {
		return nil, fmt.Errorf("INSERT ... SELECT: %w", err)
	}
	got, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return nil, fmt.Errorf("INSERT ... SELECT: %w", err)
	}
	ids = append(ids, got...)
	src := make([][]any, 50)
	for i := range src {
		src[i] = []any{int32(-round)}
	}
	if _, err := conn.CopyFrom(ctx, pgx.Identifier{schema, "photos"}, []string{"v"}, pgx.CopyFromRows(src)); err != nil {
		return nil, fmt.Errorf("COPY: %w", err)
	}
	return ids, nil
}

// check waits for the clients and fails t on any error, any repeated ID
// and any ID that does not decode to its shard, counting the rows of
// every table through the coordinator too.
func (l *citusLoad) check(t *testing.T, db *sql.DB, shards []pgfunc.Shard) int {
	t.Helper()
	l.wg.Wait()
	for _, err := range l.errs {
		t.Error(err)
	}
	total := 0
	for _, sh := range shards {
		seen := map[int64]bool{}
		for _, id := range l.ids[sh.ID] {
			if seen[id] {
				t.Errorf("shard %d: ID %d returned twice", sh.ID, id)
			}
			seen[id] = true
			if p, err := shardid.Instagram().Decompose(id); err != nil || p.Shard != sh.ID {
				t.Errorf("ID %d of %s decodes to %+v, %v; want shard %d", id, sh.Schema, p, err, sh.ID)
			}
		}
		var rows, distinct, wrong int
		err := db.QueryRow(fmt.Sprintf(`SELECT count(*), count(DISTINCT id), count(*) FILTER (WHERE %s.id_shard(id) <> %d) FROM %s.photos`, sh.Schema, sh.ID, sh.Schema)).Scan(&rows, &distinct, &wrong)
		if err != nil {
			t.Fatal(err)
		}
		if rows != distinct || wrong != 0 {
			t.Errorf("%s.photos: %d rows, %d distinct IDs, %d of another shard", sh.Schema, rows, distinct, wrong)
		}
		total += rows
	}
	return total
}

// nodeDSNs are the DSNs of database name on the coordinator and every
// worker.
func nodeDSNs(c *dbserver.Citus, name string) []string {
	var out []string
	for _, n := range c.Nodes() {
		out = append(out, n.DSN(name))
	}
	return out
}

// TestCitusInsertsFromEveryNode: up on the coordinator of a cluster of a
// coordinator and two workers; four clients per node insert into every
// shard's table at once, single rows (both protocols), INSERT ... SELECT
// and COPY: all succeed, no ID repeats, every ID decodes to its shard.
// The workers' copies of the public functions draw from the workers' own
// counters (the today test's failures: shifted copies, the lead refusing,
// the jump's subtransaction, all gone).
func TestCitusInsertsFromEveryNode(t *testing.T) {
	c := testsrv.Citus(t)
	db, _ := testsrv.CitusDB(t)
	shards := citusShards(t)
	citusUp(t, db, shards)
	var l citusLoad
	l.start(t, nodeDSNs(c, dbNameOf(t, db)), shards, 4, 5, nil)
	n := l.check(t, db, shards)
	t.Logf("%d rows through 3 nodes", n)
}

// TestCitusSharedSlotRepeats is the negative control of
// TestCitusInsertsFromEveryNode: the same load on a cluster whose nodes
// were all given slot 0 (citus.BreakSlots) repeats IDs, which the
// load's checks catch (primary-key violations, or IDs returned twice).
func TestCitusSharedSlotRepeats(t *testing.T) {
	citus.BreakSlots(t)
	c := testsrv.Citus(t)
	db, _ := testsrv.CitusDB(t)
	shards := citusShards(t)
	citusUp(t, db, shards)
	var l citusLoad
	l.start(t, nodeDSNs(c, dbNameOf(t, db)), shards, 4, 5, nil)
	l.wg.Wait()
	repeats := 0
	for _, err := range l.errs {
		if strings.Contains(err.Error(), "duplicate key") {
			repeats++
		}
	}
	for _, ids := range l.ids {
		seen := map[int64]bool{}
		for _, id := range ids {
			if seen[id] {
				repeats++
			}
			seen[id] = true
		}
	}
	if repeats == 0 {
		t.Fatalf("three nodes sharing slot 0 repeated no ID (errors: %v): the load would not catch a broken slot", l.errs)
	}
	t.Logf("nodes sharing a slot: %d repeats caught", repeats)
}

// schemaNode returns the port of the worker holding schema's tables.
func schemaNode(t *testing.T, db *sql.DB, schema string) int {
	t.Helper()
	var port int
	if err := db.QueryRow(`SELECT nodeport FROM citus_shards WHERE citus_table_type = 'schema' AND table_name::text = $1 || '.photos'`, schema).Scan(&port); err != nil {
		t.Fatalf("placement of %s: %v", schema, err)
	}
	return port
}

// TestCitusMovesAndNodeChanges: under the load of
// TestCitusInsertsFromEveryNode, a shard's schema moved to the other
// worker (citus_schema_move), then a worker drained, removed, added back
// (a new node group: up gives it a new slot) and the schemas rebalanced
// onto it, with the load on every node again: no ID repeats, every one
// decodes to its shard.
func TestCitusMovesAndNodeChanges(t *testing.T) {
	ctx := context.Background()
	c := testsrv.Citus(t)
	db, _ := testsrv.CitusDB(t)
	name := dbNameOf(t, db)
	shards := citusShards(t)
	m := citusUp(t, db, shards)
	w1, w2 := c.Workers()[0], c.Workers()[1]

	// A move in the middle of the load on all three nodes.
	var all citusLoad
	stop := make(chan struct{})
	all.start(t, nodeDSNs(c, name), shards, 4, 0, stop)
	time.Sleep(time.Second)
	from := schemaNode(t, db, "insta0")
	to := w1.Port()
	if from == to {
		to = w2.Port()
	}
	func() {
		defer c.Moves()() // one change of placement at a time on the shared servers (dbserver.Citus.Moves)
		if _, err := db.Exec(`SELECT citus_schema_move('insta0', '127.0.0.1', $1, 'force_logical')`, to); err != nil {
			t.Fatalf("citus_schema_move: %v", err)
		}
	}()
	if got := schemaNode(t, db, "insta0"); got != to {
		t.Fatalf("insta0 on %d after its move to %d", got, to)
	}
	time.Sleep(time.Second)
	close(stop)
	moved := all.check(t, db, shards)

	// Worker 2 drained and removed while the coordinator and worker 1
	// insert, then added back.
	var two citusLoad
	stop = make(chan struct{})
	two.start(t, []string{c.Coordinator().DSN(name), w1.DSN(name)}, shards, 4, 0, stop)
	time.Sleep(500 * time.Millisecond)
	if err := c.DrainNode(ctx, name, w2); err != nil {
		t.Fatal(err)
	}
	// The drain leaves the old placements for a deferred cleanup, which
	// must run while the node is still a member.
	if _, err := db.Exec(`CALL citus_cleanup_orphaned_resources()`); err != nil {
		t.Fatal(err)
	}
	if err := c.RemoveNode(ctx, name, w2); err != nil {
		t.Fatal(err)
	}
	if err := c.AddNode(ctx, name, w2); err != nil {
		t.Fatal(err)
	}
	// Added back, worker 2 is a new node group: its counters, stamped
	// with the old group's slot, refuse until up gives it a slot.
	var id int64
	err := testsrv.Open(t, "pgx", w2.DSN(name)).QueryRow(`SELECT insta0.next_id()`).Scan(&id)
	if err == nil || !strings.Contains(err.Error(), "run shardid pg up") {
		t.Fatalf("a draw on worker 2 added back, before up: %d, %v; want a refusal naming pg up", id, err)
	}
	upRes, upErr := m.Up(ctx, shards, nil)
	for _, r := range upRes {
		if r.Err != nil {
			t.Fatalf("up after worker 2 was added back: %v", r.Err)
		}
	}
	if upErr != nil {
		t.Fatal(upErr)
	}
	var groups, slots int
	if err := db.QueryRow(`SELECT count(*), count(DISTINCT slot) FROM shardid_citus.node_slots`).Scan(&groups, &slots); err != nil || groups != 4 || slots != 4 {
		t.Fatalf("slot ledger after worker 2 came back as a new node group: %d groups, %d slots, %v; want 4 and 4 (its old slot kept, never given again)", groups, slots, err)
	}
	func() {
		defer c.Moves()()
		if _, err := db.Exec(`SELECT rebalance_table_shards(shard_transfer_mode => 'force_logical')`); err != nil {
			t.Fatalf("rebalance: %v", err)
		}
	}()
	close(stop)
	two.wg.Wait()
	var again citusLoad
	again.start(t, nodeDSNs(c, name), shards, 4, 5, nil)
	again.wg.Wait()
	on2 := 0
	for _, sh := range shards {
		if schemaNode(t, db, sh.Schema) == w2.Port() {
			on2++
		}
	}
	if on2 == 0 {
		t.Fatalf("the rebalance moved no schema onto worker 2 once added back")
	}
	// One check over every ID of the three loads.
	for _, l := range []*citusLoad{&two, &again} {
		for id, ids := range l.ids {
			all.ids[id] = append(all.ids[id], ids...)
		}
		all.errs = append(all.errs, l.errs...)
	}
	total := all.check(t, db, shards)
	t.Logf("%d rows (%d before the node changes), %d schemas on worker 2 once added back", total, moved, on2)
}

// TestCitusSurveyFindsWhatCouldRepeat: Survey through the
// coordinator finds every node's counter of every shard and no problem
// after a load; then a worker's counter set into another node's slot, and
// another's set back below what it handed out, are each named (node and
// counter).
func TestCitusSurveyFindsWhatCouldRepeat(t *testing.T) {
	ctx := context.Background()
	c := testsrv.Citus(t)
	db, _ := testsrv.CitusDB(t)
	name := dbNameOf(t, db)
	shards := citusShards(t)
	m := citusUp(t, db, shards)
	var l citusLoad
	l.start(t, nodeDSNs(c, name), shards, 2, 2, nil)
	l.check(t, db, shards)

	st, err := citus.Survey(ctx, db, m.Options(), shards)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Nodes) != 3 || len(st.Counters) != 12 || len(st.Problems) != 0 {
		t.Fatalf("survey of a healthy cluster: %d nodes, %d counters, problems %q; want 3, 12, none", len(st.Nodes), len(st.Counters), st.Problems)
	}
	for _, sh := range shards {
		if g := st.Placements[sh.Schema]; g <= 0 {
			t.Fatalf("placement of %s: group %d; want a worker's", sh.Schema, g)
		}
	}

	w1, w2 := c.Workers()[0], c.Workers()[1]
	var s1 int64
	if err := db.QueryRow(`SELECT slot FROM shardid_citus.node_slots WHERE groupid = (SELECT groupid FROM pg_dist_node WHERE nodeport = $1)`, w1.Port()).Scan(&s1); err != nil {
		t.Fatal(err)
	}
	// Worker 2's counter of shard 1 moved into worker 1's slot.
	if _, err := testsrv.Open(t, "pgx", w2.DSN(name)).Exec(`SELECT setval('insta1_node.next_id_node_seq', (last_value & ~15::bigint) + 16 + $1) FROM insta1_node.next_id_node_seq`, s1); err != nil {
		t.Fatal(err)
	}
	// Worker 1's counter of shard 2 set back to its start.
	if _, err := testsrv.Open(t, "pgx", w1.DSN(name)).Exec(`SELECT setval('insta2_node.next_id_node_seq', $1)`, s1); err != nil {
		t.Fatal(err)
	}
	st, err = citus.Survey(ctx, db, m.Options(), shards)
	if err != nil {
		t.Fatal(err)
	}
	all := strings.Join(st.Problems, "\n")
	for _, want := range []string{
		fmt.Sprintf("insta1_node.next_id_node_seq on node group %d (127.0.0.1:%d) counts by 16 at remainder %d, not in its slot", st.Nodes[2].Group, w2.Port(), s1),
		fmt.Sprintf("draw in the same slot %d: they can hand out the same IDs", s1),
		fmt.Sprintf("insta2_node.next_id_node_seq on node group %d (127.0.0.1:%d) stands at %d, behind", st.Nodes[1].Group, w1.Port(), s1),
	} {
		if !strings.Contains(all, want) {
			t.Errorf("survey problems lack %q:\n%s", want, all)
		}
	}
}

// TestCitusGrant: pg grant on the coordinator gives an application role
// what it needs on every node: as that role, inserts through every node
// succeed (its first draw on each goes to the jump), and it can move no
// node's counter.
func TestCitusGrant(t *testing.T) {
	ctx := context.Background()
	c := testsrv.Citus(t)
	db, _ := testsrv.CitusDB(t)
	name := dbNameOf(t, db)
	shards := citusShards(t)
	citusUp(t, db, shards)
	role := "app_" + name
	if _, err := db.Exec(`CREATE ROLE ` + role + ` LOGIN`); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = db.Exec(`DROP OWNED BY ` + role + `; DROP ROLE ` + role) })
	for _, sh := range shards {
		if _, err := db.Exec(fmt.Sprintf(`GRANT INSERT, SELECT ON %s.photos TO %s`, sh.Schema, role)); err != nil {
			t.Fatal(err)
		}
	}
	res, err := privilege.Grant(ctx, db, shards, role, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		if r.Err != nil || !r.Applied {
			t.Fatalf("grant %s: applied %v, %v", r.Shard.Schema, r.Applied, r.Err)
		}
	}
	for _, dsn := range nodeDSNs(c, name) {
		app := testsrv.Open(t, "pgx", strings.Replace(dsn, "postgres@", role+"@", 1))
		for _, sh := range shards {
			var id int64
			if err := app.QueryRow(fmt.Sprintf(`INSERT INTO %s.photos (v) VALUES (1) RETURNING id`, sh.Schema)).Scan(&id); err != nil {
				t.Fatalf("INSERT into %s as %s through %s: %v", sh.Schema, role, dsn, err)
			}
			if _, err := app.Exec(fmt.Sprintf(`SELECT setval('%s_node.next_id_node_seq', 1)`, sh.Schema)); err == nil || !strings.Contains(err.Error(), "permission denied") {
				t.Fatalf("setval on %s_node's counter as %s through %s: %v; want permission denied", sh.Schema, role, dsn, err)
			}
		}
	}
}
