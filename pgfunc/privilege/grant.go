package privilege

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/shardid/shardid/pgfunc"
	"github.com/shardid/shardid/pgfunc/citus"
	"github.com/shardid/shardid/pgfunc/internal/batch"
	"github.com/shardid/shardid/pgfunc/internal/sqlt"
	"github.com/shardid/shardid/pgfunc/inventory"
)

// Errors returned by Grant and CheckRole.
var (
	// ErrInvalidRole is returned by CheckRole and Grant for a role name
	// PostgreSQL cannot have, a role the server does not know, a superuser
	// (who can move any counter) or one of PostgreSQL's predefined pg_*
	// roles.
	ErrInvalidRole = errors.New("invalid role")
	// ErrUnsafePrivileges is returned (per shard) by Grant when, after the
	// grant, the role still holds a privilege that lets it break the
	// generator (through PUBLIC, a role it belongs to, or a grant made by
	// another user), or still lacks one it needs (the grant was made by a
	// user without the right to make it); on a Citus cluster, on any node.
	// It is pgfunc.ErrUnsafePrivileges, which package citus returns too.
	ErrUnsafePrivileges = pgfunc.ErrUnsafePrivileges
)

// Danger is a privilege a role holds on a shard's generator that lets it
// break it: move a counter back (IDs repeat), fake the jump bookkeeping
// (IDs repeat), send draws to the slow path, or hold a lock jumps wait for.
type Danger struct {
	// Schema holds the generator.
	Schema string
	// Role holds the privilege (directly, through PUBLIC or through a role
	// it belongs to).
	Role string
	// Object is the sequence or table, schema-qualified.
	Object string
	// Privilege is the PostgreSQL privilege, e.g. UPDATE.
	Privilege string
	// Effect says what the privilege lets the role do.
	Effect string
}

// String describes the danger in one line.
func (d Danger) String() string {
	return fmt.Sprintf("role %s has %s on %s: %s", d.Role, d.Privilege, d.Object, d.Effect)
}

// CheckRole returns an error wrapping ErrInvalidRole unless name can be a
// PostgreSQL role to grant to: 1 to 63 bytes of UTF-8 without NUL, not
// PUBLIC or NONE (reserved) and not one of PostgreSQL's predefined pg_*
// roles. Names are quoted, so any other spelling is taken literally.
func CheckRole(name string) error {
	lower := strings.ToLower(name)
	switch {
	case name == "" || len(name) > 63 || !utf8.ValidString(name) || strings.ContainsRune(name, 0):
		return fmt.Errorf("%w %q: want 1 to 63 bytes of UTF-8", ErrInvalidRole, name)
	case lower == "public" || lower == "none":
		return fmt.Errorf("%w %q: reserved by PostgreSQL; grant to a role of your own", ErrInvalidRole, name)
	case strings.HasPrefix(lower, "pg_"):
		return fmt.Errorf("%w %q: pg_* roles are PostgreSQL's own; grant to a role of your own", ErrInvalidRole, name)
	}
	return nil
}

// Grant gives role exactly what an application needs on each shard's
// generator: USAGE on the schema, USAGE (nextval) and SELECT on the counter
// sequence, SELECT on the jump counters (read, never moved), EXECUTE on
// next_id(), next_id_bulk(), next_ids(n), the jump and the reservation
// they call (in mode unique) and the decode helpers; and takes back
// anything more it had been granted on them (UPDATE lets a role setval a
// counter, and IDs repeat). The role can then insert with DEFAULT
// next_id(), draw with next_id_bulk() and next_ids(n), call the decode
// helpers and draw from the counter next_id() reads; it can move nothing
// back.
//
// Each shard is granted in a transaction of its own (DefaultParallel at
// once) and then checked: the
// role's effective privileges (through PUBLIC and the roles it belongs to
// as well) must be exactly these, or the shard's result carries
// ErrUnsafePrivileges naming what is wrong. A rerun is harmless. Other
// shards' results stand when one fails (the error is then a
// *pgfunc.PartialError); each, if not nil, is called after every shard.
// Any other error is for what stops every shard, with no results: a role
// that is invalid, unknown or a superuser (ErrInvalidRole), or a failed
// query.
func Grant(ctx context.Context, db *sql.DB, shards []pgfunc.Shard, role string, each func(pgfunc.Result)) ([]pgfunc.Result, error) {
	if err := CheckRole(role); err != nil {
		return nil, err
	}
	var super bool
	q, err := sqlt.Query("role", pgfunc.GrantData{})
	if err != nil {
		return nil, err
	}
	switch err := db.QueryRowContext(ctx, q, role).Scan(&super); {
	case errors.Is(err, sql.ErrNoRows):
		return nil, fmt.Errorf("%w %q: no such role on the server (CREATE ROLE first)", ErrInvalidRole, role)
	case err != nil:
		return nil, fmt.Errorf("look up role %q: %w", role, err)
	case super:
		return nil, fmt.Errorf("%w %q: a superuser can move any counter; grant to a role without SUPERUSER", ErrInvalidRole, role)
	}
	// Citus (package citus): every node, its own companion schemas too.
	if res, ok, err := citus.Grant(ctx, db, shards, role, each); ok || err != nil {
		return res, err
	}
	installed, err := inventory.Discover(ctx, db)
	if err != nil {
		return nil, err
	}
	found := inventory.NewIndex(installed)
	// DefaultParallel shards at once, each on its own connection, as up.
	return pgfunc.Partial(batch.Run(batch.DefaultParallel, shards, each, func(sh pgfunc.Shard) (bool, string, error) {
		for _, in := range found.Unreadable() {
			if in.Schema == sh.Schema {
				return false, "", inventory.UnreadableError([]inventory.Installed{in})
			}
		}
		applied, err := grantShard(ctx, db, sh, role, found)
		return applied, "", err
	}))
}

// grantShard grants and checks one shard; applied reports whether the
// grant was committed.
func grantShard(ctx context.Context, db *sql.DB, sh pgfunc.Shard, role string, found inventory.Index) (applied bool, err error) {
	if err := pgfunc.CheckSchema(sh.Schema); err != nil {
		return false, err
	}
	in, ok := found.Generator(sh.Schema)
	switch {
	case !ok:
		return false, fmt.Errorf("%w %s (apply it first: shardid pg up)", pgfunc.ErrNoGenerator, sh.Schema)
	case in.Upgradable:
		return false, fmt.Errorf("%w: %s (it lacks next_id_bulk() and next_ids(), which this release grants on: shardid pg up replaces its body in place, then grant)", pgfunc.ErrOutdatedGenerator, sh.Schema)
	case in.Outdated:
		return false, fmt.Errorf("%w: %s (its objects are not the ones this release grants on)", pgfunc.ErrOutdatedGenerator, sh.Schema)
	}
	mode := in.Meta.Mode
	d := pgfunc.NewGrantData(sh, sqlt.Ident(role), mode, in.Meta.RouteBits > 0)
	stmts, err := sqlt.Query("grant", d)
	if err != nil {
		return false, err
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return false, err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, stmts); err != nil {
		return false, fmt.Errorf("grant to %s: %w", role, err)
	}
	dangers, err := dangers(ctx, tx, []pgfunc.GrantData{d}, role)
	if err != nil {
		return false, err
	}
	missing, err := missingPrivileges(ctx, tx, d, role)
	if err != nil {
		return false, err
	}
	if err := tx.Commit(); err != nil {
		return false, err
	}
	var problems, remedies []string
	for _, dg := range dangers {
		problems = append(problems, fmt.Sprintf("still has %s on %s (%s)", dg.Privilege, dg.Object, dg.Effect))
	}
	if len(dangers) > 0 {
		remedies = append(remedies, "revoke what it still has where it was given (a role it belongs to, PUBLIC, another grantor)")
	}
	if len(missing) > 0 {
		problems = append(problems, missing...)
		remedies = append(remedies, "grant as the generator's owner")
	}
	if len(problems) > 0 {
		return true, fmt.Errorf("%w: role %s %s; %s", ErrUnsafePrivileges, role, strings.Join(problems, "; "), strings.Join(remedies, ", and "))
	}
	return true, nil
}

// queryer is what the checks need: a *sql.DB or a *sql.Tx.
type queryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// dangersChunk is how many schemas one dangers query checks: one round
// trip per chunk, not per schema (8,192 shards took 6 s one by one).
const dangersChunk = 256

// dangers lists the dangerous privileges on the generators of gs (one
// query per dangersChunk of them), of role only, or of every role when
// role is "".
func dangers(ctx context.Context, q queryer, gs []pgfunc.GrantData, role string) ([]Danger, error) {
	var arg any
	if role != "" {
		arg = role
	}
	var out []Danger
	for len(gs) > 0 {
		chunk := gs[:min(len(gs), dangersChunk)]
		gs = gs[len(chunk):]
		text, err := sqlt.Query("dangers", chunk)
		if err != nil {
			return nil, err
		}
		rows, err := q.QueryContext(ctx, text, arg)
		if err != nil {
			return nil, fmt.Errorf("check privileges on %s…: %w", chunk[0].Schema, err)
		}
		for rows.Next() {
			var d Danger
			if err := rows.Scan(&d.Schema, &d.Role, &d.Object, &d.Privilege, &d.Effect); err != nil {
				rows.Close()
				return nil, fmt.Errorf("check privileges on %s…: %w", chunk[0].Schema, err)
			}
			out = append(out, d)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("check privileges on %s…: %w", chunk[0].Schema, err)
		}
	}
	return out, nil
}

// missingPrivileges lists, as "lacks PRIVILEGE on OBJECT", what the grant
// gives that role still lacks.
func missingPrivileges(ctx context.Context, q queryer, d pgfunc.GrantData, role string) ([]string, error) {
	text, err := sqlt.Query("missing", d)
	if err != nil {
		return nil, err
	}
	rows, err := q.QueryContext(ctx, text, role)
	if err != nil {
		return nil, fmt.Errorf("check privileges on %s: %w", d.Schema, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var object, privilege string
		if err := rows.Scan(&object, &privilege); err != nil {
			return nil, fmt.Errorf("check privileges on %s: %w", d.Schema, err)
		}
		out = append(out, fmt.Sprintf("lacks %s on %s", privilege, object))
	}
	return out, rows.Err()
}

// Dangers lists every privilege a role other than a superuser or the
// objects' owner holds on the given shards' generators (all generators on
// the server when shards is empty) that lets it break them: UPDATE on a
// counter (setval: IDs repeat), USAGE on the jump counters (nextval: every
// draw takes the slow path), or a privilege on the jump lock's table that
// lets it hold a lock jumps wait for. Schemas without a generator, or
// with one applied by an older shardid (Installed.Outdated), are skipped.
// Members of PostgreSQL's predefined roles are listed under their own
// names (pg_write_all_data, for one, may setval every sequence).
func Dangers(ctx context.Context, db *sql.DB, shards []pgfunc.Shard) ([]Danger, error) {
	installed, err := inventory.Discover(ctx, db)
	if err != nil {
		return nil, err
	}
	want := map[string]bool{}
	for _, sh := range shards {
		want[sh.Schema] = true
	}
	var gs []pgfunc.GrantData
	for _, in := range installed {
		if len(shards) > 0 && !want[in.Schema] || in.Outdated || in.Unreadable != "" {
			continue // an outdated generator's objects differ; Status flags it
		}
		gs = append(gs, pgfunc.NewGrantData(pgfunc.Shard{Schema: in.Schema, ID: in.Meta.Shard}, "", in.Meta.Mode, in.Meta.RouteBits > 0))
	}
	return dangers(ctx, db, gs, "")
}
