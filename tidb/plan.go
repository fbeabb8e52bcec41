package tidb

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/pingcap/tidb/pkg/parser"

	"github.com/shardid/shardid/tidb/script"
)

// Plan is a script rendered for one target server: what its migrations
// run, in order, and what is left to the user.
type Plan struct {
	// Target is the server the text is for.
	Target Target
	// Tables are the rendered tables, in the order they must be created.
	Tables []*DDL
	// ForeignKeys add the FOREIGN KEYs that close cycles, once every table
	// exists.
	ForeignKeys []*Step
	// Steps are the scripts' data, views and (for MySQL and MariaDB)
	// routines, in script order, after the tables.
	Steps []*Step
	// ByHand are the statements no migration runs on the target: routines
	// on TiDB, LOAD DATA, source, accounts. ByHandText writes them out.
	ByHand []*script.Statement
	// Notes say what became of the scripts' statements (Script.Notes and
	// the rendering's own).
	Notes []string
}

// Step is one migration's worth of statements other than a table's.
type Step struct {
	// Kind is script.KindForeignKey, script.KindData, script.KindView or script.KindRoutine.
	Kind script.Kind
	// Object is the table, view or routine it is about.
	Object string
	// Statements run in order on one session; for data, in one
	// transaction.
	Statements []string
	// Transaction runs the statements in one transaction (data).
	Transaction bool
	// Down undoes the step ("" when nothing does: data goes with its
	// table).
	Down string
	// OnlyOn lists the servers that run it as intended (nil for all).
	OnlyOn []Target
	// Comment says where it comes from and what it does, one line each.
	Comment []string
	// Name is the step's file name part, unique in the plan.
	Name string
	// fkChecks and explicitKeys say what a data step's session needs.
	fkChecks, explicitKeys bool
}

// dataStepBytes caps the statements of one data step (one transaction):
// a long run of INSERTs into one table is cut into steps below it.
const dataStepBytes = 8 << 20

// RenderScript renders every table of s (steered by o.Tables), then its
// FOREIGN KEYs that close cycles, data, views and routines, for o.Target.
// Every statement it writes for a server to run, other than a routine's
// text, is read back with TiDB's parser. Data statements that read
// LAST_INSERT_ID() or a user variable get the value the mysql client's
// session has there written in (the keys RenderScript numbers, SET @v =
// a literal or LAST_INSERT_ID()). It returns the errors of Render and
// RenderAlter (each naming the table's line and how to steer it), errors
// wrapping ErrTableSpec, and errors wrapping ErrInsertID for such a value
// it cannot work out.
func RenderScript(s *script.Script, o Options) (*Plan, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	target := o.Target
	if target == "" {
		target = TargetTiDB
	}
	p := &Plan{Target: target, Notes: slices.Clone(s.Notes)}
	used := make([]bool, len(o.Tables))
	strategy := map[string]*DDL{}
	keys := s.DataKeys()
	opts := make([]Options, len(s.Tables))
	for ti, t := range s.Tables {
		to := o
		to.Tables, to.Alter = nil, false
		to.dataKeys = keys[t.Key()]
		steered := -1
		for i, spec := range o.Tables {
			if !spec.matches(t) {
				continue
			}
			if steered >= 0 {
				return nil, fmt.Errorf("%s: %w: table %s is steered twice (also by %s): give each table one spec, with every option it needs", spec.Source, ErrTableSpec, t.QualifiedName(), o.Tables[steered].Source)
			}
			used[i], steered = true, i
			var err error
			if to, err = spec.apply(to); err != nil {
				return nil, fmt.Errorf("%s: %w", spec.Source, err)
			}
		}
		opts[ti] = to
	}
	var widen map[string]map[string]string // table → the columns widened to BIGINT with a key (--alter widens none)
	if !o.Alter {
		widen = widenedColumns(s, opts)
	}
	for ti, t := range s.Tables {
		to := opts[ti]
		to.widen = widen[t.Key()]
		render := Render
		if o.Alter {
			render = RenderAlter
		}
		d, err := render(t, to)
		if err != nil {
			return nil, fmt.Errorf("%s: %w%s", t.Place(), err, steerHint(t, err))
		}
		for _, st := range d.Statements {
			if err := readBack(st.SQL); err != nil {
				return nil, fmt.Errorf("%s: %w", t.Place(), err)
			}
		}
		strategy[t.Key()] = d
		p.Tables = append(p.Tables, d)
	}
	for i, spec := range o.Tables {
		if !used[i] {
			var names []string
			for _, t := range s.Tables {
				names = append(names, t.QualifiedName())
			}
			return nil, fmt.Errorf("%s: %w: no table %s in the scripts (they create %s)", spec.Source, ErrTableSpec, spec.Name, shortList(names))
		}
	}
	if o.Alter {
		for _, st := range s.Statements {
			p.Notes = append(p.Notes, fmt.Sprintf("%s: %s not rendered: --alter renders the tables only", st.Place(), st.What))
		}
		return p, nil
	}
	if err := p.foreignKeys(s); err != nil {
		return nil, err
	}
	if err := p.statements(s, strategy); err != nil {
		return nil, err
	}
	p.name()
	return p, nil
}

// steerHint tells how to get past a table the strategy does not fit.
func steerHint(t *Table, err error) string {
	if errors.Is(err, ErrKey) || errors.Is(err, ErrConflict) || errors.Is(err, ErrDigits) {
		return fmt.Sprintf(" (steer this table alone with --table %s=shard-rowid, or another strategy)", t.QualifiedName())
	}
	return ""
}

// shortList lists at most eight names.
func shortList(names []string) string {
	if len(names) > 8 {
		return strings.Join(names[:8], ", ") + fmt.Sprintf(", … (%d in all)", len(names))
	}
	return strings.Join(names, ", ")
}

// readBack parses a statement shardid wrote with TiDB's parser: it must be
// exactly one statement TiDB reads. A statement TiDB's parser reads but
// does not read back as it prints it (a name of bytes that are not UTF-8)
// is refused, wrapping script.ErrScript, rather than written.
func readBack(sql string) error {
	stmts, err := script.ParseSQL(parser.New(), sql)
	if err != nil || len(stmts) != 1 {
		msg := fmt.Sprintf("%d statements", len(stmts))
		if err != nil {
			msg, _, _ = strings.Cut(err.Error(), "\n")
		}
		return fmt.Errorf("%w: TiDB's parser reads the statement but not its own printing of it (%s): %q; write it plainer (names in valid UTF-8)", script.ErrScript, msg, truncate(sql, 80))
	}
	return nil
}

// truncate shortens s to n bytes, marking the cut.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// foreignKeys renders the ALTER TABLE … ADD FOREIGN KEY of each key moved
// out of a cycle, one step each.
func (p *Plan) foreignKeys(s *script.Script) error {
	for _, fk := range s.ForeignKeys {
		st, err := foreignKeyStep(fk, fmt.Sprintf("FOREIGN KEY %s of %s closes a cycle of FOREIGN KEYs: added once every table exists", cmp.Or(fk.Key.Name, "(unnamed)"), fk.Table.QualifiedName()))
		if err != nil {
			return err
		}
		p.ForeignKeys = append(p.ForeignKeys, st)
	}
	return nil
}

// foreignKeyStep renders the step that adds a FOREIGN KEY to an existing
// table, and drops it on Down when it has a name.
func foreignKeyStep(fk *script.ForeignKey, comment string) (*Step, error) {
	alter, err := execute("foreign_key.sql.tmpl", foreignKeyView{T: fk.Table, Clause: fk.Key.Text})
	if err != nil {
		return nil, err
	}
	if err := readBack(alter); err != nil {
		return nil, err
	}
	st := &Step{Kind: script.KindForeignKey, Object: fk.Table.QualifiedName(), Statements: []string{alter}, Comment: []string{comment}}
	if fk.Key.Name != "" {
		if st.Down, err = execute("foreign_key.sql.tmpl", foreignKeyView{T: fk.Table, Drop: fk.Key.Name}); err != nil {
			return nil, err
		}
	}
	return st, nil
}

// statements renders data, views and routines in script order.
func (p *Plan) statements(s *script.Script, tables map[string]*DDL) error {
	var data *Step
	var dataBytes int
	replay := s.Replay()
	loaded := map[string]*script.Statement{} // table → a LOAD DATA into it, applied by hand after the migrations
	var fills keyFills
	defer func() { p.Notes = append(p.Notes, fills.notes()...) }()
	for i, st := range s.Statements {
		if st.Kind != script.KindData {
			data = nil
			replay.Skip(i)
		}
		switch {
		case st.ByHand:
			p.ByHand = append(p.ByHand, st)
			if st.LoadsData() {
				loaded[strings.ToLower(st.Object)] = st
			}
		case st.Kind == script.KindData:
			autoRandom := slices.ContainsFunc(st.Writes, func(w string) bool {
				d := tables[strings.ToLower(w)]
				return d != nil && d.Options.Strategy == StrategyAutoRandom
			})
			var d *DDL
			r, err := replay.Data(i, func(name string) (*Table, bool) {
				if d = tables[strings.ToLower(name)]; d == nil {
					return nil, false
				}
				return d.Table, d.Options.Strategy == StrategyAutoRandom || generatedKey(d.Table) != nil
			})
			if err != nil {
				return err
			}
			sql := r.SQL
			if len(r.Session) > 0 {
				p.Notes = append(p.Notes, fmt.Sprintf("%s: %s: %s written in, the values the mysql client's session has there (no migration runs the SET, and goose's bookkeeping moves LAST_INSERT_ID)", st.Place(), st.What, strings.Join(r.Session, ", ")))
			}
			if r.FillErr != nil {
				d.Costs = append(d.Costs, fmt.Sprintf("%s: %s: %v; rows that refer to them by number point elsewhere (--table %s=shard-rowid keeps AUTO_INCREMENT)", st.Place(), st.What, r.FillErr, d.Table.Name))
			}
			if r.Filled > 0 {
				fills.add(d.Table.QualifiedName(), st, r.Filled, r.Span, loaded[strings.ToLower(st.Object)])
			}
			if data == nil || data.Object != st.Object || data.fkChecks != st.ForeignKeyChecks || dataBytes+len(st.SQL) > dataStepBytes {
				data = &Step{Kind: script.KindData, Object: st.Object, Transaction: true, fkChecks: st.ForeignKeyChecks}
				dataBytes = 0
				p.Steps = append(p.Steps, data)
				if !st.ForeignKeyChecks {
					data.Comment = append(data.Comment, "runs with FOREIGN_KEY_CHECKS=0, as the script set it")
				}
			}
			if err := readBack(sql); err != nil {
				return fmt.Errorf("%s: %w", st.Place(), err)
			}
			if autoRandom && !data.explicitKeys {
				data.explicitKeys = true
				data.Comment = append(data.Comment, explicitKeyNote)
			}
			data.Comment = append(data.Comment, fmt.Sprintf("%s: %s", st.Place(), st.What))
			data.Statements = append(data.Statements, sql)
			dataBytes += len(sql)
		case st.Kind == script.KindForeignKey:
			step, err := foreignKeyStep(st.Key, fmt.Sprintf("%s: %s, in its place after the data before it", st.Place(), st.What))
			if err != nil {
				return fmt.Errorf("%s: %w", st.Place(), err)
			}
			p.Steps = append(p.Steps, step)
		case st.Kind == script.KindView:
			if err := readBack(st.SQL); err != nil {
				return fmt.Errorf("%s: %w", st.Place(), err)
			}
			drop, err := execute("drop_object.sql.tmpl", dropView{Type: "VIEW", Name: splitName(st.Object)})
			if err != nil {
				return fmt.Errorf("%s: view %s: %w", st.Place(), st.Object, err)
			}
			p.Steps = append(p.Steps, &Step{Kind: script.KindView, Object: st.Object, Statements: []string{st.SQL}, Down: drop,
				Comment: []string{fmt.Sprintf("%s: %s (OR REPLACE left out: an existing view is refused, never replaced)", st.Place(), st.What)}})
		case p.Target == TargetTiDB:
			p.ByHand = append(p.ByHand, st)
		case st.Drop:
			p.Notes = append(p.Notes, fmt.Sprintf("%s: %s not run (a migration refuses a routine that already exists instead of dropping it)", st.Place(), st.What))
		default:
			step := &Step{Kind: script.KindRoutine, Object: st.Object, Statements: []string{st.SQL}, OnlyOn: []Target{TargetMySQL, TargetMariaDB},
				Comment: []string{fmt.Sprintf("%s: %s, as written (TiDB runs no routines)", st.Place(), st.What)}}
			if st.ObjectType != "" && st.Object != "" {
				drop, err := execute("drop_object.sql.tmpl", dropView{Type: st.ObjectType, Name: splitName(st.Object)})
				if err != nil {
					return fmt.Errorf("%s: %s: %w", st.Place(), st.What, err)
				}
				step.Down = drop
			}
			p.Steps = append(p.Steps, step)
		}
	}
	// Each data step sets what its statements need and puts it back.
	for _, st := range p.Steps {
		if st.Kind != script.KindData {
			continue
		}
		v := dataSessionView{TiDB: p.Target == TargetTiDB && st.explicitKeys, ForeignKeyChecks: st.fkChecks}
		set, err := execute("data_session.sql.tmpl", v)
		if err != nil {
			return err
		}
		v.Reset = true
		reset, err := execute("data_session.sql.tmpl", v)
		if err != nil {
			return err
		}
		for _, x := range []string{set, reset} {
			if err := readBack(x); err != nil {
				return err
			}
		}
		st.Statements = append(append([]string{set}, st.Statements...), reset)
	}
	for _, st := range p.ByHand {
		why := st.Why
		if why == "" {
			why = "TiDB runs no triggers, stored procedures, functions or events"
		}
		p.Notes = append(p.Notes, fmt.Sprintf("%s: %s: by hand (%s)", st.Place(), st.What, why))
	}
	return nil
}

// keyFills gathers, per table, the INSERTs whose rows RenderScript gave
// keys, for one note a table.
type keyFills struct {
	order []string
	by    map[string]*keyFill
}

// keyFill is what RenderScript numbered in one table (after one LOAD DATA,
// or before any).
type keyFill struct {
	table      string
	file       string
	lines      []int
	rows       int
	first, end uint64
	load       *script.Statement
}

func (k *keyFills) add(table string, st *script.Statement, rows int, span [2]uint64, load *script.Statement) {
	key := strings.ToLower(table)
	if load != nil {
		key += "\x00" + load.Place()
	}
	if k.by == nil {
		k.by = map[string]*keyFill{}
	}
	f := k.by[key]
	if f == nil {
		f = &keyFill{table: table, file: st.File, first: span[0], load: load}
		k.by[key] = f
		k.order = append(k.order, key)
	}
	f.lines = append(f.lines, st.Line)
	f.rows += rows
	f.end = span[1]
}

// notes says, one line a table, which rows got which keys.
func (k *keyFills) notes() []string {
	var out []string
	for _, key := range k.order {
		f := k.by[key]
		place := script.LineList(f.lines)
		if f.file != "" {
			place = f.file + ": " + place
		}
		what := fmt.Sprintf("%d INSERT(s) into %s", len(f.lines), f.table)
		if f.load != nil {
			out = append(out, fmt.Sprintf("%s: %s: %d row(s) leave the key out: given keys from %d to %d, counted as if %s were empty; in the script they come after the rows of LOAD DATA at %s, which MySQL numbers first, but that file is loaded by hand after the migrations: a loaded row with one of these keys collides (LOAD DATA LOCAL skips it with a warning)", place, what, f.rows, f.first, f.end, f.table, f.load.Place()))
			continue
		}
		out = append(out, fmt.Sprintf("%s: %s: %d row(s) leave the key out: given keys from %d to %d, the keys MySQL's AUTO_INCREMENT gives them (TiDB's AUTO_INCREMENT leaves gaps in a large INSERT, AUTO_RANDOM gives random ones), so rows that refer to them by number still point at them", place, what, f.rows, f.first, f.end))
	}
	return out
}

// generatedKey returns the column of t's single-column primary key when
// the server generates it (AUTO_INCREMENT, AUTO_RANDOM), else nil.
func generatedKey(t *Table) *Column {
	if pk := t.PrimaryKey; pk != nil && len(pk.Parts) == 1 {
		if c := t.Column(pk.Parts[0].Column); c != nil && (c.AutoIncrement || c.AutoRandom) {
			return c
		}
	}
	return nil
}

// explicitKeyNote marks a data step that writes a table whose key became
// AUTO_RANDOM: TiDB refuses an explicit key value there (ERROR 8216)
// unless the session allows it, and rebases the key's increment past the
// values loaded.
const explicitKeyNote = "writes explicit keys into an AUTO_RANDOM key: the session allows them (allow_auto_random_explicit_insert), and TiDB moves the key's increment past the loaded values"

// splitName splits schema.name.
func splitName(s string) []string { return strings.SplitN(s, ".", 2) }

// name gives every table, key and step its unique file-name part.
func (p *Plan) name() {
	seen := map[string]int{}
	for _, group := range [][]*Step{p.ForeignKeys, p.Steps} {
		for _, st := range group {
			base := string(st.Kind) + "_" + script.FileWord(st.Object)
			if st.Object == "" {
				base = string(st.Kind)
			}
			seen[base]++
			st.Name = base
			if n := seen[base]; n > 1 {
				st.Name = fmt.Sprintf("%s_%d", base, n)
			}
		}
	}
}

// foreignKeyView is the data of foreign_key.sql.tmpl.
type foreignKeyView struct {
	T      *Table
	Clause string // the FOREIGN KEY clause to add
	Drop   string // the constraint to drop
}

// dropView is the data of drop_object.sql.tmpl.
type dropView struct {
	Type string   // VIEW, TRIGGER, PROCEDURE, FUNCTION, EVENT
	Name []string // [name] or [schema, name]
}

// dataSessionView is the data of data_session.sql.tmpl.
type dataSessionView struct {
	TiDB             bool // allow explicit AUTO_RANDOM keys (TiDB)
	ForeignKeyChecks bool
	Reset            bool // the statement after the data
}

// ByHandText returns the by-hand statements as one script for the mysql
// client (DELIMITER around routine bodies), each under a comment saying
// where it comes from and why no migration runs it; "" when there are
// none.
func (p *Plan) ByHandText() (string, error) {
	if len(p.ByHand) == 0 {
		return "", nil
	}
	type item struct {
		Place, What, Why, SQL, Delimiter string
		Client                           bool
	}
	var items []item
	for _, st := range p.ByHand {
		why := st.Why
		if why == "" {
			why = "TiDB runs no triggers, stored procedures, functions or events: apply it on a MySQL-family server, or do its work in the application"
		}
		it := item{Place: st.Place(), What: st.What, Why: why, SQL: st.SQL, Client: st.ClientCommand()}
		if st.Kind == script.KindRoutine && !st.ByHand {
			it.Delimiter = ";;"
			for _, d := range []string{";;", "$$", "//", "@@@"} {
				if !strings.Contains(st.SQL, d) {
					it.Delimiter = d
					break
				}
			}
		}
		items = append(items, it)
	}
	return execute("by_hand.sql.tmpl", struct {
		Target Target
		Items  []item
	}{p.Target, items})
}
