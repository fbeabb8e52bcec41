package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shardid/shardid"
	"github.com/shardid/shardid/lease"
	"github.com/shardid/shardid/tools/bench"
)

// buildShardid builds the command into dir and returns the binary's path.
func buildShardid(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "shardid")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// idgenProc is one running `shardid idgen` process.
type idgenProc struct {
	cmd     *exec.Cmd
	ids     []int64
	drawing chan struct{}   // closed once 10000 IDs are read, or the output ends
	hold    <-chan struct{} // if not nil, reading stops after 10000 IDs until it is closed
	done    chan struct{}   // closed once stdout is drained and the process has exited
	err     error           // exit error, bad output
	stderr  syncBuffer
}

// syncBuffer is a buffer the process's stderr is copied into while a test
// reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startIDGen starts bin idgen with args and reads its IDs as they come.
func startIDGen(t *testing.T, bin string, args ...string) *idgenProc {
	t.Helper()
	return startIDGenHeld(t, bin, nil, args...)
}

// startIDGenHeld is startIDGen that stops reading the process's output
// after 10000 IDs until hold is closed: the process, blocked on a full
// pipe in the middle of its run, keeps its node however long that takes.
func startIDGenHeld(t *testing.T, bin string, hold <-chan struct{}, args ...string) *idgenProc {
	t.Helper()
	p := &idgenProc{cmd: exec.Command(bin, append([]string{"idgen"}, args...)...), drawing: make(chan struct{}), hold: hold, done: make(chan struct{})}
	p.cmd.Stderr = &p.stderr
	out, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(p.done)
		var once sync.Once
		defer once.Do(func() { close(p.drawing) })
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			id, err := strconv.ParseInt(sc.Text(), 10, 64)
			if err != nil {
				p.err = fmt.Errorf("bad line %q", sc.Text())
				io.Copy(io.Discard, out)
				break
			}
			if p.ids = append(p.ids, id); len(p.ids) == 10000 {
				once.Do(func() { close(p.drawing) })
				if p.hold != nil {
					<-p.hold
				}
			}
		}
		if err := p.cmd.Wait(); err != nil && p.err == nil {
			p.err = err
		}
	}()
	return p
}

// wait waits for the process and fails t unless it exited 0 having
// printed n increasing IDs of one node.
func (p *idgenProc) wait(t *testing.T, n int) int64 {
	t.Helper()
	<-p.done
	if p.err != nil || len(p.ids) != n {
		t.Fatalf("idgen %v: %v, %d IDs of %d\n%s", p.cmd.Args[1:], p.err, len(p.ids), n, p.stderr.String())
	}
	return nodeOf(t, p.ids)
}

// nodeOf checks that ids increase and share one node of the snowflake
// layout (idgen's default), and returns it.
func nodeOf(t *testing.T, ids []int64) int64 {
	t.Helper()
	l := shardid.Snowflake()
	first, err := l.Decompose(ids[0])
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i < len(ids); i++ {
		p, _ := l.Decompose(ids[i])
		if ids[i] <= ids[i-1] || p.Shard != first.Shard {
			t.Fatalf("ID %d after %d: not increasing on node %d", ids[i], ids[i-1], first.Shard)
		}
	}
	return first.Shard
}

// TestIDGenProcesses runs the built command as separate processes against
// one database: five at once, five more while those still draw, then five
// after the first ten have released theirs (the same nodes again, above the
// earlier IDs). No ID repeats. Two processes leasing from two tables of one
// ID space (a misconfiguration the lease cannot see) share a node while
// both live, and repeat IDs, which the same checks catch.
//
// Every process of the first two waves is held in the middle of its run
// (the test stops reading its output after 10,000 IDs) until all ten are:
// at that moment all ten have their leases and none has given its node
// back, however slowly a busy machine started them, so ten distinct nodes
// is the property "no two live processes share a node". (A process left
// to run through could finish and release its node before another of its
// wave acquires one: that process then rightly gets the node again.)
func TestIDGenProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command and runs processes against three servers")
	}
	t.Parallel()
	bin := buildShardid(t, t.TempDir())
	const n = 300000 // about 75ms of one snowflake node's 4096 IDs/ms
	withLeaseTable(t, func(t *testing.T, dsn string) {
		release := make(chan struct{})
		wave := func(hold <-chan struct{}) []*idgenProc {
			var ps []*idgenProc
			for range 5 {
				ps = append(ps, startIDGenHeld(t, bin, hold, "--dsn", dsn, "-n", strconv.Itoa(n)))
			}
			return ps
		}
		first := wave(release)
		for _, p := range first {
			<-p.drawing
		}
		live := append(first, wave(release)...) // while the first wave, held, still draws
		held := heldNodes(t, live)
		if err := distinctNodes(held); err != nil {
			t.Error(err)
		}
		checkLeased(t, dsn, live, held)
		close(release)
		var lists [][]int64
		for i, p := range live {
			if node := p.wait(t, n); node != held[i] {
				t.Errorf("process %d drew on node %d, then on %d", p.cmd.Process.Pid, held[i], node)
			}
			lists = append(lists, p.ids)
		}
		for _, p := range wave(nil) {
			if node := p.wait(t, n); node > 9 {
				t.Errorf("a later process got node %d, want a released one (0-9)", node)
			}
			lists = append(lists, p.ids)
		}
		if d := bench.Repeats(lists...); d > 0 {
			t.Fatalf("%d repeated IDs across 15 processes", d)
		}

		// Negative control: two tables for one ID space hand out node 0
		// twice, to two processes live at once (both held), and the
		// node check says so. Released together, the two draw node 0's
		// IDs through the same seconds (the instagram layout's 1024
		// IDs/ms keep each drawing about a second) and repeat them.
		// (nodeOf's snowflake reading of their IDs sees node 0 too: the
		// bits of its node field are within instagram's shard field.)
		var pair []*idgenProc
		both := make(chan struct{})
		for _, table := range []string{"lease_a", "lease_b"} {
			if code, _, errOut := runCLI(t, "", nil, "worker", "up", "--dsn", dsn, "--table", table); code != 0 {
				t.Fatal(errOut)
			}
			pair = append(pair, startIDGenHeld(t, bin, both, "--dsn", dsn, "--table", table, "--layout", "instagram", "-n", "1000000"))
		}
		err := distinctNodes(heldNodes(t, pair))
		close(both)
		a, b := pair[0].wait(t, 1000000), pair[1].wait(t, 1000000)
		if d := bench.Repeats(pair[0].ids, pair[1].ids); err == nil || d == 0 {
			t.Fatalf("two tables gave nodes %d and %d to two live processes (node check: %v) and %d repeated IDs: the checks would not catch a shared node", a, b, err, d)
		}
	})
}

// heldNodes waits until each of ps, started with a hold, is held in the
// middle of its run, and returns the node each drew its IDs so far on.
func heldNodes(t *testing.T, ps []*idgenProc) []int64 {
	t.Helper()
	var nodes []int64
	for _, p := range ps {
		<-p.drawing
		if len(p.ids) < 10000 { // the output ended early: the process failed
			<-p.done
			t.Fatalf("idgen %v ended after %d IDs: %v\n%s", p.cmd.Args[1:], len(p.ids), p.err, p.stderr.String())
		}
		nodes = append(nodes, nodeOf(t, p.ids[:10000]))
	}
	return nodes
}

// distinctNodes returns an error naming two processes, held at once in
// the middle of their runs, that drew on one node.
func distinctNodes(nodes []int64) error {
	seen := map[int64]int{}
	for i, node := range nodes {
		if j, ok := seen[node]; ok {
			return fmt.Errorf("processes %d and %d of %d, all live at once, both drew on node %d (nodes %v)", j, i, len(nodes), node, nodes)
		}
		seen[node] = i
	}
	return nil
}

// checkLeased checks that the lease table shows each of ps, held in the
// middle of its run, holding the node it draws on (nodes) live.
func checkLeased(t *testing.T, dsn string, ps []*idgenProc, nodes []int64) {
	t.Helper()
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	rows := map[int64]lease.InfoRow{}
	for _, r := range statusJSON(t, dsn) {
		rows[r.Node] = r
	}
	for i, p := range ps {
		want := host + ":" + strconv.Itoa(p.cmd.Process.Pid) // idgen's default holder
		if row := rows[nodes[i]]; !row.Live || row.Holder != want {
			t.Errorf("process %s draws on node %d, but the lease table shows %+v", want, nodes[i], row)
		}
	}
}

// TestIDGenKilled kills a drawing idgen process: its node stays held until
// its lease ends (another process gets another node meanwhile), then the
// next process gets it and draws above everything the dead one printed and
// above the time the table says it may have drawn at.
func TestIDGenKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for a killed process's lease to end")
	}
	t.Parallel()
	bin := buildShardid(t, t.TempDir())
	withLeaseTable(t, func(t *testing.T, dsn string) {
		victim := startIDGen(t, bin, "--dsn", dsn, "-n", "1000000000000", "--ttl", "1s", "--holder", "victim")
		<-victim.drawing
		if err := victim.cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		<-victim.done
		victim.ids = victim.ids[:len(victim.ids)-1] // the kill may have cut the last line short
		dead := nodeOf(t, victim.ids)

		other := startIDGen(t, bin, "--dsn", dsn, "-n", "1000")
		if node := other.wait(t, 1000); node == dead && liveNode(t, dsn, dead) {
			t.Fatalf("node %d handed out while the killed process's lease is live", dead)
		}
		var row lease.InfoRow
		for row = leaseOf(t, dsn, dead); row.Live; row = leaseOf(t, dsn, dead) {
			time.Sleep(100 * time.Millisecond)
		}
		next := startIDGen(t, bin, "--dsn", dsn, "-n", "1000")
		if node := next.wait(t, 1000); node != dead {
			t.Fatalf("after the lease ended the next process got node %d, want the lowest free %d", node, dead)
		}
		p, _ := shardid.Snowflake().Decompose(next.ids[0])
		lastDrawn, err := time.Parse(time.RFC3339Nano, row.LastDrawn)
		if err != nil || next.ids[0] <= slices.Max(victim.ids) || !p.Time.After(lastDrawn) {
			t.Fatalf("next holder's first ID %d (%s) is not above the killed one's %d and its recorded last time %s (%v)",
				next.ids[0], p.Time, slices.Max(victim.ids), row.LastDrawn, err)
		}
	})
}

// withLeaseTable runs f as a parallel subtest per database family, on a
// fresh database where worker up has created the lease table.
func withLeaseTable(t *testing.T, f func(t *testing.T, dsn string)) {
	t.Helper()
	for _, b := range leaseBackends {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			dsn := b.dsn(t)
			if code, _, errOut := runCLI(t, "", nil, "worker", "up", "--dsn", dsn); code != 0 {
				t.Fatal(errOut)
			}
			f(t, dsn)
		})
	}
}

// leaseOf returns node's row from worker status.
func leaseOf(t *testing.T, dsn string, node int64) lease.InfoRow {
	t.Helper()
	for _, l := range statusJSON(t, dsn) {
		if l.Node == node {
			return l
		}
	}
	t.Fatalf("no lease row for node %d", node)
	return lease.InfoRow{}
}

func liveNode(t *testing.T, dsn string, node int64) bool { return leaseOf(t, dsn, node).Live }
