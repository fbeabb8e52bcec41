package bench

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// CPUSource says where RunPG read the CPU time of the clients' server
// processes, or why it could not.
type CPUSource struct {
	// Read is true when every client's server process was found on this
	// machine (its process id, its name and its start time agree with
	// what the server says of the session).
	Read bool `json:"read"`
	// From names the files read: "/proc/<pid>/schedstat" (nanoseconds on
	// the CPU) or "/proc/<pid>/stat" (user and system time, in ticks of
	// 10 ms).
	From string `json:"from,omitempty"`
	// Why says why it was not read.
	Why string `json:"why,omitempty"`
}

// cpuReader reads the CPU time the clients' server processes have used.
type cpuReader struct {
	proc      string // the proc file system's root, /proc
	pids      []int
	schedstat bool
}

// userHZ is the unit of the times in /proc/<pid>/stat (USER_HZ, 100 on
// every Linux architecture Go runs on).
const userHZ = 100

// readCPU finds the server processes of conns under proc ("" for /proc)
// and returns a reader of their CPU time, or nil and why not: a server on
// another machine (or in another process namespace) has no process of
// that id here, or one that is not it.
func readCPU(ctx context.Context, conns []*pgx.Conn, proc string) (*cpuReader, CPUSource) {
	if proc == "" {
		proc = "/proc"
	}
	if runtime.GOOS != "linux" {
		return nil, CPUSource{Why: "CPU time is read from /proc, which " + runtime.GOOS + " does not have"}
	}
	q, err := render("backend", nil)
	if err != nil {
		return nil, CPUSource{Why: err.Error()}
	}
	boot, err := bootTime(proc)
	if err != nil {
		return nil, CPUSource{Why: err.Error()}
	}
	r := &cpuReader{proc: proc, schedstat: true}
	for _, c := range conns {
		var pid int
		var started float64
		if err := c.QueryRow(ctx, q).Scan(&pid, &started); err != nil {
			return nil, CPUSource{Why: fmt.Sprintf("the server's process id: %v", err)}
		}
		f, err := readStat(proc, pid)
		if err != nil {
			return nil, CPUSource{Why: fmt.Sprintf("the server runs elsewhere: its process %d is not on this machine (%v)", pid, err)}
		}
		if f.comm != "postgres" && f.comm != "postmaster" {
			return nil, CPUSource{Why: fmt.Sprintf("the server runs elsewhere: process %d on this machine is %q, not postgres", pid, f.comm)}
		}
		if d := boot + float64(f.start)/userHZ - started; math.Abs(d) > 5 {
			return nil, CPUSource{Why: fmt.Sprintf("the server runs elsewhere: process %d on this machine started %.0fs away from the session's backend", pid, d)}
		}
		if _, err := readSchedstat(proc, pid); err != nil {
			r.schedstat = false
		}
		r.pids = append(r.pids, pid)
	}
	if r.schedstat {
		return r, CPUSource{Read: true, From: "/proc/<pid>/schedstat"}
	}
	return r, CPUSource{Read: true, From: "/proc/<pid>/stat"}
}

// total returns the CPU time the processes have used so far.
func (r *cpuReader) total() (time.Duration, error) {
	var sum time.Duration
	for _, pid := range r.pids {
		if r.schedstat {
			d, err := readSchedstat(r.proc, pid)
			if err != nil {
				return 0, fmt.Errorf("CPU time of server process %d: %w", pid, err)
			}
			sum += d
			continue
		}
		f, err := readStat(r.proc, pid)
		if err != nil {
			return 0, fmt.Errorf("CPU time of server process %d: %w", pid, err)
		}
		sum += time.Duration(f.utime+f.stime) * time.Second / userHZ
	}
	return sum, nil
}

// procStat is what RunPG reads from /proc/<pid>/stat.
type procStat struct {
	comm         string
	utime, stime int64 // ticks of 1/userHZ s
	start        int64 // ticks since boot
}

// readStat parses /proc/<pid>/stat: the command name in parentheses, then
// space-separated fields, utime the 14th, stime the 15th and starttime the
// 22nd of the line.
func readStat(proc string, pid int) (procStat, error) {
	b, err := os.ReadFile(filepath.Join(proc, strconv.Itoa(pid), "stat"))
	if err != nil {
		return procStat{}, err
	}
	s := string(b)
	open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || end < open {
		return procStat{}, fmt.Errorf("unreadable %s/%d/stat", proc, pid)
	}
	f := strings.Fields(s[end+1:]) // f[0] is the 3rd field
	if len(f) < 20 {
		return procStat{}, fmt.Errorf("unreadable %s/%d/stat", proc, pid)
	}
	var v [3]int64
	for i, idx := range []int{11, 12, 19} {
		if v[i], err = strconv.ParseInt(f[idx], 10, 64); err != nil {
			return procStat{}, fmt.Errorf("unreadable %s/%d/stat: %w", proc, pid, err)
		}
	}
	return procStat{comm: s[open+1 : end], utime: v[0], stime: v[1], start: v[2]}, nil
}

// readSchedstat returns the first field of /proc/<pid>/schedstat: the
// time the process has run on a CPU, in ns.
func readSchedstat(proc string, pid int) (time.Duration, error) {
	b, err := os.ReadFile(filepath.Join(proc, strconv.Itoa(pid), "schedstat"))
	if err != nil {
		return 0, err
	}
	f := strings.Fields(string(b))
	if len(f) < 1 {
		return 0, fmt.Errorf("unreadable %s/%d/schedstat", proc, pid)
	}
	ns, err := strconv.ParseInt(f[0], 10, 64)
	return time.Duration(ns), err
}

// bootTime is the machine's boot time in Unix seconds (/proc/stat btime).
func bootTime(proc string) (float64, error) {
	b, err := os.ReadFile(filepath.Join(proc, "stat"))
	if err != nil {
		return 0, fmt.Errorf("CPU time is read from %s, which this machine does not show: %v", proc, err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "btime "); ok {
			return strconv.ParseFloat(strings.TrimSpace(v), 64)
		}
	}
	return 0, fmt.Errorf("no boot time in %s/stat", proc)
}
