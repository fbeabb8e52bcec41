package gooseup_test

import (
	"context"
	"database/sql"
	"testing"

	"github.com/shardid/shardid/dialect"
	"github.com/shardid/shardid/internal/gooseup"
	"github.com/shardid/shardid/tools/testsrv"
)

func TestMain(m *testing.M) { testsrv.Main(m) }

// TestHistoriesKeptApart: two purposes, each with its own version 1 in the
// same database, both run, and each reruns as a no-op, on PostgreSQL and
// MariaDB.
func TestHistoriesKeptApart(t *testing.T) {
	pg, _ := testsrv.PGDB(t)
	my, _ := testsrv.MariaDBDB(t)
	for _, c := range []struct {
		d  dialect.Dialect
		db *sql.DB
	}{{dialect.Postgres, pg}, {dialect.MySQL, my}} {
		for _, purpose := range []string{"a", "b"} {
			files := map[string][]byte{"00001_" + purpose + ".sql": []byte("-- +goose Up\nCREATE TABLE " + purpose + "_t (x int);\n")}
			for run, want := range []int{1, 0} {
				ran, err := gooseup.Up(context.Background(), c.db, c.d, purpose+"_goose_db_version", files)
				if err != nil || len(ran) != want {
					t.Errorf("%s %s run %d: ran %v, %v; want %d", c.d, purpose, run+1, ran, err, want)
				}
			}
		}
	}
	if _, err := gooseup.Up(context.Background(), pg, "oracle", "x", nil); err == nil {
		t.Error("unknown dialect accepted")
	}
}
