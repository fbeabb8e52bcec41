package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/shardid/shardid/tools/bench"
	"github.com/shardid/shardid/tools/dbserver"
	"github.com/shardid/shardid/tools/testsrv"
)

// TestIDGenRidesOutOutage kills the database under a drawing idgen for
// longer than its lease: idgen stops drawing before the lease could end,
// says on stderr that it waits, draws on once the database is back and a
// renewal succeeds, and prints every ID asked for, increasing, once. The
// negative control, --wait 0, exits on the same outage.
//
// The test holds idgen in the middle of its run (it stops reading its
// output after 10,000 IDs) from before the crash until its lease is over
// and a renewal has failed: on a fast machine idgen would otherwise print
// every ID before the lease ran out, release its node into the outage
// and fail, with nothing ridden out.
func TestIDGenRidesOutOutage(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command and crashes database servers")
	}
	t.Parallel()
	bin := buildShardid(t, t.TempDir())
	for _, b := range []struct {
		name  string
		start func(t *testing.T) (dsn string, crash func(), restart func() error)
	}{
		{"postgres", func(t *testing.T) (string, func(), func() error) {
			srv := testsrv.NewPG(t, dbserver.PGOptions{})
			return testsrv.Database(t, srv), func() { _ = srv.Crash() }, func() error { return srv.Restart(context.Background()) }
		}},
		{"mariadb", func(t *testing.T) (string, func(), func() error) {
			srv := testsrv.NewMariaDB(t)
			return testsrv.Database(t, srv), srv.Crash, func() error { return srv.Restart(context.Background()) }
		}},
	} {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			dsn, crash, restart := b.start(t)
			if code, _, errOut := runCLI(t, "", nil, "worker", "up", "--dsn", dsn); code != 0 {
				t.Fatal(errOut)
			}
			says := func(p *idgenProc, what string) func() bool {
				return func() bool { return strings.Contains(p.stderr.String(), what) }
			}
			// outage starts idgen, kills the database while idgen is held,
			// and lets idgen draw again once its lease is over (the
			// lease's TTL of 1s has passed since the crash, so since its
			// last renewal) and it has said a renewal failed.
			outage := func(args ...string) *idgenProc {
				t.Helper()
				hold := make(chan struct{})
				p := startIDGenHeld(t, bin, hold, append([]string{"--dsn", dsn, "--ttl", "1s"}, args...)...)
				<-p.drawing
				crash()
				time.Sleep(1500 * time.Millisecond) // longer than the lease, by the monotonic clock
				testsrv.WaitFor(t, "idgen to say the database is down", says(p, "database down"))
				close(hold)
				return p
			}
			const n = 3_000_000
			p := outage("-n", "3000000")
			testsrv.WaitFor(t, "idgen to wait for a renewal", says(p, "(--wait) for a renewal"))
			if err := restart(); err != nil {
				t.Fatal(err)
			}
			p.wait(t, n)
			if d := bench.Repeats(p.ids); d != 0 {
				t.Errorf("%d repeated IDs", d)
			}
			stderr := p.stderr.String()
			for _, want := range []string{"database down", "lease not renewed in time", "waiting up to 5m0s (--wait) for a renewal", "database up again", "drawing again after"} {
				if !strings.Contains(stderr, want) {
					t.Errorf("stderr lacks %q:\n%s", want, stderr)
				}
			}
			t.Logf("%s: %d IDs through the outage; stderr:\n%s", b.name, len(p.ids), stderr)

			// Negative control: without --wait idgen ends at the outage.
			p = outage("-n", "1000000000000", "--wait", "0")
			<-p.done
			if p.err == nil || !strings.Contains(p.stderr.String(), "lease not renewed in time") {
				t.Errorf("--wait 0 through an outage: %v\n%s", p.err, p.stderr.String())
			}
			if err := restart(); err != nil {
				t.Fatal(err)
			}
		})
	}
}
