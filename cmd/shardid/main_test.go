package main

import (
	"os"
	"testing"

	"github.com/shardid/shardid/internal/mariadb"
	"github.com/shardid/shardid/internal/pgserver"
)

// pgServer is the throwaway PostgreSQL for the pg command tests.
var pgServer *pgserver.Server

// TestMain starts a throwaway PostgreSQL and a throwaway MariaDB for the
// command tests; with CI=true a server that cannot start fails the run.
func TestMain(m *testing.M) {
	stopPG, okPG := pgserver.ForTests(&pgServer, pgserver.Options{})
	stopMy, okMy := mariadb.ForTests(&tidbServer)
	code := 1
	if okPG && okMy {
		code = m.Run()
	}
	stopMy()
	stopPG()
	os.Exit(code)
}
