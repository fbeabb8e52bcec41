package tidb_test

import (
	"context"
	"errors"
	"github.com/shardid/shardid/tidb/internal/tidbtest"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"

	"github.com/shardid/shardid/tidb"
	"github.com/shardid/shardid/tidb/script"
	"github.com/shardid/shardid/tools/testsrv"
)

// roomScript holds tables whose IDs start far up, as dumps of tables
// keyed by application-side Snowflake IDs do: an AUTO_INCREMENT=N table
// option on a table with no AUTO_INCREMENT column (the minimal
// case: SHARD_ROW_ID_BITS=4 left the row id 2^59, below N, and every
// insert failed with ERROR 1467), the same option on a BIGINT
// AUTO_INCREMENT key (AUTO_RANDOM(5, 54) leaves its increment 2^48:
// ERROR 8059), and data that writes such keys into an AUTO_INCREMENT
// column kept under shard-rowid (TiDB's row id shares its counter) or
// made AUTO_RANDOM (an explicit key moves the increment to its low bits:
// 3·2^48-1 leaves AUTO_RANDOM(5, 54) no room).
const roomScript = "CREATE TABLE t (id BIGINT NOT NULL, name VARCHAR(20), PRIMARY KEY (id)) ENGINE=InnoDB AUTO_INCREMENT=1634915190321451010;\n" +
	"INSERT INTO t VALUES (1,'a');\n" +
	"CREATE TABLE u (id BIGINT NOT NULL AUTO_INCREMENT, name VARCHAR(20), PRIMARY KEY (id)) ENGINE=InnoDB AUTO_INCREMENT=1634915190321451010;\n" +
	"INSERT INTO u VALUES (1,'a');\n" +
	"CREATE TABLE w (id BIGINT NOT NULL AUTO_INCREMENT, name VARCHAR(20), PRIMARY KEY (id)) ENGINE=InnoDB;\n" +
	"INSERT INTO w VALUES (1634915190321451010,'a');\n" +
	"CREATE TABLE v (id BIGINT NOT NULL AUTO_INCREMENT, name VARCHAR(20), PRIMARY KEY (id)) ENGINE=InnoDB;\n" +
	"INSERT INTO v VALUES (5,'a'),(844424930131967,'b');\n"

// roomPlan renders roomScript, w steered to shard-rowid with bits as given
// (0: the default).
func roomPlan(t *testing.T, target tidb.Target, wBits int) (*tidb.Plan, error) {
	t.Helper()
	s, err := script.ParseScript(roomScript, script.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return tidb.RenderScript(s, tidb.Options{Target: target, Tables: []tidb.TableSpec{{Name: "w", Options: tidb.Options{Strategy: tidb.StrategyShardRowID, ShardBits: wBits}, Source: "--table"}}})
}

// TestRoomForTheInserts applies roomScript through goose on TiDB and
// MariaDB: every migration applies, each table then takes the inserts
// the original takes (a key given, a key left out, a key past 2^60), and
// Verify finds no table that cannot take an insert. Negative control: the
// AUTO_INCREMENT=N option put back into t's CREATE TABLE (the rendering
// before the room check) makes the data migration fail with ERROR 1467 on
// TiDB, and Verify then reports t as full.
func TestRoomForTheInserts(t *testing.T) {
	for _, srv := range tidbtest.Targets(t) {
		t.Run(srv.Name, func(t *testing.T) {
			t.Parallel()
			p, err := roomPlan(t, srv.RenderTarget(), 0)
			if err != nil {
				t.Fatal(err)
			}
			ms := tidbtest.PlanMigrations(t, p)
			dsn := srv.Database(t)
			m := tidbtest.UpAll(t, dsn, ms)
			db := testsrv.Open(t, "mysql", dsn)
			db.SetMaxOpenConns(1) // the SET below holds for the next INSERT
			for _, q := range []string{
				"INSERT INTO t VALUES (2,'b')",
				"INSERT INTO t VALUES (1634915190321451999,'c')",
				"INSERT INTO u (name) VALUES ('b')",
				"/*T! SET @@SESSION.allow_auto_random_explicit_insert = 1 */", // an explicit AUTO_RANDOM key needs it
				"INSERT INTO u VALUES (1634915190321459999,'c')",
				"INSERT INTO u (name) VALUES ('d')",
				"INSERT INTO w (name) VALUES ('b')",
				"INSERT INTO w VALUES (1634915190321459999,'c')",
				"INSERT INTO w (name) VALUES ('d')",
				"INSERT INTO v (name) VALUES ('c')",
				"INSERT INTO v (name) VALUES ('d')",
			} {
				if _, err := db.Exec(q); err != nil {
					t.Errorf("%s: %v", q, err)
				}
			}
			st, err := m.Verify(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range st {
				if len(s.Full) > 0 || len(s.Drift) > 0 {
					t.Errorf("%s: full %q, drift %q", s.Migration.Name, s.Full, s.Drift)
				}
			}
			if !srv.TiDB {
				return
			}
			// Negative control: t with its AUTO_INCREMENT=N back.
			for i := range ms {
				if ms[i].Kind == script.KindCreate && ms[i].Table == "t" {
					bad := strings.Replace(ms[i].Text, "ENGINE = InnoDB", "ENGINE = InnoDB AUTO_INCREMENT = 1634915190321451010", 1)
					if bad == ms[i].Text {
						t.Fatalf("no ENGINE clause in\n%s", bad)
					}
					ms[i].Text = bad
				}
			}
			m, _, err = tidbtest.Up(t, srv.Database(t), ms, "")
			var me *mysql.MySQLError
			if !errors.As(err, &me) || me.Number != 1467 {
				t.Fatalf("up with t's AUTO_INCREMENT=N kept: %v; want ERROR 1467", err)
			}
			st, err = m.Verify(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			full := 0
			for _, s := range st {
				for _, f := range s.Full {
					full++
					if !strings.Contains(f, "t cannot take an insert") || !strings.Contains(f, "SHARD_ROW_ID_BITS=4") {
						t.Errorf("full: %s", f)
					}
				}
			}
			if full != 1 {
				t.Errorf("Verify reported %d full tables, want 1 (t)", full)
			}
		})
	}
}

// TestRoomRefusedWhenAsked checks that shard bits the user gave, which
// leave the IDs no room, are refused with one line naming the table, the
// value and what to pass; and that the bits Render lowers itself are said
// in the notes.
func TestRoomRefusedWhenAsked(t *testing.T) {
	_, err := roomPlan(t, tidb.TargetTiDB, 4)
	if !errors.Is(err, tidb.ErrNoRoom) || strings.Contains(err.Error(), "\n") {
		t.Fatalf("shard-bits=4 for w: %v; want ErrNoRoom in one line", err)
	}
	for _, want := range []string{"render w", "1634915190321451011", "2^59", "pass --table w=shard-rowid,shard-bits=1"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q: %v", want, err)
		}
	}
	p, err := roomPlan(t, tidb.TargetTiDB, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"t": "AUTO_INCREMENT = 1634915190321451010 left out",
		"u": "AUTO_RANDOM(1, 64), not (5, 54)",
		"w": "SHARD_ROW_ID_BITS=1, not 4",
		"v": "AUTO_RANDOM(5, 55), not (5, 54): the script's data (keys up to 844424930131967) starts id's increment at 281474976710656",
	}
	for _, d := range p.Tables {
		if !strings.Contains(strings.Join(d.Notes, "\n"), want[d.Table.Name]) {
			t.Errorf("%s: notes %q lack %q", d.Table.Name, d.Notes, want[d.Table.Name])
		}
	}
	s, err := script.ParseScript(roomScript, script.Options{})
	if err != nil {
		t.Fatal(err)
	}
	spec, err := tidb.ParseTableSpec("u=auto-random,range=54")
	if err != nil {
		t.Fatal(err)
	}
	_, err = tidb.RenderScript(s, tidb.Options{Tables: []tidb.TableSpec{spec}})
	if !errors.Is(err, tidb.ErrNoRoom) || !strings.Contains(err.Error(), "pass --table u=auto-random,shard-bits=1,range=64") {
		t.Errorf("range=54 for u: %v; want ErrNoRoom naming shard-bits=1,range=64", err)
	}
}
