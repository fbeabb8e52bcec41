package lease

import (
	"bytes"
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"sync"
	"text/template"
	"time"

	"github.com/shardid/shardid"
	"github.com/shardid/shardid/dialect"
	"github.com/shardid/shardid/internal/quote"
)

// DefaultTable is the lease table's name when Settings.Table (or
// the table argument of Migrations and List) is empty.
const DefaultTable = "shardid_worker_lease"

// historySuffix makes the goose version table's name from the lease
// table's (HistoryTable): the longest name the lease derives.
const historySuffix = "_goose_db_version"

// ErrInvalidTable is returned by Acquire, Migrations and
// List when the table name is not [schema.]name in lower-case
// letters, digits and _.
var ErrInvalidTable = errors.New("invalid lease table name")

// CheckTable returns an error wrapping ErrInvalidTable unless table is
// name or schema.name, each part a lower-case letter or _ then lower-case
// letters, digits and _, not pg_*, the name at most 46 bytes (its goose
// version table, HistoryTable, appends 17 within PostgreSQL's 63): the
// rule every counter's table follows.
func CheckTable(table string) error {
	if err := quote.CheckTable(table, true, len(historySuffix)); err != nil {
		return fmt.Errorf("%w %q: %v", ErrInvalidTable, table, err)
	}
	return nil
}

// quoteTable quotes a checked [schema.]name for d.
func quoteTable(d dialect.Dialect, table string) string {
	return quote.Table(table, d == dialect.Postgres)
}

//go:embed sql/*.sql.tmpl
var templateFS embed.FS

// leaseTemplates parses the lease templates once: one set per dialect
// family, each defining the same names.
var leaseTemplates = sync.OnceValues(func() (map[dialect.Dialect]*template.Template, error) {
	parse := func(file string) (*template.Template, error) {
		t, err := template.ParseFS(templateFS, file)
		if err != nil {
			return nil, err
		}
		return dialect.Templates(t)
	}
	pg, err := parse("sql/postgres.sql.tmpl")
	if err != nil {
		return nil, err
	}
	my, err := parse("sql/mysql.sql.tmpl")
	if err != nil {
		return nil, err
	}
	return map[dialect.Dialect]*template.Template{dialect.Postgres: pg, dialect.MySQL: my, dialect.TiDB: my}, nil
})

// leaseSQL is every statement of the lease API, rendered for one dialect
// and table.
type leaseSQL struct {
	now, list, insert, takeover, readback, renew, state, release, fence, fenceInsert, fenceEnd string
}

// leaseView is the data of the lease templates.
type leaseView struct {
	Table   string          // quoted, possibly schema-qualified
	Dialect dialect.Dialect // picks the durable check
	Guard   bool            // claims and renewals require a durable commit
}

// renderLease renders the named lease templates for d and table, the
// claims and renewals guarded (refusing a server that may lose
// acknowledged commits) when guard is set.
func renderLease(d dialect.Dialect, table string, guard bool, names ...string) ([]string, error) {
	if table == "" {
		table = DefaultTable
	}
	if err := CheckTable(table); err != nil {
		return nil, err
	}
	ts, err := leaseTemplates()
	if err != nil {
		return nil, fmt.Errorf("lease templates: %w", err)
	}
	t, ok := ts[d]
	if !ok {
		return nil, fmt.Errorf("%w %q (allowed: postgres, mysql, tidb)", dialect.ErrUnknown, d)
	}
	out := make([]string, len(names))
	for i, name := range names {
		var b bytes.Buffer
		if err := t.ExecuteTemplate(&b, name, leaseView{Table: quoteTable(d, table), Dialect: d, Guard: guard && d != dialect.TiDB}); err != nil {
			return nil, fmt.Errorf("render lease %s: %w", name, err)
		}
		out[i] = b.String()
	}
	return out, nil
}

// leaseStatements renders the statements the lease API runs, guarded
// against lossy commits when guard is set.
func leaseStatements(d dialect.Dialect, table string, guard bool) (*leaseSQL, error) {
	s, err := renderLease(d, table, guard, "now", "list", "insert", "takeover", "readback", "renew", "state", "release", "fence", "fence_insert", "fence_end")
	if err != nil {
		return nil, err
	}
	return &leaseSQL{now: s[0], list: s[1], insert: s[2], takeover: s[3], readback: s[4], renew: s[5], state: s[6], release: s[7],
		fence: s[8], fenceInsert: s[9], fenceEnd: s[10]}, nil
}

// Info is one row of the lease table, as List reports it.
type Info struct {
	// Node is the node id.
	Node int64
	// Holder is who holds it, or held it last.
	Holder string
	// Live is true while the lease has not ended by the database's clock.
	Live bool
	// Until is when the lease ends (or ended), by the database's clock, in
	// UTC.
	Until time.Time
	// LastDrawn is the latest instant any holder of the node may have drawn
	// an ID at (by that holder's clock), in UTC: the next holder draws only
	// once its clock is past it. Zero when nobody has drawn yet.
	LastDrawn time.Time
	// Layout describes the ID layout of the generators leasing the node.
	Layout string
	// Fenced is true for a node Fence quarantined: nobody holds it,
	// and nobody may take it before Until.
	Fenced bool
	// TTL is the TTL its holder leases with, as its last claim or renewal
	// recorded it; 0 when none did (a row written before the table had
	// the column: TTLMigrationName).
	TTL time.Duration
}

// leaseRow is a row of the lease table with its token, which only the
// lease API sees.
type leaseRow struct {
	Info
	token    string
	lastMs   int64
	renewals int64 // the row's write count
}

// listLeases reads every row of the lease table in node order, with the
// database's current time in Unix microseconds.
func listLeases(ctx context.Context, db *sql.DB, q *leaseSQL) ([]leaseRow, error) {
	rows, err := db.QueryContext(ctx, q.list)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []leaseRow
	for rows.Next() {
		var r leaseRow
		var untilUs, nowUs, ttlUs int64
		if err := rows.Scan(&r.Node, &r.Holder, &r.token, &r.Layout, &r.lastMs, &r.renewals, &ttlUs, &untilUs, &nowUs); err != nil {
			return nil, err
		}
		r.TTL = time.Duration(ttlUs) * time.Microsecond
		r.Live = untilUs > nowUs
		r.Until = time.UnixMicro(untilUs).UTC()
		r.Fenced = r.token == fenceToken
		if r.lastMs > 0 {
			r.LastDrawn = time.UnixMilli(r.lastMs).UTC()
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// leaseTableHint says what to do about err, an error reading the lease
// table: create the table when the server says it is missing, grant the
// role what the lease needs when the server refuses it; "" otherwise.
// MySQL and MariaDB refuse a role without grants on a table with 1142
// whether or not the table exists.
func leaseTableHint(err error) string {
	switch dialect.ErrorCode(err) {
	case "42P01", "1146": // undefined_table; ER_NO_SUCH_TABLE
		return " (create it with `shardid worker up` or the migrations of lease.Migrations)"
	case "42703", "1054": // undefined_column; ER_BAD_FIELD_ERROR
		return " (the table lacks the column that records each holder's TTL: bring it up to date with `shardid worker up`, lease.Up or the goose migration " + TTLMigrationName + ")"
	case "42501", "1142", "1143": // insufficient_privilege; ER_TABLEACCESS_DENIED_ERROR, ER_COLUMNACCESS_DENIED_ERROR
		return " (a role that uses the lease table needs SELECT, INSERT and UPDATE on it)"
	}
	return ""
}

// List returns every row of the lease table in node order. d ""
// asks the server (dialect.Detect); table "" means DefaultTable. It
// returns errors wrapping ErrInvalidTable and the database's own.
func List(ctx context.Context, db *sql.DB, d dialect.Dialect, table string) ([]Info, error) {
	if d == "" {
		var err error
		if d, err = dialect.Detect(ctx, db); err != nil {
			return nil, err
		}
	}
	q, err := leaseStatements(d, table, false)
	if err != nil {
		return nil, err
	}
	rows, err := listLeases(ctx, db, q)
	if err != nil {
		return nil, fmt.Errorf("list leases: %w%s", err, leaseTableHint(err))
	}
	out := make([]Info, len(rows))
	for i, r := range rows {
		out[i] = r.Info
	}
	return out, nil
}

// leaseLayoutText is the layout as the lease table records it: every field
// that decides which IDs a node may produce, and no name, so a preset and
// the same custom layout agree. Route bits, when there are any, follow.
func leaseLayoutText(l shardid.Layout) string {
	route := ""
	if l.RouteBits > 0 {
		route = fmt.Sprintf(", %d route bits", l.RouteBits)
	}
	return fmt.Sprintf("%d/%d/%d bits, %s ticks since %s%s", l.TimeBits, l.ShardBits, l.SeqBits, l.TimeUnit,
		l.Epoch.UTC().Format("2006-01-02T15:04:05.000Z07:00"), route)
}
