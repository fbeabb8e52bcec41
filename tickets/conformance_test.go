package tickets_test

import (
	"database/sql"
	"testing"

	"github.com/shardid/shardid/tickets/ticketstest"
	"github.com/shardid/shardid/tools/testsrv"
)

// TestConformance runs the conformance suite, package ticketstest, on
// every database family ticket servers serve, two databases standing for
// two ticket servers.
func TestConformance(t *testing.T) {
	t.Parallel()
	for _, b := range []struct {
		name string
		open func(testing.TB) (*sql.DB, string)
	}{{"mariadb", testsrv.MariaDBDB}, {"tidb", testsrv.TiDBDB}} {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			a, _ := b.open(t)
			c, _ := b.open(t)
			ticketstest.Test(t, a, c)
		})
	}
}
