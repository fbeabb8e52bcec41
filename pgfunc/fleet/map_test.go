package fleet_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/shardid/shardid/pgfunc"
	"github.com/shardid/shardid/pgfunc/fleet"
)

const goodMap = `layout = "instagram"            # optional
epoch = "2025-01-01T00:00:00Z"
mode = "unique"
schema_format = "insta%d"

[[servers]]
name = "db1"
dsn = "postgres://app:s3cret@db1:5432/app"
shards = "0-4095"

[[servers]]
name = "db2"
dsn_env = "DB2_DSN"
shards = "4096-8191"
`

func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

func TestParse(t *testing.T) {
	m, err := fleet.Parse("fleet.toml", []byte(goodMap), env(map[string]string{"DB2_DSN": "postgres://app:pw2@db2/app"}))
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Servers) != 2 || len(m.Servers[0].Shards) != 4096 || m.Servers[1].Shards[0] != 4096 || m.Mode != pgfunc.ModeUnique ||
		m.Servers[1].Address != "db2:5432/app" || m.SchemaFormat != "insta%d" {
		t.Fatalf("parsed %+v", m)
	}
	if s, ok := m.Owner(5000); !ok || s.Name != "db2" {
		t.Fatalf("Owner(5000) = %v %v", s.Name, ok)
	}
	if sh := m.Schemas(m.Servers[1]); sh[0] != (pgfunc.Shard{Schema: "insta4096", ID: 4096}) {
		t.Fatalf("Schemas: %v", sh[0])
	}
	withLead, err := fleet.Parse("fleet.toml", []byte(strings.Replace(goodMap, `mode = "unique"`, "mode = \"unique\"\nlead = \"30s\"", 1)), env(map[string]string{"DB2_DSN": "postgres://app:pw2@db2/app"}))
	if err != nil || withLead.Options().Lead != 30*time.Second || m.Options().Lead != 0 {
		t.Fatalf("lead = \"30s\": %+v, %v; without it: %+v", withLead, err, m.Options())
	}
	// A layout written as fields: its shard ids go as far as its shard bits.
	spec, err := fleet.Parse("fleet.toml", []byte(strings.NewReplacer(`"instagram"`, `"time:28@1s,node:22,seq:13"`, `4096-8191`, `4096-16383`).Replace(goodMap)), env(map[string]string{"DB2_DSN": "postgres://app:pw2@db2/app"}))
	if err != nil || spec.Layout.String() != "time:28@1s,shard:22,seq:13" || spec.Layout.ShardBits != 22 || spec.Servers[1].Shards[len(spec.Servers[1].Shards)-1] != 16383 {
		t.Fatalf("layout = \"time:28@1s,node:22,seq:13\": %v, %v", spec, err)
	}
	// Each refusal: one line, naming the place (line or key) and what is
	// allowed, wrapping ErrMap, never showing a password.
	for _, c := range []struct{ name, text, want string }{
		{"unknown key", strings.Replace(goodMap, `mode = "unique"`, `mdoe = "unique"`, 1), "fleet.toml:3: mdoe: unknown key"},
		{"unknown server key", strings.Replace(goodMap, `name = "db2"`, "name = \"db2\"\nport = 5", 1), "fleet.toml:13: servers.port: unknown key"},
		{"shard past 13 bits", strings.Replace(goodMap, `4096-8191`, `4096-8192`, 1), "fleet.toml:14: servers[2].shards: server db2: shard id out of range: 8192 (allowed 0-8191"},
		{"shard on two servers", strings.Replace(goodMap, `4096-8191`, `4095-8191`, 1), "servers[2].shards: shard 4095 is on server db1 and on server db2"},
		{"dsn and dsn_env", strings.Replace(goodMap, `dsn_env = "DB2_DSN"`, "dsn_env = \"DB2_DSN\"\ndsn = \"postgres://x:s3cret@h/d\"", 1), "server db2 has both dsn and dsn_env"},
		{"missing env", strings.Replace(goodMap, `DB2_DSN`, `DB3_DSN`, 1), "fleet.toml:13: servers[2].dsn_env: environment variable DB3_DSN is not set"},
		{"bad dsn", strings.Replace(goodMap, `postgres://app:s3cret@db1:5432/app`, `postgres://app:s3cret@db1:port/app`, 1), "fleet.toml:8: servers[1].dsn: server db1: not a PostgreSQL connection string"},
		{"bad dsn parameter", strings.Replace(goodMap, `postgres://app:s3cret@db1:5432/app`, `postgres://app:s3cret@db1:5432/app?connect_timeout=abc`, 1), "server db1: not a PostgreSQL connection string (invalid syntax)"},
		{"layout", strings.Replace(goodMap, `"instagram"`, `"twitter"`, 1), `fleet.toml:1: layout: unknown layout "twitter" (allowed: instagram, js53, snowflake, or fields from the top such as time:41,shard:13,seq:10)`},
		{"epoch", strings.Replace(goodMap, `2025-01-01T00:00:00Z`, `2099-01-01T00:00:00Z`, 1), `fleet.toml:2: epoch: invalid epoch "2099-01-01T00:00:00Z": in the future (allowed: from 1970-01-01 to now)`},
		{"layout spec", strings.Replace(goodMap, `"instagram"`, `"time:41,shard:13"`, 1), `fleet.toml:1: layout: invalid layout "time:41,shard:13": field seq is missing (required, from the top: time, shard or node, seq; route is optional)`},
		{"layout with route bits, mode classic", strings.Replace(strings.Replace(goodMap, `"instagram"`, `"time:41,node:6,seq:12,route:4"`, 1), `"unique"`, `"classic"`, 1), `fleet.toml:1: layout: route bits unsupported: layout time:41,shard:6,seq:12,route:4 has 4 route bits; mode classic fills no route field (allowed: mode unique, whose next_id(route) fills it, or a layout without route)`},
		{"epoch twice", strings.Replace(goodMap, `"instagram"`, `"instagram,epoch=0"`, 1), `fleet.toml:2: epoch: invalid epoch "2025-01-01T00:00:00Z": the layout "instagram,epoch=0" names epoch 1970-01-01T00:00:00Z; give the epoch once`},
		{"mode", strings.Replace(goodMap, `"unique"`, `"fast"`, 1), `fleet.toml:3: mode: invalid mode "fast"`},
		{"lead", strings.Replace(goodMap, `mode = "unique"`, "mode = \"unique\"\nlead = \"5\"", 1), `fleet.toml:4: lead: "5" is not a positive duration such as "5s"`},
		{"lead range", strings.Replace(goodMap, `mode = "unique"`, "mode = \"unique\"\nlead = \"2h\"", 1), `fleet.toml:4: lead: invalid lead 2h0m0s`},
		{"schema format", strings.Replace(goodMap, `insta%d`, `Insta%d`, 1), `fleet.toml:4: schema_format: invalid schema name "Insta0"`},
		{"no servers", "layout = \"js53\"\n", "servers: no [[servers]] table"},
		{"two names", strings.Replace(goodMap, `name = "db2"`, `name = "db1"`, 1), `servers[2].name: "db1" names two servers`},
		{"syntax", goodMap + "\n[[servers]\n", "fleet.toml:17:"},
		{"shards missing", strings.Replace(goodMap, "shards = \"4096-8191\"\n", "", 1), "servers[2].shards: server db2: invalid shard list: it is empty"},
		// Unknown keys where no "key =" line of a [[servers]] table names
		// them: a sub-table, and an inline array of tables.
		{"server sub-table", goodMap + "[servers.extra]\nx = 1\n", "fleet.toml:15: servers.extra"},
		{"inline servers", "servers = [{name = \"db1\", dsn = \"postgres://app:s3cret@db1/app\", shards = \"0\", bogus = 1}]\n", "fleet.toml: servers.bogus: unknown key"},
		// A bad DSN from the environment: the line of dsn_env, the
		// variable's name, never its password.
		{"bad env dsn", strings.Replace(goodMap, `DB2_DSN`, `BAD_DSN`, 1), "fleet.toml:13: servers[2].dsn_env: server db2: environment variable BAD_DSN is not a PostgreSQL connection string"},
	} {
		_, err := fleet.Parse("fleet.toml", []byte(c.text), env(map[string]string{"DB2_DSN": "postgres://app:pw2@db2/app", "BAD_DSN": "postgres://app:s3cret@db2:port/app"}))
		if err != nil && strings.Count(err.Error(), "(") != strings.Count(err.Error(), ")") {
			t.Errorf("%s: unbalanced parentheses in %q", c.name, err)
		}
		if !errors.Is(err, fleet.ErrMap) || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") || strings.Contains(err.Error(), "s3cret") {
			t.Errorf("%s: %v\nwant ErrMap, one line, containing %q, no password", c.name, err, c.want)
		}
	}
}
