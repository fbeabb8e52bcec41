package migrate_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/shardid/shardid/pgfunc"
	"github.com/shardid/shardid/pgfunc/inventory"
	"github.com/shardid/shardid/pgfunc/migrate"
	"github.com/shardid/shardid/pgfunc/privilege"
)

// TestReportTotals: every key is there for a bare server, its lists []
// (not null); a kept counter and an unreadable one are placed as
// [database.]schema, a replicated table of the server's own database
// names it, a danger carries its effect.
func TestReportTotals(t *testing.T) {
	bare, err := json.Marshal(migrate.Report{Census: inventory.Census{Database: "app"}}.Totals())
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"database":"app"`, `"template":false`, `"retired_counters":[]`, `"unreadable_counters":[]`, `"logical_replication":[]`,
		`"dangerous_privileges":[]`, `"templates_read"`, `"databases_not_read"`, `"invalid_databases"`} {
		if !strings.Contains(string(bare), want) {
			t.Errorf("a bare server's totals lack %s: %s", want, bare)
		}
	}
	r := migrate.Report{
		Census: inventory.Census{Database: "app",
			Retired:    []inventory.Installed{{Schema: "insta2", Meta: pgfunc.Meta{Shard: 2}}},
			Unreadable: []inventory.Installed{{Database: "old", Schema: "x", Unreadable: "no comment"}},
			Replicated: []inventory.Replicated{{Table: "public.t", Generator: "insta1"}}},
		Dangers: []privilege.Danger{{Schema: "insta1", Role: "app", Object: "insta1.next_id_seq", Privilege: "UPDATE"}},
	}
	doc, err := json.Marshal(r.Totals())
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"where":"insta2"`, `"where":"old.x"`, `"why":"no comment"`, `"database":"app","table":"public.t"`, `"role":"app"`, `"effect":"`} {
		if !strings.Contains(string(doc), want) {
			t.Errorf("totals lack %s: %s", want, doc)
		}
	}
}
