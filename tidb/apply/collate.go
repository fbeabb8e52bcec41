package apply

import (
	"context"
	"fmt"
	"strings"

	"github.com/shardid/shardid/tidb/script"
)

// checkCollations refuses pending migrations that name a collation or
// character set the server lacks, before anything is applied.
func (m *Migrator) checkCollations(ctx context.Context, st []Status) error {
	var have map[string]bool
	for _, s := range st {
		if s.Applied || s.Migration.Kind == script.KindData || s.Migration.Kind == script.KindRoutine {
			continue
		}
		stmts, err := upStatements(s.Migration.Text)
		if err != nil {
			continue
		}
		for _, stmt := range stmts {
			collations, charsets := script.CollationsIn(stmt)
			if len(collations)+len(charsets) == 0 {
				continue
			}
			if have == nil {
				if have, err = m.serverCollations(ctx); err != nil {
					return err
				}
			}
			target, version, err := m.server(ctx)
			if err != nil {
				return err
			}
			for _, c := range charsets {
				if !have["charset "+c] {
					return fmt.Errorf("%s: %w: the server (%s %s) has no character set %s; nothing was applied: name one it has in the script", s.Migration.Name, script.ErrCollation, target.ServerName(), version, c)
				}
			}
			for _, c := range collations {
				if !have[c] {
					return fmt.Errorf("%s: %w: the server (%s %s) has no collation %s; nothing was applied: give tidb up (or render, or gen) --collate %s=NAME, NAME one the server has (SHOW COLLATION)%s", s.Migration.Name, script.ErrCollation, target.ServerName(), version, c, c, collationHint(c))
				}
			}
		}
	}
	return nil
}

// collationHint suggests the collation of the same character set that
// keeps case-sensitive comparison.
func collationHint(c string) string {
	cs, _, _ := strings.Cut(c, "_")
	if strings.HasSuffix(c, "_cs") || strings.HasSuffix(c, "_bin") {
		return fmt.Sprintf(", e.g. %s_bin (case-sensitive, in byte order)", cs)
	}
	return ""
}

// serverCollations returns the collations and ("charset "-prefixed) the
// character sets the server has, lower-cased.
func (m *Migrator) serverCollations(ctx context.Context) (map[string]bool, error) {
	out := map[string]bool{}
	for _, q := range []struct{ sql, prefix string }{
		{"SELECT COLLATION_NAME FROM information_schema.COLLATIONS", ""},
		{"SELECT CHARACTER_SET_NAME FROM information_schema.CHARACTER_SETS", "charset "},
	} {
		rows, err := m.db.QueryContext(ctx, q.sql)
		if err != nil {
			return nil, fmt.Errorf("list the server's collations: %w", err)
		}
		for rows.Next() {
			var n string
			if err := rows.Scan(&n); err != nil {
				rows.Close()
				return nil, err
			}
			out[q.prefix+strings.ToLower(n)] = true
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	// Aliases both read: utf8 is utf8mb3 on MariaDB and MySQL 8.
	for k := range out {
		if strings.Contains(k, "utf8mb3") {
			out[strings.Replace(k, "utf8mb3", "utf8", 1)] = true
		}
	}
	return out, nil
}
