package tidb_test

import (
	"testing"

	"github.com/shardid/shardid/tidb"
	"github.com/shardid/shardid/tidb/apply"
	"github.com/shardid/shardid/tidb/script"
)

// renderTarget is the target a rendering for srv's server is for.
func (srv target) renderTarget() tidb.Target {
	if srv.tidb {
		return tidb.TargetTiDB
	}
	return tidb.TargetMariaDB
}

// planScript parses script and renders it under po, failing the test on
// an error.
func planScript(t *testing.T, scriptText string, po tidb.Options) *tidb.Plan {
	t.Helper()
	s, err := script.ParseScript(scriptText, script.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := tidb.RenderScript(s, po)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// planMigrations returns p's migrations, failing the test on an error.
func planMigrations(t *testing.T, p *tidb.Plan) []apply.Migration {
	t.Helper()
	ms, err := apply.Migrations(p, apply.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return ms
}

// upAll applies ms to dsn and fails the test unless every one applied.
func upAll(t *testing.T, dsn string, ms []apply.Migration) *apply.Migrator {
	t.Helper()
	m, res, err := up(t, dsn, ms, "")
	if err != nil || countApplied(res) != len(ms) {
		t.Fatalf("up: %d of %d applied: %v", countApplied(res), len(ms), err)
	}
	return m
}
