package apply

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/go-sql-driver/mysql"
)

// stepsView is the data of steps.sql.tmpl: the schema of the version
// table ("" for the DSN's database) and goose's table.
type stepsView struct {
	Schema, Goose string
}

// step is one row of the steps table.
type step struct {
	version           int64
	name, fingerprint string
}

// history is goose's version table as given (goose_db_version by default).
func (m *Migrator) history() string {
	if m.o.TableName == "" {
		return "goose_db_version"
	}
	return m.o.TableName
}

// view is the steps templates' data for m's history.
func (m *Migrator) view() stepsView {
	schema, name, ok := strings.Cut(m.history(), ".")
	if !ok {
		schema, name = "", schema
	}
	return stepsView{Schema: schema, Goose: name}
}

// stepName is a migration's step: its file name after the version.
func stepName(fileName string) string {
	_, s, _ := strings.Cut(strings.TrimSuffix(fileName, ".sql"), "_")
	return s
}

// fingerprint says which statements a migration runs.
func fingerprint(text string) string {
	stmts, err := upStatements(text)
	if err != nil {
		stmts = []string{text}
	}
	h := sha256.Sum256([]byte(strings.Join(stmts, ";\n")))
	return hex.EncodeToString(h[:])
}

// number settles each migration's version against the server: a step the
// steps table records with the same statements keeps its recorded version
// (whichever numbering applied it); a version goose's history holds that
// the steps table does not name otherwise keeps its number (a database the
// previous release applied by statement hash, or the goose CLI applied
// from a gen directory) and is recorded now; a file's own version is kept
// while it is free; every other step (up FILE's, and a file whose version
// another step holds) is numbered after the highest version in use, as
// gen numbers after a directory's highest.
//
// It only reads: a server without the steps table (a database nothing of
// this release applied) reads as one with no rows, so status works for a
// role that can only read. The versions to record now are kept for Up
// (m.backfill), which creates the table before it applies anything.
func (m *Migrator) number(ctx context.Context) error {
	v := m.view()
	applied, err := m.gooseApplied(ctx, v)
	if err != nil {
		return err
	}
	byName, byVersion, err := m.recorded(ctx, v)
	if err != nil {
		return err
	}
	var top int64
	for ver := range applied {
		top = max(top, ver)
	}
	for ver := range byVersion {
		top = max(top, ver)
	}
	for _, mg := range m.list {
		if !mg.derived {
			top = max(top, mg.Version)
		}
	}
	taken := map[int64]bool{}
	settled := make([]bool, len(m.list))
	var backfill []int
	for i := range m.list {
		mg := &m.list[i]
		name, fp := stepName(mg.Name), fingerprint(mg.Text)
		ver := int64(0)
		for _, r := range byName[name] {
			if r.fingerprint == fp {
				ver = r.version
			}
		}
		other, named := byVersion[mg.Version]
		switch {
		case ver != 0:
		case applied[mg.Version] && (!named || other.name == name && other.fingerprint == fp):
			ver = mg.Version
			backfill = append(backfill, i)
		case !mg.derived && !named && !applied[mg.Version]:
			ver = mg.Version
		}
		if ver == 0 || taken[ver] {
			continue
		}
		taken[ver], settled[i] = true, true
		if ver != mg.Version {
			mg.Version, mg.Name = ver, fmt.Sprintf("%05d_%s.sql", ver, name)
		}
	}
	for i := range m.list {
		if settled[i] {
			continue
		}
		mg := &m.list[i]
		top++
		mg.Version, mg.Name = top, fmt.Sprintf("%05d_%s.sql", top, stepName(mg.Name))
	}
	for _, i := range backfill {
		m.backfill = append(m.backfill, m.list[i])
	}
	return nil
}

// prepareSteps creates the steps table (Up only) and records the applied
// versions number found unnamed, so that the next run matches them by name.
func (m *Migrator) prepareSteps(ctx context.Context) error {
	create, err := execute("steps_create", m.view())
	if err != nil {
		return err
	}
	if _, err := m.db.ExecContext(ctx, create); err != nil {
		return fmt.Errorf("create the steps table: %w", err)
	}
	for _, mg := range m.backfill {
		if err := m.record(ctx, mg); err != nil {
			return err
		}
	}
	m.backfill = nil
	return nil
}

// gooseApplied lists the versions goose's history holds (none before its
// table exists).
func (m *Migrator) gooseApplied(ctx context.Context, v stepsView) (map[int64]bool, error) {
	q, err := execute("goose_applied", v)
	if err != nil {
		return nil, err
	}
	out := map[int64]bool{}
	rows, err := m.db.QueryContext(ctx, q)
	var me *mysql.MySQLError
	if errors.As(err, &me) && me.Number == 1146 { // no such table yet
		return out, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read goose's history: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var ver int64
		if err := rows.Scan(&ver); err != nil {
			return nil, err
		}
		out[ver] = true
	}
	return out, rows.Err()
}

// recorded reads the steps table's rows of m's history.
func (m *Migrator) recorded(ctx context.Context, v stepsView) (map[string][]step, map[int64]step, error) {
	q, err := execute("steps_select", v)
	if err != nil {
		return nil, nil, err
	}
	byName, byVersion := map[string][]step{}, map[int64]step{}
	rows, err := m.db.QueryContext(ctx, q, m.history())
	var me *mysql.MySQLError
	if errors.As(err, &me) && me.Number == 1146 { // no steps table yet: nothing recorded
		return byName, byVersion, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("read the steps table: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var s step
		if err := rows.Scan(&s.version, &s.name, &s.fingerprint); err != nil {
			return nil, nil, err
		}
		byName[s.name] = append(byName[s.name], s)
		byVersion[s.version] = s
	}
	return byName, byVersion, rows.Err()
}

// record writes which step an applied version is.
func (m *Migrator) record(ctx context.Context, mg Migration) error {
	q, err := execute("steps_insert", m.view())
	if err != nil {
		return err
	}
	_, err = m.db.ExecContext(ctx, q, m.history(), mg.Version, stepName(mg.Name), fingerprint(mg.Text))
	return err
}
