package pgfunc_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/shardid/shardid/pgfunc"
	"github.com/shardid/shardid/pgfunc/migrate"
	"github.com/shardid/shardid/pgfunc/privilege"
	"github.com/shardid/shardid/tools/testsrv"
)

// grantOK grants role on shards and fails the test unless every shard
// succeeded.
func grantOK(t *testing.T, db *sql.DB, role string, shards ...pgfunc.Shard) {
	t.Helper()
	res, err := privilege.Grant(context.Background(), db, shards, role, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		if r.Err != nil || !r.Applied {
			t.Fatalf("grant %s on %s: applied=%v err=%v", role, r.Shard.Schema, r.Applied, r.Err)
		}
	}
}

// isDenied reports whether err is PostgreSQL's insufficient_privilege.
func isDenied(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "42501"
}

// TestGrantLeastPrivilege: after Grant the role inserts with DEFAULT
// next_id(), decodes, may draw from the counter next_id() reads, and can
// move nothing; a rerun is harmless, and takes back what a wider grant
// gave.
func TestGrantLeastPrivilege(t *testing.T) {
	t.Parallel()
	db, dsn := newDB(t)
	ctx := context.Background()
	var shards []pgfunc.Shard
	for i, mode := range pgfunc.Modes() {
		sh := installWith(t, db, pgfunc.Shard{Schema: "g_" + strings.ReplaceAll(string(mode), "-", "_"), ID: int64(70 + i)}, pgfunc.Options{Mode: mode})
		if _, err := db.Exec(fmt.Sprintf("CREATE TABLE %[1]s.items (id bigint PRIMARY KEY DEFAULT %[1]s.next_id(), v int)", sh.Schema)); err != nil {
			t.Fatal(err)
		}
		shards = append(shards, sh)
	}
	app := newRole(t, db, "app", "")
	for _, sh := range shards {
		if _, err := db.Exec(fmt.Sprintf("GRANT SELECT, INSERT ON %s.items TO %s", sh.Schema, app)); err != nil {
			t.Fatal(err)
		}
	}
	grantOK(t, db, app, shards...)
	conn := asRole(t, dsn, app)
	check := func(when string) {
		t.Helper()
		for _, sh := range shards {
			s := sh.Schema
			var id, shard int64
			err := conn.QueryRowContext(ctx, fmt.Sprintf("INSERT INTO %[1]s.items (v) VALUES (1) RETURNING id, %[1]s.id_shard(id)", s)).Scan(&id, &shard)
			if err != nil || shard != sh.ID {
				t.Fatalf("%s, %s: insert with DEFAULT next_id(): id %d shard %d, %v", when, s, id, shard, err)
			}
			allowed := []string{
				fmt.Sprintf("SELECT %[1]s.id_timestamp(id), %[1]s.id_seq(id), %[1]s.min_id(now()) FROM %[1]s.items", s),
				fmt.Sprintf("SELECT nextval('%s.next_id_seq')", s),
			}
			denied := []string{
				fmt.Sprintf("SELECT setval('%[1]s.next_id_seq', pg_sequence_last_value('%[1]s.next_id_seq') - 1000)", s),
			}
			if sh.Schema == "g_unique" {
				allowed = append(allowed, fmt.Sprintf("SELECT %s.next_id_jump_%d()", s, sh.ID),
					fmt.Sprintf("SELECT pg_sequence_last_value('%[1]s.next_id_jumps_begun'), pg_sequence_last_value('%[1]s.next_id_jumps_done')", s))
				for _, seq := range []string{"next_id_jumps_begun", "next_id_jumps_done"} {
					denied = append(denied, fmt.Sprintf("SELECT nextval('%s.%s')", s, seq),
						fmt.Sprintf("SELECT setval('%[1]s.%[2]s', pg_sequence_last_value('%[1]s.%[2]s') + 1)", s, seq))
				}
				denied = append(denied, "LOCK TABLE "+s+".next_id_jump_lock IN SHARE UPDATE EXCLUSIVE MODE",
					"SELECT * FROM "+s+".next_id_jump_lock FOR UPDATE")
			}
			for _, q := range allowed {
				if _, err := conn.ExecContext(ctx, q); err != nil {
					t.Errorf("%s: %s: %v", when, q, err)
				}
			}
			for _, q := range denied {
				if _, err := conn.ExecContext(ctx, "BEGIN; "+q); !isDenied(err) {
					t.Errorf("%s: %s: want permission denied, got %v", when, q, err)
				}
				if _, err := conn.ExecContext(ctx, "ROLLBACK"); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	check("after grant")
	grantOK(t, db, app, shards...)
	check("after a second grant")
	// The habit for serial columns, and worse: a rerun takes it back.
	for _, sh := range shards {
		if _, err := db.Exec(fmt.Sprintf("GRANT ALL ON ALL SEQUENCES IN SCHEMA %[1]s TO %[2]s; GRANT ALL ON ALL TABLES IN SCHEMA %[1]s TO %[2]s", sh.Schema, app)); err != nil {
			t.Fatal(err)
		}
	}
	dangers, err := privilege.Dangers(ctx, db, shards)
	if err != nil {
		t.Fatal(err)
	}
	// UPDATE on each shard's counter; for the unique shard also UPDATE and
	// USAGE on both jump counters, and UPDATE, DELETE, TRUNCATE, TRIGGER on
	// the jump lock's table.
	if want := 3 + 4 + 4; len(dangers) != want {
		t.Errorf("after GRANT ALL: %d dangers, want %d: %v", len(dangers), want, dangers)
	}
	grantOK(t, db, app, shards...)
	check("after GRANT ALL and a third grant")
	if dangers, err := privilege.Dangers(ctx, db, nil); err != nil || len(dangers) != 0 {
		t.Fatalf("after the grant: dangers %v, %v", dangers, err)
	}
}

// TestGrantRefusesAndReports: bad roles are refused before anything is
// granted; a schema without a generator fails alone; a privilege the role
// keeps through another role, or a grant its caller could not make, is
// reported, never passed over.
func TestGrantRefusesAndReports(t *testing.T) {
	t.Parallel()
	db, dsn := newDB(t)
	ctx := context.Background()
	sh := installWith(t, db, pgfunc.Shard{Schema: "gr_unique", ID: 80}, pgfunc.Options{})
	super := newRole(t, db, "super", "SUPERUSER")
	for _, role := range []string{"", "public", "PUBLIC", "none", "pg_monitor", strings.Repeat("r", 64), "no_such_role_" + dbNameOf(t, db), super} {
		if _, err := privilege.Grant(ctx, db, []pgfunc.Shard{sh}, role, nil); !errors.Is(err, privilege.ErrInvalidRole) {
			t.Errorf("Grant to %q: %v, want ErrInvalidRole", role, err)
		}
	}
	// Any role name PostgreSQL allows is quoted, never pasted.
	odd := dbNameOf(t, db) + `_App-"Role"; DROP TABLE x`
	if _, err := db.Exec(`CREATE ROLE "` + strings.ReplaceAll(odd, `"`, `""`) + `"`); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = db.Exec(`DROP ROLE "` + strings.ReplaceAll(odd, `"`, `""`) + `"`) })
	res, err := privilege.Grant(ctx, db, []pgfunc.Shard{sh, {Schema: "no_generator", ID: 81}}, odd, nil)
	if !pgfunc.IsPartial(err) || res[0].Err != nil || !errors.Is(res[1].Err, pgfunc.ErrNoGenerator) {
		t.Fatalf("grant to %q: %v; results %+v", odd, err, res)
	}
	if _, err := db.Exec(`REVOKE ALL ON SCHEMA gr_unique FROM "` + strings.ReplaceAll(odd, `"`, `""`) + `"; REVOKE ALL ON ALL SEQUENCES IN SCHEMA gr_unique FROM "` + strings.ReplaceAll(odd, `"`, `""`) + `"; REVOKE ALL ON ALL FUNCTIONS IN SCHEMA gr_unique FROM "` + strings.ReplaceAll(odd, `"`, `""`) + `"`); err != nil {
		t.Fatal(err)
	}

	// UPDATE through a role the application role belongs to.
	app := newRole(t, db, "app", "")
	wide := newRole(t, db, "wide", "")
	if _, err := db.Exec(fmt.Sprintf("GRANT UPDATE ON SEQUENCE gr_unique.next_id_seq TO %[1]s; GRANT %[1]s TO %[2]s", wide, app)); err != nil {
		t.Fatal(err)
	}
	res, err = privilege.Grant(ctx, db, []pgfunc.Shard{sh}, app, nil)
	if !pgfunc.IsPartial(err) || !errors.Is(res[0].Err, privilege.ErrUnsafePrivileges) || !strings.Contains(res[0].Err.Error(), "UPDATE on \"gr_unique\".next_id_seq") {
		t.Fatalf("grant with UPDATE through %s: %v; %+v", wide, err, res)
	}
	t.Logf("reported: %v", res[0].Err)
	dangers, err := privilege.Dangers(ctx, db, []pgfunc.Shard{sh})
	if err != nil {
		t.Fatal(err)
	}
	roles := map[string]bool{}
	for _, d := range dangers {
		roles[d.Role] = true
	}
	if len(dangers) != 2 || !roles[app] || !roles[wide] {
		t.Fatalf("dangers: %v, want UPDATE on the counter for %s and %s", dangers, app, wide)
	}

	// Through PUBLIC: listed once, as PUBLIC, and a grant to any role
	// reports it.
	if _, err := db.Exec(fmt.Sprintf("REVOKE %s FROM %s; GRANT TRUNCATE ON gr_unique.next_id_jump_lock TO PUBLIC", wide, app)); err != nil {
		t.Fatal(err)
	}
	dangers, err = privilege.Dangers(ctx, db, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(dangers) != 2 || dangers[0].Role != "PUBLIC" || dangers[0].Privilege != "TRUNCATE" || dangers[1].Role != wide {
		t.Fatalf("dangers with TRUNCATE to PUBLIC: %v", dangers)
	}
	res, err = privilege.Grant(ctx, db, []pgfunc.Shard{sh}, app, nil)
	if !pgfunc.IsPartial(err) || !errors.Is(res[0].Err, privilege.ErrUnsafePrivileges) || !strings.Contains(res[0].Err.Error(), "TRUNCATE") {
		t.Fatalf("grant with TRUNCATE to PUBLIC: %v; %+v", err, res)
	}
	if _, err := db.Exec("REVOKE TRUNCATE ON gr_unique.next_id_jump_lock FROM PUBLIC"); err != nil {
		t.Fatal(err)
	}

	// A grant made by a user who may not make it is only a warning in
	// PostgreSQL: Grant reports what the role still lacks.
	other := newRole(t, db, "other", "")
	if _, err := db.Exec(fmt.Sprintf("GRANT USAGE ON SCHEMA gr_unique TO %[1]s; GRANT SELECT ON ALL SEQUENCES IN SCHEMA gr_unique TO %[1]s; GRANT SELECT ON ALL TABLES IN SCHEMA gr_unique TO %[1]s", other)); err != nil {
		t.Fatal(err)
	}
	fresh := newRole(t, db, "fresh", "")
	res, err = privilege.Grant(ctx, testsrv.Open(t, "pgx", dsnAs(t, dsn, other)), []pgfunc.Shard{sh}, fresh, nil)
	if err != nil && !pgfunc.IsPartial(err) {
		t.Fatal(err)
	}
	if !errors.Is(res[0].Err, privilege.ErrUnsafePrivileges) || !strings.Contains(res[0].Err.Error(), `lacks USAGE on gr_unique`) {
		t.Fatalf("grant by a role that owns nothing: %+v", res)
	}
	t.Logf("grant by a role that owns nothing: %v", res[0].Err)
}

// TestDangersAcrossChunks: Dangers reads many schemas per query; a
// privilege planted on the first, on one past a chunk's end and on the
// last of 600 shards is each found, and nothing else.
func TestDangersAcrossChunks(t *testing.T) {
	if testing.Short() {
		t.Skip("600 generators: not in -short")
	}
	t.Parallel()
	db, _ := newDB(t)
	ctx := context.Background()
	m, _ := migrate.New(db, pgfunc.Options{}, migrate.Options{OwnDatabaseOnly: true})
	shards := shardsFor(t, "0-599")
	for _, r := range results(m.Up(ctx, shards, nil)) {
		if r.Err != nil {
			t.Fatal(r.Err)
		}
	}
	if _, err := db.Exec("CREATE ROLE danger_chunks"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Exec("DROP OWNED BY danger_chunks; DROP ROLE danger_chunks") })
	for _, s := range []string{"insta0", "insta257", "insta599"} {
		if _, err := db.Exec(fmt.Sprintf("GRANT UPDATE ON SEQUENCE %s.next_id_seq TO danger_chunks", s)); err != nil {
			t.Fatal(err)
		}
	}
	dangers, err := privilege.Dangers(ctx, db, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range dangers {
		got = append(got, d.Schema+" "+d.Role+" "+d.Privilege)
	}
	if want := "insta0 danger_chunks UPDATE,insta257 danger_chunks UPDATE,insta599 danger_chunks UPDATE"; strings.Join(got, ",") != want {
		t.Fatalf("dangers: %v\nwant %s", got, want)
	}
}

// TestGrantRoute: on a layout with route bits, pg grant gives the role
// next_id(route) and id_route(id) too, where the DBA took EXECUTE from
// PUBLIC; without those grants the role could not route its IDs.
func TestGrantRoute(t *testing.T) {
	t.Parallel()
	db, dsn := newDB(t)
	ctx := context.Background()
	l := geneLayout(t, "0")
	sh := installWith(t, db, pgfunc.Shard{Schema: "g_route", ID: 3}, pgfunc.Options{Layout: l})
	if _, err := db.Exec("REVOKE EXECUTE ON ALL FUNCTIONS IN SCHEMA g_route FROM PUBLIC"); err != nil {
		t.Fatal(err)
	}
	app := newRole(t, db, "approute", "")
	grantOK(t, db, app, sh)
	conn := asRole(t, dsn, app)
	var id, route int64
	if err := conn.QueryRowContext(ctx, "SELECT id, g_route.id_route(id) FROM (SELECT g_route.next_id(1820) AS id) s").Scan(&id, &route); err != nil || route != 1820&15 {
		t.Fatalf("as the granted role: next_id(1820) = %d, id_route %d, %v", id, route, err)
	}
}
