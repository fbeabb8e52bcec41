//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package shardid

import "time"

// parkUntil pauses the calling goroutine for at least d without spending
// the processor: the default Settings.Sleep (time.Sleep where the system
// offers no nanosleep).
func parkUntil(d time.Duration) { time.Sleep(d) }
