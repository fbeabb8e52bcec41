package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/shardid/shardid"
	"github.com/shardid/shardid/tools/dbserver"
	"github.com/shardid/shardid/tools/testsrv"
)

// TestPGResumeMapMovesWholeServers: a map puts shards 0-1,3,10 in one
// database of a server and 2,8-9 in another of the same server; the
// server also holds insta11 (in no map entry) and other2 (shard 2 under
// another schema name). pg resume --map moves every counter of the
// server, once (the second entry reaches the same running server), the
// unmapped ones too, saying they are not in the map, and reports the
// mapped shards without a generator as MISSING rather than "not taking
// part". (Before: it moved only the mapped schemas, left insta11's
// counter where the restored backup had it, and exited 0: drawing 120,000
// from insta11 after a restore repeated 50,113.)
func TestPGResumeMapMovesWholeServers(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server of its own")
	}
	t.Parallel()
	srv := testsrv.NewPG(t, dbserver.PGOptions{})
	dsn1, dsn1p := testsrv.Database(t, srv), testsrv.Database(t, srv)
	env := map[string]string{"DB1": dsn1, "DB1P": dsn1p}
	for _, up := range [][]string{
		{"--dsn", dsn1, "--shards", "0-1,3,11"},
		{"--dsn", dsn1p, "--shards", "2", "--schema-format", "other%d"},
	} {
		if code, out, errOut := runCLI(t, "", nil, append([]string{"pg", "up", "--layout", "js53"}, up...)...); code != 0 {
			t.Fatalf("up %v: exit %d\n%s%s", up, code, out, errOut)
		}
	}
	db1 := openPG(t, dsn1)
	if _, err := db1.Exec("SELECT count(insta11.next_id()) FROM generate_series(1, 1000)"); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "fleet.toml")
	if err := os.WriteFile(path, []byte(`layout = "js53"
[[servers]]
name = "db1"
dsn_env = "DB1"
shards = "0-1,3,10"
[[servers]]
name = "db1p"
dsn_env = "DB1P"
shards = "2,8-9"
`), 0o644); err != nil {
		t.Fatal(err)
	}
	var before time.Time
	if err := db1.QueryRow("SELECT clock_timestamp()").Scan(&before); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, "", env, "pg", "resume", "--apply", "--map", path, "--lead", "5s")
	if code != 0 || !strings.Contains(out, "same     db1p: reaches the running server of db1") ||
		!regexp.MustCompile(`(?m)^moved +db1 \S+\.insta11 .*not in the map: moved too`).MatchString(out) ||
		!regexp.MustCompile(`(?m)^moved +db1 \S+\.other2 .*not in the map: moved too`).MatchString(out) ||
		len(regexp.MustCompile(`(?m)^moved +db1 \S+\.insta[013] `).FindAllString(out, -1)) != 3 ||
		len(regexp.MustCompile(`(?m)^MISSING +db1 \S+\.insta(10|2|8|9) `).FindAllString(out, -1)) != 4 ||
		!strings.Contains(out, "5 counters: 5 moved, 0 already past, 0 not taking part, 0 failed; 4 shards asked for without a generator") {
		t.Fatalf("resume --map: exit %d\n%s%s", code, out, errOut)
	}
	// insta11's counter stands past the clock before the run plus the
	// lead: nothing it handed out before can come again.
	var last int64
	if err := db1.QueryRow("SELECT last_value FROM insta11.next_id_seq").Scan(&last); err != nil {
		t.Fatal(err)
	}
	l := shardid.JS53()
	if got := l.TickTime(last >> l.SeqBits); got.Before(before.Add(5*time.Second - l.TimeUnit)) {
		t.Fatalf("insta11's counter stands at %s; want past %s (the clock before resume plus the lead)", got, before.Add(5*time.Second))
	}
}
