package apply_test

import (
	"context"
	"database/sql"
	"errors"
	"github.com/shardid/shardid/tidb/internal/tidbtest"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"

	"github.com/shardid/shardid/tidb"
	"github.com/shardid/shardid/tidb/apply"
	"github.com/shardid/shardid/tidb/script"
	"github.com/shardid/shardid/tools/testsrv"
)

// cycleScript has what a dump brings beside its tables: a FOREIGN KEY
// cycle (store ↔ staff) that only FOREIGN_KEY_CHECKS=0 lets it create,
// data loaded in an order the keys refuse with checks on, explicit values
// for a key that becomes AUTO_RANDOM, an AUTO_INCREMENT=N, a view and a
// trigger.
const cycleScript = "SET FOREIGN_KEY_CHECKS=0;\n" +
	"CREATE TABLE store (id INT AUTO_INCREMENT PRIMARY KEY, manager BIGINT, CONSTRAINT fk_store_staff FOREIGN KEY (manager) REFERENCES staff (id)) AUTO_INCREMENT=7;\n" +
	"CREATE TABLE staff (id BIGINT AUTO_INCREMENT PRIMARY KEY, store_id INT, CONSTRAINT fk_staff_store FOREIGN KEY (store_id) REFERENCES store (id));\n" +
	"INSERT INTO staff VALUES (1, 2), (2, 1), (200, 1);\n" +
	"INSERT INTO store VALUES (1, 1), (2, 2);\n" +
	"CREATE VIEW managers AS SELECT s.id, st.id AS staff FROM store s JOIN staff st ON st.id = s.manager;\n" +
	"DELIMITER ;;\nCREATE TRIGGER staff_ins BEFORE INSERT ON staff FOR EACH ROW BEGIN SET NEW.store_id = COALESCE(NEW.store_id, 2); END;;\nDELIMITER ;\n" +
	"SET FOREIGN_KEY_CHECKS=1;\n"

// cyclePlan renders cycleScript for target: store's INT key widened to
// BIGINT AUTO_RANDOM, and staff.store_id with it.
func cyclePlan(t *testing.T, target tidb.Target) *tidb.Plan {
	t.Helper()
	return cyclePlanWith(t, tidb.Options{Target: target})
}

// cyclePlanWith renders cycleScript under o.
func cyclePlanWith(t *testing.T, o tidb.Options) *tidb.Plan {
	t.Helper()
	s, err := script.ParseScript(cycleScript, script.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := tidb.RenderScript(s, o)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestScriptThroughServers applies cycleScript, rendered for the server,
// through goose on TiDB and MariaDB, and checks that nothing of it is
// lost: both tables, the key that closed the cycle (added after them),
// every row, the view, and on MariaDB the trigger (on TiDB it is in the
// by-hand text). Inserts that leave the keys out then succeed and do not
// collide with the loaded keys: TiDB moved the AUTO_RANDOM increment past
// 200 and the AUTO_INCREMENT past 7. Negative controls: without the
// session the data migration sets, TiDB refuses the explicit AUTO_RANDOM
// keys (ERROR 8216) and both servers refuse rows whose keys are not there
// yet (ERROR 1452).
func TestScriptThroughServers(t *testing.T) {
	for _, srv := range tidbtest.Targets(t) {
		t.Run(srv.Name, func(t *testing.T) {
			t.Parallel()
			target := tidb.TargetMariaDB
			if srv.TiDB {
				target = tidb.TargetTiDB
			}
			p := cyclePlan(t, target)
			ms, err := apply.Migrations(p, apply.Options{})
			if err != nil {
				t.Fatal(err)
			}
			dsn := srv.Database(t)
			if _, res, err := tidbtest.Up(t, dsn, ms, ""); err != nil || tidbtest.CountApplied(res) != len(ms) {
				t.Fatalf("up: %d of %d applied: %v", tidbtest.CountApplied(res), len(ms), err)
			}
			db := testsrv.Open(t, "mysql", dsn)
			var fks, staff, store, managers int
			for q, n := range map[string]*int{
				"SELECT COUNT(*) FROM information_schema.REFERENTIAL_CONSTRAINTS WHERE CONSTRAINT_SCHEMA = DATABASE()": &fks,
				"SELECT COUNT(*) FROM staff":    &staff,
				"SELECT COUNT(*) FROM store":    &store,
				"SELECT COUNT(*) FROM managers": &managers,
			} {
				if err := db.QueryRow(q).Scan(n); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			if fks != 2 || staff != 3 || store != 2 || managers != 2 {
				t.Errorf("%d FOREIGN KEYs, %d staff, %d stores, %d managers; want 2, 3, 2, 2", fks, staff, store, managers)
			}
			res, err := db.Exec("INSERT INTO staff (store_id) VALUES (NULL)")
			if err != nil {
				t.Fatalf("insert without a key: %v", err)
			}
			id, _ := res.LastInsertId()
			var storeID sql.NullInt64
			if err := db.QueryRow("SELECT store_id FROM staff WHERE id = ?", id).Scan(&storeID); err != nil {
				t.Fatal(err)
			}
			byHand, _ := p.ByHandText()
			if srv.TiDB {
				if id&(1<<48-1) <= 200 || id >= 1<<53 || storeID.Valid || !strings.Contains(byHand, "CREATE TRIGGER staff_ins") {
					t.Errorf("TiDB: new key %d (increment %d, want past 200, below 2^53), store_id %v, by hand:\n%s", id, id&(1<<48-1), storeID, byHand)
				}
			} else if id <= 200 || storeID.Int64 != 2 || byHand != "" {
				t.Errorf("MariaDB: new key %d (want past 200), store_id %v (want 2, set by the trigger), by hand %q", id, storeID, byHand)
			}
			if res, err = db.Exec("INSERT INTO store (manager) VALUES (1)"); err != nil {
				t.Fatal(err)
			}
			if id, _ := res.LastInsertId(); id < 7 {
				t.Errorf("store's new key %d, want 7 or more (AUTO_INCREMENT=7)", id)
			}

			// Negative controls, on fresh databases.
			var data *apply.Migration
			for i := range ms {
				if ms[i].Kind == script.KindData && ms[i].Table == "staff" {
					data = &ms[i]
				}
			}
			if data == nil {
				t.Fatal("no data migration for staff")
			}
			keep := data.Text
			data.Text = strings.Replace(keep, "@@SESSION.foreign_key_checks = 0", "@@SESSION.foreign_key_checks = 1", 1)
			_, _, err = tidbtest.Up(t, srv.Database(t), ms, "")
			var me *mysql.MySQLError
			if !errors.As(err, &me) || me.Number != 1452 {
				t.Errorf("data with FOREIGN_KEY_CHECKS on: %v; want ERROR 1452", err)
			}
			if srv.TiDB {
				data.Text = strings.Replace(keep, "/*T! @@SESSION.allow_auto_random_explicit_insert = 1, */ ", "", 1)
				if _, _, err = tidbtest.Up(t, srv.Database(t), ms, ""); !errors.As(err, &me) || me.Number != 8216 {
					t.Errorf("explicit AUTO_RANDOM keys without the session setting: %v; want ERROR 8216", err)
				}
			}
			data.Text = keep
		})
	}
}

// TestWrongServerRefused applies migrations rendered for MySQL (whose
// AUTO_RANDOM key keeps AUTO_INCREMENT in plain text) to TiDB: Up refuses
// before applying anything and says how to render for TiDB. The negative
// control removes the line naming the servers: TiDB then refuses the
// table itself (ERROR 8216), after the tables before it were created.
func TestWrongServerRefused(t *testing.T) {
	tidbtest.EachTiDB(t, func(t *testing.T, db *sql.DB) {
		p := cyclePlan(t, tidb.TargetMySQL)
		ms, err := apply.Migrations(p, apply.Options{})
		if err != nil {
			t.Fatal(err)
		}
		m, err := apply.NewMigrator(db, ms, apply.Options{})
		if err != nil {
			t.Fatal(err)
		}
		res, err := m.Up(context.Background())
		if !errors.Is(err, apply.ErrWrongServer) || len(res) != 0 || !strings.Contains(err.Error(), "only on MySQL and MariaDB and the server is TiDB") || !strings.Contains(err.Error(), "--target tidb") {
			t.Fatalf("up: %d results, %v", len(res), err)
		}
		var tables int
		if err := db.QueryRow("SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME IN ('store', 'staff')").Scan(&tables); err != nil || tables != 0 {
			t.Errorf("%d tables created (%v), want none", tables, err)
		}
		for i := range ms {
			ms[i].OnlyOn = nil
			ms[i].Text = strings.ReplaceAll(ms[i].Text, apply.OnlyOnMarker, "")
		}
		m, err = apply.NewMigrator(db, ms, apply.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var me *mysql.MySQLError
		if _, err := m.Up(context.Background()); !errors.As(err, &me) || me.Number != 8216 {
			t.Errorf("without the marker: %v; want TiDB's ERROR 8216", err)
		}
	})
}

// TestVerifyDrift applies cycleScript and checks Verify finds nothing to
// report (no false alarm on either server), then changes the server
// behind the migrations' back and checks each change is reported on the
// migration that made the object: a column added, a column's type
// changed, a view dropped, the FOREIGN KEY that closed the cycle dropped,
// on TiDB SHARD_ROW_ID_BITS lowered, on MariaDB the trigger dropped, and a
// table dropped.
func TestVerifyDrift(t *testing.T) {
	for _, srv := range tidbtest.Targets(t) {
		t.Run(srv.Name, func(t *testing.T) {
			t.Parallel()
			target := tidb.TargetMariaDB
			if srv.TiDB {
				target = tidb.TargetTiDB
			}
			// store's INT key kept INT (NoWiden), so it has SHARD_ROW_ID_BITS
			// to drift from.
			ms, err := apply.Migrations(cyclePlanWith(t, tidb.Options{Target: target, NoWiden: true}), apply.Options{})
			if err != nil {
				t.Fatal(err)
			}
			dsn := srv.Database(t)
			m, _, err := tidbtest.Up(t, dsn, ms, "")
			if err != nil {
				t.Fatal(err)
			}
			report := func() map[string]string {
				st, err := m.Verify(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				out := map[string]string{}
				for _, s := range st {
					if !s.Applied {
						t.Errorf("%s pending", s.Migration.Name)
					}
					if len(s.Drift)+len(s.Unchecked) > 0 {
						out[string(s.Migration.Kind)+" "+s.Migration.Table] = strings.Join(append(s.Drift, s.Unchecked...), "; ")
					}
				}
				return out
			}
			if got := report(); len(got) != 0 {
				t.Fatalf("drift right after up: %q", got)
			}
			db := testsrv.Open(t, "mysql", dsn)
			changes := []string{
				"ALTER TABLE store ADD COLUMN note INT",
				"DROP VIEW managers",
				"ALTER TABLE store DROP FOREIGN KEY fk_store_staff",
				"ALTER TABLE store MODIFY manager INT",
			}
			want := map[string]string{
				"create store":  "store: column manager is INT, the migration made it BIGINT; store: column note was added",
				"view managers": "view managers is missing",
				"fk store":      "FOREIGN KEY fk_store_staff of store is missing",
			}
			if srv.TiDB {
				changes = append(changes, "ALTER TABLE store SHARD_ROW_ID_BITS = 2")
				want["create store"] += "; store: SHARD_ROW_ID_BITS is 2, the migration set 4"
			} else {
				changes = append(changes, "DROP TRIGGER staff_ins")
				want["routine staff_ins"] = "trigger staff_ins is missing"
			}
			for _, c := range changes {
				if _, err := db.Exec(c); err != nil {
					t.Fatalf("%s: %v", c, err)
				}
			}
			got := report()
			for k, w := range want {
				if got[k] != w {
					t.Errorf("%s: drift %q, want %q", k, got[k], w)
				}
			}
			if len(got) != len(want) {
				t.Errorf("drift reported %q, want only %q", got, want)
			}
			if _, err := db.Exec("SET FOREIGN_KEY_CHECKS = 0"); err != nil {
				t.Fatal(err)
			}
			db.SetMaxOpenConns(1)
			if _, err := db.Exec("DROP TABLE staff"); err != nil {
				t.Fatal(err)
			}
			if got := report()["create staff"]; got != "table staff is missing" {
				t.Errorf("dropped table: %q", got)
			}
		})
	}
}

// TestVerifyDriftKeysAndDefaults checks that Verify sees what the trial
// changed by hand without a word from status: a UNIQUE key dropped and
// added back as a plain key of the same name and columns, a column's
// DEFAULT changed, NOT NULL dropped and added. Right after up it reports
// nothing, on columns whose DEFAULT each server prints its own way
// (DECIMAL '0', FLOAT '0.00', CURRENT_TIMESTAMP, a NULL-able TEXT, a key
// column without NOT NULL written).
func TestVerifyDriftKeysAndDefaults(t *testing.T) {
	const scriptText = "CREATE TABLE users (id BIGINT AUTO_INCREMENT PRIMARY KEY, Username VARCHAR(32) NOT NULL, email VARCHAR(64) DEFAULT 'x', " +
		"n DECIMAL(15,4) NOT NULL DEFAULT '0', on_ BOOLEAN DEFAULT TRUE, f FLOAT DEFAULT '0.00', seen TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP, note TEXT, " +
		"code INT NOT NULL DEFAULT 5, UNIQUE KEY UC_Username (Username));\n" +
		"CREATE TABLE tags (name VARCHAR(20) PRIMARY KEY, score INT DEFAULT NULL);\n"
	for _, srv := range tidbtest.Targets(t) {
		t.Run(srv.Name, func(t *testing.T) {
			t.Parallel()
			target := tidb.TargetMariaDB
			if srv.TiDB {
				target = tidb.TargetTiDB
			}
			s, err := script.ParseScript(scriptText, script.Options{})
			if err != nil {
				t.Fatal(err)
			}
			p, err := tidb.RenderScript(s, tidb.Options{Target: target})
			if err != nil {
				t.Fatal(err)
			}
			ms, err := apply.Migrations(p, apply.Options{})
			if err != nil {
				t.Fatal(err)
			}
			dsn := srv.Database(t)
			m, _, err := tidbtest.Up(t, dsn, ms, "")
			if err != nil {
				t.Fatal(err)
			}
			report := func() map[string]string {
				st, err := m.Verify(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				out := map[string]string{}
				for _, s := range st {
					if len(s.Drift)+len(s.Unchecked) > 0 {
						out[string(s.Migration.Kind)+" "+s.Migration.Table] = strings.Join(append(s.Drift, s.Unchecked...), "; ")
					}
				}
				return out
			}
			if got := report(); len(got) != 0 {
				t.Fatalf("drift right after up: %q", got)
			}
			db := testsrv.Open(t, "mysql", dsn)
			for _, c := range []string{
				"ALTER TABLE users DROP INDEX UC_Username",
				"ALTER TABLE users ADD INDEX UC_Username (Username)",
				"ALTER TABLE users ALTER COLUMN email SET DEFAULT 'y'",
				"ALTER TABLE users MODIFY code INT NULL DEFAULT 5",
				"ALTER TABLE tags MODIFY score INT NOT NULL",
			} {
				if _, err := db.Exec(c); err != nil {
					t.Fatalf("%s: %v", c, err)
				}
			}
			got := report()
			want := map[string]string{
				"create users": "users: column email has DEFAULT 'y', the migration gave it DEFAULT 'x'; users: column code is NULL-able, the migration made it NOT NULL; users: index UC_Username is a plain KEY (not UNIQUE), the migration made it UNIQUE",
				"create tags":  "tags: column score is NOT NULL, the migration made it NULL-able; tags: column score has no DEFAULT, the migration gave it DEFAULT NULL",
			}
			for k, w := range want {
				if got[k] != w {
					t.Errorf("%s: drift %q, want %q", k, got[k], w)
				}
			}
			if len(got) != len(want) {
				t.Errorf("drift reported %q, want only %q", got, want)
			}
		})
	}
}
