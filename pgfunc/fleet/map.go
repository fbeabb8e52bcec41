package fleet

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/shardid/shardid"
	"github.com/shardid/shardid/internal/dsn"
	"github.com/shardid/shardid/internal/quote"
	"github.com/shardid/shardid/pgfunc"
	"github.com/shardid/shardid/pgfunc/migrate"
)

// ErrMap is returned by Load and Parse for a shard map that cannot be
// used; the message names the file, the line where it can, the key and
// what is allowed.
var ErrMap = errors.New("invalid shard map")

// Map is a validated shard map: the generator every shard of the fleet
// gets, and which server holds which shard ids.
type Map struct {
	// Layout is the ID layout of every shard (key "layout", a preset name
	// or a spec as shardid.ParseLayout reads it, with "epoch").
	Layout shardid.Layout
	// Mode is the next_id() body of every shard (key "mode").
	Mode pgfunc.Mode
	// Lead is how far ahead of the clock IDs may go in mode unique (key
	// "lead", a duration such as "5s"; 0 means pgfunc.DefaultLead).
	Lead time.Duration
	// SchemaFormat names shard N's schema (key "schema_format").
	SchemaFormat string
	// Parallel is how many schemas of one server are migrated at once
	// (key "parallel"; 0 means migrate.DefaultParallel).
	Parallel int
	// AllowMixed and AllowUnreadDatabases are Up's
	// migrate.Options of the same names, for every server: risks a
	// run accepts, not keys of the file.
	AllowMixed, AllowUnreadDatabases bool
	// LockTimeout is how long each server's run waits for Up's
	// server-wide lock (migrate.Options.LockTimeout; 0 means
	// pgfunc.DefaultLockTimeout): a run option, not a key of the file.
	LockTimeout time.Duration
	// Servers are the map's servers, in file order.
	Servers []Server
}

// Server is one PostgreSQL server (one database on it) of a Map.
type Server struct {
	// Name is the server's name in the map: reports use it, never the DSN.
	Name string
	// DSN is the connection string, from key "dsn" or from the environment
	// variable key "dsn_env" names. It may hold a password: never print it.
	DSN string
	// Address is host:port/database from the DSN, without user or
	// password, for reports.
	Address string
	// Shards are the shard ids the server holds, ascending.
	Shards []int64
}

// Schemas returns the server's shards with their schema names.
func (m *Map) Schemas(s Server) []pgfunc.Shard {
	out := make([]pgfunc.Shard, len(s.Shards))
	for i, id := range s.Shards {
		name, _ := pgfunc.SchemaName(m.SchemaFormat, id) // checked by Parse
		out[i] = pgfunc.Shard{Schema: name, ID: id}
	}
	return out
}

// Options returns the render options of every shard of the map.
func (m *Map) Options() pgfunc.Options {
	return pgfunc.Options{Layout: m.Layout, Mode: m.Mode, Lead: m.Lead}
}

// Owner returns the server the map puts shard id on, and false if none.
func (m *Map) Owner(id int64) (Server, bool) {
	for _, s := range m.Servers {
		if _, ok := slices.BinarySearch(s.Shards, id); ok {
			return s, true
		}
	}
	return Server{}, false
}

// file is the TOML document; unknown keys are refused.
type file struct {
	Layout       string       `toml:"layout"`
	Epoch        string       `toml:"epoch"`
	Mode         string       `toml:"mode"`
	Lead         string       `toml:"lead"`
	SchemaFormat string       `toml:"schema_format"`
	Parallel     int          `toml:"parallel"`
	Servers      []fileServer `toml:"servers"`
}

type fileServer struct {
	Name   string `toml:"name"`
	DSN    string `toml:"dsn"`
	DSNEnv string `toml:"dsn_env"`
	Shards string `toml:"shards"`
}

// Load reads and validates the shard map in path; getenv (nil means
// os.Getenv) resolves dsn_env keys.
func Load(path string, getenv func(string) string) (*Map, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMap, err)
	}
	return Parse(path, b, getenv)
}

var (
	nameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$`)
	envRE  = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
)

// Parse validates a shard map read from the file called name. Its keys:
//
//	layout = "instagram"            # optional: a preset name or fields, e.g. "time:41,shard:13,seq:10" (default instagram)
//	epoch = "2025-01-01T00:00:00Z"  # optional: RFC 3339 or Unix ms (default the layout's)
//	mode = "unique"                 # optional: unique, classic or classic-sql
//	lead = "5s"                     # optional: mode unique's lead (default pgfunc.DefaultLead)
//	schema_format = "insta%d"       # optional: shard N's schema
//	parallel = 4                    # optional: schemas migrated at once per server
//
//	[[servers]]                     # one or more
//	name = "db1"                    # required, unique: letters, digits, _ . -
//	dsn = "postgres://app@db1:5432/app"   # or dsn_env = "DB1_DSN", not both
//	shards = "0-4095"               # required: ids within the layout's shard bits
//
// Every shard id may appear on one server only; unknown keys, a missing or
// empty environment variable and an unparsable DSN are refused. Errors
// wrap ErrMap and never show a DSN.
func Parse(name string, data []byte, getenv func(string) string) (*Map, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	lines := strings.Split(string(data), "\n")
	fail := func(key, format string, args ...any) error {
		where := name
		if line := lineOf(lines, key); line > 0 {
			where = fmt.Sprintf("%s:%d", name, line)
		}
		return fmt.Errorf("%w: %s: %s: %s", ErrMap, where, key, fmt.Sprintf(format, args...))
	}
	var f file
	md, err := toml.Decode(string(data), &f)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, fmt.Errorf("%w: %s:%d: %s", ErrMap, name, pe.Position.Line, quote.Controls(pe.Message))
		}
		return nil, fmt.Errorf("%w: %s: %s", ErrMap, name, quote.Controls(err.Error()))
	}
	if und := md.Undecoded(); len(und) > 0 {
		return nil, fail(und[0].String(), "unknown key (allowed: layout, epoch, mode, lead, schema_format, parallel, servers with name, dsn, dsn_env, shards)")
	}
	m := &Map{SchemaFormat: f.SchemaFormat, Parallel: f.Parallel}
	if m.Layout, err = shardid.ParseLayoutEpoch(f.Layout, f.Epoch); errors.Is(err, shardid.ErrInvalidEpoch) {
		return nil, fail("epoch", "%v", err)
	} else if err != nil {
		return nil, fail("layout", "%v", err)
	}
	if err := pgfunc.CheckLayout(m.Layout); err != nil {
		return nil, fail("layout", "%v", err)
	}
	if m.Mode, err = pgfunc.ParseMode(f.Mode); err != nil {
		return nil, fail("mode", "%v", err)
	}
	if err := (pgfunc.Options{Layout: m.Layout, Mode: m.Mode}).Validate(); errors.Is(err, pgfunc.ErrRouteUnsupported) {
		return nil, fail("layout", "%v", err)
	}
	if f.Lead != "" {
		if m.Lead, err = time.ParseDuration(f.Lead); err != nil || m.Lead <= 0 {
			return nil, fail("lead", "%q is not a positive duration such as \"5s\"", f.Lead)
		}
		if err := m.Options().Validate(); err != nil {
			return nil, fail("lead", "%v", err)
		}
	}
	if m.SchemaFormat == "" {
		m.SchemaFormat = pgfunc.DefaultSchemaFormat
	}
	if _, err := pgfunc.SchemaName(m.SchemaFormat, 0); err != nil {
		return nil, fail("schema_format", "%v", err)
	}
	if m.Parallel < 0 || m.Parallel > migrate.MaxParallel {
		return nil, fail("parallel", "%d is out of range (allowed 1-%d, or 0 for %d)", m.Parallel, migrate.MaxParallel, migrate.DefaultParallel)
	}
	if len(f.Servers) == 0 {
		return nil, fail("servers", "no [[servers]] table: a map needs at least one server")
	}
	owner := map[int64]string{}
	names := map[string]bool{}
	for i, fs := range f.Servers {
		key := func(k string) string { return fmt.Sprintf("servers[%d].%s", i+1, k) }
		switch {
		case !nameRE.MatchString(fs.Name):
			return nil, fail(key("name"), "%q: want 1-63 letters, digits, _ . - (a name for reports)", fs.Name)
		case names[fs.Name]:
			return nil, fail(key("name"), "%q names two servers", fs.Name)
		case fs.DSN != "" && fs.DSNEnv != "":
			return nil, fail(key("dsn"), "server %s has both dsn and dsn_env: give one", fs.Name)
		case fs.DSN == "" && fs.DSNEnv == "":
			return nil, fail(key("dsn"), "server %s has neither dsn nor dsn_env", fs.Name)
		case fs.DSNEnv != "" && !envRE.MatchString(fs.DSNEnv):
			return nil, fail(key("dsn_env"), "%q is not an environment variable name", fs.DSNEnv)
		}
		names[fs.Name] = true
		s := Server{Name: fs.Name, DSN: fs.DSN}
		if fs.DSNEnv != "" {
			if s.DSN = getenv(fs.DSNEnv); s.DSN == "" {
				return nil, fail(key("dsn_env"), "environment variable %s is not set (or empty) for server %s", fs.DSNEnv, fs.Name)
			}
		}
		cfg, err := dsn.PGConfig(s.DSN)
		if err != nil {
			if fs.DSNEnv != "" {
				return nil, fail(key("dsn_env"), "server %s: environment variable %s is not a PostgreSQL connection string (%s)", fs.Name, fs.DSNEnv, dsn.Reason(err))
			}
			return nil, fail(key("dsn"), "server %s: not a PostgreSQL connection string (%s)", fs.Name, dsn.Reason(err))
		}
		s.Address = fmt.Sprintf("%s:%d/%s", cfg.Host, cfg.Port, cfg.Database)
		if s.Shards, err = shardid.ParseShards(fs.Shards, m.Layout); err != nil {
			return nil, fail(key("shards"), "server %s: %v", fs.Name, err)
		}
		for _, id := range s.Shards {
			if other, ok := owner[id]; ok {
				return nil, fail(key("shards"), "shard %d is on server %s and on server %s: each shard id lives on one server", id, other, fs.Name)
			}
			owner[id] = fs.Name
		}
		m.Servers = append(m.Servers, s)
	}
	return m, nil
}

// lineOf finds the line (from 1) of a key path in the TOML text: a
// top-level key; "servers[N].key" in the N-th [[servers]] table, or that
// table's header when the key is not written there; or "servers.key…", an
// unknown key, in the first [[servers]] table that writes it (as "key =" or
// as a sub-table "[servers.key]"). 0 when not found (an inline table, say).
func lineOf(lines []string, path string) int {
	if rest, ok := strings.CutPrefix(path, "servers."); ok {
		key, _, _ := strings.Cut(rest, ".")
		for n := 1; n <= len(lines); n++ {
			line, more := keyLine(lines, n, key)
			if line > 0 || !more {
				return line
			}
		}
		return 0
	}
	table, key := 0, path
	if rest, ok := strings.CutPrefix(path, "servers["); ok {
		if _, err := fmt.Sscanf(rest, "%d]", &table); err != nil {
			return 0
		}
		_, key, _ = strings.Cut(rest, "].")
	}
	line, _ := keyLine(lines, table, key)
	if line == 0 && table > 0 {
		line, _ = keyLine(lines, table, "")
	}
	return line
}

var (
	serversRE = regexp.MustCompile(`^\s*\[\[\s*servers\s*\]\]`)
	subRE     = regexp.MustCompile(`^\s*\[\s*servers\s*\.\s*"?([^"\]]*)"?\s*\]`)
)

// keyLine finds key in the table-th [[servers]] table (0: the top level,
// before any table): the line of "key =" or of a sub-table [servers.key];
// with key "", the table's header. 0 when not found; more reports whether
// the text has that many [[servers]] tables.
func keyLine(lines []string, table int, key string) (line int, more bool) {
	keyRE := regexp.MustCompile(`^\s*"?` + regexp.QuoteMeta(key) + `"?\s*=`)
	seen := 0
	for i, l := range lines {
		switch {
		case serversRE.MatchString(l):
			seen++
			if seen == table && key == "" {
				return i + 1, true
			}
		case seen == table && key != "" && (keyRE.MatchString(l) || table > 0 && subRE.FindStringSubmatch(l) != nil && subRE.FindStringSubmatch(l)[1] == key):
			return i + 1, true
		case table == 0 && strings.HasPrefix(strings.TrimSpace(l), "["):
			return 0, true
		}
	}
	return 0, seen >= table
}
