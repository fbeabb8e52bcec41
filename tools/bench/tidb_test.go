package bench

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/shardid/shardid"
	"github.com/shardid/shardid/tidb/apply"
	"github.com/shardid/shardid/tools/testsrv"
)

// TestRunTiDB runs every part once on the test's TiDB: every strategy's
// table is rendered by package tidb, its rows land where the strategy
// sends them (AUTO_INCREMENT in one region, the others over several), no
// generator repeats, and the bench's database is gone afterwards while a
// table of the DSN's own database stays.
func TestRunTiDB(t *testing.T) {
	if testing.Short() {
		t.Skip("starts TiDB and inserts into five tables: slow")
	}
	// Not parallel: the bench's database name is one per server.
	db, dsn := testsrv.TiDBDB(t)
	if _, err := db.Exec("CREATE TABLE mine (id BIGINT PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}
	s := tiny
	s.Rows, s.Batches = 20, 2
	var steps []Step
	s.Progress = func(st Step) { steps = append(steps, st) }
	rep, err := RunTiDB(context.Background(), dsn, s)
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range steps {
		if st.Round < 1 || st.Round > st.Rounds || st.Done >= st.Total {
			t.Errorf("progress step %+v: round or count past the run's", st)
		}
	}
	if len(steps) == 0 || steps[len(steps)-1].Done != steps[len(steps)-1].Total-1 {
		t.Errorf("progress ends at %+v; want the last of its steps", steps[len(steps)-1:])
	}
	if !rep.Unistore {
		t.Error("the test's TiDB runs unistore; the report says otherwise")
	}
	var keys []string
	for _, r := range rep.Regions {
		keys = append(keys, r.Key)
		t.Logf("%+v", r)
		if want := rep.Settings.Clients * (s.Rows + s.Batches*BatchRows); r.Rows != want {
			t.Errorf("%s: %d rows, want %d", r.Key, r.Rows, want)
		}
		if r.Before < 1 || r.After < r.Before || r.Written < 1 || r.Hottest <= 0 || r.Hottest > 1 {
			t.Errorf("%s: %+v", r.Key, r)
		}
		spread := r.Written > 1
		if spread != (r.Key != "auto_increment" && r.Key != "snowflake") {
			t.Errorf("%s: writes in %d of %d regions", r.Key, r.Written, r.After)
		}
	}
	if strings.Join(keys, ",") != "auto_increment,auto_random,shard_row_id,snowflake,rotated" {
		t.Errorf("tables %v", keys)
	}
	if !strings.Contains(strings.Join(rep.Regions[1].DDL, " "), "AUTO_RANDOM") || !strings.Contains(strings.Join(rep.Regions[2].DDL, " "), "SHARD_ROW_ID_BITS") {
		t.Errorf("DDL %q, %q", rep.Regions[1].DDL, rep.Regions[2].DDL)
	}
	methods := checkRates(t, rep.Insert, rep.IDs)
	if strings.Join(methods, ",") != "auto_increment,tickets,tickets-sequence,segments,leased" {
		t.Errorf("methods %v", methods)
	}
	var n int
	if err := db.QueryRow("SELECT count(*) FROM information_schema.schemata WHERE schema_name = ?", TiDBDatabase).Scan(&n); err != nil || n != 0 {
		t.Errorf("database %s left behind (%d, %v)", TiDBDatabase, n, err)
	}
	if _, err := db.Exec("SELECT * FROM mine"); err != nil {
		t.Errorf("the DSN's own table: %v", err)
	}
}

// TestRunTiDBRefuses: a server that is not TiDB, and a database of the
// bench's name that the bench did not create, stop the run before
// anything is created or dropped.
func TestRunTiDBRefuses(t *testing.T) {
	// Not parallel: the bench's database name is one per server.
	_, mdsn := testsrv.MariaDBDB(t)
	if _, err := RunTiDB(context.Background(), mdsn, tiny); err == nil || !strings.Contains(err.Error(), "not TiDB") {
		t.Errorf("MariaDB: %v", err)
	}
	db, dsn := testsrv.TiDBDB(t)
	if _, err := db.Exec("CREATE DATABASE " + TiDBDatabase); err != nil {
		t.Fatal(err)
	}
	defer db.Exec("DROP DATABASE " + TiDBDatabase)
	if _, err := db.Exec("CREATE TABLE " + TiDBDatabase + ".keep (x int)"); err != nil {
		t.Fatal(err)
	}
	if _, err := RunTiDB(context.Background(), dsn, tiny); !errors.Is(err, ErrExists) {
		t.Errorf("existing database: %v, want ErrExists", err)
	}
	if _, err := db.Exec("SELECT * FROM " + TiDBDatabase + ".keep"); err != nil {
		t.Errorf("the existing database's table: %v", err)
	}
}

// TestRunTiDBCatchesRepeats is the negative control of the TiDB side's
// duplicate check: a second process with the same node id as the bench's
// first client, played by a planter that, from setup until the run ends,
// keeps inserting that node's sequence-0 IDs for the coming five seconds.
// Some of the client's inserts into the Snowflake table must be refused
// as duplicate keys (none into any other table) and the run must end with
// ErrDuplicates, with the complete report. The planter follows the clock rather than planting a
// fixed window up front: on a loaded machine planting a window can take
// longer than the window lasts, and the client would draw past it.
func TestRunTiDBCatchesRepeats(t *testing.T) {
	if testing.Short() {
		t.Skip("inserts into five TiDB tables: slow")
	}
	// Not parallel: the bench's database name is one per server.
	_, dsn := testsrv.TiDBDB(t)
	s := tiny
	s.Rows, s.Batches = 200, 2
	stop := make(chan struct{})
	planted := make(chan error, 1)
	started := false // set by afterSetup, which RunTiDB calls on this goroutine
	s.afterSetup = func(ctx context.Context) error {
		db, err := apply.Open(dsn)
		if err != nil {
			return err
		}
		plant := func() error {
			l, now := shardid.Snowflake(), time.Now()
			args := make([]any, 0, 5000)
			for ms := range 5000 {
				id, err := l.Compose(now.Add(time.Duration(ms)*time.Millisecond), 1, 0)
				if err != nil {
					return err
				}
				args = append(args, id)
			}
			// IGNORE: the planter's windows overlap, and the client may
			// have taken an ID first.
			q := "INSERT IGNORE INTO " + TiDBDatabase + ".k_snowflake (id, v) VALUES (?, 0)" + strings.Repeat(", (?, 0)", len(args)-1)
			_, err := db.ExecContext(ctx, q, args...)
			return err
		}
		if err := plant(); err != nil { // the first window before anything is measured
			db.Close()
			return err
		}
		started = true
		go func() {
			defer db.Close()
			for {
				select {
				case <-stop:
					planted <- nil
					return
				default:
				}
				if err := plant(); err != nil {
					planted <- err
					return
				}
			}
		}()
		return nil
	}
	rep, err := RunTiDB(context.Background(), dsn, s)
	close(stop)
	if !started {
		t.Fatalf("the planter never started: %v", err)
	}
	// The planter ends at the stop, or at an error: the bench drops its
	// database when it ends, so an error after the measured inserts is
	// expected; one before them shows as no duplicate caught.
	perr := <-planted
	if !errors.Is(err, ErrDuplicates) || rep == nil {
		t.Fatalf("err %v, want ErrDuplicates with a report (the planter ended with %v)", err, perr)
	}
	// The duplicates are the Snowflake table's, in single-row or in
	// multi-row statements (which of them met the planted IDs depends on
	// how fast the planter kept ahead of the clock), and no other table's.
	caught := int64(0)
	for _, ph := range rep.Insert {
		for _, k := range ph.Keys {
			switch {
			case k.Key == "snowflake":
				caught += k.DuplicateKeys
			case k.DuplicateKeys != 0:
				t.Errorf("%s: %d duplicate keys in a table nobody planted in", k.Key, k.DuplicateKeys)
			}
		}
	}
	if caught == 0 {
		t.Errorf("no duplicate key counted in the Snowflake table: %+v", rep.Insert)
	}
	t.Logf("caught: %v", err)
}
