package pgfunc

import (
	"errors"
	"fmt"
	"time"

	"github.com/shardid/shardid"
	"github.com/shardid/shardid/dialect"
)

// Errors a shard's migration, adoption or grant is refused with, whichever
// stage package finds it (the server's inventory, or the migration's own
// checks, by SQLSTATE: see MigrationError).
var (
	// ErrShardConflict is returned (per shard) by migrate.Migrator.Up when another
	// schema on the same server already holds the shard id: two schemas with
	// one shard id would hand out the same IDs.
	ErrShardConflict = errors.New("shard id already used by another schema")
	// ErrGeneratorMismatch is returned (per shard) by migrate.Migrator.Up when the
	// schema already has a generator rendered with a different layout, mode
	// or shard id, or held one until a down (its counter kept as
	// next_id_retired_seq); and by migrate.Migrator.Down when the schema's
	// generator differs from the Migrator's options. Changing a generator
	// can repeat IDs, so it is never done silently.
	ErrGeneratorMismatch = errors.New("schema has a different generator")
	// ErrOutdatedGenerator is returned (per shard) by migrate.Migrator.Up and
	// Grant when the schema holds a generator applied by an older shardid
	// (see Installed.Outdated): its body is not the one this release
	// renders, and neither replaces a live generator's body.
	ErrOutdatedGenerator = errors.New("schema has a generator made by an older shardid")
	// ErrNoGenerator is returned (per shard) by Grant when the schema holds
	// no shardid generator: apply it first; and by migrate.Migrator.Up when the
	// schema's goose history records the migration but the generator is
	// gone.
	ErrNoGenerator = errors.New("no shardid generator in schema")
	// ErrUnsafePrivileges is returned (per shard) by privilege.Grant, and
	// by citus.Grant on every node, when, after the grant, the role still
	// holds a privilege that lets it break the generator (through PUBLIC,
	// a role it belongs to, or a grant made by another user), or still
	// lacks one it needs (the grant was made by a user without the right
	// to make it).
	ErrUnsafePrivileges = errors.New("role's privileges are not the least the generator needs")
	// ErrTemplateDatabase is returned (per shard) by migrate.Migrator.Up when the
	// Migrator's database is a template: every CREATE DATABASE from it
	// would copy the generators, and each copy hands out the same IDs.
	ErrTemplateDatabase = errors.New("database is a template")
	// ErrUnreadDatabases is returned (per shard) by migrate.Migrator.Up when the
	// role cannot read some database of the server (no CONNECT privilege,
	// or connections not allowed) and migrate.Options.AllowUnreadDatabases
	// is not set: a generator there would go unseen.
	ErrUnreadDatabases = errors.New("databases the role cannot read")
	// ErrMixedGenerators is returned (per shard) by migrate.Migrator.Up when the
	// server holds a generator (or a counter a down kept) of another
	// layout, epoch or mode, and either migrate.Options.AllowMixed is not
	// set or Overlap finds an ID both could hand out.
	ErrMixedGenerators = errors.New("another kind of generator on the server")
)

// ErrUnreadableGenerator is returned by migrate.Migrator.Up when some database of
// the server holds a counter that looks like a generator's but whose
// metadata cannot be read (Installed.Unreadable): it could hold any shard
// id, of any kind, so no shard id can be shown to be free.
var ErrUnreadableGenerator = errors.New("generator whose metadata cannot be read")

// DefaultEndMargin is how long a layout must still last when Up applies a
// generator, unless migrate.Options.EndMargin says otherwise.
const DefaultEndMargin = 365 * 24 * time.Hour

// ErrLayoutEnds is returned (per shard) by migrate.Migrator.Up when the layout's
// time field has ended, or ends within migrate.Options.EndMargin.
var ErrLayoutEnds = errors.New("layout ends too soon")

// CheckEnd returns an error wrapping ErrLayoutEnds, naming the end, when
// layout l has ended at now or ends within margin of it (zero means
// DefaultEndMargin; a negative margin refuses only an ended layout), as
// migrate.Migrator.Up refuses it.
func CheckEnd(l shardid.Layout, margin time.Duration, now time.Time) error {
	switch {
	case margin == 0:
		margin = DefaultEndMargin
	case margin < 0:
		margin = 0
	}
	end := l.End()
	named := l // its preset name or its fields; the epoch is said apart
	named.Epoch = shardid.DefaultEpoch()
	name := named.String()
	switch {
	case !end.After(now):
		return fmt.Errorf("%w: layout %s with epoch %s ended at %s: every draw would raise; choose a later epoch", ErrLayoutEnds,
			name, l.Epoch.UTC().Format(time.RFC3339Nano), end.Format(time.RFC3339))
	case !end.After(now.Add(margin)):
		return fmt.Errorf("%w: layout %s with epoch %s ends at %s, within the end margin of %s: choose a later epoch, or a smaller margin", ErrLayoutEnds,
			name, l.Epoch.UTC().Format(time.RFC3339Nano), end.Format(time.RFC3339), days(margin))
	}
	return nil
}

// days writes d in days when it is a whole number of them.
func days(d time.Duration) string {
	if d > 0 && d%(24*time.Hour) == 0 {
		return fmt.Sprintf("%d days", d/(24*time.Hour))
	}
	return d.String()
}

// MigrationError marks the migration's own refusals (see
// sql/checks.sql.tmpl, by SQLSTATE) with the same sentinels as Up's; other
// errors, and nil, are returned as they are.
func MigrationError(err error) error {
	if sentinel, ok := migrationStates[dialect.ErrorCode(err)]; ok && err != nil {
		return fmt.Errorf("%w: %v", sentinel, err)
	}
	return err
}

// SQLSTATEs the rendered migration raises (see sql/checks.sql.tmpl),
// and what Up reads each as.
var migrationStates = map[string]error{
	"SHR02": ErrGeneratorMismatch,   // a kept counter of other options
	"SHR03": ErrShardConflict,       // the shard id in another schema of the database
	"SHR04": ErrTemplateDatabase,    // the database is a template
	"SHR05": ErrMixedGenerators,     // another kind of generator in the database
	"SHR06": ErrUnreadableGenerator, // a generator's counter whose metadata cannot be read
	"SHR07": ErrLayoutEnds,          // the layout has ended
}
