package bench

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/shardid/shardid"
	"github.com/shardid/shardid/internal/testsrv"
	"github.com/shardid/shardid/tidb"
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
// first client, played by rows inserted after setup with that node's
// sequence-0 IDs for the next 30 seconds. The client's inserts into the
// Snowflake table must be refused as duplicate keys and the run must end
// with ErrDuplicates, with the complete report.
func TestRunTiDBCatchesRepeats(t *testing.T) {
	if testing.Short() {
		t.Skip("inserts into five TiDB tables: slow")
	}
	// Not parallel: the bench's database name is one per server.
	_, dsn := testsrv.TiDBDB(t)
	s := tiny
	s.Rows, s.Batches = 200, 2
	s.afterSetup = func(ctx context.Context) error {
		db, err := tidb.Open(dsn)
		if err != nil {
			return err
		}
		defer db.Close()
		l, now := shardid.Snowflake(), time.Now()
		for ms := 0; ms < 30_000; ms += 1000 {
			args := make([]any, 0, 1000)
			for i := range 1000 {
				id, err := l.Compose(now.Add(time.Duration(ms+i)*time.Millisecond), 1, 0)
				if err != nil {
					return err
				}
				args = append(args, id)
			}
			q := "INSERT INTO " + TiDBDatabase + ".k_snowflake (id, v) VALUES (?, 0)" + strings.Repeat(", (?, 0)", len(args)-1)
			if _, err := db.ExecContext(ctx, q, args...); err != nil {
				return err
			}
		}
		return nil
	}
	rep, err := RunTiDB(context.Background(), dsn, s)
	if !errors.Is(err, ErrDuplicates) || rep == nil {
		t.Fatalf("err %v, want ErrDuplicates with a report", err)
	}
	if rep.Insert[0].Keys[3].Key != "snowflake" || rep.Insert[0].Keys[3].DuplicateKeys == 0 {
		t.Errorf("single-row inserts into the Snowflake table: %+v", rep.Insert[0].Keys[3])
	}
	t.Logf("caught: %v", err)
}
