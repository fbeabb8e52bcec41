package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shardid/shardid"
	"github.com/shardid/shardid/dialect"
	"github.com/shardid/shardid/lease"
	"github.com/shardid/shardid/tools/dbserver"
	"github.com/shardid/shardid/tools/testsrv"
)

// TestWorkerFenceCLI on PostgreSQL, MariaDB and TiDB: with a holder live,
// worker fence (the layout and the TTL read from the table) fences every
// node id of it, status shows them fenced, the holder's next renewal stops it naming
// the fence, idgen is refused until the fence ends and then draws. A rerun
// fences again.
func TestWorkerFenceCLI(t *testing.T) {
	t.Parallel()
	for _, b := range []struct {
		name, driver string
		dsn          func(t *testing.T) string
	}{
		{"postgres", "pgx", leaseBackends[0].dsn},
		{"mariadb", "mysql", leaseBackends[1].dsn},
		{"tidb", "mysql", leaseBackends[2].dsn},
	} {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			dsn := b.dsn(t)
			if code, _, errOut := runCLI(t, "", nil, "worker", "up", "--dsn", dsn); code != 0 {
				t.Fatal(errOut)
			}
			db := testsrv.Open(t, b.driver, dsn)
			holder, err := lease.Acquire(ctx, db, lease.Settings{Holder: "live", Generator: shardid.Settings{Layout: shardid.JS53()}, TTL: 5 * time.Second, RenewEvery: -1})
			if err != nil {
				t.Fatal(err)
			}
			defer holder.Close()
			code, out, errOut := runCLI(t, "", nil, "worker", "fence", "--dsn", dsn) // for the holder's 5s, which the table records
			nodes := int(shardid.JS53().MaxShard()) + 1
			if code != 0 || !strings.Contains(out, " node ids fenced (") || !strings.Contains(out, "every holder stops at its next renewal") {
				t.Fatalf("worker fence: exit %d\n%s%s", code, out, errOut)
			}
			leases := statusJSON(t, dsn)
			fenced := 0
			for _, l := range leases {
				if l.Fenced {
					fenced++
				}
			}
			if len(leases) != nodes || fenced != nodes {
				t.Errorf("status after the fence: %d rows, %d fenced; want all %d node ids of the table's layout", len(leases), fenced, nodes)
			}
			// The end printed is the rows' own: the earliest of them.
			_, printed, _ := strings.Cut(out, ") until ")
			printed, _, _ = strings.Cut(printed, " ")
			var soonest time.Time
			for _, l := range leases {
				if u, err := time.Parse(time.RFC3339Nano, l.Until); err == nil && (soonest.IsZero() || u.Before(soonest)) {
					soonest = u
				}
			}
			if p, err := time.Parse(time.RFC3339Nano, printed); err != nil || !p.Equal(soonest) {
				t.Errorf("worker fence printed the end %q; the rows' earliest end is %s", printed, soonest.Format(time.RFC3339Nano))
			}
			if code, text, _ := runCLI(t, "", nil, "worker", "status", "--dsn", dsn); code != 0 || strings.Count(text, "\n") > 10 ||
				!strings.Contains(text, fmt.Sprintf("fence node ids 0-%d (%d): fenced until ", nodes-1, nodes)) {
				t.Errorf("worker status after the fence: exit %d, %d lines; want the fenced rows summed up\n%s", code, strings.Count(text, "\n"), text)
			}
			if err := holder.Renew(ctx); !errors.Is(err, lease.ErrLost) || !strings.Contains(err.Error(), "fenced") {
				t.Errorf("the live holder's renewal after the fence: %v", err)
			}
			// Judged only if it starts before the fence ends: on a loaded
			// machine the steps above can outlast the fence.
			started := time.Now()
			code, _, errOut = runCLI(t, "", nil, "idgen", "--dsn", dsn, "--layout", "js53", "-n", "1")
			switch {
			case started.Before(soonest) && (code != 1 || !strings.Contains(errOut, "fenced (shardid worker fence) until")):
				t.Errorf("idgen during the fence: exit %d %q", code, errOut)
			case !started.Before(soonest):
				t.Logf("the fence ended (%s) before idgen started (%s): idgen during the fence not judged", soonest.Format(time.RFC3339Nano), started.Format(time.RFC3339Nano))
			}
			time.Sleep(time.Until(soonest))
			var ok bool
			for end := time.Now().Add(time.Minute); !ok && time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
				code, out, errOut = runCLI(t, "", nil, "idgen", "--dsn", dsn, "--layout", "js53", "-n", "100")
				ok = code == 0 && len(parseIDs(t, out)) == 100
			}
			if !ok {
				t.Errorf("idgen after the fence ended: exit %d %q", code, errOut)
			}
			// idgen leased for its default 10s: that is the longest now.
			if code, out, _ := runCLI(t, "", nil, "worker", "fence", "--dsn", dsn, "--layout", "js53"); code != 0 || !strings.Contains(out, "(0 rows added") ||
				!strings.Contains(out, "for 10s (the longest TTL a holder of the table records)") {
				t.Errorf("a rerun with the layout given: exit %d\n%s", code, out)
			}
		})
	}
}

// TestWorkerFenceBadInput: bad flags exit 2 before connecting; a fence of
// an empty table without a layout, or with another layout than its rows',
// exits 1 saying what to give.
func TestWorkerFenceBadInput(t *testing.T) {
	t.Parallel()
	dsn := "postgres://u@127.0.0.1:1/x"
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"worker", "fence", "--dsn", dsn, "--ttl", "1ms"}, "--ttl: 1ms is too short"},
		{[]string{"worker", "fence", "--dsn", dsn, "--max-clock-skew", "-1s"}, "--max-clock-skew: -1s is out of range"},
		{[]string{"worker", "fence", "--dsn", dsn, "--epoch", "2020-01-01T00:00:00Z"}, "--epoch: 2020-01-01T00:00:00Z needs --layout too"},
		{[]string{"worker", "fence", "--dsn", dsn, "--layout", "nope"}, "--layout: "},
		{[]string{"worker", "fence", "--dsn", dsn, "extra"}, `unexpected argument "extra"`},
	} {
		code, _, stderr := runCLI(t, "", nil, c.args...)
		if code != 2 || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and one line containing %q", c.args, code, stderr, c.want)
		}
	}
	dsn = leaseBackends[0].dsn(t)
	if code, _, errOut := runCLI(t, "", nil, "worker", "up", "--dsn", dsn); code != 0 {
		t.Fatal(errOut)
	}
	code, _, stderr := runCLI(t, "", nil, "worker", "fence", "--dsn", dsn)
	if code != 1 || !strings.Contains(stderr, "has no row to read the holders' layout from; give the holders' layout (--layout)") {
		t.Errorf("fence of an empty table without --layout: exit %d %q", code, stderr)
	}
	if code, _, stderr := runCLI(t, "", nil, "idgen", "--dsn", dsn, "-n", "1"); code != 0 {
		t.Fatal(stderr)
	}
	code, _, stderr = runCLI(t, "", nil, "worker", "fence", "--dsn", dsn, "--layout", "instagram") // idgen leased for snowflake, its default
	if code != 1 || !strings.Contains(stderr, "lease table serves another layout") {
		t.Errorf("fence with another layout than the rows': exit %d %q", code, stderr)
	}
}

// TestWorkerFenceManyNodeBits: a layout of 22 node bits (Baidu's
// uid-generator's) has more node ids than a fence writes rows for: fence
// exits 1 naming --nodes; with --nodes 2048 it fences node ids 0-2047 and
// the row of the holder from before, and a newcomer takes an id above
// them at once (none of the holders from before can have it).
func TestWorkerFenceManyNodeBits(t *testing.T) {
	t.Parallel()
	dsn := leaseBackends[0].dsn(t)
	const layout = "time:28@1s,node:22,seq:13"
	if code, _, errOut := runCLI(t, "", nil, "worker", "up", "--dsn", dsn); code != 0 {
		t.Fatal(errOut)
	}
	if code, _, errOut := runCLI(t, "", nil, "idgen", "--dsn", dsn, "--layout", layout, "-n", "1"); code != 0 {
		t.Fatal(errOut)
	}
	code, _, stderr := runCLI(t, "", nil, "worker", "fence", "--dsn", dsn)
	if code != 1 || !strings.Contains(stderr, "22 node bits are 4194304 node ids, more than the 1048576 a fence writes rows for") || !strings.Contains(stderr, "(--nodes N)") {
		t.Errorf("fence of 22 node bits: exit %d %q", code, stderr)
	}
	code, out, stderr := runCLI(t, "", nil, "worker", "fence", "--dsn", dsn, "--nodes", "2048", "--ttl", "30s")
	if code != 0 || !strings.Contains(out, ": 2048 node ids fenced (2047 rows added") {
		t.Fatalf("fence --nodes 2048: exit %d\n%s%s", code, out, stderr)
	}
	if code, _, errOut := runCLI(t, "", nil, "idgen", "--dsn", dsn, "--layout", layout, "-n", "10", "--holder", "newcomer"); code != 0 {
		t.Fatalf("a newcomer during the fence: exit %d %s", code, errOut)
	}
	for _, l := range statusJSON(t, dsn) {
		if l.Holder == "newcomer" && l.Node < 2048 {
			t.Errorf("the newcomer took node %d, inside the fence", l.Node)
		}
	}
}

// TestWorkerFenceWaitsOutTTL: the lease table is restored from a copy
// made when node 0's last holder, leasing for 20s (longer than
// DefaultTTL, 10s), had released it; meanwhile holder a leased node 0 for
// 20s and draws on without renewing, as one whose renewals are slow does.
// worker fence without --ttl fences for the longest TTL the restored rows
// record, so no newcomer gets node 0 before a's own deadline (18s after
// its last renewal) has stopped it: idgen, retried until it leases, prints
// none of a's IDs, and a cannot draw once idgen could. A fence shorter
// than the holders' TTL is refused (--ttl 5s). A fence that knew no TTL
// (DefaultTTL's 10s) let a draw on for 7s after a newcomer took node 0:
// 1,299 repeats in an outside trial with 60s holders.
func TestWorkerFenceWaitsOutTTL(t *testing.T) {
	if testing.Short() {
		t.Skip("waits out a 20s lease")
	}
	t.Parallel()
	for _, b := range []struct {
		name, driver string
		d            dialect.Dialect
		dsn          func(t *testing.T) string
	}{{"postgres", "pgx", dialect.Postgres, leaseBackends[0].dsn}, {"mariadb", "mysql", dialect.MySQL, leaseBackends[1].dsn}} {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			dsn := b.dsn(t)
			if code, _, errOut := runCLI(t, "", nil, "worker", "up", "--dsn", dsn); code != 0 {
				t.Fatal(errOut)
			}
			db := testsrv.Open(t, b.driver, dsn)
			s := lease.Settings{TTL: 20 * time.Second, RenewEvery: -1}
			s.Holder = "z"
			z, err := lease.Acquire(ctx, db, s)
			if err != nil {
				t.Fatal(err)
			}
			if err := z.Close(); err != nil {
				t.Fatal(err)
			}
			dump, err := dbserver.TakeTable(ctx, b.d, dsn, lease.DefaultTable)
			if err != nil {
				t.Fatal(err)
			}
			s.Holder = "a"
			holder, err := lease.Acquire(ctx, db, s)
			if err != nil {
				t.Fatal(err)
			}
			defer holder.Close()
			if err := dbserver.RestoreTable(ctx, dsn, dump); err != nil {
				t.Fatal(err)
			}
			if code, _, stderr := runCLI(t, "", nil, "worker", "fence", "--dsn", dsn, "--ttl", "5s"); code != 1 || !strings.Contains(stderr, "--ttl 5s is below 20s, the TTL node 0's holder leases with") {
				t.Errorf("a fence shorter than the holders' TTL: exit %d %q", code, stderr)
			}
			code, out, errOut := runCLI(t, "", nil, "worker", "fence", "--dsn", dsn)
			if code != 0 || !strings.Contains(out, "for 20s (the longest TTL a holder of the table records)") {
				t.Fatalf("worker fence: exit %d\n%s%s", code, out, errOut)
			}
			// The holder draws on (its deadline is its own) until it must
			// stop, 100 IDs a millisecond at most.
			var mu sync.Mutex
			var held []int64
			var stopped error
			done := make(chan struct{})
			go func() {
				defer close(done)
				for n := 0; ; n++ {
					id, err := holder.Next()
					mu.Lock()
					if err != nil {
						stopped = err
						mu.Unlock()
						return
					}
					held = append(held, id)
					mu.Unlock()
					if n%100 == 0 {
						time.Sleep(time.Millisecond)
					}
				}
			}()
			var ids []int64
			for end := time.Now().Add(2 * time.Minute); ; time.Sleep(200 * time.Millisecond) {
				code, out, errOut = runCLI(t, "", nil, "idgen", "--dsn", dsn, "-n", "20000")
				if code == 0 {
					ids = parseIDs(t, out)
					break
				}
				if !strings.Contains(errOut, "fenced (shardid worker fence) until") || time.Now().After(end) {
					t.Fatalf("idgen during the fence: exit %d %q", code, errOut)
				}
			}
			_, after := holder.Next()
			mu.Lock()
			drawn, why := append([]int64(nil), held...), stopped
			mu.Unlock()
			if !errors.Is(after, lease.ErrExpired) || !errors.Is(why, lease.ErrExpired) {
				t.Errorf("the fenced holder once a newcomer leased: Next %v, its drawing stopped with %v; want ErrExpired", after, why)
			}
			if n := dupCount(append(drawn, ids...)); n != 0 {
				t.Errorf("%d of the newcomer's IDs repeat the fenced holder's", n)
			}
		})
	}
}
