package tidb

import (
	"errors"
	"fmt"
	"strings"

	"github.com/shardid/shardid/tidb/script"
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
		if !refused || c.Default == "" || c.Default == "NULL" {
			continue
		}
		if wider == "" {
			return nil, fmt.Errorf("%w: column %s %s DEFAULT %s: TiDB takes no DEFAULT on a TEXT, BLOB or JSON column (ERROR 1101): leave the DEFAULT out of the script and have the application give the value, or make the column VARCHAR(n) or VARBINARY(n), which take one (--target mysql or mariadb renders it as written)", ErrTiDBRefuses, c.Name, base, c.Default)
		}
		if out == nil {
			cp := *t
			cp.Columns = append([]Column(nil), t.Columns...)
			out = &cp
		}
		out.Columns[i].Type = wider + rest
		note("column %s %s DEFAULT %s made %s: TiDB takes no DEFAULT on a TEXT or BLOB column (ERROR 1101); %s holds the same values and keeps the DEFAULT", c.Name, base, c.Default, wider, wider)
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

// Refused returns an error wrapping ErrTiDBRefuses when TiDB would refuse
// the CREATE TABLE statement sql (from a migration file), nil for one it
// takes and for any other statement.
func Refused(sql string) error {
	t, err := script.Parse(sql)
	if err != nil {
		return nil
	}
	if _, err := tidbDefaults(t, func(string, ...any) {}); err != nil {
		return fmt.Errorf("table %s: %w", t.QualifiedName(), err)
	}
	for _, c := range t.Columns {
		if base, _ := typeBase(c.Type); noDefaultTypes[base] != "" && c.Default != "" && c.Default != "NULL" {
			return fmt.Errorf("table %s: %w: column %s %s DEFAULT %s: TiDB takes no DEFAULT on a TEXT or BLOB column (ERROR 1101); render the scripts again (shardid makes it %s, which keeps the DEFAULT) or edit the file", t.QualifiedName(), ErrTiDBRefuses, c.Name, base, c.Default, noDefaultTypes[base])
		}
	}
	return nil
}
