package inventory

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
	"github.com/shardid/shardid/pgfunc"
	"github.com/shardid/shardid/pgfunc/internal/sqlt"
)

// Errors of the server-wide checks.
var (
	// ErrNoConnect is returned by migrate.New when migrate.Options has
	// neither Connect nor OwnDatabaseOnly and the pool is not a pgx stdlib
	// pool a connector can be derived from; and (per shard) by Up when
	// deriving it fails.
	ErrNoConnect = errors.New("no way to reach the server's other databases")
	// ErrDatabasesChanging is returned (per shard) by migrate.Migrator.Up, and by
	// Status and Resume, when databases kept being created or renamed
	// while the server's databases were read, so that no listing of them
	// was read whole.
	ErrDatabasesChanging = errors.New("the server's databases kept changing")
)

// Scope says how much of its server a Server looks after. The zero
// value looks after the whole server: every database of it the role may
// connect to, templates included (see Connect).
type Scope struct {
	// Connect opens a pool on another database of the same server (the
	// database name is the argument); the Server closes what it opens.
	// Through it Lock takes the server-wide lock in LockDatabase and Read
	// reads every database of the server the role may connect to. Nil
	// means a connector derived from the Server's pool, which must then
	// be a pgx stdlib pool (sql.Open("pgx", …) or stdlib.OpenDB): the
	// same host, port, role, password and TLS settings, another database.
	// New fails with ErrNoConnect for any other pool unless
	// OwnDatabaseOnly is set.
	Connect func(ctx context.Context, database string) (*sql.DB, error)
	// OwnDatabaseOnly is the explicit opt-out of the server-wide reads:
	// Read looks at the Server's database only, and Lock locks there.
	// Another database of the server could then hold the same shard id,
	// another kind of generator or a counter a down kept, unnoticed: set
	// it only when no other database of the server holds generators that
	// matter.
	OwnDatabaseOnly bool
	// LockTimeout is how long Lock waits for the server-wide lock while
	// another run (or anybody: advisory locks need no privilege) holds
	// it, before failing with ErrServerLocked naming the holder. Zero
	// means DefaultLockTimeout.
	LockTimeout time.Duration
}

// Server is one PostgreSQL server as the stage packages read it: a pool
// on one of its databases (the Server's own) and the way to reach the
// others. Read it once (Read) and pass the Inventory on.
type Server struct {
	db       *sql.DB
	ownOnly  bool
	lockWait time.Duration
	// connect opens another database of the server: Scope.Connect, or
	// derived from the pool on first use (derive).
	once    sync.Once
	connect func(context.Context, string) (*sql.DB, error)
	derive  bool
	err     error
}

// New returns the Server db reaches, looked after as sc says; it fails
// with ErrNoConnect when sc has neither Connect nor OwnDatabaseOnly and
// db is not a pgx stdlib pool.
func New(db *sql.DB, sc Scope) (*Server, error) {
	if sc.LockTimeout <= 0 {
		sc.LockTimeout = DefaultLockTimeout
	}
	s := &Server{db: db, ownOnly: sc.OwnDatabaseOnly, lockWait: sc.LockTimeout, connect: sc.Connect}
	if sc.OwnDatabaseOnly || sc.Connect != nil {
		return s, nil
	}
	if _, ok := db.Driver().(*stdlib.Driver); !ok {
		return nil, fmt.Errorf("%w: the pool's driver is %T, not pgx's stdlib: set MigrateOptions.Connect to open another database of the server, or OwnDatabaseOnly to look after this database alone", ErrNoConnect, db.Driver())
	}
	s.derive = true
	return s, nil
}

// DB is the pool on the Server's own database.
func (s *Server) DB() *sql.DB { return s.db }

// LockTimeout is how long Lock waits for the server-wide lock.
func (s *Server) LockTimeout() time.Duration { return s.lockWait }

// Connector returns how to open another database of the server: nil with
// OwnDatabaseOnly; the connector derived from the pool (once) otherwise.
func (s *Server) Connector(ctx context.Context) (func(context.Context, string) (*sql.DB, error), error) {
	if s.ownOnly {
		return nil, nil
	}
	if !s.derive {
		return s.connect, nil
	}
	s.once.Do(func() { s.connect, s.err = deriveConnect(ctx, s.db) })
	return s.connect, s.err
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

// Inventory is what Read found on a server: every generator and kept
// counter of every database read, and which databases could not be read.
// Up, Down, Status, Grant, Resume and Adopt decide from it.
type Inventory struct {
	index      Index        // all, indexed
	database   string       // the Server's database
	template   bool         // it is a template
	now        time.Time    // the server's clock (the generator's clock expression)
	all        []Installed  // generators and kept counters of every database read (Database "" for the Server's own)
	templates  []string     // the other template databases read
	closed     []string     // the databases the role may not read
	invalid    []string     // the databases an interrupted DROP DATABASE left invalid
	ownOnly    bool         // only the Server's database was read
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
	// Database holds the table; empty for the Server's own database.
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
	q, err := sqlt.Query("replication", nil)
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

// readServer reads the Server's database and, unless OwnDatabaseOnly,
// every other database of the server the role may connect to, templates
// included.
func (srv *Server) Read(ctx context.Context) (*Inventory, error) {
	s, err := srv.read(ctx)
	if err != nil {
		return nil, err
	}
	s.index = NewIndex(s.all)
	return &s, nil
}

func (srv *Server) read(ctx context.Context) (Inventory, error) {
	var s Inventory
	q, err := sqlt.Query("current_database", nil)
	if err != nil {
		return s, err
	}
	if err := srv.db.QueryRowContext(ctx, q).Scan(&s.database, &s.template, &s.now); err != nil {
		return s, fmt.Errorf("current database: %w", err)
	}
	if s.all, err = discoverAll(ctx, srv.db); err != nil {
		return s, err
	}
	if s.replicated, err = readReplication(ctx, srv.db, ""); err != nil {
		return s, err
	}
	connect, err := srv.Connector(ctx)
	if err != nil {
		return s, err
	}
	if connect == nil {
		s.ownOnly = true
		return s, nil
	}
	err = EachDatabase(ctx, srv.Databases, func(d Database) error {
		switch {
		case d.Invalid:
			s.invalid = append(s.invalid, d.Name)
			return nil
		case d.Closed:
			s.closed = append(s.closed, d.Name)
			return nil
		}
		other, pin, err := OpenListed(ctx, connect, d.Name, d.OID)
		if errors.Is(err, ErrGone) {
			return err
		}
		if err != nil {
			return fmt.Errorf("database %s: %w", d.Name, err)
		}
		gens, err := discoverAll(ctx, other)
		var repl []Replicated
		if err == nil {
			repl, err = readReplication(ctx, other, d.Name)
		}
		pin.Close()
		other.Close()
		if err != nil {
			return fmt.Errorf("database %s: %w", d.Name, err)
		}
		s.replicated = append(s.replicated, repl...)
		if d.Template {
			s.templates = append(s.templates, d.Name)
		}
		for _, g := range gens {
			g.Database = d.Name
			s.all = append(s.all, g)
		}
		return nil
	})
	if err != nil {
		return s, err
	}
	return s, nil
}

// OpenListed opens a pool on the database listed as name with oid, and
// holds one of its connections open: while a session is connected to a
// database, PostgreSQL neither renames nor drops it (but with FORCE, which
// ends the session, so that what follows fails), so every connection of
// the pool reaches the database the pinned one does. That one is checked
// to be the database listed: when name now belongs to another (renamed or
// dropped meanwhile, or two swapped names) it returns ErrGone, and the
// next listing finds the database listed under its new name. Close the
// connection, then the pool.
func OpenListed(ctx context.Context, connect func(context.Context, string) (*sql.DB, error), name string, oid uint32) (*sql.DB, *sql.Conn, error) {
	db, err := connect(ctx, name)
	if gone(err) {
		return nil, nil, ErrGone
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
			err = ErrGone
		}
		return fail(err)
	}
	q, err := sqlt.Query("database_oid", nil)
	if err != nil {
		return fail(err)
	}
	var got uint32
	if err := pin.QueryRowContext(ctx, q).Scan(&got); err != nil {
		return fail(err)
	}
	if got != oid {
		return fail(ErrGone)
	}
	return db, pin, nil
}

// EachDatabase calls visit for every database list names, then lists the
// server's databases again, until a listing names none not yet read. It
// knows a database by its oid, which a rename keeps: one renamed after it
// was read is not read twice, and one renamed between the listing and its
// visit (visit returns ErrGone, as for one dropped) is read under its new
// name on the next pass, as is one created meanwhile. It gives up with
// ErrDatabasesChanging after maxListings listings.
func EachDatabase[D interface{ key() (uint32, string) }](ctx context.Context, list func(context.Context) ([]D, error), visit func(D) error) error {
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
			if errors.Is(err, ErrGone) {
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

// ErrGone is what EachDatabase's visit returns for a database that was
// not there under the name listed (OpenListed): dropped, or renamed since.
var ErrGone = errors.New("database gone")

// maxListings is how many times EachDatabase lists the server's
// databases before it gives up on a set that keeps changing.
const maxListings = 5

// gone reports whether err says the database connected to does not exist
// (SQLSTATE 3D000): it was dropped after it was listed.
func gone(err error) bool {
	return dialect.ErrorCode(err) == "3D000"
}

// Database is one other database of the server.
type Database struct {
	// OID and Name are the database's oid and name when listed.
	OID  uint32
	Name string
	// Template is true for a template database.
	Template bool
	// Closed is true when the role may not connect to it.
	Closed bool
	// Invalid is true when an interrupted DROP DATABASE left it invalid:
	// nobody may connect to it.
	Invalid bool
}

// key is what EachDatabase knows the database by, and its name.
func (d Database) key() (uint32, string) { return d.OID, d.Name }

// databases lists the other databases of the server, and whether the
// role may connect to each: what up, status and resume read.
func (s *Server) Databases(ctx context.Context) ([]Database, error) {
	q, err := sqlt.Query("databases", nil)
	if err != nil {
		return nil, err
	}
	rows, err := s.db.QueryContext(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("databases: %w", err)
	}
	defer rows.Close()
	var out []Database
	for rows.Next() {
		var d Database
		if err := rows.Scan(&d.OID, &d.Name, &d.Template, &d.Closed, &d.Invalid); err != nil {
			return nil, fmt.Errorf("databases: %w", err)
		}
		out = append(out, d)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("databases: %w", err)
	}
	return out, nil
}

// Refusal is why Up applies nothing on this server, if anything: the
// Server's database is a template, or some database cannot be read.
func (s *Inventory) Refusal(allowUnread bool) error {
	switch {
	case s.template:
		return fmt.Errorf("%w: %s: every database created from it would copy its generators, and the copies hand out the same IDs; apply shards to the databases the application uses",
			pgfunc.ErrTemplateDatabase, s.database)
	case len(s.closed) > 0 && !allowUnread:
		return fmt.Errorf("%w: %s (no CONNECT privilege, or connections not allowed): a generator there would go unseen and could hold these shard ids; grant CONNECT, or accept the risk explicitly (AllowUnreadDatabases, pg up --allow-unread-databases)",
			pgfunc.ErrUnreadDatabases, strings.Join(s.closed, ", "))
	}
	return nil
}

// Index is the inventory's generators, indexed.
func (s *Inventory) Index() Index { return s.index }

// With is s with the generators extra added (as found elsewhere than in
// the counters Read lists: a Citus cluster's, say), so that Index, All
// and CheckMixed see them too. s is left as it is.
func (s *Inventory) With(extra []Installed) *Inventory {
	c := *s
	c.all = append(append([]Installed(nil), s.all...), extra...)
	c.index = NewIndex(c.all)
	return &c
}

// All lists every generator and kept counter read (Database "" for the
// Server's own database).
func (s *Inventory) All() []Installed { return s.all }

// Now is the server's clock when it was read (the generators' clock).
func (s *Inventory) Now() time.Time { return s.now }
