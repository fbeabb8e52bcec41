package main

import (
	"os"
	"testing"

	"github.com/shardid/shardid/internal/testsrv"
)

// TestMain stops the throwaway servers the tests started: PostgreSQL for
// the pg commands, MariaDB for the tidb commands, each on first use, so a
// test that needs neither starts neither. With SHARDID_TEST_MAIN=1 the
// test binary is the shardid command instead (runMain), for tests that
// need a process of its own: signals, a closed stdout.
func TestMain(m *testing.M) {
	if os.Getenv("SHARDID_TEST_MAIN") == "1" {
		main()
	}
	testsrv.Main(m)
}
