//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package shardid

import (
	"syscall"
	"time"
)

// timerSlack is the longest wait parkUntil hands to nanosleep: the Go
// runtime's own timer (time.Sleep) wakes on a millisecond grid (a wait of
// 50µs took about 1.09ms here), so a generator that used up its tick late
// in it would wake past the next tick and lose its IDs (13% of a Snowflake
// node's 4,096 per ms on an idle machine). nanosleep blocks the goroutine's
// thread in the kernel, spending no processor, and wakes within about
// 100µs; longer waits (a clock stepped back) go to time.Sleep.
const timerSlack = 2 * time.Millisecond

// parkUntil pauses the calling goroutine for at least d without spending
// the processor: the default Settings.Sleep.
func parkUntil(d time.Duration) {
	if d <= 0 {
		return
	}
	if d > timerSlack {
		time.Sleep(d)
		return
	}
	ts := syscall.NsecToTimespec(int64(d))
	for syscall.Nanosleep(&ts, &ts) == syscall.EINTR {
		// interrupted by a signal: ts holds what is left
	}
}
