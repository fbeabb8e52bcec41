package main

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/shardid/shardid/pgfunc/adopt"
)

// publishedSQL is a schema as a shop running Instagram's published
// generator made it (the blog's text, shard 3, Instagram's epoch).
const publishedSQL = `CREATE SCHEMA insta3;
CREATE SEQUENCE insta3.table_id_seq;
CREATE OR REPLACE FUNCTION insta3.next_id(OUT result bigint) AS $$
DECLARE
    our_epoch bigint := 1314220021721;
    seq_id bigint;
    now_millis bigint;
    shard_id int := 3;
BEGIN
    SELECT nextval('insta3.table_id_seq') % 1024 INTO seq_id;

    SELECT FLOOR(EXTRACT(EPOCH FROM clock_timestamp()) * 1000) INTO now_millis;
    result := (now_millis - our_epoch) << 23;
    result := result | (shard_id << 10);
    result := result | (seq_id);
END;
    $$ LANGUAGE PLPGSQL;
CREATE TABLE insta3.our_table ("id" bigint NOT NULL DEFAULT insta3.next_id(), "user_id" int NOT NULL, PRIMARY KEY (id));
INSERT INTO insta3.our_table (user_id) SELECT g FROM generate_series(1, 100) g`

// TestPGAdopt drives pg adopt on a schema made by the published body: the
// dry run prints the inferred layout, epoch and shard id and changes
// nothing; --json says the same; a --layout that disagrees and bad input
// are refused; --apply adopts it, after which pg status finds a shardid
// generator, decode reads old and new IDs alike, a rerun says current,
// and the password shows nowhere.
func TestPGAdopt(t *testing.T) {
	t.Parallel()
	dsn := withPassword(t, pgDSN(t), "postgres")
	env := map[string]string{"SHARDID_PG_DSN": dsn}
	db := openPG(t, dsn)
	if _, err := db.Exec(publishedSQL); err != nil {
		t.Fatal(err)
	}
	var oldID int64
	if err := db.QueryRow("SELECT max(id) FROM insta3.our_table").Scan(&oldID); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, "", env, "pg", "adopt", "--shards", "3")
	t.Logf("dry run:\n%s", out)
	for _, want := range []string{"insta3               shard 3     dry run  Instagram's published next_id()",
		"instagram (time 41 bits of 1ms since 2011-08-24T21:07:01.721Z, shard 13 bits, sequence 10 bits)",
		"--layout instagram,epoch=2011-08-24T21:07:01.721Z", `"insta3"."table_id_seq" (retired by --apply)`,
		`"insta3"."our_table".id: highest ` + strconv.FormatInt(oldID, 10), "1 would be adopted (a dry run"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Fatalf("dry run: exit %d, want %q in\n%s%s", code, want, out, errOut)
		}
	}
	code, out, errOut = runCLI(t, "", env, "pg", "adopt", "--shards", "3", "--json")
	var doc report
	err := json.Unmarshal([]byte(out), &doc)
	shards := rowsOf[adopt.ReportShard](t, doc)
	if code != 0 || err != nil || doc.Command != "pg adopt" || !doc.OK || doc.Totals["dry_run"] != float64(1) || len(shards) != 1 || shards[0].State != "dry run" ||
		shards[0].Layout != "instagram,epoch=2011-08-24T21:07:01.721Z" || *shards[0].Keys[0].Max != oldID || shards[0].FirstID <= oldID {
		t.Fatalf("--json: exit %d, %v\n%s%s", code, err, out, errOut)
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--shards", "3", "--layout", "snowflake", "--epoch", "2011-08-24T21:07:01.721Z"}, 1, "constants spell layout instagram"},
		{[]string{"--shards", "2"}, 1, "has no next_id()"},
		{[]string{}, 2, "--shards is required"},
		{[]string{"--shards", "3", "--lock-timeout", "0s"}, 2, "--lock-timeout: 0s"},
		{[]string{"--shards", "3", "--lead", "1h1m"}, 2, "--lead:"},
	} {
		code, out, errOut := runCLI(t, "", env, append([]string{"pg", "adopt"}, tc.args...)...)
		if code != tc.code || !strings.Contains(out+errOut, tc.want) || strings.Contains(out+errOut, "s3cret") {
			t.Errorf("%v: exit %d, want %d and %q\n%s%s", tc.args, code, tc.code, tc.want, out, errOut)
		}
	}
	var fn string
	if err := db.QueryRow("SELECT prosrc FROM pg_proc WHERE oid = 'insta3.next_id()'::regprocedure").Scan(&fn); err != nil || !strings.Contains(fn, "our_epoch") {
		t.Fatalf("a dry run changed next_id(): %v\n%s", err, fn)
	}
	code, out, errOut = runCLI(t, "", env, "pg", "adopt", "--shards", "3", "--apply")
	if code != 0 || !strings.Contains(out, "adopted  Instagram's published next_id()") || !strings.Contains(out, "1 schema: 1 adopted") || strings.Contains(out+errOut, "s3cret") {
		t.Fatalf("--apply: exit %d\n%s%s", code, out, errOut)
	}
	var newID int64
	if err := db.QueryRow("INSERT INTO insta3.our_table (user_id) VALUES (1) RETURNING id").Scan(&newID); err != nil {
		t.Fatal(err)
	}
	layout := []string{"--layout", "instagram", "--epoch", "2011-08-24T21:07:01.721Z"}
	if code, out, errOut = runCLI(t, "", env, append([]string{"pg", "status", "--shards", "3"}, layout...)...); code != 0 || !strings.Contains(out, "insta3               3      1        unique") {
		t.Fatalf("status after adopt: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = runCLI(t, "", env, append(append([]string{"decode"}, layout...), strconv.FormatInt(oldID, 10), strconv.FormatInt(newID, 10))...)
	if code != 0 || strings.Count(out, "\tshard 3\t") != 2 || !strings.Contains(out, "2026-") {
		t.Fatalf("decode of old and new IDs: exit %d\n%s%s", code, out, errOut)
	}
	if code, out, errOut = runCLI(t, "", env, "pg", "adopt", "--shards", "3", "--apply"); code != 0 || !strings.Contains(out, "current  shardid's generator already") {
		t.Fatalf("adopt again: exit %d\n%s%s", code, out, errOut)
	}

	// A schema keyed by bigserial: a layout is needed, then it is adopted.
	if _, err := db.Exec("CREATE SCHEMA insta6; CREATE TABLE insta6.users (id bigserial PRIMARY KEY); INSERT INTO insta6.users DEFAULT VALUES"); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut = runCLI(t, "", env, "pg", "adopt", "--shards", "6"); code != 1 || !strings.Contains(out, "says nothing of a layout: give the layout and epoch") {
		t.Fatalf("serial keys without --layout: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = runCLI(t, "", env, append([]string{"pg", "adopt", "--shards", "6", "--apply"}, layout...)...)
	if code != 0 || !strings.Contains(out, "adopted  bigserial-like keys, no next_id()") || !strings.Contains(out, `"insta6"."users".id: highest 1, "insta6"."users_id_seq" handed out up to 1; defaults to next_id() now`) {
		t.Fatalf("serial keys: exit %d\n%s%s", code, out, errOut)
	}
	t.Logf("bigserial:\n%s", out)
}

// TestPGAdoptMixedHint: pg adopt refuses a published body beside a
// generator of another kind on the server, and its hint names what adopt
// accepts and pg up --allow-mixed as pg up's flag, never an --allow-mixed
// of adopt's, which adopt does not take.
func TestPGAdoptMixedHint(t *testing.T) {
	t.Parallel()
	dsn := pgDSN(t)
	env := map[string]string{"SHARDID_PG_DSN": dsn}
	if code, out, errOut := runCLI(t, "", env, "pg", "up", "--shards", "1", "--layout", "js53", "--schema-format", "js%d"); code != 0 {
		t.Fatalf("pg up js53: exit %d\n%s%s", code, out, errOut)
	}
	if _, err := openPG(t, dsn).Exec(publishedSQL); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, "", env, "pg", "adopt", "--shards", "3")
	for _, want := range []string{"another kind of generator on the server", "takes no --allow-mixed", "pg up --allow-mixed", "--layout, --epoch"} {
		if code != 1 || !strings.Contains(out+errOut, want) {
			t.Fatalf("adopt beside js53: exit %d, want %q in\n%s%s", code, want, out, errOut)
		}
	}
	if strings.Contains(out+errOut, "AllowMixed, pg up --allow-mixed, applies it") {
		t.Fatalf("adopt's refusal gives up's hint, as if adopt took --allow-mixed:\n%s%s", out, errOut)
	}
	if code, _, errOut := runCLI(t, "", env, "pg", "adopt", "--shards", "3", "--allow-mixed"); code != 2 || !strings.Contains(errOut, "unknown flag --allow-mixed") {
		t.Fatalf("pg adopt --allow-mixed: exit %d, want 2 and unknown flag\n%s", code, errOut)
	}
}
