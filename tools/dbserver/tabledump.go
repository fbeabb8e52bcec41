package dbserver

// This file copies one table out of a database and loads the copy
// back later with the database's own tools, the way an operator restores a
// table from an older backup: pg_dump -t and psql for PostgreSQL,
// mysqldump and the mysql client for MySQL, MariaDB and TiDB. The restore
// drops the table and creates it again from the copy, so every row written
// since the dump is forgotten. The fault tests of the segment allocator and
// the worker-id leases use it to rewind a table mid-run.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/go-sql-driver/mysql"
)

// TableDump is a copy of one table, as the dump tool wrote it.
type TableDump struct {
	dialect string // "postgres", "mysql" or "tidb"
	sql     []byte
}

// Size is the copy's length in bytes.
func (d TableDump) Size() int { return len(d.sql) }

// TakeTable dumps table (name or schema.name) of the database dsn points at.
// d, a dialect's name (dialect.Dialect), picks the tools: pg_dump for
// "postgres", mysqldump for the MySQL family ("mysql", "tidb"). It takes
// any string type so that the harness needs no package of the module.
func TakeTable[D ~string](ctx context.Context, d D, dsn, table string) (TableDump, error) {
	var cmd *exec.Cmd
	switch string(d) {
	case "postgres":
		bin, err := pgBin("pg_dump")
		if err != nil {
			return TableDump{}, err
		}
		cmd = exec.CommandContext(ctx, bin, "--dbname="+dsn, "--table="+table, "--clean", "--if-exists", "--no-owner", "--no-privileges")
	case "mysql", "tidb":
		args, env, db, err := mysqlArgs(dsn)
		if err != nil {
			return TableDump{}, err
		}
		// One table is read by one SELECT, consistent by itself. TiDB
		// has no LOCK TABLES by default, no INFORMATION_SCHEMA.FILES
		// to read, and no savepoints for --single-transaction.
		args = append(args, "--skip-add-locks", "--skip-lock-tables", "--no-tablespaces", "--skip-comments", db, table)
		cmd = exec.CommandContext(ctx, "mysqldump", args...)
		cmd.Env = env
	default:
		return TableDump{}, fmt.Errorf("tabledump: unknown dialect %q", d)
	}
	out, err := run(cmd, nil)
	if err != nil {
		return TableDump{}, fmt.Errorf("dump %s: %w", table, err)
	}
	return TableDump{dialect: string(d), sql: out}, nil
}

// RestoreTable loads dump into the database dsn points at: the table is dropped
// and made again from the copy.
func RestoreTable(ctx context.Context, dsn string, dump TableDump) error {
	var cmd *exec.Cmd
	switch dump.dialect {
	case "postgres":
		bin, err := pgBin("psql")
		if err != nil {
			return err
		}
		cmd = exec.CommandContext(ctx, bin, "--dbname="+dsn, "--no-psqlrc", "--quiet", "--set=ON_ERROR_STOP=1", "--file=-")
	case "mysql", "tidb":
		args, env, db, err := mysqlArgs(dsn)
		if err != nil {
			return err
		}
		cmd = exec.CommandContext(ctx, "mysql", append(args, db)...)
		cmd.Env = env
	default:
		return errors.New("tabledump: restore of an empty dump")
	}
	if _, err := run(cmd, dump.sql); err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	return nil
}

// run runs cmd with stdin and returns its standard output, or an error
// quoting its standard error.
func run(cmd *exec.Cmd, stdin []byte) ([]byte, error) {
	var stdout, stderr bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = bytes.NewReader(stdin), &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%s: %w: %s", filepath.Base(cmd.Path), err, strings.TrimSpace(stderr.String()))
	}
	return stdout.Bytes(), nil
}

// pgBin finds a PostgreSQL client binary beside the server binaries the
// test servers use, so the tool's version is the server's.
func pgBin(name string) (string, error) {
	dir, err := FindPGBinDir("")
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, name), nil
}

// mysqlArgs turns a go-sql-driver/mysql DSN into the mysql clients'
// connection flags, an environment holding the password (MYSQL_PWD, so
// it is not on a command line) and the database name.
func mysqlArgs(dsn string) (args, env []string, db string, err error) {
	c, err := mysql.ParseDSN(dsn)
	if err != nil {
		return nil, nil, "", err
	}
	if c.Net != "tcp" {
		return nil, nil, "", fmt.Errorf("tabledump: want a tcp DSN, not %s", c.Net)
	}
	host, port, err := net.SplitHostPort(c.Addr)
	if err != nil {
		return nil, nil, "", err
	}
	args = []string{"--no-defaults", "--protocol=TCP", "--host=" + host, "--port=" + port, "--user=" + c.User}
	env = append(os.Environ(), "MYSQL_PWD="+c.Passwd)
	return args, env, c.DBName, nil
}
