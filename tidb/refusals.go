package tidb

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/pingcap/tidb/pkg/parser"
	"github.com/pingcap/tidb/pkg/parser/ast"
)

// ErrTiDBRefuses is returned by Render for TargetTiDB, and by Migrator.Up
// on TiDB before it applies anything, when a CREATE TABLE holds what TiDB
// refuses although MySQL and MariaDB take it: a DEFAULT on a TEXT, BLOB or
// JSON column (ERROR 1101; TiDB 8.5 refuses the expression form DEFAULT
// ('…') too). The message names the column and what to do.
var ErrTiDBRefuses = errors.New("TiDB refuses the table")

// noDefaultTypes are the types TiDB gives no DEFAULT but NULL, with the
// type that holds the same values and takes one (TINYTEXT holds at most
// 255 bytes, VARCHAR(255) 255 characters), or "" for none.
var noDefaultTypes = map[string]string{
	"TINYTEXT": "VARCHAR(255)", "TINYBLOB": "VARBINARY(255)",
	"TEXT": "", "MEDIUMTEXT": "", "LONGTEXT": "", "BLOB": "", "MEDIUMBLOB": "", "LONGBLOB": "", "JSON": "",
}

// tidbDefaults returns t as TiDB takes it: a TINYTEXT or TINYBLOB column
// with a DEFAULT becomes VARCHAR(255) or VARBINARY(255), which holds the
// same values and keeps the DEFAULT (noted). A larger TEXT, BLOB or JSON
// column with a DEFAULT is an error wrapping ErrTiDBRefuses.
func tidbDefaults(t *Table, note func(string, ...any)) (*Table, error) {
	var out *Table
	for i, c := range t.Columns {
		base, rest := typeBase(c.Type)
		wider, refused := noDefaultTypes[base]
		if !refused || c.defaultValue == "" || c.defaultValue == "NULL" {
			continue
		}
		if wider == "" {
			return nil, fmt.Errorf("%w: column %s %s DEFAULT %s: TiDB takes no DEFAULT on a TEXT, BLOB or JSON column (ERROR 1101): leave the DEFAULT out of the script and have the application give the value, or make the column VARCHAR(n) or VARBINARY(n), which take one (--target mysql or mariadb renders it as written)", ErrTiDBRefuses, c.Name, base, c.defaultValue)
		}
		if out == nil {
			cp := *t
			cp.Columns = append([]Column(nil), t.Columns...)
			out = &cp
		}
		out.Columns[i].Type = wider + rest
		note("column %s %s DEFAULT %s made %s: TiDB takes no DEFAULT on a TEXT or BLOB column (ERROR 1101); %s holds the same values and keeps the DEFAULT", c.Name, base, c.defaultValue, wider, wider)
	}
	if out == nil {
		return t, nil
	}
	return out, nil
}

// typeBase splits a column type into its name (upper case) and the rest
// (a character set or collation).
func typeBase(typ string) (string, string) {
	name, rest, _ := strings.Cut(strings.TrimSpace(typ), " ")
	if rest != "" {
		rest = " " + rest
	}
	return strings.ToUpper(name), rest
}

// checkRefusals refuses, before anything is applied, pending migrations
// whose CREATE TABLE TiDB would refuse, when the server is TiDB.
func (m *Migrator) checkRefusals(ctx context.Context, st []Status) error {
	var pending []Status
	for _, s := range st {
		if !s.Applied && s.Migration.Kind != KindData && s.Migration.Kind != KindRoutine {
			pending = append(pending, s)
		}
	}
	if len(pending) == 0 {
		return nil
	}
	if tidb, err := m.isTiDB(ctx); err != nil || !tidb {
		return err
	}
	for _, s := range pending {
		stmts, err := upStatements(s.Migration.Text)
		if err != nil {
			continue
		}
		for _, stmt := range stmts {
			parsed, err := parseSQL(parser.New(), stmt)
			if err != nil || len(parsed) != 1 {
				continue
			}
			n, ok := parsed[0].(*ast.CreateTableStmt)
			if !ok {
				continue
			}
			t, err := fromCreate(n)
			if err != nil {
				continue
			}
			if _, err := tidbDefaults(t, func(string, ...any) {}); err != nil {
				return fmt.Errorf("%s: table %s: %w; nothing was applied", s.Migration.Name, t.QualifiedName(), err)
			}
			for _, c := range t.Columns {
				if base, _ := typeBase(c.Type); noDefaultTypes[base] != "" && c.defaultValue != "" && c.defaultValue != "NULL" {
					return fmt.Errorf("%s: table %s: %w: column %s %s DEFAULT %s: TiDB takes no DEFAULT on a TEXT or BLOB column (ERROR 1101); nothing was applied: render the scripts again (shardid makes it %s, which keeps the DEFAULT) or edit the file", s.Migration.Name, t.QualifiedName(), ErrTiDBRefuses, c.Name, base, c.defaultValue, noDefaultTypes[base])
				}
			}
		}
	}
	return nil
}
