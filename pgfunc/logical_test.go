package pgfunc_test

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/shardid/shardid/pgfunc"
	"github.com/shardid/shardid/pgfunc/migrate"
	"github.com/shardid/shardid/pgfunc/resume"
	"github.com/shardid/shardid/tools/dbserver"
	"github.com/shardid/shardid/tools/testsrv"
)

// TestLogicalReplicaCutover: a table keyed by DEFAULT insta3.next_id() is
// published, and a second server subscribes to it, its schema copied by
// pg_dump --schema-only first, as the PostgreSQL docs set a subscriber
// up. Census names the table on both sides (published; subscribed). A
// burst on the publisher runs its counter ahead of the clock; the rows
// reach the subscriber, the counter does not (PostgreSQL 15 replicates no
// sequence). At cutover the subscriber draws a second after the
// publisher's last draw: after pg resume (the runbook), none of the
// publisher's IDs again; its negative control, the same without the
// resume, repeats them. (Before: no doc named subscriptions; 200,000 of
// 200,000 repeated in an outside trial.)
func TestLogicalReplicaCutover(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("two servers of its own, one subscribed to the other")
	}
	ctx := context.Background()
	pub := testsrv.NewPG(t, dbserver.PGOptions{Settings: map[string]string{"wal_level": "logical"}})
	sub := testsrv.NewPG(t, dbserver.PGOptions{})
	pubDSN := testsrv.Database(t, pub)
	pubDB := testsrv.Open(t, "pgx", pubDSN)
	name := dbNameOf(t, pubDB)
	o := burstOptions(5 * time.Second)
	installWith(t, pubDB, pgfunc.Shard{Schema: "insta3", ID: 3}, o)
	for _, q := range []string{
		"CREATE TABLE public.photos (id bigint PRIMARY KEY DEFAULT insta3.next_id(), caption text)",
		"CREATE PUBLICATION photos_pub FOR TABLE public.photos",
	} {
		if _, err := pubDB.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	// Two subscribers (the runbook, and its negative control): the
	// schema first, then the subscription.
	var subDSNs []string
	for i := range 2 {
		subDSN := testsrv.Database(t, sub)
		subDSNs = append(subDSNs, subDSN)
		dump := exec.Command(filepath.Join(pub.BinDir(), "pg_dump"), "--schema-only", "--no-publications", "-d", pubDSN)
		load := exec.Command(filepath.Join(pub.BinDir(), "psql"), "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", subDSN)
		pipe, err := dump.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		load.Stdin = pipe
		if err := dump.Start(); err != nil {
			t.Fatal(err)
		}
		if out, err := load.CombinedOutput(); err != nil {
			t.Fatalf("load the schema: %v\n%s", err, out)
		}
		if err := dump.Wait(); err != nil {
			t.Fatal(err)
		}
		if _, err := testsrv.Open(t, "pgx", subDSN).Exec(fmt.Sprintf("CREATE SUBSCRIPTION photos_sub%d CONNECTION 'host=127.0.0.1 port=%d dbname=%s user=postgres' PUBLICATION photos_pub", i, pub.Port(), name)); err != nil {
			t.Fatal(err)
		}
	}
	subDSN := subDSNs[0]

	// The burst, rows inserted on the publisher's test clock.
	const burst = 12_500 // burstLayout: ~7.8 s of ticks
	conn := newConn(t, pubDB)
	t0 := time.Now().UTC().Truncate(time.Second)
	old, last := drawAsAllowed(t, conn, "insta3", burst, t0)
	if _, err := conn.ExecContext(ctx, "INSERT INTO public.photos (id) SELECT unnest($1::bigint[])", old); err != nil {
		t.Fatal(err)
	}
	for _, dsn := range subDSNs {
		db := testsrv.Open(t, "pgx", dsn)
		for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(50 * time.Millisecond) {
			var n int
			if err := db.QueryRow("SELECT count(*) FROM public.photos").Scan(&n); err != nil {
				t.Fatal(err)
			}
			if n == burst {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("a subscriber holds %d of %d rows after two minutes", n, burst)
			}
		}
	}

	// Census on both sides names the table.
	for _, side := range []struct {
		name, dsn string
		sub       bool
	}{{"publisher", pubDSN, false}, {"subscriber", subDSN, true}} {
		c, err := migrator(t, side.dsn, o, migrate.Options{OwnDatabaseOnly: true}).Server().Census(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(c.Replicated) != 1 || c.Replicated[0].Table != "photos" || c.Replicated[0].Generator != "insta3" ||
			side.sub != slices.Equal(c.Replicated[0].Subscriptions, []string{"photos_sub0"}) ||
			side.sub == slices.Equal(c.Replicated[0].Publications, []string{"photos_pub"}) {
			t.Errorf("census on the %s: replicated %+v; want public.photos keyed by insta3, subscribed %v", side.name, c.Replicated, side.sub)
		}
	}

	// Cutover: the publisher's writers stopped, the subscriptions
	// dropped; the control draws without pg resume.
	for i, dsn := range subDSNs {
		if _, err := testsrv.Open(t, "pgx", dsn).Exec(fmt.Sprintf("DROP SUBSCRIPTION photos_sub%d", i)); err != nil {
			t.Fatal(err)
		}
	}
	start := last.Add(time.Second)
	control, _ := drawAsAllowed(t, newConn(t, testsrv.Open(t, "pgx", subDSNs[1])), "insta3", burst, start)
	nControl := repeats(old, control)
	subDB := testsrv.Open(t, "pgx", subDSN)
	sconn := newConn(t, subDB)
	if _, err := subDB.Exec(fmt.Sprintf("ALTER DATABASE %s SET shardid_test.now = '%s'", dbNameOf(t, subDB), start.Format(time.RFC3339Nano))); err != nil {
		t.Fatal(err)
	}
	res, err := resume.Run(ctx, migrator(t, subDSN, o, migrate.Options{OwnDatabaseOnly: true}), nil, resume.Options{Lead: 5 * time.Second}, nil)
	if err != nil || len(res) != 1 || res[0].Err != nil || !res[0].Moved {
		t.Fatalf("resume on the subscriber: %+v, %v", res, err)
	}
	resumed, _ := drawAsAllowed(t, sconn, "insta3", burst, start)
	n := repeats(old, resumed)
	t.Logf("a subscriber cut over a second after its publisher's last draw: %d of %d of the publisher's IDs repeated without pg resume, %d after it", nControl, burst, n)
	if n > 0 {
		t.Errorf("%d of the publisher's IDs handed out again after the runbook", n)
	}
	if nControl == 0 {
		t.Error("no repeat without pg resume: the test would not catch a cutover without it")
	}
}
