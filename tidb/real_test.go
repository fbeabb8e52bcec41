package tidb_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"database/sql"
	"fmt"
	"github.com/shardid/shardid/tidb/internal/tidbtest"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shardid/shardid/tidb"
	"github.com/shardid/shardid/tidb/apply"
	"github.com/shardid/shardid/tidb/script"
	"github.com/shardid/shardid/tools/testsrv"
)

// realCase is one published script of testdata/real (with the data
// file that fills it, if it has one) and what the test must know about
// it.
type realCase struct {
	files []string
	// collate renames a collation the server lacks, per server (the
	// --collate a user gives there).
	collate map[string]string
	// byTrigger lists tables a trigger of the script fills: TiDB runs no
	// triggers, so there they keep the rows the script's own data gives.
	byTrigger []string
	// dropped names, per table, a column the script keeps in a
	// conditional comment that TiDB cannot read; the rendering leaves it
	// out on every server (the intended change the comparison allows).
	dropped map[string]string
	// tidbRetyped names, per table, a column line of the original's SHOW
	// CREATE TABLE on TiDB and the line rendered in its place: the script
	// creates it with a non-strict SQL_MODE, in which TiDB keeps a DEFAULT
	// on TINYTEXT that a migration (strict) is refused, so the rendering
	// makes it VARCHAR(255) (the intended change the comparison allows).
	tidbRetyped map[string][2]string
}

// realCases are every script of testdata/real (TestRealScripts
// checks none is left out).
var realCases = []realCase{
	{files: []string{"apollo-apolloconfigdb.sql"}},
	{files: []string{"apollo-apolloportaldb.sql"}},
	{files: []string{"chinook-mysql-autoincrementpks.sql"}},
	{files: []string{"employees.sql"}},
	{files: []string{"icinga2-ido-mysql.sql"}, collate: map[string]string{"tidb": "latin1_general_cs=latin1_bin"}},
	{files: []string{"nacos-mysql-schema.sql"}},
	{files: []string{"northwind.sql", "northwind-data.sql"}},
	{files: []string{"pdns-schema.mysql.sql"}},
	{files: []string{"powerjob-mysql-5.1.0.sql"}, collate: map[string]string{"mariadb": "utf8mb4_0900_ai_ci=utf8mb4_unicode_ci"}},
	{files: []string{"quartz-tables_mysql_innodb.sql"}},
	{files: []string{"rsyslog-mysql-createDB.sql"}},
	{files: []string{"roundcube-mysql.initial.sql"}},
	{files: []string{"ruoyi-quartz.sql"}},
	{files: []string{"ruoyi-ry_20260319.sql"}},
	{files: []string{"sakila-mv-schema.sql", "sakila-mv-data.sql.gz"}, byTrigger: []string{"film_text"}, dropped: map[string]string{"address": "location"}},
	{files: []string{"seata-server-mysql.sql"}},
	{files: []string{"seata-undo_log.sql"}},
	{files: []string{"xxl-job-tables_xxl_job.sql"}},
	// Zabbix's keys are BIGINT UNSIGNED the server fills itself (no
	// AUTO_INCREMENT); its 4 triggers sit in one DELIMITER $$ block.
	{files: []string{"zabbix-schema.sql.gz"}},
	// zm_create.sql sources triggers.sql from /usr/share/zoneminder/db;
	// given as the next input, its 13 triggers (DROP TRIGGER IF EXISTS
	// and CREATE TRIGGER in one delimiter block, for some) are migrations
	// on MariaDB and by-hand statements on TiDB.
	{files: []string{"zoneminder-zm_create.sql", "zoneminder-triggers.sql"},
		tidbRetyped: map[string][2]string{"Monitors": {"`Device` tinytext NOT NULL DEFAULT ''", "`Device` varchar(255) NOT NULL DEFAULT ''"}}},
}

// readReal reads a script of testdata/real, unzipping a .gz.
func readReal(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata/real", name))
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasSuffix(name, ".gz") {
		r, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		if b, err = io.ReadAll(r); err != nil {
			t.Fatal(err)
		}
	}
	return string(b)
}

// realServer is a server of the test's own.
type realServer struct {
	name string
	tidb bool
	port int
	dsn  func(db string) string
	// create makes a fresh database and returns its DSN.
	create func(t *testing.T, name string) string
}

// realResult is what one script measured on one server.
type realResult struct {
	tables, applied, migrations   int
	regionsBefore, regionsAfter   int
	lost, originalErrors, compare int
	notes                         []string
}

// TestRealScripts takes every published script of testdata/real
// through the whole path, on a TiDB and a MariaDB of the test's own, and
// compares the result with the script as published applied by the mysql
// client to a scratch database of the same server:
//
//   - render for the server, apply with goose: every migration applies,
//     a second up applies none, and Verify reports no drift;
//   - every table of the script exists, and takes an INSERT that leaves
//     out its AUTO_INCREMENT/AUTO_RANDOM key (and fills what has no
//     default);
//   - every table holds the rows the original holds after the script's
//     data (on TiDB, bar tables only a trigger fills);
//   - every view exists and answers a SELECT; on MariaDB every trigger,
//     procedure and function exists; on TiDB they are in the by-hand
//     list;
//   - each table's SHOW CREATE TABLE equals the original's, once the
//     intended changes are taken out (clustering, SHARD_ROW_ID_BITS,
//     PRE_SPLIT_REGIONS, AUTO_RANDOM for AUTO_INCREMENT, an INT key widened
//     to BIGINT with the FOREIGN KEY columns pointing at it, counters,
//     the order of keys, a column the script left to MySQL 5.7.5+);
//   - nothing is lost: every statement accounted for, no table, view,
//     routine or row missing.
//
// It logs a line per script and server: tables, migrations applied,
// regions before (the original) and after (rendered), statements lost.
func TestRealScripts(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: applies every published script to TiDB and MariaDB twice")
	}
	all, err := filepath.Glob("testdata/real/*.sql*")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range all {
		if !slices.ContainsFunc(realCases, func(c realCase) bool { return slices.Contains(c.files, filepath.Base(f)) }) {
			t.Errorf("%s is in no case of realCases", filepath.Base(f))
		}
	}
	ti := testsrv.NewTiDB(t)
	ma := testsrv.NewMariaDB(t)
	setup := func(dsn string, stmts ...string) {
		db := testsrv.Open(t, "mysql", dsn)
		for _, s := range stmts {
			if _, err := db.Exec(s); err != nil {
				t.Fatalf("%s: %v", s, err)
			}
		}
	}
	// The pre-split regions exist when CREATE TABLE returns, so counting
	// them right after is exact; new MariaDB databases default to utf8mb4
	// as a production server's do (the scripts' data is UTF-8).
	setup(ti.DSN(""), "SET GLOBAL tidb_scatter_region = 'table'")
	setup(ma.DSN(""), "SET GLOBAL character_set_server = utf8mb4", "SET GLOBAL collation_server = utf8mb4_general_ci")
	servers := []realServer{
		{name: "tidb", tidb: true, port: ti.Port(), dsn: ti.DSN, create: func(t *testing.T, name string) string { return createDB(t, ti.DSN(""), ti.DSN, name) }},
		{name: "mariadb", port: ma.Port(), dsn: ma.DSN, create: func(t *testing.T, name string) string { return createDB(t, ma.DSN(""), ma.DSN, name) }},
	}
	var mu sync.Mutex
	results := map[string]realResult{}
	t.Run("scripts", func(t *testing.T) {
		for i, c := range realCases {
			t.Run(strings.TrimSuffix(strings.TrimSuffix(c.files[0], ".gz"), ".sql"), func(t *testing.T) {
				t.Parallel()
				for _, srv := range servers {
					r := runReal(t, c, srv, i)
					mu.Lock()
					results[c.files[0]+"\x00"+srv.name] = r
					mu.Unlock()
				}
			})
		}
	})
	var sb strings.Builder
	fmt.Fprintf(&sb, "\n%-36s %-8s %6s %9s %14s %5s %9s\n", "script", "server", "tables", "applied", "regions", "lost", "original")
	total := map[string]int{}
	for _, c := range realCases {
		for _, srv := range servers {
			r, ok := results[c.files[0]+"\x00"+srv.name]
			if !ok {
				continue
			}
			regions := "-"
			if srv.tidb {
				regions = fmt.Sprintf("%d → %d", r.regionsBefore, r.regionsAfter)
				total["before"] += r.regionsBefore
				total["after"] += r.regionsAfter
			}
			total[srv.name+" tables"] += r.tables
			total["lost"] += r.lost
			fmt.Fprintf(&sb, "%-36s %-8s %6d %4d/%-4d %14s %5d %3d errors\n", strings.Join(c.files, "+"), srv.name, r.tables, r.applied, r.migrations, regions, r.lost, r.originalErrors)
		}
	}
	fmt.Fprintf(&sb, "total: %d tables on TiDB, %d on MariaDB; TiDB regions %d → %d; %d lost\n", total["tidb tables"], total["mariadb tables"], total["before"], total["after"], total["lost"])
	t.Log(sb.String())
}

// createDB creates a database on the server behind admin and returns its
// DSN (dsn of the name).
func createDB(t *testing.T, admin string, dsn func(string) string, name string) string {
	t.Helper()
	db := testsrv.Open(t, "mysql", admin)
	if _, err := db.Exec("DROP DATABASE IF EXISTS `" + name + "`"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("CREATE DATABASE `" + name + "`"); err != nil {
		t.Fatal(err)
	}
	return dsn(name)
}

// runReal runs one case on one server.
func runReal(t *testing.T, c realCase, srv realServer, n int) realResult {
	t.Helper()
	var res realResult
	var files []script.File
	for _, f := range c.files {
		files = append(files, script.File{Name: f, Text: readReal(t, f)})
	}
	o := script.Options{}
	if pair := c.collate[srv.name]; pair != "" {
		var err error
		if o.Collations, err = script.ParseCollations([]string{pair}); err != nil {
			t.Fatal(err)
		}
	}
	s, err := script.ParseScripts(files, o)
	if err != nil {
		t.Fatalf("%s: %v", srv.name, err)
	}
	target := tidb.TargetMariaDB
	if srv.tidb {
		target = tidb.TargetTiDB
	}
	p, err := tidb.RenderScript(s, tidb.Options{Target: target})
	if err != nil {
		t.Fatalf("%s: %v", srv.name, err)
	}
	ms, err := apply.Migrations(p, apply.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res.tables, res.migrations = len(p.Tables), len(ms)
	res.lost = s.Read - s.Accounted

	// The original, as published, with the mysql client: into its own
	// database when it USEs one, else a scratch one.
	origDB := s.Database
	if origDB == "" {
		origDB = fmt.Sprintf("orig_%d", n)
	}
	srv.create(t, origDB)
	res.originalErrors = mysqlClient(t, srv, origDB, files)
	orig := testsrv.Open(t, "mysql", srv.dsn(origDB))

	// The rendering, through goose.
	dsn := srv.create(t, fmt.Sprintf("rendered_%d", n))
	m, applied, err := tidbtest.Up(t, dsn, ms, "")
	res.applied = tidbtest.CountApplied(applied)
	if err != nil || res.applied != len(ms) {
		t.Fatalf("%s: up applied %d of %d: %v", srv.name, res.applied, len(ms), err)
	}
	if again, err := m.Up(context.Background()); err != nil || tidbtest.CountApplied(again) != 0 {
		t.Errorf("%s: a second up applied %d (%v)", srv.name, tidbtest.CountApplied(again), err)
	}
	st, err := m.Verify(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range st {
		if len(x.Drift)+len(x.Unchecked) > 0 {
			t.Errorf("%s: %s right after up: drift %q, not checked %q", srv.name, x.Migration.Name, x.Drift, x.Unchecked)
		}
	}
	db := testsrv.Open(t, "mysql", dsn)

	origTables := baseTables(t, orig)
	gotTables := baseTables(t, db)
	if srv.tidb {
		res.regionsBefore = regionCount(t, orig, origTables)
		res.regionsAfter = regionCount(t, db, gotTables)
	}
	for _, d := range p.Tables {
		if !slices.Contains(gotTables, d.Table.Name) {
			t.Errorf("%s: table %s missing", srv.name, d.Table.Name)
			res.lost++
		}
	}
	for _, o := range origTables {
		if !slices.Contains(gotTables, o) {
			t.Errorf("%s: the original has table %s, the rendering does not", srv.name, o)
			res.lost++
		}
	}

	// Rows: the original's, on the same server; where the original could
	// not create the table there (TiDB without the spatial column or the
	// collation), the rows the scripts' INSERTs give. Tables a trigger
	// fills keep on TiDB the rows the script itself gives.
	given := insertedRows(s)
	for _, tb := range gotTables {
		want, ok := -1, slices.Contains(origTables, tb)
		if ok {
			want = count(t, orig, tb)
		} else if n, ok := given[strings.ToLower(tb)]; ok {
			want = n
		}
		got := count(t, db, tb)
		if want < 0 || (srv.tidb && slices.Contains(c.byTrigger, tb)) {
			continue
		}
		if got != want {
			t.Errorf("%s: %s holds %d rows, the original %d", srv.name, tb, got, want)
			res.lost++
		}
	}

	// Views answer; routines are there (MariaDB) or listed (TiDB).
	views := 0
	for _, st := range p.Steps {
		if st.Kind != script.KindView {
			continue
		}
		views++
		var n int
		if err := db.QueryRow("SELECT COUNT(*) FROM `" + st.Object + "`").Scan(&n); err != nil {
			t.Errorf("%s: view %s: %v", srv.name, st.Object, err)
			res.lost++
		}
	}
	if got := scalar(t, db, "SELECT COUNT(*) FROM information_schema.VIEWS WHERE TABLE_SCHEMA = DATABASE()"); got != views {
		t.Errorf("%s: %d views, the scripts create %d", srv.name, got, views)
	}
	routines := 0
	for _, st := range s.Statements {
		if st.Kind == script.KindRoutine && !st.ByHand && !st.Drop && st.ObjectType != "" {
			routines++
		}
	}
	if srv.tidb {
		kept := 0
		for _, st := range p.ByHand {
			if st.ObjectType != "" && !st.Drop {
				kept++
			}
		}
		if kept != routines {
			t.Errorf("tidb: %d routines in the by-hand list, the scripts have %d", kept, routines)
			res.lost += routines - kept
		}
	} else {
		q := "SELECT (SELECT COUNT(*) FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = DATABASE()) + (SELECT COUNT(*) FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = DATABASE())"
		// The original, even where other statements failed, never has more.
		if got, orig := scalar(t, db, q), scalar(t, orig, q); got != routines || got < orig || (res.originalErrors == 0 && got != orig) {
			t.Errorf("mariadb: %d routines, the scripts have %d, the original %d", got, routines, orig)
			res.lost += routines - got
		}
	}

	// Fidelity: each table as the original made it, bar the intended
	// changes.
	widened := map[string][]string{}
	for _, d := range p.Tables {
		widened[d.Table.Name] = d.Widened
	}
	for _, tb := range gotTables {
		if !slices.Contains(origTables, tb) {
			continue
		}
		want := normCreate(showCreateOn(t, orig, tb), c.dropped[tb], widened[tb])
		if r, ok := c.tidbRetyped[tb]; ok && srv.tidb {
			want = strings.Replace(want, r[0], r[1], 1)
		}
		got := normCreate(showCreateOn(t, db, tb), "", widened[tb])
		res.compare++
		if want != got {
			t.Errorf("%s: %s differs from the original beyond the intended changes:\n--- original\n%s\n--- rendered\n%s", srv.name, tb, want, got)
		}
	}

	// Every table takes a row without its key.
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(context.Background(), "SET FOREIGN_KEY_CHECKS = 0"); err != nil {
		t.Fatal(err)
	}
	for _, tb := range gotTables {
		parsed, err := tidb.Parse(showCreateOn(t, db, tb))
		if err != nil {
			t.Fatalf("%s: %s: %v", srv.name, tb, err)
		}
		if err := insertWithoutKey(conn, parsed); err != nil {
			t.Errorf("%s: INSERT into %s without its key: %v", srv.name, tb, err)
		}
	}
	return res
}

// insertedRows counts, per table, the rows the scripts' INSERT … VALUES
// statements give (as rendered, one row a line); a table any other data
// statement writes is left out.
func insertedRows(s *script.Script) map[string]int {
	out, other := map[string]int{}, map[string]bool{}
	for _, st := range s.Statements {
		if st.Kind != script.KindData {
			continue
		}
		k := strings.ToLower(st.Object)
		if !strings.HasPrefix(st.SQL, "INSERT INTO ") || strings.Contains(st.SQL, "ON DUPLICATE KEY UPDATE") || len(st.Writes) != 1 {
			other[k] = true
			continue
		}
		out[k] += max(1, strings.Count(st.SQL, "\n"))
	}
	for k := range other {
		delete(out, k)
	}
	return out
}

// mysqlClient runs the scripts with the mysql client, as a user applies
// them, going on past errors (--force), and returns how many it met.
func mysqlClient(t *testing.T, srv realServer, db string, files []script.File) int {
	t.Helper()
	var in strings.Builder
	for _, f := range files {
		in.WriteString(f.Text)
		in.WriteString("\n")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "mysql", "--no-defaults", "--comments", "--force", "--default-character-set=utf8mb4",
		"-h", "127.0.0.1", "-P", strconv.Itoa(srv.port), "-u", "root", "-D", db)
	cmd.Stdin = strings.NewReader(in.String())
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("mysql client: %v", ctx.Err())
	}
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatalf("mysql client: %v", err)
	}
	return strings.Count(stderr.String(), "ERROR ")
}

// baseTables lists the tables (not views) of the connection's database.
func baseTables(t *testing.T, db *sql.DB) []string {
	t.Helper()
	rows, err := db.Query("SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_TYPE = 'BASE TABLE' AND TABLE_NAME <> 'goose_db_version' ORDER BY TABLE_NAME")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		out = append(out, n)
	}
	return out
}

// regionCount sums SHOW TABLE … REGIONS over tables.
func regionCount(t *testing.T, db *sql.DB, tables []string) int {
	t.Helper()
	n := 0
	for _, tb := range tables {
		n += regions(t, db, "`"+tb+"`")
	}
	return n
}

func count(t *testing.T, db *sql.DB, table string) int {
	t.Helper()
	return scalar(t, db, "SELECT COUNT(*) FROM `"+table+"`")
}

func scalar(t *testing.T, db *sql.DB, q string) int {
	t.Helper()
	var n int
	if err := db.QueryRow(q).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

func showCreateOn(t *testing.T, db *sql.DB, table string) string {
	t.Helper()
	var name, create string
	if err := db.QueryRow("SHOW CREATE TABLE `"+table+"`").Scan(&name, &create); err != nil {
		t.Fatal(err)
	}
	return create
}

// The intended changes, taken out of SHOW CREATE TABLE before comparing.
var (
	clusteredComment = regexp.MustCompile(` /\*T!\[clustered_index\] (NON)?CLUSTERED \*/`)
	tidbTableOptions = regexp.MustCompile(` /\*T!(\[auto_rand_base\])? (SHARD_ROW_ID_BITS=\d+ ?|PRE_SPLIT_REGIONS=\d+ ?|AUTO_RANDOM_BASE=\d+ ?)+\*/`)
	autoRandomColumn = regexp.MustCompile(` /\*T!\[auto_rand\] AUTO_RANDOM\(\d+(, \d+)?\) \*/`)
	autoIncrementOpt = regexp.MustCompile(` AUTO_INCREMENT=\d+`)
	constraintName   = regexp.MustCompile("^CONSTRAINT (`[^`]+`)")
	integerWord      = regexp.MustCompile(`^(tiny|small|medium|big)?int(\(\d+\))?`)
)

// normCreate takes the intended changes out of SHOW CREATE TABLE: the
// clustering comments, TiDB's SHARD_ROW_ID_BITS, PRE_SPLIT_REGIONS and
// AUTO_RANDOM_BASE, AUTO_RANDOM where the original has AUTO_INCREMENT,
// the AUTO_INCREMENT=N counter, the order of the key lines (a FOREIGN KEY
// added by a later ALTER comes last), the index a server names after a
// FOREIGN KEY, the lines of a dropped column, and the integer type of
// the columns widened to BIGINT (written INTEGER on both sides).
func normCreate(create, dropped string, widened []string) string {
	create = clusteredComment.ReplaceAllString(create, "")
	create = tidbTableOptions.ReplaceAllString(create, "")
	create = autoRandomColumn.ReplaceAllString(create, " AUTO_INCREMENT")
	create = autoIncrementOpt.ReplaceAllString(create, "")
	var cols, keys []string
	lines := strings.Split(create, "\n")
	for _, l := range lines[1 : len(lines)-1] {
		l = strings.TrimSuffix(strings.TrimSpace(l), ",")
		if dropped != "" && strings.Contains(l, "`"+dropped+"`") {
			continue
		}
		for _, w := range widened {
			if strings.HasPrefix(l, "`"+w+"` ") {
				l = "`" + w + "` " + integerWord.ReplaceAllString(l[len(w)+3:], "INTEGER")
			}
		}
		if strings.HasPrefix(l, "`") {
			cols = append(cols, l)
		} else {
			keys = append(keys, l)
		}
	}
	// TiDB keeps the index it made for a FOREIGN KEY when a CREATE INDEX
	// of the script covers the key's columns later (MySQL and MariaDB drop
	// it); folded into the CREATE TABLE, that index is there from the
	// start and TiDB makes none.
	var fks []string
	for _, k := range keys {
		if m := constraintName.FindStringSubmatch(k); m != nil {
			fks = append(fks, "KEY "+m[1]+" ")
		}
	}
	keys = slices.DeleteFunc(keys, func(l string) bool {
		return slices.ContainsFunc(fks, func(p string) bool { return strings.HasPrefix(l, p) })
	})
	slices.Sort(keys)
	return strings.Join(append(append([]string{lines[0]}, cols...), append(keys, lines[len(lines)-1])...), "\n")
}

// insertWithoutKey inserts one row into table, leaving out its
// AUTO_INCREMENT or AUTO_RANDOM columns, generated columns and columns
// with a default or NULL allowed, and filling the rest with values of
// their type that no seed row holds.
func insertWithoutKey(conn *sql.Conn, tb *tidb.Table) error {
	ctx := context.Background()
	table := tb.Name
	rows, err := conn.QueryContext(ctx, "SELECT COLUMN_NAME, DATA_TYPE, COLUMN_TYPE, IS_NULLABLE, COLUMN_DEFAULT IS NOT NULL, EXTRA, COALESCE(CHARACTER_MAXIMUM_LENGTH, 0) FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION", table)
	if err != nil {
		return err
	}
	var cols, vals []string
	for rows.Next() {
		var name, dataType, colType, nullable, extra string
		var hasDefault bool
		var length int64
		if err := rows.Scan(&name, &dataType, &colType, &nullable, &hasDefault, &extra, &length); err != nil {
			rows.Close()
			return err
		}
		extra = strings.ToLower(extra)
		if c := tb.Column(name); (c != nil && c.AutoRandom) || strings.Contains(extra, "auto_increment") || strings.Contains(extra, "generated") || strings.Contains(extra, "virtual") || strings.Contains(extra, "stored") || hasDefault || nullable == "YES" {
			continue
		}
		cols = append(cols, "`"+name+"`")
		vals = append(vals, probeValue(dataType, colType, length))
	}
	rows.Close()
	q := fmt.Sprintf("INSERT INTO `%s` (%s) VALUES (%s)", table, strings.Join(cols, ", "), strings.Join(vals, ", "))
	if _, err := conn.ExecContext(ctx, q); err != nil {
		return fmt.Errorf("%s: %w", q, err)
	}
	return nil
}

// probeValue is a literal of the column's type, unlikely to repeat a seed
// row's value in a unique key.
func probeValue(dataType, colType string, length int64) string {
	r := rand.Uint64()
	switch strings.ToLower(dataType) {
	case "tinyint":
		return strconv.FormatUint(100+r%27, 10)
	case "smallint":
		return strconv.FormatUint(30000+r%2000, 10)
	case "mediumint":
		return strconv.FormatUint(8000000+r%300000, 10)
	case "int", "integer":
		return strconv.FormatUint(2000000000+r%100000000, 10)
	case "bigint":
		return strconv.FormatUint(9000000000000000000+r%100000000000000000, 10)
	case "decimal", "float", "double", "real":
		return "1"
	case "bit":
		return "b'1'"
	case "year":
		return "2001"
	case "date":
		return "'2001-02-03'"
	case "datetime", "timestamp":
		return fmt.Sprintf("'2001-02-03 04:%02d:%02d'", r%60, r/60%60)
	case "time":
		return "'01:02:03'"
	case "json":
		return "'{}'"
	case "enum":
		_, v, _ := strings.Cut(colType, "'")
		v, _, _ = strings.Cut(v, "'")
		return "'" + v + "'"
	case "set":
		return "''"
	}
	s := strconv.FormatUint(r, 36)
	if length > 0 && int64(len(s)) > length {
		s = s[:length]
	}
	return "'" + s + "'"
}
