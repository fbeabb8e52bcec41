package apply

import (
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/pressly/goose/v3"

	"github.com/shardid/shardid/internal/gooseup"
	"github.com/shardid/shardid/tidb"
	"github.com/shardid/shardid/tidb/script"
)

// Migration is one goose migration file holding one statement.
type Migration struct {
	// Version is the goose version.
	Version int64
	// Name is the file name, VERSION_KIND_TABLE.sql.
	Name string
	// Kind is what the statement does ("" for a file shardid did not
	// write).
	Kind script.Kind
	// Table is the table the statement works on, schema-qualified when the
	// input was ("" for a file shardid did not write).
	Table string
	// TiDBOnly marks a statement only TiDB runs (TiDBOnlyMarker).
	TiDBOnly bool
	// OnlyOn lists the servers the file reads right on (OnlyOnMarker), nil
	// for all.
	OnlyOn []tidb.Target
	// Text is the file's content.
	Text string

	// derived marks a version derived from the statements (Options.Dir
	// nil), which a Migrator numbers against the server's history.
	derived bool
}

// migrationView is the data of migration.sql.tmpl.
type migrationView struct {
	Comment        []string
	TiDBOnly       bool
	TiDBOnlyMarker string
	OnlyOn         string // "tidb, mariadb": the OnlyOnMarker line, or ""
	OnlyOnMarker   string
	Transaction    bool
	Up             []string
	Down           string
}

// OnlyOnMarker starts the comment line that names the servers a migration
// reads right on (Statement.OnlyOn), e.g. "shardid: only on tidb,
// mariadb"; a Migrator refuses the file on any other server.
const OnlyOnMarker = "shardid: only on "

// unit is one migration to write.
type unit struct {
	kind     script.Kind
	object   string // the table (schema-qualified when the input was) or view or routine
	step     string // the file name part after the version
	comment  []string
	up       []string
	down     string
	tx       bool
	tidbOnly bool
	onlyOn   []tidb.Target
}

// Migrations returns goose migration files for the whole plan, in the
// order they must run: the tables, then
// the FOREIGN KEYs that close cycles, then data, views and routines in
// script order. Rendered tables alone are a Plan with only Tables: one
// statement per file, each outside a transaction (TiDB DDL is not
// transactional), wrapped in StatementBegin/End so that goose never splits
// it; a CREATE TABLE file creates the table without IF NOT EXISTS (a table
// that already exists is refused, never adopted) and drops it on Down;
// SPLIT TABLE files carry TiDBOnlyMarker. A data step is one file run in one transaction, its
// statements between the SET that gives them their session and the SET
// that puts it back. A file whose text reads right only on some servers
// names them after OnlyOnMarker. It returns errors wrapping
// ErrMigrationFile.
func Migrations(p *tidb.Plan, o Options) ([]Migration, error) {
	var units []unit
	for _, d := range p.Tables {
		drop, err := execute("drop_table.sql.tmpl", d.Table)
		if err != nil {
			return nil, fmt.Errorf("migrations %s: %w", d.Table.Name, err)
		}
		for _, s := range d.Statements {
			if s.Kind == script.KindSession {
				return nil, fmt.Errorf("%w: %s: %s must run on the session of the statement after it, which goose does not promise: run the rendered statements in one session instead", ErrMigrationFile, d.Table.Name, s.SQL)
			}
			u := unit{kind: s.Kind, object: d.Table.QualifiedName(), step: string(s.Kind) + "_" + script.FileWord(d.Table.QualifiedName()), up: []string{s.SQL}, down: "", tidbOnly: s.TiDBOnly, onlyOn: s.OnlyOn}
			u.comment = append(u.comment, fmt.Sprintf("%s %s, strategy %s: %s", s.Kind, d.Table.QualifiedName(), d.Options.Strategy, d.Reason))
			if s.Kind == script.KindCreate {
				u.up, u.down = []string{s.Plain}, drop
				for _, n := range d.Notes {
					u.comment = append(u.comment, "changed: "+n)
				}
				if d.Table.IfNotExists {
					u.comment = append(u.comment, "changed: IF NOT EXISTS left out: a table that already exists is refused, never adopted")
				}
				for _, w := range d.Costs {
					u.comment = append(u.comment, "cost: "+w)
				}
				for _, w := range d.Warnings {
					u.comment = append(u.comment, "hotspot: "+w)
				}
				for _, w := range d.KeyWarnings {
					u.comment = append(u.comment, "warning: "+w)
				}
			}
			units = append(units, u)
		}
	}
	for _, group := range [][]*tidb.Step{p.ForeignKeys, p.Steps} {
		for _, st := range group {
			u := unit{kind: st.Kind, object: st.Object, step: st.Name, up: st.Statements, down: st.Down, tx: st.Transaction, onlyOn: st.OnlyOn}
			if u.step == "" {
				u.step = string(st.Kind) + "_" + script.FileWord(st.Object)
			}
			u.comment = append([]string{fmt.Sprintf("%s %s", st.Kind, cmp.Or(st.Object, "(unnamed)"))}, st.Comment...)
			for _, s := range st.Statements {
				for _, l := range strings.Split(s, "\n") {
					if strings.HasPrefix(strings.TrimSpace(l), "-- +goose") {
						return nil, fmt.Errorf("%w: %s %s holds a line goose reads as an annotation (%q): apply it by hand", ErrMigrationFile, st.Kind, st.Object, strings.TrimSpace(l))
					}
				}
			}
			units = append(units, u)
		}
	}
	return writeUnits(units, o)
}

// writeUnits numbers the units and writes their files.
func writeUnits(units []unit, o Options) ([]Migration, error) {
	var existing map[string]string // step → file name in o.Dir
	var next int64 = 1
	if o.Dir != nil {
		var err error
		if existing, next, err = steps(o.Dir); err != nil {
			return nil, err
		}
	}
	var out []Migration
	seen := map[string]string{} // name or version → object
	for _, u := range units {
		mv := migrationView{Comment: u.comment, TiDBOnly: u.tidbOnly, TiDBOnlyMarker: TiDBOnlyMarker, Transaction: u.tx, Up: u.up, Down: u.down, OnlyOnMarker: OnlyOnMarker}
		if len(u.onlyOn) > 0 {
			var names []string
			for _, t := range u.onlyOn {
				names = append(names, string(t))
			}
			mv.OnlyOn = strings.Join(names, ", ")
		}
		for i, c := range mv.Comment { // keep goose from reading a name as an annotation
			mv.Comment[i] = strings.ReplaceAll(strings.ReplaceAll(c, "+goose", "+ goose"), "\n", " ")
		}
		text, err := execute("migration.sql.tmpl", mv)
		if err != nil {
			return nil, fmt.Errorf("migrations %s: %w", u.object, err)
		}
		m := Migration{Kind: u.kind, Table: u.object, TiDBOnly: u.tidbOnly, OnlyOn: u.onlyOn, Text: text + "\n"}
		switch name, ok := existing[u.step]; {
		case o.Dir == nil:
			m.Version, m.derived = contentVersion(strings.Join(u.up, ";\n")), true
			m.Name = fmt.Sprintf("%d_%s.sql", m.Version, u.step)
		case ok:
			m.Name = name
			m.Version, _ = goose.NumericComponent(name)
		default:
			m.Version, next = next, next+1
			m.Name = fmt.Sprintf("%05d_%s.sql", m.Version, u.step)
		}
		for _, key := range []string{u.step, strconv.FormatInt(m.Version, 10)} {
			if other, dup := seen[key]; dup {
				return nil, fmt.Errorf("%w: %s %s and %s would share the migration %s (tables must differ in more than case and punctuation, and appear once)", ErrMigrationFile, u.kind, other, m.Table, m.Name)
			}
			seen[key] = m.Table
		}
		out = append(out, m)
	}
	return out, nil
}

// contentVersion derives a goose version from a statement: the first 53
// bits of its SHA-256, plus one (versions start at 1). 53 bits keep it
// exact wherever the version table is read as a double (JavaScript, JSON).
func contentVersion(stmt string) int64 {
	h := sha256.Sum256([]byte(stmt))
	return int64(binary.BigEndian.Uint64(h[:8])>>11) + 1
}

// steps maps each migration file in dir to its step (the name after the
// version) and returns one more than the highest version.
func steps(dir fs.FS) (map[string]string, int64, error) {
	names, err := fs.Glob(dir, "*.sql")
	if err != nil {
		return nil, 0, fmt.Errorf("list migrations: %w", err)
	}
	out := map[string]string{}
	var top int64
	for _, n := range names {
		v, err := goose.NumericComponent(n)
		if err != nil {
			continue
		}
		top = max(top, v)
		_, step, _ := strings.Cut(strings.TrimSuffix(n, ".sql"), "_")
		out[step] = n
	}
	return out, top + 1, nil
}

// Files returns the migrations as file name → content, for
// internal/gooseup.Write or MapFS.
func Files(ms []Migration) map[string][]byte {
	out := make(map[string][]byte, len(ms))
	for _, m := range ms {
		out[m.Name] = []byte(m.Text)
	}
	return out
}

// ReadDir reads the goose migration files (NNNNN_name.sql) at the root of
// fsys, in version order, as tidb gen writes them (files written by hand
// are read too; their Kind and Table stay empty). It returns errors
// wrapping ErrNoMigrations and ErrMigrationFile.
func ReadDir(fsys fs.FS) ([]Migration, error) {
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoMigrations, err)
	}
	var out []Migration
	for _, e := range entries {
		if e.IsDir() || path.Ext(e.Name()) != ".sql" {
			continue
		}
		v, err := goose.NumericComponent(e.Name())
		if err != nil {
			return nil, fmt.Errorf("%w %s: %v (want NNNNN_name.sql)", ErrMigrationFile, e.Name(), err)
		}
		b, err := fs.ReadFile(fsys, e.Name())
		if err != nil {
			return nil, fmt.Errorf("read migration: %w", err)
		}
		m := Migration{Version: v, Name: e.Name(), Text: string(b), TiDBOnly: strings.Contains(string(b), TiDBOnlyMarker), OnlyOn: onlyOn(string(b))}
		_, step, _ := strings.Cut(strings.TrimSuffix(e.Name(), ".sql"), "_")
		for _, k := range []script.Kind{script.KindCreate, script.KindAlter, script.KindSplit, script.KindIndex, script.KindForeignKey, script.KindData, script.KindView, script.KindRoutine} {
			if rest, ok := strings.CutPrefix(step, string(k)+"_"); ok && strings.Contains(m.Text, "-- Rendered by shardid: ") {
				m.Kind, m.Table = k, rest
			}
		}
		out = append(out, m)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: no NNNNN_name.sql files (write them with shardid tidb gen)", ErrNoMigrations)
	}
	slices.SortFunc(out, func(a, b Migration) int { return int(min(max(a.Version-b.Version, -1), 1)) })
	return out, nil
}

// onlyOn reads the servers an OnlyOnMarker line of a migration names.
func onlyOn(text string) []tidb.Target {
	_, rest, ok := strings.Cut(text, "-- "+OnlyOnMarker)
	if !ok {
		return nil
	}
	rest, _, _ = strings.Cut(rest, " (")
	rest, _, _ = strings.Cut(rest, "\n")
	var out []tidb.Target
	for _, f := range strings.Split(rest, ",") {
		if t, err := tidb.ParseTarget(strings.TrimSpace(f)); err == nil && strings.TrimSpace(f) != "" {
			out = append(out, t)
		}
	}
	return out
}

// MapFS returns files (name → content, each name a file at the root) as
// a read-only file system.
func MapFS(files map[string][]byte) fs.FS { return gooseup.Files(files) }
