// Package localsrv holds what the throwaway-server harnesses
// (internal/pgserver, internal/mariadb) share.
package localsrv

import (
	"net"
	"strings"
)

// FreePort asks the kernel for a free loopback TCP port. Another process
// may take it before the server binds it; callers retry on a new port.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// LastLines returns the last n lines of s joined by " | ", to quote a
// server log in a one-line error.
func LastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}

// PlainName reports whether name is a non-empty run of lower-case letters,
// digits and _, safe to use unquoted as a database name.
func PlainName(name string) bool {
	return name != "" && !strings.ContainsFunc(name, func(r rune) bool {
		return r != '_' && (r < 'a' || r > 'z') && (r < '0' || r > '9')
	})
}
