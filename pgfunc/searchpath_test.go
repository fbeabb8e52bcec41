package pgfunc_test

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/shardid/shardid"
	"github.com/shardid/shardid/pgfunc"
	"github.com/shardid/shardid/pgfunc/privilege"
)

// hostileObjects are a caller's own operators and type, put before
// pg_catalog in its search_path to change what the generator's functions
// compute. Schema evil_eq holds the attack seen in the wild: = on (bigint,
// integer) always true (in PL/pgSQL, so that its arguments, the draw among
// them, are still evaluated), so that next_id()'s test always passes (no
// jump, no overlap check: IDs go stale). Schema evil holds the rest: <= always
// false (nothing is ever behind), >>, | and & always 0, + and * always 1
// (IDs and their decoding come out wrong), and a timestamptz that accepts
// no timestamp.
const hostileObjects = `
CREATE SCHEMA evil_eq;
CREATE FUNCTION evil_eq.yes(bigint, integer) RETURNS boolean LANGUAGE plpgsql IMMUTABLE AS 'BEGIN RETURN true; END';
CREATE OPERATOR evil_eq.= (LEFTARG = bigint, RIGHTARG = integer, FUNCTION = evil_eq.yes);
CREATE SCHEMA evil;
CREATE FUNCTION evil.no(timestamptz, timestamptz) RETURNS boolean LANGUAGE sql IMMUTABLE AS 'SELECT false';
CREATE OPERATOR evil.<= (LEFTARG = timestamptz, RIGHTARG = timestamptz, FUNCTION = evil.no);
CREATE FUNCTION evil.zero(bigint, integer) RETURNS bigint LANGUAGE sql IMMUTABLE AS 'SELECT 0::bigint';
CREATE OPERATOR evil.>> (LEFTARG = bigint, RIGHTARG = integer, FUNCTION = evil.zero);
CREATE FUNCTION evil.zero2(bigint, bigint) RETURNS bigint LANGUAGE sql IMMUTABLE AS 'SELECT 0::bigint';
CREATE OPERATOR evil.| (LEFTARG = bigint, RIGHTARG = bigint, FUNCTION = evil.zero2);
CREATE OPERATOR evil.& (LEFTARG = bigint, RIGHTARG = bigint, FUNCTION = evil.zero2);
CREATE FUNCTION evil.one(bigint, bigint) RETURNS bigint LANGUAGE sql IMMUTABLE AS 'SELECT 1::bigint';
CREATE OPERATOR evil.+ (LEFTARG = bigint, RIGHTARG = bigint, FUNCTION = evil.one);
CREATE OPERATOR evil.* (LEFTARG = bigint, RIGHTARG = bigint, FUNCTION = evil.one);
CREATE DOMAIN evil.timestamptz AS integer;
`

// TestHostileSearchPath runs every generated function as a role that has
// put its own operators and type before pg_catalog in its search_path: the
// IDs and their decoding must be exactly those of a plain session, and
// next_id() must still be inlined. The negative control, the body with its
// operators unqualified as before, must be fooled.
func TestHostileSearchPath(t *testing.T) {
	t.Parallel()
	db, dsn := newDB(t)
	role := newRole(t, db, "evil", "")
	if _, err := db.Exec("GRANT CREATE ON DATABASE " + dbNameOf(t, db) + " TO " + role); err != nil {
		t.Fatal(err)
	}
	var shards []pgfunc.Shard
	for i, mode := range pgfunc.Modes() {
		sh := installWith(t, db, pgfunc.Shard{Schema: "sp_" + strings.ReplaceAll(string(mode), "-", "_"), ID: int64(40 + i)}, pgfunc.Options{Mode: mode})
		shards = append(shards, sh)
	}
	broken := pgfunc.Shard{Schema: "sp_unqualified", ID: 50}
	installVariant(t, db, broken, pgfunc.Options{}, unqualified)
	res, err := privilege.Grant(context.Background(), db, append(shards, broken), role, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		if r.Err != nil {
			t.Fatal(r.Err)
		}
	}
	evil := asRole(t, dsn, role)
	if _, err := evil.ExecContext(context.Background(), hostileObjects); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"evil_eq, pg_catalog", "evil_eq, evil, pg_catalog"} {
		if _, err := evil.ExecContext(context.Background(), "SET search_path = "+path); err != nil {
			t.Fatal(err)
		}
		for _, sh := range shards {
			if problems := searchPathProblems(t, evil, sh); len(problems) > 0 {
				t.Errorf("%s with search_path = %s:\n  %s", sh.Schema, path, strings.Join(problems, "\n  "))
			}
		}
		problems := searchPathProblems(t, evil, broken)
		if len(problems) == 0 {
			t.Fatalf("search_path = %s: the %s body was not fooled; the test would not catch a hostile operator", path, unqualified.name)
		}
		t.Logf("negative control, %s body, search_path = %s: %s", unqualified.name, path, strings.Join(problems, "; "))
	}
}

// searchPathProblems draws IDs and decodes known ones on conn, and lists
// what differs from a plain session: IDs that decode outside the moment
// they were made (a stale counter that never jumped) or to the wrong
// shard, decode helpers that disagree with Go, errors, and a next_id()
// that is no longer inlined.
func searchPathProblems(t *testing.T, conn *sql.Conn, sh pgfunc.Shard) []string {
	t.Helper()
	ctx := context.Background()
	l := shardid.Instagram()
	var problems []string
	add := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	// Mode unique's draws (next_id(), next_id_bulk(), one of next_ids(2))
	// in turn; a jump lands up to 8 ms past the clock's tick there.
	draws, ahead := []string{"next_id()"}, time.Duration(0)
	if !strings.HasPrefix(sh.Schema, "sp_classic") {
		draws, ahead = []string{"next_id()", "next_id_bulk()", "(SELECT pg_catalog.min(i) FROM %[1]s.next_ids(2) AS i)"}, 8*time.Millisecond
	}
	for i := range 20 {
		if i%2 == 0 {
			time.Sleep(12 * time.Millisecond) // so the counter falls behind: the draw must jump
		}
		var before, after time.Time
		var id int64
		draw := draws[i%len(draws)]
		if !strings.Contains(draw, "%") {
			draw = "%[1]s." + draw
		}
		q := fmt.Sprintf("SELECT pg_catalog.clock_timestamp(), "+draw+", pg_catalog.clock_timestamp()", sh.Schema)
		if err := conn.QueryRowContext(ctx, q).Scan(&before, &id, &after); err != nil {
			add("%s: %v", draw, err)
			break
		}
		p, err := l.Decompose(id)
		switch {
		case err != nil:
			add("draw %d: %d does not decode: %v", i, id, err)
		case p.Shard != sh.ID:
			add("draw %d: %d decodes to shard %d, want %d", i, id, p.Shard, sh.ID)
		case p.Time.Before(before.Truncate(time.Millisecond)) || p.Time.After(after.Add(ahead)):
			add("draw %d: %d decodes to %s, outside its call [%s, %s]", i, id,
				p.Time.Format(time.RFC3339Nano), before.Format(time.RFC3339Nano), after.Format(time.RFC3339Nano))
		}
		if len(problems) > 0 {
			break
		}
	}
	known, _ := l.Compose(time.Date(2026, 3, 4, 5, 6, 7, 8e6, time.UTC), sh.ID, 999)
	want, _ := l.Decompose(known)
	wantMin, _ := l.Compose(want.Time, 0, 0)
	var ts time.Time
	var shard, seq, minID int64
	q := fmt.Sprintf("SELECT %[1]s.id_timestamp($1), %[1]s.id_shard($1), %[1]s.id_seq($1), %[1]s.min_id(%[1]s.id_timestamp($1))", sh.Schema)
	if err := conn.QueryRowContext(ctx, q, known).Scan(&ts, &shard, &seq, &minID); err != nil {
		add("decode helpers: %v", err)
	} else if !ts.Equal(want.Time) || shard != want.Shard || seq != want.Seq || minID != wantMin {
		add("decode helpers on %d: %s shard %d seq %d min_id %d; want %s shard %d seq %d min_id %d", known,
			ts.Format(time.RFC3339Nano), shard, seq, minID, want.Time.Format(time.RFC3339Nano), want.Shard, want.Seq, wantMin)
	}
	if sh.Schema != "sp_classic" {
		fn := inlinable(pgfunc.ModeClassicSQL)
		if sh.Schema != "sp_classic_sql" {
			fn = inlinable(pgfunc.ModeUnique)
		}
		if inlined, plan := isInlined(t, conn, sh.Schema, fn); !inlined {
			add("%s() is not inlined: %s", fn, plan)
		}
	}
	return problems
}

// inlinable names the draw of a mode the planner inlines: next_id_bulk()
// in mode unique (whose next_id() is PL/pgSQL, planned like nextval()),
// next_id() in mode classic-sql.
func inlinable(mode pgfunc.Mode) string {
	if mode == pgfunc.ModeUnique || mode == "" {
		return "next_id_bulk"
	}
	return "next_id"
}

// isInlined reports whether the planner inlined schema's function fn
// (next_id or next_id_bulk) into a query on conn, and the plan's output
// line.
func isInlined(t *testing.T, conn *sql.Conn, schema, fn string) (bool, string) {
	t.Helper()
	rows, err := conn.QueryContext(context.Background(), "EXPLAIN (VERBOSE, COSTS OFF) SELECT "+schema+"."+fn+"()")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, strings.TrimSpace(line))
	}
	text := strings.Join(plan, " ")
	return strings.Contains(text, "nextval(") && !strings.Contains(text, "."+fn+"()"), text
}
