package main

import (
	"testing"

	"github.com/shardid/shardid/internal/testsrv"
)

// TestMain stops the throwaway servers the tests started: PostgreSQL for
// the pg commands, MariaDB for the tidb commands, each on first use, so a
// test that needs neither starts neither.
func TestMain(m *testing.M) { testsrv.Main(m) }
