package citus_test

import (
	"context"
	"database/sql"
	"strings"
	"testing"
	"time"

	"github.com/shardid/shardid/pgfunc"
	"github.com/shardid/shardid/pgfunc/citus"
	"github.com/shardid/shardid/pgfunc/migrate"
	"github.com/shardid/shardid/pgfunc/resume"
	"github.com/shardid/shardid/tools/dbserver"
	"github.com/shardid/shardid/tools/testsrv"
)

// restoredNode is a Citus worker whose counter of shard insta0 a restore
// set back: the backup was taken while the counter stood ahead of the
// clock (a burst borrows up to the lead), the node then handed out
// handed (stored in insta0.photos), and the restore left the counter
// where the backup had it.
type restoredNode struct {
	worker *sql.DB
	backup int64   // the counter's value in the backup
	handed []int64 // what the node handed out after the backup
}

// restoreNode sets worker w's counter of insta0 to a value of its slot
// 3s ahead of the clock (the backup's), inserts 300 rows through w, and
// sets the counter back to the backup's value, as a restore in place
// leaves it.
func restoreNode(t *testing.T, db *sql.DB, m *migrate.Migrator, w *dbserver.PG, name string) restoredNode {
	t.Helper()
	rn := restoredNode{worker: testsrv.Open(t, "pgx", w.DSN(name))}
	var slot int64
	if err := db.QueryRow(`SELECT slot FROM shardid_citus.node_slots WHERE groupid = (SELECT groupid FROM pg_dist_node WHERE nodeport = $1)`, w.Port()).Scan(&slot); err != nil {
		t.Fatal(err)
	}
	l := m.Options().Normalized().Layout
	ticks, err := l.Ticks(time.Now().Add(3 * time.Second))
	if err != nil {
		t.Fatal(err)
	}
	units := ticks << l.SeqBits
	rn.backup = units - ((units&15)-slot+16)&15
	if _, err := rn.worker.Exec(`SELECT setval('insta0_node.next_id_node_seq', $1)`, rn.backup); err != nil {
		t.Fatal(err)
	}
	rn.handed = queryIDs(t, rn.worker, `INSERT INTO insta0.photos (v) SELECT g FROM generate_series(1, 300) AS g RETURNING id`)
	rn.setBack(t)
	return rn
}

// setBack sets the counter back to the backup's value.
func (rn restoredNode) setBack(t *testing.T) {
	t.Helper()
	if _, err := rn.worker.Exec(`SELECT setval('insta0_node.next_id_node_seq', $1)`, rn.backup); err != nil {
		t.Fatal(err)
	}
}

// repeats draws n IDs of insta0 on the node, in a session of its own, and
// counts those it handed out already.
func (rn restoredNode) repeats(t *testing.T, n int) int {
	t.Helper()
	handed := map[int64]bool{}
	for _, id := range rn.handed {
		handed[id] = true
	}
	count := 0
	for _, id := range queryIDs(t, rn.worker, `SELECT insta0.next_id() FROM generate_series(1, $1)`, n) {
		if handed[id] {
			count++
		}
	}
	return count
}

// queryIDs returns the IDs q returns on db, one a row.
func queryIDs(t *testing.T, db *sql.DB, q string, args ...any) []int64 {
	t.Helper()
	rows, err := db.Query(q, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		out = append(out, id)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestCitusResumeRestoredNode: a worker restored in place (its counter of
// a shard set back to where a backup taken ahead of the clock had it)
// hands out again what it drew after the backup (the negative control:
// no resume), pg status's survey names the counter; resume's dry run on
// the coordinator moves nothing and says it would, resume moves every
// node's counter of every shard (coordinator included) past the clock
// plus the lead, keeping each in its slot, and the node then repeats
// nothing; the survey is clean, and a rerun past the same instant moves
// nothing.
func TestCitusResumeRestoredNode(t *testing.T) {
	ctx := context.Background()
	c := testsrv.Citus(t)
	db, _ := testsrv.CitusDB(t)
	name := dbNameOf(t, db)
	shards := citusShards(t)[:2]
	m := citusUp(t, db, shards)
	rn := restoreNode(t, db, m, c.Workers()[0], name)

	if n := rn.repeats(t, 100); n == 0 {
		t.Fatal("a node restored below what it handed out repeated none of it: the test would not catch a resume that misses the node")
	} else {
		t.Logf("negative control, no resume: %d of 100 draws repeat", n)
	}
	rn.setBack(t)
	st, err := citus.Survey(ctx, db, m.Options(), shards)
	if err != nil {
		t.Fatal(err)
	}
	if all := strings.Join(st.Problems, "\n"); !strings.Contains(all, "insta0_node.next_id_node_seq on node group") || !strings.Contains(all, "set back (or restored)") {
		t.Fatalf("survey of the restored node: problems %q; want the set-back counter named", st.Problems)
	}

	ro := resume.Options{Lead: pgfunc.DefaultLead, DryRun: true}
	res, err := resume.Run(ctx, m, nil, ro, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 3*len(shards) {
		t.Fatalf("dry run: %d results %+v; want every node's counter of every shard (%d)", len(res), res, 3*len(shards))
	}
	var last int64
	if err := rn.worker.QueryRow(`SELECT last_value FROM insta0_node.next_id_node_seq`).Scan(&last); err != nil || last != rn.backup {
		t.Fatalf("dry run moved the counter: %d, %v; want %d", last, err, rn.backup)
	}

	ro.DryRun = false
	res, err = resume.Run(ctx, m, nil, ro, nil)
	if err != nil {
		t.Fatal(err)
	}
	moved := 0
	for _, r := range res {
		switch {
		case r.Err != nil:
			t.Errorf("%s on %s: %v", r.Schema, r.Node, r.Err)
		case r.Node == "" || !strings.HasSuffix(r.Schema, pgfunc.NodeSchemaSuffix):
			t.Errorf("result %+v names no Citus node counter", r)
		case r.To&15 != r.From&15 && r.From >= 0:
			t.Errorf("%s on %s moved from %d to %d: out of its slot", r.Schema, r.Node, r.From, r.To)
		case r.Moved:
			moved++
		}
	}
	if moved != 3*len(shards) {
		t.Fatalf("resume moved %d counters of %d (%+v); want every node's", moved, len(res), res)
	}
	if n := rn.repeats(t, 100); n != 0 {
		t.Fatalf("after resume the restored node repeated %d of 100 IDs it handed out before", n)
	}
	st, err = citus.Survey(ctx, db, m.Options(), shards)
	if err != nil || len(st.Problems) != 0 {
		t.Fatalf("survey after resume: %v, problems %q", err, st.Problems)
	}
	// A rerun past the instant the first run moved past moves nothing.
	ro.After = res[0].Past
	for _, r := range res {
		if r.Past.Before(ro.After) {
			ro.After = r.Past
		}
	}
	res, err = resume.Run(ctx, m, nil, ro, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		if r.Moved || r.Err != nil {
			t.Errorf("rerun: %s on %s moved %d -> %d (%v): resume moves a counter only forward", r.Schema, r.Node, r.From, r.To, r.Err)
		}
	}
}
