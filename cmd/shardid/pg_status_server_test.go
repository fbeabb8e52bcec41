package main

import (
	"net/url"
	"strings"
	"testing"

	"github.com/shardid/shardid/tools/dbserver"
	"github.com/shardid/shardid/tools/testsrv"
)

// TestPGStatusServerWide: pg status in a database of its own fails
// (exit 1) when other databases of the server hold one shard id twice
// (ALSO IN) or a template database holds generators (TEMPLATE), naming
// them. (Before: it printed "template databases read: template1, tpl"
// and exited 0, while every CREATE DATABASE from tpl copied its shards.)
// A database left invalid is named and passed over.
func TestPGStatusServerWide(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server of its own")
	}
	t.Parallel()
	srv := testsrv.NewPG(t, dbserver.PGOptions{})
	tplDSN, appDSN := testsrv.Database(t, srv), testsrv.Database(t, srv)
	if code, out, errOut := runCLI(t, "", nil, "pg", "up", "--dsn", tplDSN, "--shards", "0-1"); code != 0 {
		t.Fatalf("up in tpl: exit %d\n%s%s", code, out, errOut)
	}
	if code, out, errOut := runCLI(t, "", nil, "pg", "up", "--dsn", appDSN, "--shards", "5"); code != 0 {
		t.Fatalf("up in app: exit %d\n%s%s", code, out, errOut)
	}
	// A database an interrupted DROP DATABASE left invalid (datconnlimit
	// -2) cannot hold a generator anyone draws from: status passes over
	// it, naming it, and does not fail.
	admin := openPG(t, appDSN)
	for _, q := range []string{"CREATE DATABASE broken", "UPDATE pg_catalog.pg_database SET datconnlimit = -2 WHERE datname = 'broken'"} {
		if _, err := admin.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if code, out, errOut := runCLI(t, "", nil, "pg", "status", "--dsn", appDSN); code != 0 || !strings.Contains(out, "invalid databases passed over: broken (") {
		t.Fatalf("status before the template, beside an invalid database: exit %d\n%s%s", code, out, errOut)
	}
	u, err := url.Parse(tplDSN)
	if err != nil {
		t.Fatal(err)
	}
	tpl := strings.TrimPrefix(u.Path, "/")
	for _, q := range []string{"ALTER DATABASE " + tpl + " IS_TEMPLATE true", "CREATE DATABASE copy1 TEMPLATE " + tpl} {
		if _, err := admin.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	code, out, errOut := runCLI(t, "", nil, "pg", "status", "--dsn", appDSN)
	if code != 1 || !strings.Contains(out, "TEMPLATE: database "+tpl+" is a template and holds insta0 (shard 0), insta1 (shard 1)") ||
		!strings.Contains(out, "ALSO IN: shard 0 is held by copy1.insta0 and "+tpl+".insta0") ||
		!strings.Contains(out, "ALSO IN: shard 1 is held by") ||
		!strings.Contains(errOut, "2 shard ids are held by more than one schema in other databases") {
		t.Fatalf("status in app beside a template with generators and its copy: exit %d\n%s%s", code, out, errOut)
	}
}
