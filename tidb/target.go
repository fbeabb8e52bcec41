package tidb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
)

// Target is the kind of server rendered text is for. TiDB reads its own
// clauses (/*T! … */) and skips MariaDB's (/*M! … */); MariaDB does the
// opposite; MySQL reads neither. One CREATE TABLE therefore reads right on
// TiDB and MariaDB, but a key that AUTO_RANDOM gives its values on TiDB
// needs AUTO_INCREMENT in plain text for MySQL, which TiDB refuses beside
// AUTO_RANDOM (ERROR 8216): that text is rendered for TargetMySQL only.
type Target string

const (
	// TargetTiDB (the default) renders what TiDB runs; its CREATE TABLE
	// statements read right on MariaDB too (an AUTO_RANDOM key carries
	// /*M! AUTO_INCREMENT */). Triggers, procedures, functions and events,
	// which TiDB does not run, go to Plan.ByHand.
	TargetTiDB Target = "tidb"
	// TargetMySQL renders for MySQL (and MariaDB): an AUTO_RANDOM key keeps
	// AUTO_INCREMENT in plain text, so TiDB refuses the table (ERROR 8216)
	// rather than creating it with a hot AUTO_INCREMENT key; TiDB-only
	// statements (SPLIT TABLE) are left out; routines are migrations.
	TargetMySQL Target = "mysql"
	// TargetMariaDB renders for MariaDB: the CREATE TABLE text of
	// TargetTiDB, TiDB-only statements left out, routines as migrations.
	TargetMariaDB Target = "mariadb"
)

// ErrInvalidTarget is returned by ParseTarget and Options.Validate for an
// unknown target.
var ErrInvalidTarget = errors.New("invalid target")

// Targets lists the targets, default first.
func Targets() []Target { return []Target{TargetTiDB, TargetMySQL, TargetMariaDB} }

// ParseTarget returns the target with that name ("" means TargetTiDB), or
// an error wrapping ErrInvalidTarget.
func ParseTarget(s string) (Target, error) {
	if s == "" {
		return TargetTiDB, nil
	}
	for _, t := range Targets() {
		if string(t) == s {
			return t, nil
		}
	}
	return "", fmt.Errorf("%w %q (allowed: tidb, mysql, mariadb)", ErrInvalidTarget, s)
}

// ServerTarget asks the server behind db what it is (SELECT VERSION()):
// TargetTiDB when the version names TiDB, TargetMariaDB when it names
// MariaDB, else TargetMySQL. It also returns the version string.
func ServerTarget(ctx context.Context, db *sql.DB) (Target, string, error) {
	var v string
	if err := db.QueryRowContext(ctx, "SELECT VERSION()").Scan(&v); err != nil {
		return "", "", fmt.Errorf("server version: %w", err)
	}
	return targetOf(v), v, nil
}

// targetOf reads a VERSION() string.
func targetOf(version string) Target {
	switch {
	case strings.Contains(version, "TiDB"):
		return TargetTiDB
	case strings.Contains(strings.ToLower(version), "mariadb"):
		return TargetMariaDB
	}
	return TargetMySQL
}

// ServerName names a target as a server, for messages: "TiDB",
// "MySQL" or "MariaDB".
func (t Target) ServerName() string {
	switch t {
	case TargetMySQL:
		return "MySQL"
	case TargetMariaDB:
		return "MariaDB"
	}
	return "TiDB"
}
