package pgfunc_test

import (
	"database/sql"
	"regexp"
	"strings"
	"testing"

	"github.com/shardid/shardid/pgfunc"
)

// A variant is a deliberate change to the rendered generator: the broken
// bodies the negative controls run, to show that each test catches the
// violation it looks for.
type variant struct {
	name   string
	change func(up string) string
}

// replacing returns a variant that replaces old by new everywhere.
func replacing(name, old, new string) variant {
	return variant{name, func(up string) string { return strings.ReplaceAll(up, old, new) }}
}

var (
	// withoutDurability is the fast path without the durable path: every
	// draw takes the bound of transactions that have a transaction id, so
	// a draw ahead of the clock in a transaction without one is handed out
	// without a WAL record of its own.
	withoutDurability = replacing("without durability",
		"pg_catalog.pg_current_xact_id_if_assigned() IS NULL", "false")
	// unqualified is the generator as it was before: SQL bodies kept as
	// text, parsed at each call with the caller's search_path, operators and
	// types named without their schema.
	unqualified = variant{"unqualified", func(up string) string {
		up = regexp.MustCompile(`(?s)(LANGUAGE sql [A-Z ]+)\n    RETURN (.*?);\n`).ReplaceAllString(up, "$1\nAS $$$$ SELECT $2 $$$$;\n")
		up = regexp.MustCompile(`OPERATOR\(pg_catalog\.([^)]+)\)`).ReplaceAllString(up, "$1")
		return strings.ReplaceAll(up, "pg_catalog.timestamptz", "timestamptz")
	}}
	// withoutLead is the generator without its bounded lead: the fast path
	// returns any value not behind the clock (in a transaction with a
	// transaction id), and the jump never waits for the clock, so a burst
	// runs the counter ahead without bound.
	withoutLead = variant{"without the lead", func(up string) string {
		up = leadBoundRE.ReplaceAllString(up, `ELSE '{"1 microsecond","100 years"}'`)
		return strings.ReplaceAll(up, "IF ahead > ", "IF false AND ahead > ")
	}}
	// jumpCountersStepOne lets nextval move the jump counters by one, as
	// before, so that USAGE on them can make them equal.
	jumpCountersStepOne = replacing("jump counters stepping by one", "INCREMENT BY 1048576", "INCREMENT BY 1")
)

// leadBoundRE matches the bounds of the fast path's clock term for
// transactions with a transaction id: the lead.
var leadBoundRE = regexp.MustCompile(`ELSE '\{"1 microsecond","\d+ microseconds"\}'`)

// advisoryJumpLock serializes jumps on the advisory lock the generator
// used before, which any role can take.
func advisoryJumpLock(schema string) variant {
	return replacing("advisory jump lock",
		`LOCK TABLE "`+schema+`".next_id_jump_lock IN SHARE UPDATE EXCLUSIVE MODE;`,
		"PERFORM pg_catalog.pg_advisory_xact_lock(1397310513, 0);")
}

// renderedUp returns the Up part of shard's rendered generator.
func renderedUp(t testing.TB, sh pgfunc.Shard, o pgfunc.Options) string {
	t.Helper()
	text, err := pgfunc.Render(sh, o)
	if err != nil {
		t.Fatal(err)
	}
	_, up, ok := strings.Cut(string(text), "-- +goose Up\n")
	up, _, ok2 := strings.Cut(up, "-- +goose Down\n")
	if !ok || !ok2 {
		t.Fatalf("%s: no Up part in the rendered migration", sh.Schema)
	}
	return up
}

// installRendered applies the Up part of shard's rendered generator as it
// is, without Up's checks (no goose history is written), as goose applies
// a pg gen file.
func installRendered(t testing.TB, db *sql.DB, sh pgfunc.Shard, o pgfunc.Options) {
	t.Helper()
	if _, err := db.Exec(renderedUp(t, sh, o)); err != nil {
		t.Fatalf("install %s: %v", sh.Schema, err)
	}
}

// installVariant applies the Up part of shard's rendered generator with v
// applied (no goose history is written). It fails the test unless v
// changes the SQL, so that a template change cannot silently turn a broken
// body back into the real one.
func installVariant(t testing.TB, db *sql.DB, sh pgfunc.Shard, o pgfunc.Options, v variant) {
	t.Helper()
	up := renderedUp(t, sh, o)
	changed := v.change(up)
	if changed == up {
		t.Fatalf("variant %q changes nothing in the rendered SQL: the template changed, update the variant", v.name)
	}
	if _, err := db.Exec(changed); err != nil {
		t.Fatalf("install variant %q in %s: %v", v.name, sh.Schema, err)
	}
}
