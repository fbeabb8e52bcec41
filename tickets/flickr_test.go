package tickets_test

import (
	"context"
	"database/sql"
	"testing"

	"github.com/shardid/shardid/tickets"
	"github.com/shardid/shardid/tools/testsrv"
)

// The facts behind the package's design, checked on the real servers.

// TestFlickrFormRestsOnSessionVariables: with Flickr's table, the class of
// a ticket is whatever auto_increment_increment/offset the drawing session
// has. A session that set them (2, 2) draws even tickets; a session that
// did not (a new pool, a console, a script) soon draws an odd one, in the
// other server's class, on MariaDB and on TiDB alike. The package's table, drawn
// from that same session, stays in its class.
func TestFlickrFormRestsOnSessionVariables(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	maria, _ := testsrv.MariaDBDB(t)
	ti, _ := testsrv.TiDBDB(t)
	for name, db := range map[string]*sql.DB{"mariadb": maria, "tidb": ti} {
		t.Run(name, func(t *testing.T) {
			if _, err := db.ExecContext(ctx, flickrSetup[0]); err != nil {
				t.Fatal(err)
			}
			up(t, db, tickets.Counter{Name: "t", Increment: 2, Offset: 2})
			set, err := db.Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer set.Close()
			plain, err := db.Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer plain.Close()
			if _, err := set.ExecContext(ctx, "SET SESSION auto_increment_increment = 2, auto_increment_offset = 2"); err != nil {
				t.Fatal(err)
			}
			replace := func(c *sql.Conn) int64 {
				res, err := c.ExecContext(ctx, "REPLACE INTO tickets64_flickr (stub) VALUES ('a')")
				if err != nil {
					t.Fatal(err)
				}
				id, _ := res.LastInsertId()
				return id
			}
			a, b1, b2 := replace(set), replace(plain), replace(plain)
			if a%2 != 0 || (b1%2 == 0 && b2%2 == 0) {
				t.Errorf("REPLACE INTO: %d from the session with increment 2, offset 2; %d, %d from a plain session; want even, then an odd one", a, b1, b2)
			}
			t.Logf("REPLACE INTO: %d from the session with increment 2, offset 2; %d, %d from a plain session", a, b1, b2)
			res, err := plain.ExecContext(ctx, "UPDATE t SET id = LAST_INSERT_ID(id + `increment`) WHERE stub = 'a'")
			if err != nil {
				t.Fatal(err)
			}
			if id, _ := res.LastInsertId(); id != 2 {
				t.Errorf("the package's table from the plain session: %d, want 2", id)
			}
		})
	}
}

// TestGlobalVariablesLostOnRestart: on MariaDB (as on MySQL without SET
// PERSIST) a SET GLOBAL auto_increment_increment/offset is gone after a
// restart unless the configuration file says the same, so Flickr's form
// breaks at the first restart of a server configured at run time. (TiDB
// persists global variables in the cluster; its documentation says so.)
func TestGlobalVariablesLostOnRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server of its own and restarts it")
	}
	t.Parallel()
	ctx := context.Background()
	srv := testsrv.NewMariaDB(t)
	db := testsrv.Open(t, "mysql", testsrv.Database(t, srv))
	if _, err := db.ExecContext(ctx, "SET GLOBAL auto_increment_increment = 2, auto_increment_offset = 2"); err != nil {
		t.Fatal(err)
	}
	read := func() (inc, off int) {
		if err := db.QueryRowContext(ctx, "SELECT @@global.auto_increment_increment, @@global.auto_increment_offset").Scan(&inc, &off); err != nil {
			t.Fatal(err)
		}
		return inc, off
	}
	if inc, off := read(); inc != 2 || off != 2 {
		t.Fatalf("after SET GLOBAL: %d, %d", inc, off)
	}
	srv.Crash()
	if err := srv.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	if inc, off := read(); inc != 1 || off != 1 {
		t.Errorf("after a restart: increment %d, offset %d; MariaDB was expected to forget them (1, 1)", inc, off)
	}
}

// TestTiDBDoesNotEnforceTheCheck: TiDB parses the ticket table's CHECK
// constraint but, by default (tidb_enable_check_constraint=OFF), does not
// enforce it, while MariaDB does; the client's own class check on every
// ticket is what holds on TiDB.
func TestTiDBDoesNotEnforceTheCheck(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	maria, _ := testsrv.MariaDBDB(t)
	ti, _ := testsrv.TiDBDB(t)
	for name, c := range map[string]struct {
		db       *sql.DB
		enforced bool
	}{"mariadb": {maria, true}, "tidb": {ti, false}} {
		up(t, c.db, tickets.Counter{Name: "t", Increment: 2, Offset: 1})
		_, err := c.db.ExecContext(ctx, "INSERT INTO t (stub, id, `increment`, `offset`) VALUES ('b', 0, 2, 5)")
		if (err != nil) != c.enforced {
			t.Errorf("%s: offset 5 of increment 2: %v; enforced: want %v", name, err, c.enforced)
		}
	}
}
