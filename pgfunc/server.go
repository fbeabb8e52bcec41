package pgfunc

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/stdlib"

	"github.com/shardid/shardid/dialect"
	"github.com/shardid/shardid/internal/dsn"
)

// Errors of the server-wide checks.
var (
	// ErrNoConnect is returned by NewMigrator when MigrateOptions has
	// neither Connect nor OwnDatabaseOnly and the pool is not a pgx stdlib
	// pool a connector can be derived from; and (per shard) by Up when
	// deriving it fails.
	ErrNoConnect = errors.New("no way to reach the server's other databases")
	// ErrDatabasesChanging is returned (per shard) by Migrator.Up, and by
	// Status and Resume, when databases kept being created or renamed
	// while the server's databases were read, so that no listing of them
	// was read whole.
	ErrDatabasesChanging = errors.New("the server's databases kept changing")
	// ErrTemplateDatabase is returned (per shard) by Migrator.Up when the
	// Migrator's database is a template: every CREATE DATABASE from it
	// would copy the generators, and each copy hands out the same IDs.
	ErrTemplateDatabase = errors.New("database is a template")
	// ErrUnreadDatabases is returned (per shard) by Migrator.Up when the
	// role cannot read some database of the server (no CONNECT privilege,
	// or connections not allowed) and MigrateOptions.AllowUnreadDatabases
	// is not set: a generator there would go unseen.
	ErrUnreadDatabases = errors.New("databases the role cannot read")
	// ErrMixedGenerators is returned (per shard) by Migrator.Up when the
	// server holds a generator (or a counter a down kept) of another
	// layout, epoch or mode, and either MigrateOptions.AllowMixed is not
	// set or Overlap finds an ID both could hand out.
	ErrMixedGenerators = errors.New("another kind of generator on the server")
)

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

// serverOptions is how a Migrator looks after the rest of its server.
type serverOptions struct {
	ownOnly     bool
	allowUnread bool
	allowMixed  bool
	// connect opens another database of the server: MigrateOptions.Connect,
	// or derived from the pool on first use (derive).
	once    sync.Once
	connect func(context.Context, string) (*sql.DB, error)
	derive  bool
	err     error
}

// newServerOptions checks that the Migrator will be able to read the
// rest of the server.
func newServerOptions(db *sql.DB, mo MigrateOptions) (*serverOptions, error) {
	so := &serverOptions{ownOnly: mo.OwnDatabaseOnly, allowUnread: mo.AllowUnreadDatabases, allowMixed: mo.AllowMixed, connect: mo.Connect}
	if mo.OwnDatabaseOnly || mo.Connect != nil {
		return so, nil
	}
	if _, ok := db.Driver().(*stdlib.Driver); !ok {
		return nil, fmt.Errorf("%w: the pool's driver is %T, not pgx's stdlib: set MigrateOptions.Connect to open another database of the server, or OwnDatabaseOnly to look after this database alone", ErrNoConnect, db.Driver())
	}
	so.derive = true
	return so, nil
}

// connector returns how to open another database of the server: nil with
// OwnDatabaseOnly; the connector derived from the pool (once) otherwise.
func (m *Migrator) connector(ctx context.Context) (func(context.Context, string) (*sql.DB, error), error) {
	so := m.server
	if so.ownOnly {
		return nil, nil
	}
	if !so.derive {
		return so.connect, nil
	}
	so.once.Do(func() { so.connect, so.err = deriveConnect(ctx, m.db) })
	return so.connect, so.err
}

// deriveConnect reads the connection settings of one of db's connections
// (a pgx stdlib pool) and returns a connector that opens another database
// with them.
func deriveConnect(ctx context.Context, db *sql.DB) (func(context.Context, string) (*sql.DB, error), error) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNoConnect, err)
	}
	defer conn.Close()
	var connect func(context.Context, string) (*sql.DB, error)
	err = conn.Raw(func(dc any) error {
		sc, ok := dc.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("the pool's connections are %T, not pgx's stdlib", dc)
		}
		cfg := sc.Conn().Config() // a copy: password and TLS settings included
		connect = func(ctx context.Context, database string) (*sql.DB, error) {
			c := cfg.Copy()
			c.Database = database
			return dsn.OpenPG(ctx, c)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("%w: %w (set MigrateOptions.Connect, or OwnDatabaseOnly)", ErrNoConnect, err)
	}
	return connect, nil
}

// server is what Up, Status and Census read of the Migrator's server.
type server struct {
	database   string       // the Migrator's database
	template   bool         // it is a template
	now        time.Time    // the server's clock (the generator's clock expression)
	all        []Installed  // generators and kept counters of every database read (Database "" for the Migrator's own)
	templates  []string     // the other template databases read
	closed     []string     // the databases the role may not read
	invalid    []string     // the databases an interrupted DROP DATABASE left invalid
	ownOnly    bool         // only the Migrator's database was read
	replicated []Replicated // tables keyed by next_id() that logical replication copies
}

// Replicated is a table keyed by a generator's next_id() (a column's
// DEFAULT calls next_id() or next_id_bulk()) that logical replication
// copies. PostgreSQL replicates rows, never sequences: a subscriber's
// counter stays where it was while the rows it receives carry the
// publisher's IDs, so a subscriber that takes over from its publisher
// (or any logical copy made while the origin ran) hands those IDs out
// again unless pg resume moves its counters first (operations.md).
type Replicated struct {
	// Database holds the table; empty for the Migrator's own database.
	Database string `json:"database"`
	// Table is the table, schema-qualified.
	Table string `json:"table"`
	// Generator is the schema whose next_id() the table's DEFAULT calls.
	Generator string `json:"generator"`
	// Subscriptions copy the table into this database from elsewhere.
	Subscriptions []string `json:"subscriptions"`
	// Publications copy the table from this database elsewhere.
	Publications []string `json:"publications"`
}

// readReplication lists the tables of db's database keyed by next_id()
// that logical replication copies.
func readReplication(ctx context.Context, db *sql.DB, database string) ([]Replicated, error) {
	q, err := query("replication", nil)
	if err != nil {
		return nil, err
	}
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("read logical replication: %w", err)
	}
	defer rows.Close()
	var out []Replicated
	for rows.Next() {
		r := Replicated{Database: database}
		var subs, pubs string
		if err := rows.Scan(&r.Table, &r.Generator, &subs, &pubs); err != nil {
			return nil, fmt.Errorf("read logical replication: %w", err)
		}
		if err := errors.Join(json.Unmarshal([]byte(subs), &r.Subscriptions), json.Unmarshal([]byte(pubs), &r.Publications)); err != nil {
			return nil, fmt.Errorf("read logical replication: %w", err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read logical replication: %w", err)
	}
	return out, nil
}

// readServer reads the Migrator's database and, unless OwnDatabaseOnly,
// every other database of the server the role may connect to, templates
// included.
func (m *Migrator) readServer(ctx context.Context) (server, error) {
	var s server
	q, err := query("current_database", nil)
	if err != nil {
		return s, err
	}
	if err := m.db.QueryRowContext(ctx, q).Scan(&s.database, &s.template, &s.now); err != nil {
		return s, fmt.Errorf("current database: %w", err)
	}
	if s.all, err = discoverAll(ctx, m.db); err != nil {
		return s, err
	}
	if s.replicated, err = readReplication(ctx, m.db, ""); err != nil {
		return s, err
	}
	connect, err := m.connector(ctx)
	if err != nil {
		return s, err
	}
	if connect == nil {
		s.ownOnly = true
		return s, nil
	}
	err = eachDatabase(ctx, m.databases, func(d otherDatabase) error {
		switch {
		case d.invalid:
			s.invalid = append(s.invalid, d.name)
			return nil
		case d.closed:
			s.closed = append(s.closed, d.name)
			return nil
		}
		other, pin, err := openListed(ctx, connect, d.name, d.oid)
		if errors.Is(err, errGone) {
			return err
		}
		if err != nil {
			return fmt.Errorf("database %s: %w", d.name, err)
		}
		gens, err := discoverAll(ctx, other)
		var repl []Replicated
		if err == nil {
			repl, err = readReplication(ctx, other, d.name)
		}
		pin.Close()
		other.Close()
		if err != nil {
			return fmt.Errorf("database %s: %w", d.name, err)
		}
		s.replicated = append(s.replicated, repl...)
		if d.template {
			s.templates = append(s.templates, d.name)
		}
		for _, g := range gens {
			g.Database = d.name
			s.all = append(s.all, g)
		}
		return nil
	})
	if err != nil {
		return s, err
	}
	return s, nil
}

// openListed opens a pool on the database listed as name with oid, and
// holds one of its connections open: while a session is connected to a
// database, PostgreSQL neither renames nor drops it (but with FORCE, which
// ends the session, so that what follows fails), so every connection of
// the pool reaches the database the pinned one does. That one is checked
// to be the database listed: when name now belongs to another (renamed or
// dropped meanwhile, or two swapped names) it returns errGone, and the
// next listing finds the database listed under its new name. Close the
// connection, then the pool.
func openListed(ctx context.Context, connect func(context.Context, string) (*sql.DB, error), name string, oid uint32) (*sql.DB, *sql.Conn, error) {
	db, err := connect(ctx, name)
	if gone(err) {
		return nil, nil, errGone
	}
	if err != nil {
		return nil, nil, err
	}
	var pin *sql.Conn
	fail := func(err error) (*sql.DB, *sql.Conn, error) {
		if pin != nil {
			pin.Close()
		}
		db.Close()
		return nil, nil, err
	}
	if pin, err = db.Conn(ctx); err != nil {
		if gone(err) {
			err = errGone
		}
		return fail(err)
	}
	q, err := query("database_oid", nil)
	if err != nil {
		return fail(err)
	}
	var got uint32
	if err := pin.QueryRowContext(ctx, q).Scan(&got); err != nil {
		return fail(err)
	}
	if got != oid {
		return fail(errGone)
	}
	return db, pin, nil
}

// eachDatabase calls visit for every database list names, then lists the
// server's databases again, until a listing names none not yet read. It
// knows a database by its oid, which a rename keeps: one renamed after it
// was read is not read twice, and one renamed between the listing and its
// visit (visit returns errGone, as for one dropped) is read under its new
// name on the next pass, as is one created meanwhile. It gives up with
// ErrDatabasesChanging after maxListings listings.
func eachDatabase[D interface{ key() (uint32, string) }](ctx context.Context, list func(context.Context) ([]D, error), visit func(D) error) error {
	read := map[uint32]bool{}
	for listing := 1; ; listing++ {
		all, err := list(ctx)
		if err != nil {
			return err
		}
		var pending []D
		for _, d := range all {
			if oid, _ := d.key(); !read[oid] {
				pending = append(pending, d)
			}
		}
		if len(pending) == 0 {
			return nil
		}
		if listing > maxListings {
			_, name := pending[0].key()
			return fmt.Errorf("%w: still after %d listings (%s not read yet): rerun when they settle",
				ErrDatabasesChanging, maxListings, name)
		}
		for _, d := range pending {
			err := visit(d)
			if errors.Is(err, errGone) {
				continue
			}
			if err != nil {
				return err
			}
			oid, _ := d.key()
			read[oid] = true
		}
	}
}

// errGone is what eachDatabase's visit returns for a database that was
// not there under the name listed (openListed): dropped, or renamed since.
var errGone = errors.New("database gone")

// maxListings is how many times eachDatabase lists the server's
// databases before it gives up on a set that keeps changing.
const maxListings = 5

// gone reports whether err says the database connected to does not exist
// (SQLSTATE 3D000): it was dropped after it was listed.
func gone(err error) bool {
	return dialect.ErrorCode(err) == "3D000"
}

// otherDatabase is one other database of the server.
type otherDatabase struct {
	oid      uint32
	name     string
	template bool
	closed   bool // the role may not connect to it
	invalid  bool // an interrupted DROP DATABASE left it invalid: nobody may connect to it
}

// key is what eachDatabase knows the database by, and its name.
func (d otherDatabase) key() (uint32, string) { return d.oid, d.name }

// databases lists the other databases of the server, and whether the
// role may connect to each: what up, status and resume read.
func (m *Migrator) databases(ctx context.Context) ([]otherDatabase, error) {
	q, err := query("databases", nil)
	if err != nil {
		return nil, err
	}
	rows, err := m.db.QueryContext(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("databases: %w", err)
	}
	defer rows.Close()
	var out []otherDatabase
	for rows.Next() {
		var d otherDatabase
		if err := rows.Scan(&d.oid, &d.name, &d.template, &d.closed, &d.invalid); err != nil {
			return nil, fmt.Errorf("databases: %w", err)
		}
		out = append(out, d)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("databases: %w", err)
	}
	return out, nil
}

// refusal is why Up applies nothing on this server, if anything: the
// Migrator's database is a template, or some database cannot be read.
func (s server) refusal(allowUnread bool) error {
	switch {
	case s.template:
		return fmt.Errorf("%w: %s: every database created from it would copy its generators, and the copies hand out the same IDs; apply shards to the databases the application uses",
			ErrTemplateDatabase, s.database)
	case len(s.closed) > 0 && !allowUnread:
		return fmt.Errorf("%w: %s (no CONNECT privilege, or connections not allowed): a generator there would go unseen and could hold these shard ids; grant CONNECT, or accept the risk explicitly (AllowUnreadDatabases, pg up --allow-unread-databases)",
			ErrUnreadDatabases, strings.Join(s.closed, ", "))
	}
	return nil
}

// keptCounters checks the counters of shard sh.ID that downs kept
// anywhere on the server but in sh's own schema (the migration compares
// that one, whatever shard id it held): one made with other options than
// want is refused, since a generator made with these could hand out its
// IDs again (a later epoch starts below them). It returns those in other
// databases: Up brings the highest into sh's schema for the migration to
// carry on from, as the migration itself does with those of its own
// database.
func keptCounters(sh Shard, want Meta, s server) ([]Installed, error) {
	var out []Installed
	for _, in := range s.all {
		if !in.Retired || in.Meta.Shard != sh.ID || in.Database == "" && in.Schema == sh.Schema {
			continue
		}
		if !in.Meta.sameGenerator(want) {
			return nil, fmt.Errorf("%w: %s held shard %d until pg down, made with other options (%s); one made with these (%s) could hand out its IDs again: up with the options it had, or drop that next_id_retired_seq once none of its IDs is in use anywhere",
				ErrGeneratorMismatch, in.where(), sh.ID, describeKind(in.Meta), describeKind(want))
		}
		if in.Database != "" {
			out = append(out, in)
		}
	}
	return out, nil
}

// adopt brings the counters kept in other databases into sh's schema as
// its next_id_retired_seq (made there unless the schema has one), moved
// forward to the highest of them, in one transaction: the migration then
// carries on from it and drops it. sh's schema exists.
func (m *Migrator) adopt(ctx context.Context, sh Shard, kept []Installed, connect func(context.Context, string) (*sql.DB, error)) error {
	var top int64
	var topCalled, found bool
	for _, in := range kept {
		last, called, err := position(ctx, in, connect)
		if err != nil {
			return err
		}
		if !found || last > top || last == top && called && !topCalled {
			top, topCalled, found = last, called, true
		}
	}
	meta, err := json.Marshal(kept[0].Meta)
	if err != nil {
		return err
	}
	data := struct{ Schema, Reg, Comment string }{quoteIdent(sh.Schema), quoteLiteral(quoteIdent(sh.Schema) + ".next_id_retired_seq"), quoteLiteral(string(meta))}
	tx, err := m.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("bring the kept counter of shard %d here: %w", sh.ID, err)
	}
	defer tx.Rollback()
	var existed bool
	if q, err := query("table_exists", nil); err != nil {
		return err
	} else if err := tx.QueryRowContext(ctx, q, quoteIdent(sh.Schema)+".next_id_retired_seq").Scan(&existed); err != nil {
		return fmt.Errorf("bring the kept counter of shard %d here: %w", sh.ID, err)
	}
	steps := []string{"adopt_retired", "advance_retired"}
	if !existed {
		steps = []string{"adopt_retired", "comment_retired", "advance_retired"}
	}
	for _, name := range steps {
		q, err := query(name, data)
		if err != nil {
			return err
		}
		args := []any{}
		if name == "advance_retired" {
			args = []any{top, topCalled}
		}
		if _, err := tx.ExecContext(ctx, q, args...); err != nil {
			return fmt.Errorf("bring the kept counter of shard %d here (%s): %w", sh.ID, name, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("bring the kept counter of shard %d here: %w", sh.ID, err)
	}
	return nil
}

// position reads where a kept counter in another database stands.
func position(ctx context.Context, in Installed, connect func(context.Context, string) (*sql.DB, error)) (int64, bool, error) {
	db, err := connect(ctx, in.Database)
	if err != nil {
		return 0, false, fmt.Errorf("database %s: %w", in.Database, err)
	}
	defer db.Close()
	if err := CheckSchema(in.Schema); err != nil {
		return 0, false, fmt.Errorf("%s: %w", in.where(), err)
	}
	q, err := query("retired_position", quoteIdent(in.Schema))
	if err != nil {
		return 0, false, err
	}
	var last int64
	var called bool
	if err := db.QueryRowContext(ctx, q).Scan(&last, &called); err != nil {
		return 0, false, fmt.Errorf("read %s: %w", in.where(), err)
	}
	return last, called, nil
}

// dropKept drops the counters kept in other databases once the migration
// carried on from them, so that no later up carries on from a stale one.
func dropKept(ctx context.Context, kept []Installed, connect func(context.Context, string) (*sql.DB, error)) error {
	var errs []error
	for _, in := range kept {
		db, err := connect(ctx, in.Database)
		if err == nil {
			var q string
			if q, err = query("drop_retired", quoteIdent(in.Schema)); err == nil {
				_, err = db.ExecContext(ctx, q)
			}
			db.Close()
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", in.where(), err))
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("applied, carrying on from the counter kept elsewhere, but could not drop it (drop it by hand, or a later up there would carry on from it again): %w", errors.Join(errs...))
	}
	return nil
}
