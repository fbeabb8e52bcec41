package main

import (
	"bytes"
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/shardid/shardid/internal/dsn"
	"github.com/shardid/shardid/tools/dbserver"
	"github.com/shardid/shardid/tools/testsrv"
)

// TestTicketsBadInput: each invalid flag exits 2 with one line naming the
// flag and what it allows, before anything connects.
func TestTicketsBadInput(t *testing.T) {
	t.Parallel()
	dsn := "root@tcp(127.0.0.1:1)/x"
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"tickets", "up", "--dsn", dsn, "--increment", "2", "--offset", "1"}, "--name is required"},
		{[]string{"tickets", "up", "--dsn", dsn, "--name", "t", "--offset", "1"}, "--increment is required"},
		{[]string{"tickets", "up", "--dsn", dsn, "--name", "t", "--increment", "2"}, "--offset is required: 1 to 2"},
		{[]string{"tickets", "up", "--dsn", dsn, "--name", "t", "--increment", "2", "--offset", "3"}, "--offset: 3 is out of range (allowed 1-2, the increment)"},
		{[]string{"tickets", "up", "--dsn", dsn, "--name", "t", "--increment", "70000", "--offset", "1"}, "--increment: 70000 is out of range (allowed 1-65535)"},
		{[]string{"tickets", "up", "--dsn", dsn, "--name", "t", "--increment", "0", "--offset", "1"}, "--increment: 0 is out of range (allowed 1-65535)"},
		{[]string{"tickets", "up", "--dsn", dsn, "--name", "t", "--increment", "2", "--offset", "0"}, "--offset: 0 is out of range (allowed 1-2, the increment)"},
		{[]string{"tickets", "up", "--dsn", dsn, "--name", "Tickets64", "--increment", "2", "--offset", "1"}, `--name: "Tickets64" is not a ticket name (allowed: lower-case letters`},
		{[]string{"tickets", "up", "--dsn", dsn, "--name", "t", "--increment", "2", "--offset", "1", "--kind", "queue"}, `--kind: "queue" is not a kind (allowed: table, sequence)`},
		{[]string{"tickets", "up", "--dsn", dsn, "--name", "t", "--increment", "2", "--offset", "1", "--start", "-1"}, "--start: -1 is out of range (allowed 1-4611686018427387904)"},
		{[]string{"tickets", "up", "--dsn", dsn, "--name", "t", "--increment", "2", "--offset", "1", "--kind", "table", "--cache", "5"}, "--cache applies only to --kind sequence"},
		{[]string{"tickets", "up", "--dsn", dsn, "--name", "t", "--increment", "2", "--offset", "1", "--cache", "5"}, "--cache applies only to --kind sequence"},
		{[]string{"tickets", "up", "--dsn", dsn, "--name", "t", "--increment", "2", "--offset", "1", "--kind", "sequence", "--cache", "-5"}, "--cache: -5 is out of range (allowed 1-1000000)"},
		{[]string{"tickets", "next", "--dsn", dsn, "--name", "t", "--timeout", "0"}, "--timeout: 0s is out of range (allowed: a positive duration"},
		{[]string{"tickets", "next", "--dsn", dsn, "--name", "t", "--retry-after", "-1s"}, "--retry-after: -1s is out of range (allowed: a positive duration"},
		{[]string{"tickets", "up", "--name", "t", "--increment", "2", "--offset", "1"}, "--dsn is required"},
		{[]string{"tickets", "next", "--name", "t"}, "--dsn is required: one per ticket server"},
		{[]string{"tickets", "next", "--dsn", dsn}, "--name is required"},
		{[]string{"tickets", "next", "--dsn", dsn, "--name", "t", "-n", "0"}, "-n: 0 is out of range"},
		{[]string{"tickets", "next", "--dsn", "postgres://u@h/db", "--name", "t"}, "want a go-sql-driver/mysql DSN"},
		{[]string{"tickets", "status", "--dsn", dsn, "--name", "a-b"}, `--name: "a-b" is not a ticket name`},
		{[]string{"tickets", "up", "--dsn", dsn, "--name", "t_class", "--increment", "1", "--offset", "1"}, `--name: "t_class" ends in _class, the suffix of class tables`},
		{[]string{"tickets", "next", "--dsn", dsn, "--name", "t", "--budget", "0s"}, "--budget: 0s is out of range (allowed: a positive duration up to --timeout, 2s"},
		{[]string{"tickets", "next", "--dsn", dsn, "--name", "t", "--budget", "3s"}, "--budget: 3s is out of range (allowed: a positive duration up to --timeout, 2s"},
		{[]string{"tickets", "resume", "--dsn", dsn, "--name", "t"}, "--offset is required: the offset of the server whose data went back"},
		{[]string{"tickets", "resume", "--dsn", dsn, "--name", "t", "--offset", "0"}, "--offset: 0 is out of range (allowed 1-65535: the offset of the server to move)"},
		{[]string{"tickets", "resume", "--dsn", dsn, "--name", "t", "--offset", "1", "--skip", "0"}, "--skip: 0 is out of range (allowed 1-1099511627776 tickets)"},
		{[]string{"tickets", "resume", "--dsn", dsn, "--name", "t", "--offset", "1", "--skip", "-3"}, "--skip: -3 is out of range (allowed 1-1099511627776 tickets)"},
		{[]string{"tickets", "resume", "--dsn", dsn, "--name", "t", "--offset", "1", "--after", "-1"}, "--after: -1 is out of range (allowed 0-4611686018427387904)"},
		{[]string{"tickets", "resume", "--dsn", dsn, "--offset", "1"}, "--name is required"},
		{[]string{"tickets", "resume", "--name", "t", "--offset", "1"}, "--dsn is required"},
		{[]string{"tickets", "resume", "--dsn", dsn, "--name", "t", "--offset", "1", "extra"}, `tickets resume: unexpected argument "extra"`},
	} {
		code, _, stderr := runCLI(t, "", nil, c.args...)
		if code != 2 || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and one line containing %q", c.args, code, stderr, c.want)
		}
	}
}

// TestTicketsSecretsNeverPrinted: servers that cannot be reached make the
// commands fail with one error (any lines after its first indented under
// it) that never shows the password.
func TestTicketsSecretsNeverPrinted(t *testing.T) {
	t.Parallel()
	dsn := "app:s3cret@tcp(127.0.0.1:1)/x?timeout=2s"
	for _, args := range [][]string{
		{"tickets", "up", "--dsn", dsn, "--name", "t", "--increment", "2", "--offset", "1"},
		{"tickets", "next", "--dsn", dsn, "--dsn", dsn, "--name", "t", "--timeout", "2s"},
		{"tickets", "status", "--dsn", dsn, "--name", "t"},
		{"tickets", "resume", "--dsn", dsn, "--dsn", dsn, "--name", "t", "--offset", "1"},
	} {
		code, out, stderr := runCLI(t, "", nil, args...)
		if code != 1 || strings.Contains(out+stderr, "s3cret") || !oneError(stderr) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 1, one error, no password", args, code, out, stderr)
		}
	}
}

// TestTicketsUpNextStatus on two databases of the shared MariaDB standing
// in for two servers: up creates and reruns as a no-op, refuses other
// settings; next prints unique tickets from both classes; status shows
// both and the check; a third server that shares a class makes next and
// status fail before any ticket is printed.
func TestTicketsUpNextStatus(t *testing.T) {
	t.Parallel()
	srv := testsrv.MariaDB(t)
	a, b, c := testsrv.Database(t, srv), testsrv.Database(t, srv), testsrv.Database(t, srv)
	for _, s := range []struct {
		dsn, off string
	}{{a, "1"}, {b, "2"}, {c, "1"}} {
		code, out, stderr := runCLI(t, "", nil, "tickets", "up", "--dsn", s.dsn, "--name", "tickets64", "--increment", "2", "--offset", s.off)
		if code != 0 || !strings.Contains(out, "created (table, increment 2, offset "+s.off+"; first ticket "+s.off+")") {
			t.Fatalf("up: exit %d\n%s%s", code, out, stderr)
		}
	}
	code, out, _ := runCLI(t, "", nil, "tickets", "up", "--dsn", a, "--name", "tickets64", "--increment", "2", "--offset", "1")
	if code != 0 || !strings.Contains(out, "already there, unchanged") {
		t.Errorf("rerun: exit %d %q", code, out)
	}
	code, _, stderr := runCLI(t, "", nil, "tickets", "up", "--dsn", a, "--name", "tickets64", "--increment", "2", "--offset", "2")
	if code != 1 || !strings.Contains(stderr, "increment 2, offset 1; asked for a table with increment 2, offset 2: left as it is") {
		t.Errorf("other offset: exit %d %q", code, stderr)
	}
	code, out, stderr = runCLI(t, "", nil, "tickets", "next", "--dsn", a, "--dsn", b, "--name", "tickets64", "-n", "100", "--timeout", patient)
	ids := parseIDs(t, out)
	// The client takes the servers in turn, so half the tickets are each
	// one's, unless a draw went to the other server (a server slow on a
	// loaded machine), which it says on stderr.
	if code != 0 || len(ids) != 100 || dupCount(ids) != 0 || oddCount(ids) == 0 || oddCount(ids) == 100 ||
		oddCount(ids) != 50 && stderr == "" || !onlySlowNotes(stderr) {
		t.Errorf("next: exit %d, %d tickets, %d duplicates, %d odd; stderr %q", code, len(ids), dupCount(ids), oddCount(ids), stderr)
	}
	code, out, _ = runCLI(t, "", nil, "tickets", "status", "--dsn", a, "--dsn", b, "--name", "tickets64")
	if code != 0 || !strings.Contains(out, "2 servers, increment 2, no two in one class") || !strings.Contains(out, "table    2         1      ") {
		t.Errorf("status: exit %d\n%s", code, out)
	}
	for _, args := range [][]string{
		{"tickets", "next", "--dsn", a, "--dsn", b, "--dsn", c, "--name", "tickets64", "-n", "5", "--timeout", patient},
		{"tickets", "status", "--dsn", a, "--dsn", c, "--name", "tickets64"},
	} {
		code, out, stderr = runCLI(t, "", nil, args...)
		if code != 1 || !strings.Contains(stderr, "ticket servers overlap") || strings.Contains(out, "\n1") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args[:2], code, out, stderr)
		}
	}
	pg := testsrv.Database(t, testsrv.PG(t))
	code, _, stderr = runCLI(t, "", nil, "tickets", "up", "--dsn", pg, "--name", "t", "--increment", "1", "--offset", "1")
	if code != 2 || !strings.Contains(stderr, "is PostgreSQL; ticket servers are MySQL, MariaDB or TiDB") {
		t.Errorf("PostgreSQL: exit %d %q", code, stderr)
	}
}

// lineWriter collects output and calls at(n) once the n-th line has been
// written, for each n in at: the test acts on the servers mid-stream,
// from the command's own goroutine.
type lineWriter struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	lines int
	at    map[int]func()
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	w.lines += bytes.Count(p, []byte("\n"))
	for n, f := range w.at {
		if w.lines >= n {
			delete(w.at, n)
			f()
		}
	}
	return len(p), nil
}

// TestTicketsNextSurvivesServerStop: two MariaDB servers of the test's own;
// `tickets next` draws 8,000 tickets; after 1,000 are printed server a is
// killed, after 3,000 it is restarted. The stream goes on, every ticket is
// unique, the command succeeds, and tickets of a's class come again after
// the restart.
func TestTicketsNextSurvivesServerStop(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two servers of its own and kills one")
	}
	t.Parallel()
	srvA, srvB := testsrv.NewMariaDB(t), testsrv.NewMariaDB(t)
	a, b := testsrv.Database(t, srvA), testsrv.Database(t, srvB)
	for i, dsn := range []string{a, b} {
		if code, out, stderr := runCLI(t, "", nil, "tickets", "up", "--dsn", dsn, "--name", "tickets64", "--increment", "2", "--offset", strconv.Itoa(i+1)); code != 0 {
			t.Fatalf("up: %s%s", out, stderr)
		}
	}
	restartedAt := -1
	w := &lineWriter{}
	w.at = map[int]func(){
		1000: srvA.Crash,
		3000: func() {
			if err := srvA.Restart(context.Background()); err != nil {
				t.Error(err)
			}
			restartedAt = w.lines
		},
	}
	var errb bytes.Buffer
	e := &cliEnv{stdin: strings.NewReader(""), stdout: w, stderr: &errb, getenv: func(string) string { return "" }}
	code := run(context.Background(), e, []string{"tickets", "next", "--dsn", a, "--dsn", b, "--name", "tickets64", "-n", "8000", "--retry-after", "100ms", "--timeout", patient})
	ids := parseIDs(t, w.buf.String())
	if code != 0 || len(ids) != 8000 || dupCount(ids) != 0 {
		t.Fatalf("exit %d, %d tickets, %d duplicates; stderr %q", code, len(ids), dupCount(ids), errb.String())
	}
	if restartedAt < 0 || oddCount(ids[restartedAt:]) == 0 {
		t.Errorf("no ticket of a's class after its restart (at line %d)", restartedAt)
	}
	// The death and the return of a are told, one line each.
	var down, back bool
	for _, l := range strings.Split(strings.TrimSpace(errb.String()), "\n") {
		down = down || strings.HasPrefix(l, "shardid: tickets next: "+dsn.Redact(a)+" is down, drawing from the others")
		back = back || l == "shardid: tickets next: "+dsn.Redact(a)+" draws again"
	}
	if !down || !back {
		t.Errorf("stderr says a went down: %v, came back: %v:\n%s", down, back, errb.String())
	}
	t.Logf("8000 tickets, %d from a, %d of them after its restart at line %d; stderr %q", oddCount(ids), oddCount(ids[max(restartedAt, 0):]), restartedAt, errb.String())
}

func parseIDs(t *testing.T, out string) []int64 {
	t.Helper()
	var ids []int64
	for _, l := range strings.Fields(out) {
		id, err := strconv.ParseInt(l, 10, 64)
		if err != nil {
			t.Fatalf("not an ID: %q", l)
		}
		ids = append(ids, id)
	}
	return ids
}

func dupCount(ids []int64) int {
	seen := map[int64]bool{}
	n := 0
	for _, id := range ids {
		if seen[id] {
			n++
		}
		seen[id] = true
	}
	return n
}

func oddCount(ids []int64) int {
	n := 0
	for _, id := range ids {
		n += int(id & 1)
	}
	return n
}

// TestNextLossyCommit: tickets next and segment next on a server that may
// lose acknowledged commits (innodb_flush_log_at_trx_commit=2) refuse in
// one line that names the flag, never the Go setting; with
// --allow-lossy-commit they draw.
func TestNextLossyCommit(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server of its own: the setting is global")
	}
	t.Parallel()
	dsn := testsrv.Database(t, testsrv.NewMariaDB(t))
	for _, args := range [][]string{
		{"tickets", "up", "--dsn", dsn, "--name", "t", "--increment", "1", "--offset", "1"},
		{"segment", "up", "--dsn", dsn, "--tag", "orders"},
	} {
		if code, out, stderr := runCLI(t, "", nil, args...); code != 0 {
			t.Fatalf("%v: %s%s", args, out, stderr)
		}
	}
	if _, err := testsrv.Open(t, "mysql", dsn).Exec("SET GLOBAL innodb_flush_log_at_trx_commit = 2"); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"tickets", "next", "--dsn", dsn, "--name", "t"},
		{"segment", "next", "--dsn", dsn, "--tag", "orders"},
	} {
		code, out, stderr := runCLI(t, "", nil, args...)
		if code != 1 || out != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "innodb_flush_log_at_trx_commit") ||
			!strings.Contains(stderr, "accept the risk with --allow-lossy-commit") || strings.Contains(stderr, "AllowLossyCommit") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, out, stderr)
		}
		code, out, stderr = runCLI(t, "", nil, append(args, "--allow-lossy-commit", "-n", "3")...)
		if code != 0 || strings.Count(out, "\n") != 3 {
			t.Errorf("%v --allow-lossy-commit: exit %d, stdout %q, stderr %q", args, code, out, stderr)
		}
	}
}

// TestTicketsRestoreStatusResume: a ticket table reloaded from a dump on
// two databases of the shared MariaDB standing in for two servers.
// tickets next records how far it drew; after the reload, status shows
// the counter below the record and fails; next leaves the server out,
// says so on stderr, prints unique tickets and fails at the end; resume
// moves it past and records it (a rerun moves nothing); then status shows
// the last rewind and the resume and succeeds, and next draws from both
// again. No ticket twice across every run.
func TestTicketsRestoreStatusResume(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := testsrv.MariaDB(t)
	a, b := testsrv.Database(t, srv), testsrv.Database(t, srv)
	for i, dsn := range []string{a, b} {
		if code, out, stderr := runCLI(t, "", nil, "tickets", "up", "--dsn", dsn, "--name", "t", "--increment", "2", "--offset", strconv.Itoa(i+1)); code != 0 {
			t.Fatalf("up: %s%s", out, stderr)
		}
	}
	both := []string{"--dsn", a, "--dsn", b, "--name", "t"}
	next := func(n int) (int, []int64, string) {
		t.Helper()
		code, out, stderr := runCLI(t, "", nil, append([]string{"tickets", "next", "-n", strconv.Itoa(n), "--timeout", patient}, both...)...)
		return code, parseIDs(t, out), stderr
	}
	var all []int64
	code, ids, stderr := next(200)
	all = append(all, ids...)
	if code != 0 || !onlySlowNotes(stderr) {
		t.Fatalf("next: exit %d, %q", code, stderr)
	}
	cfg, err := mysql.ParseDSN(a)
	if err != nil {
		t.Fatal(err)
	}
	dump, err := dbserver.DumpMariaDB(ctx, srv.Port(), cfg.DBName, "t")
	if err != nil {
		t.Fatal(err)
	}
	code, ids, _ = next(2000)
	all = append(all, ids...)
	if code != 0 {
		t.Fatalf("next: exit %d", code)
	}
	if err := dbserver.LoadMariaDB(ctx, srv.Port(), cfg.DBName, dump); err != nil {
		t.Fatal(err)
	}
	code, out, _ := runCLI(t, "", nil, append([]string{"tickets", "status"}, both...)...)
	if code != 1 || !strings.Contains(out, "(offset 1) stands at ") || !strings.Contains(out, "the highest ticket clients recorded from it: its data went back (shardid tickets resume --offset 1)") {
		t.Errorf("status after the reload: exit %d\n%s", code, out)
	}
	code, ids, stderr = next(300)
	all = append(all, ids...)
	if code != 1 || len(ids) != 300 || oddCount(ids) != 0 || !strings.Contains(stderr, "ticket server went back: "+dsn.Redact(a)+" stands at ") ||
		!strings.Contains(stderr, "went back and was left out; the tickets printed are unique") {
		t.Errorf("next after the reload: exit %d, %d tickets, %d of a's; stderr %q", code, len(ids), oddCount(ids), stderr)
	}
	code, out, stderr = runCLI(t, "", nil, append([]string{"tickets", "resume", "--offset", "1"}, both...)...)
	if code != 0 || !strings.Contains(out, "t on "+dsn.Redact(a)+" (offset 1): counter moved from ") || !strings.Contains(out, "1000000 tickets past the highest of: recorded from it ") ||
		!strings.Contains(out, "resume recorded on ") {
		t.Errorf("resume: exit %d, %q, %q", code, out, stderr)
	}
	code, out, _ = runCLI(t, "", nil, append([]string{"tickets", "resume", "--offset", "1"}, both...)...)
	if code != 0 || !strings.Contains(out, "not gone back since: left as it is (--again moves it anyway)") {
		t.Errorf("resume again: exit %d, %q", code, out)
	}
	code, out, _ = runCLI(t, "", nil, append([]string{"tickets", "status"}, both...)...)
	if code != 0 || !strings.Contains(out, "(offset 1): last rewind seen: its counter was back at ") || !strings.Contains(out, "; resumed to ") ||
		!strings.Contains(out, "no two in one class, none went back") {
		t.Errorf("status after the resume: exit %d\n%s", code, out)
	}
	code, ids, stderr = next(300)
	all = append(all, ids...)
	if code != 0 || oddCount(ids) == 0 || !onlySlowNotes(stderr) {
		t.Errorf("next after the resume: exit %d, %d of a's tickets, stderr %q", code, oddCount(ids), stderr)
	}
	if n := dupCount(all); n != 0 {
		t.Errorf("%d duplicate tickets among %d", n, len(all))
	}
}

// patient is the --timeout of the tests' tickets next runs that are not
// about timeouts: a safety net, far above what a loaded machine takes.
const patient = "1m"

// onlySlowNotes reports whether every line of stderr is a note that a
// server was slow to answer: a draw went to another one, the server was
// passed over and drew again, or a draw left answered late (EventSlow).
// On a loaded machine a healthy server can miss its budget before the
// client has learned how slow it is, which the client rightly reports and
// rides out; anything else is a finding.
func onlySlowNotes(stderr string) bool {
	for _, line := range strings.Split(strings.TrimSuffix(stderr, "\n"), "\n") {
		if line != "" && !strings.Contains(line, "ticket server did not answer in time") && !strings.Contains(line, " is slow, not gone: ") &&
			!strings.HasSuffix(line, " draws again") {
			return false
		}
	}
	return true
}

// TestTicketsNextSequenceRestart: two TiDB sequences of one name, one on a
// TiDB server of the test's own whose data survives a restart. tickets
// next draws 10,000; after 1,000 lines that server is killed, after 4,000
// it is restarted. Its sequence comes back past the values the dead process
// had cached: stderr says so in one line, with the gap; the failover and
// the return are one line each; every ticket is unique.
func TestTicketsNextSequenceRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server of its own and restarts it")
	}
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	srvA, err := dbserver.StartTiDBOnDisk(ctx, dbserver.TiDBOptions{})
	switch {
	case errors.Is(err, dbserver.ErrTiDBNotInstalled) && !testsrv.InCI():
		t.Skipf("no TiDB: %v", err)
	case err != nil:
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srvA.Stop() })
	a, b := testsrv.Database(t, srvA), testsrv.Database(t, testsrv.TiDB(t))
	for i, dsn := range []string{a, b} {
		if code, out, stderr := runCLI(t, "", nil, "tickets", "up", "--dsn", dsn, "--name", "s", "--kind", "sequence", "--cache", "100",
			"--increment", "2", "--offset", strconv.Itoa(i+1)); code != 0 {
			t.Fatalf("up: %s%s", out, stderr)
		}
	}
	w := &lineWriter{}
	w.at = map[int]func(){
		1000: srvA.Crash,
		4000: func() {
			if err := srvA.Restart(context.Background()); err != nil {
				t.Error(err)
			}
		},
	}
	var errb bytes.Buffer
	e := &cliEnv{stdin: strings.NewReader(""), stdout: w, stderr: &errb, getenv: func(string) string { return "" }}
	code := run(context.Background(), e, []string{"tickets", "next", "--dsn", a, "--dsn", b, "--name", "s", "-n", "10000", "--retry-after", "50ms", "--timeout", patient})
	ids := parseIDs(t, w.buf.String())
	if code != 0 || len(ids) != 10000 || dupCount(ids) != 0 {
		t.Fatalf("exit %d, %d tickets, %d duplicates; stderr %q", code, len(ids), dupCount(ids), errb.String())
	}
	lines := strings.Split(strings.TrimSpace(errb.String()), "\n")
	var skipped, down, back bool
	for _, l := range lines {
		skipped = skipped || strings.HasPrefix(l, "shardid: tickets next: "+dsn.Redact(a)+" came back with ticket ") &&
			strings.Contains(l, "a TiDB restart dropping its cache of the sequence)")
		down = down || strings.HasPrefix(l, "shardid: tickets next: "+dsn.Redact(a)+" is down, drawing from the others")
		back = back || l == "shardid: tickets next: "+dsn.Redact(a)+" draws again"
	}
	if !skipped || !down || !back {
		t.Errorf("stderr: the gap told %v, the death %v, the return %v:\n%s", skipped, down, back, errb.String())
	}
}

// TestTicketsUpAddsClassTable: a name set up before class tables existed
// (its goose history holds only the ticket's migration) gets its class
// table from a rerun of up with the same settings, which says so and
// leaves the counter as it is.
func TestTicketsUpAddsClassTable(t *testing.T) {
	t.Parallel()
	dsn := testsrv.Database(t, testsrv.MariaDB(t))
	args := []string{"tickets", "up", "--dsn", dsn, "--name", "t", "--increment", "1", "--offset", "1"}
	if code, out, stderr := runCLI(t, "", nil, args...); code != 0 {
		t.Fatalf("up: %s%s", out, stderr)
	}
	db := testsrv.Open(t, "mysql", dsn)
	for _, q := range []string{"DROP TABLE t_class", "DELETE FROM t_goose_db_version WHERE version_id = 2", "UPDATE t SET id = 41"} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	code, out, stderr := runCLI(t, "", nil, args...)
	if code != 0 || !strings.Contains(out, "t on ") || !strings.Contains(out, ": already there; class table t_class added (table, increment 1, offset 1; last ticket 41)") {
		t.Errorf("rerun: exit %d, %q, %q", code, out, stderr)
	}
	if code, out, _ := runCLI(t, "", nil, "tickets", "status", "--dsn", dsn, "--name", "t"); code != 0 || strings.Contains(out, "has no class table") {
		t.Errorf("status after the rerun: exit %d\n%s", code, out)
	}
}

// TestTicketsStatusFresh: ticket tables nobody has drawn from yet are not
// reported as gone back (their counters stand below their first ticket,
// and no client recorded anything).
func TestTicketsStatusFresh(t *testing.T) {
	t.Parallel()
	srv := testsrv.MariaDB(t)
	a, b := testsrv.Database(t, srv), testsrv.Database(t, srv)
	for i, dsn := range []string{a, b} {
		if code, out, stderr := runCLI(t, "", nil, "tickets", "up", "--dsn", dsn, "--name", "fresh", "--increment", "2", "--offset", strconv.Itoa(i+1)); code != 0 {
			t.Fatalf("up: %s%s", out, stderr)
		}
	}
	code, out, stderr := runCLI(t, "", nil, "tickets", "status", "--dsn", a, "--dsn", b, "--name", "fresh")
	if code != 0 || strings.Contains(out, "data went back") {
		t.Fatalf("status of fresh servers: exit %d\n%s%s", code, out, stderr)
	}
}

// TestTicketsStatusHungServer: with one ticket server hung (SIGSTOP),
// tickets status gives up on it after --timeout, names it as not
// answering within that time, and exits 1; the other server is read.
func TestTicketsStatusHungServer(t *testing.T) {
	t.Parallel()
	srvA, srvB := testsrv.NewMariaDB(t), testsrv.NewMariaDB(t)
	a, b := testsrv.Database(t, srvA), testsrv.Database(t, srvB)
	for i, dsn := range []string{a, b} {
		if code, out, stderr := runCLI(t, "", nil, "tickets", "up", "--dsn", dsn, "--name", "hung", "--increment", "2", "--offset", strconv.Itoa(i+1)); code != 0 {
			t.Fatalf("up: %s%s", out, stderr)
		}
	}
	if err := srvA.Pause(); err != nil {
		t.Fatal(err)
	}
	defer srvA.Continue()
	code, out, stderr := runCLI(t, "", nil, "tickets", "status", "--dsn", a, "--dsn", b, "--name", "hung", "--timeout", "1s")
	if code != 1 || !strings.Contains(out+stderr, "no answer within --timeout 1s") {
		t.Fatalf("status with a hung server: exit %d\n%s%s", code, out, stderr)
	}
	if code, _, stderr := runCLI(t, "", nil, "tickets", "status", "--dsn", b, "--name", "hung", "--timeout", "0s"); code != 2 || !strings.Contains(stderr, "--timeout: 0s is out of range") {
		t.Fatalf("--timeout 0s: exit %d %q", code, stderr)
	}
}

// TestTicketsSequenceRolledBack: two TiDB sequences of one name; tickets
// next draws 3,000 and records how far it drew; then a's sequence goes
// back to its start with no client running (a cluster restored from a
// backup). tickets status shows a's record above what the sequence can have
// handed out and exits 1; the next tickets next leaves a out, says so on
// stderr, exits 1, and prints none of the first run's tickets (an outside
// trial: the same 1,000 again, exit 0, nothing on stderr; status said none
// went back).
func TestTicketsSequenceRolledBack(t *testing.T) {
	t.Parallel()
	srv := testsrv.TiDB(t)
	a, b := testsrv.Database(t, srv), testsrv.Database(t, srv)
	for i, dsn := range []string{a, b} {
		if code, out, stderr := runCLI(t, "", nil, "tickets", "up", "--dsn", dsn, "--name", "s", "--kind", "sequence", "--cache", "100",
			"--increment", "2", "--offset", strconv.Itoa(i+1)); code != 0 {
			t.Fatalf("up: %s%s", out, stderr)
		}
	}
	both := []string{"--dsn", a, "--dsn", b, "--name", "s"}
	code, out, stderr := runCLI(t, "", nil, append([]string{"tickets", "next", "-n", "3000", "--timeout", patient}, both...)...)
	first := parseIDs(t, out)
	if code != 0 || len(first) != 3000 || !onlySlowNotes(stderr) {
		t.Fatalf("next: exit %d, %d tickets, stderr %q", code, len(first), stderr)
	}
	db := testsrv.Open(t, "mysql", a)
	for _, q := range []string{"DROP SEQUENCE s", "CREATE SEQUENCE s START WITH 1 INCREMENT BY 2 MINVALUE 1 CACHE 100 NOCYCLE"} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	code, out, _ = runCLI(t, "", nil, append([]string{"tickets", "status"}, both...)...)
	if code != 1 || !strings.Contains(out, "(offset 1) is a sequence that has handed out at most ") || !strings.Contains(out, "its data went back (shardid tickets resume --offset 1)") {
		t.Errorf("status after the rollback: exit %d\n%s", code, out)
	}
	code, out, stderr = runCLI(t, "", nil, append([]string{"tickets", "next", "-n", "3000", "--timeout", patient}, both...)...)
	again := parseIDs(t, out)
	if code != 1 || len(again) != 3000 || oddCount(again) != 0 || !strings.Contains(stderr, "ticket server went back: "+dsn.Redact(a)+" stands at ") ||
		!strings.Contains(stderr, "went back and was left out; the tickets printed are unique") {
		t.Errorf("next after the rollback: exit %d, %d tickets, %d of a's; stderr %q", code, len(again), oddCount(again), stderr)
	}
	if n := dupCount(append(first, again...)); n != 0 {
		t.Errorf("%d tickets of the first run printed again", n)
	}
}
