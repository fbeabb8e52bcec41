package fleet

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/shardid/shardid/internal/dsn"
	"github.com/shardid/shardid/pgfunc"
)

// Problem kinds reported by Verify.
const (
	// ProblemUnreachable: a server of the map could not be read.
	ProblemUnreachable = "unreachable"
	// ProblemMissing: a mapped shard has no generator in its schema on its
	// server.
	ProblemMissing = "missing"
	// ProblemMismatch: a mapped shard's generator carries another shard
	// id, layout, epoch or mode than the map says.
	ProblemMismatch = "mismatch"
	// ProblemDuplicate: one shard id is held by more than one schema
	// across the fleet (other servers, other databases included): both
	// hand out the same IDs.
	ProblemDuplicate = "duplicate"
	// ProblemMisplaced: a generator holds a mapped shard id somewhere the
	// map does not put it.
	ProblemMisplaced = "misplaced"
	// ProblemUnmapped: a generator holds a shard id the map does not
	// mention.
	ProblemUnmapped = "unmapped"
	// ProblemOutdated: a mapped shard's generator was applied by an
	// older shardid (inventory.Installed.Outdated): its body lacks this
	// release's fixes.
	ProblemOutdated = "outdated"
	// ProblemClone: two map entries reach different running primaries
	// with one system identifier, copies of one data directory
	// (pg_basebackup restored beside its origin, a promoted replica
	// beside its old primary): both hand out the same IDs.
	ProblemClone = "clone"
	// ProblemStandby: a map entry reaches a server in recovery. It is
	// read and reported, but it hands out no IDs: the shards the map puts
	// there live nowhere, and what it holds is counted nowhere.
	ProblemStandby = "standby"
	// ProblemUnidentified: a map entry reaches a running primary whose
	// system identifier, or another entry's primary's, could not be read
	// (pg_control_system() not granted to the role): whether the two are
	// copies of one data directory cannot be told, so the invariant
	// cannot be proved.
	ProblemUnidentified = "unidentified"
	// ProblemTemplate: a generator lives in a template database: every
	// CREATE DATABASE from it copies the generator, and the copies hand
	// out the same IDs (pg up refuses to apply there).
	ProblemTemplate = "template"
	// ProblemNotRead: databases of a server the role may not look into
	// (no CONNECT privilege, or connections not allowed): a copy of a
	// shard there would go unseen, so the map cannot be proved to hold.
	ProblemNotRead = "not-read"
	// ProblemUnreadable: a counter that looks like a generator's (beside
	// the jump lock's table or the next_id_ticks domain, or kept by a down) whose
	// metadata cannot be read (inventory.Installed.Unreadable): it hands
	// out IDs of a shard id and kind nobody can tell.
	ProblemUnreadable = "unreadable"
)

// Place is where a generator lives.
type Place struct {
	// Server is the map's name of the server the place was read through.
	Server string `json:"server"`
	// Host is the server's host:port.
	Host string `json:"host"`
	// Database and Schema locate the generator on the server.
	Database string `json:"database"`
	Schema   string `json:"schema"`

	// server identifies the PostgreSQL server whatever name reached it:
	// its system identifier, else its host:port.
	server string
}

// same reports whether p and q are one schema of one database of one
// server, however each was reached.
func (p Place) same(q Place) bool {
	return p.server == q.server && p.Database == q.Database && p.Schema == q.Schema
}

// String is server (host) database.schema.
func (p Place) String() string {
	return fmt.Sprintf("server %s (%s) %s.%s", p.Server, p.Host, p.Database, p.Schema)
}

// Problem is one way the live servers break the invariant or differ from
// the map.
type Problem struct {
	// Kind is one of the Problem… constants.
	Kind string `json:"kind"`
	// Shard is the shard id concerned, -1 for none.
	Shard int64 `json:"shard"`
	// Place is where the problem is (Server only, for an unreachable one);
	// for a duplicate, the place the map puts the shard when it is one of
	// them, else the first.
	Place Place `json:"place"`
	// Also lists a duplicate's other places: one problem per shard id held
	// twice, however many places hold it.
	Also []Place `json:"also,omitempty"`
	// Message says what is wrong, in one line.
	Message string `json:"message"`
}

// ServerCheck is what Verify read on one server of the map.
type ServerCheck struct {
	// Name and Address identify the server (Address has no credentials).
	Name    string `json:"name"`
	Address string `json:"address"`
	// Generators is how many generators its databases hold.
	Generators int `json:"generators"`
	// Databases is how many databases were read.
	Databases int `json:"databases"`
	// Closed are the databases the role may not look into: a copy there
	// would go unseen, so grant CONNECT to prove the invariant for them.
	Closed []string `json:"closed,omitempty"`
	// Templates are the template databases read (CREATE DATABASE copies
	// what they hold).
	Templates []string `json:"templates,omitempty"`
	// Retired is how many counters downs kept its databases hold.
	Retired int `json:"retired"`
	// Unreadable lists the counters ([database.]schema) that look like a
	// generator's but whose metadata cannot be read.
	Unreadable []string `json:"unreadable,omitempty"`
	// Instance is the running server the entry reaches: its first map
	// entry's name (entries that reach one server share it).
	Instance string `json:"instance,omitempty"`
	// Standby is true for a server in recovery.
	Standby bool `json:"standby,omitempty"`
	// Clones names the entries that reach other running servers with this
	// one's system identifier.
	Clones []string `json:"clones,omitempty"`
	// Unidentified names the entries that reach other running primaries
	// when this one's system identifier or theirs could not be read:
	// whether they are copies of one data directory cannot be told.
	Unidentified []string `json:"unidentified,omitempty"`
	// CitusNodes, for a Citus coordinator, is how many node groups of
	// its cluster were read; CitusProblems what could repeat an ID there
	// (citus.Survey), each naming the node and the counter.
	CitusNodes    int      `json:"citus_nodes,omitempty"`
	CitusProblems []string `json:"citus_problems,omitempty"`
	// Error is why the server could not be read.
	Error string `json:"error,omitempty"`
}

// Report is Verify's answer.
type Report struct {
	// OK is true when there are no problems: every mapped shard is in
	// place with the map's generator, and no shard id is held twice.
	OK bool `json:"ok"`
	// Shards is how many shard ids the map holds.
	Shards int `json:"shards"`
	// Servers has one entry per server of the map, in map order.
	Servers []ServerCheck `json:"servers"`
	// Problems lists every problem, by shard id, then place.
	Problems []Problem `json:"problems"`
	// Took is how long the check took.
	Took time.Duration `json:"took_ns"`
}

// found is one generator read from a server.
type found struct {
	place    Place
	meta     pgfunc.Meta
	outdated bool  // applied by an older shardid
	version  int64 // goose version in its schema; -1 when not read
	template bool  // its database is a template
}

// Verify proves the map's invariant against the live servers: every
// mapped shard present on its server, in its schema, with the generator
// the map says (shard id, layout, epoch, mode, read back from the
// database), and no shard id held by two schemas anywhere — across
// servers, and across every database of each server that the role may
// connect to, template databases and schemas the map does not mention
// included. Map entries that reach one running server are one server;
// entries that reach different running primaries with one system
// identifier (a copy of a data directory beside its origin) are clones,
// a problem of their own; a standby is read and reported, never counted
// as a place a shard lives. An entry that reaches a Citus coordinator
// reads the cluster's generators and every node's counters through it
// (ProblemCitus for a copy that could repeat). Servers are read at once.
func (m *Map) Verify(ctx context.Context) Report {
	start := time.Now()
	rep := Report{Servers: make([]ServerCheck, len(m.Servers))}
	var (
		mu      sync.Mutex
		all     = map[string]found{}  // by server, database, schema: a server listed twice, or under two names, is one
		ids     = map[string]string{} // map name → server identity
		standby = map[string]bool{}
		wg      sync.WaitGroup
	)
	who := m.identify(ctx)
	for i, s := range m.Servers {
		rep.Shards += len(s.Shards)
		wg.Go(func() {
			check, id, gens, err := m.read(ctx, s, who[s.Name])
			rep.Servers[i] = check
			mu.Lock()
			defer mu.Unlock()
			ids[s.Name] = id
			if check.Standby {
				standby[s.Name] = true
				gens = nil // a standby hands out no IDs: not a place a shard lives
			}
			if err != nil {
				rep.Servers[i].Error = strings.Join(strings.Fields(err.Error()), " ") // one line, as every message
				rep.Problems = append(rep.Problems, Problem{Kind: ProblemUnreachable, Shard: -1, Place: Place{Server: s.Name, Host: hostOf(s)},
					Message: fmt.Sprintf("server %s (%s) could not be read: %s", s.Name, s.Address, strings.Join(strings.Fields(err.Error()), " "))})
				return
			}
			for _, g := range gens {
				k := g.place.server + "/" + g.place.Database + "/" + g.place.Schema
				if old, ok := all[k]; !ok || m.better(g, old) {
					all[k] = g
				}
			}
		})
	}
	wg.Wait()
	unread := map[string]bool{}
	for i, sc := range rep.Servers {
		s := m.Servers[i]
		switch {
		case sc.Error != "":
			unread[sc.Name] = true
		case standby[sc.Name]:
			unread[sc.Name] = true // its shards are not judged missing: they cannot live there
			rep.Problems = append(rep.Problems, Problem{Kind: ProblemStandby, Shard: -1, Place: Place{Server: s.Name, Host: hostOf(s)},
				Message: fmt.Sprintf("server %s (%s) is a standby (in recovery): it hands out no IDs, so the shards the map puts there (%s) live nowhere; map them to a primary", s.Name, s.Address, shardSpans(s.Shards))})
		}
		if len(sc.Clones) > 0 || len(sc.Unidentified) > 0 {
			unread[sc.Name] = true // up refuses it: its shards are not judged missing, the clone (or the doubt) is the problem
		}
		if len(sc.Unidentified) > 0 {
			rep.Problems = append(rep.Problems, Problem{Kind: ProblemUnidentified, Shard: -1, Place: Place{Server: s.Name, Host: hostOf(s)},
				Message: who[s.Name].doubt(m, s)})
		}
		rep.Problems = append(rep.Problems, citusProblems(s, sc)...)
		for _, u := range sc.Unreadable {
			rep.Problems = append(rep.Problems, Problem{Kind: ProblemUnreadable, Shard: -1, Place: Place{Server: s.Name, Host: hostOf(s)},
				Message: fmt.Sprintf("server %s (%s): %s looks like a generator's counter, but its metadata cannot be read (no next_id_meta() and no metadata comment): it hands out IDs of a shard id nobody can tell; record its metadata, then verify again", s.Name, s.Address, u)})
		}
		if len(sc.Closed) > 0 {
			rep.Problems = append(rep.Problems, Problem{Kind: ProblemNotRead, Shard: -1, Place: Place{Server: s.Name, Host: hostOf(s)},
				Message: fmt.Sprintf("server %s (%s): databases not read: %s: the role may not connect (no CONNECT privilege, or connections not allowed), and a copy of a shard there would go unseen; grant CONNECT, or allow connections, and verify again",
					s.Name, s.Address, strings.Join(sc.Closed, ", "))})
		}
		for _, other := range sc.Clones {
			if other > sc.Name { // one problem per pair
				o := m.server(other)
				rep.Problems = append(rep.Problems, Problem{Kind: ProblemClone, Shard: -1, Place: Place{Server: s.Name, Host: hostOf(s)},
					Also: []Place{{Server: o.Name, Host: hostOf(o)}},
					Message: fmt.Sprintf("servers %s (%s) and %s (%s) are different running servers with one system identifier (%s): copies of one data directory, which hand out the same IDs; stop one, or make it a cluster of its own",
						s.Name, s.Address, o.Name, o.Address, who[s.Name].inst.System)})
			}
		}
	}
	rep.Problems = append(rep.Problems, m.judge(all, ids, unread)...)
	sort.SliceStable(rep.Problems, func(i, j int) bool {
		a, b := rep.Problems[i], rep.Problems[j]
		if a.Shard != b.Shard {
			return a.Shard < b.Shard
		}
		return a.Place.String() < b.Place.String()
	})
	rep.OK = len(rep.Problems) == 0
	rep.Took = time.Since(start)
	return rep
}

// better reports whether g, one generator read through one map entry,
// should stand for its place rather than old, the same place read through
// another (a server listed under two names): the newer goose version
// read, then the entry the map gives the shard to, then the first entry
// by name, so that reports do not depend on which read finished first.
func (m *Map) better(g, old found) bool {
	if g.version != old.version {
		return g.version > old.version
	}
	owner, _ := m.Owner(g.meta.Shard)
	if (g.place.Server == owner.Name) != (old.place.Server == owner.Name) {
		return g.place.Server == owner.Name
	}
	return g.place.Server < old.place.Server
}

// hostOf is the server's host:port, its identity across map entries.
func hostOf(s Server) string {
	host, _, _ := strings.Cut(s.Address, "/")
	return host
}

// read takes the census of one server and says who it is: the running
// server identify found, else its system identifier, else its host:port.
func (m *Map) read(ctx context.Context, s Server, who *identity) (ServerCheck, string, []found, error) {
	check := ServerCheck{Name: s.Name, Address: s.Address}
	id := "host " + hostOf(s)
	if who != nil && who.err == nil {
		id = "instance " + who.key
		check.Instance, check.Standby, check.Clones, check.Unidentified = who.key, who.inst.Standby, who.clones, who.unknown
	}
	mig, db, err := m.migrator(ctx, s)
	if err != nil {
		return check, id, nil, err
	}
	defer db.Close()
	c, err := mig.Server().Census(ctx)
	if err != nil {
		return check, id, nil, err
	}
	if c.System != "" && check.Instance == "" {
		id = "system " + c.System
	}
	check.Closed, check.Templates, check.Retired = c.Closed, c.Templates, len(c.Retired)
	for _, u := range c.Unreadable {
		db := u.Database
		if db == "" {
			db = c.Database
		}
		check.Unreadable = append(check.Unreadable, db+"."+u.Schema)
	}
	var own []string
	dbs := map[string]bool{c.Database: true}
	for _, g := range c.Generators {
		if g.Database == "" {
			own = append(own, g.Schema)
		}
		dbs[g.Database] = true
	}
	versions, err := mig.Versions(ctx, own)
	if err != nil {
		return check, id, nil, err
	}
	out := make([]found, 0, len(c.Generators))
	for _, g := range c.Generators {
		f := found{place: Place{Server: s.Name, Host: hostOf(s), Database: g.Database, Schema: g.Schema, server: id}, meta: g.Meta, outdated: g.Outdated, version: -1,
			template: slices.Contains(c.Templates, g.Database)}
		if g.Database == "" {
			f.place.Database = c.Database
			f.version = versions[g.Schema]
			f.template = c.Template
		}
		out = append(out, f)
	}
	cf, err := m.readCitus(ctx, s, db, c.Database, id, &check)
	if err != nil {
		return check, id, nil, err
	}
	out = append(out, cf...)
	check.Generators = len(out)
	check.Databases = len(dbs)
	return check, id, out, nil
}

// judge compares what the servers hold with the map; servers gives each
// map server's identity, unread the map servers that could not be read
// (their shards are not judged missing: nobody looked).
func (m *Map) judge(all map[string]found, servers map[string]string, unread map[string]bool) []Problem {
	var out []Problem
	byShard := map[int64][]found{}
	for _, f := range all {
		byShard[f.meta.Shard] = append(byShard[f.meta.Shard], f)
	}
	for id := range byShard {
		slices.SortFunc(byShard[id], func(a, b found) int { return strings.Compare(a.place.String(), b.place.String()) })
	}
	o := m.Options()
	for _, s := range m.Servers {
		if unread[s.Name] {
			continue // reported unreachable once, not as each shard missing
		}
		db := databaseOf(s)
		for _, sh := range m.Schemas(s) {
			want, _ := pgfunc.MetaFor(sh, o) // the map's options are valid
			here := Place{Server: s.Name, Host: hostOf(s), Database: db, Schema: sh.Schema, server: servers[s.Name]}
			var at *found
			for _, f := range byShard[sh.ID] {
				if f.place.same(here) {
					at = &f
				}
			}
			if at == nil {
				for _, f := range all {
					if f.place.same(here) {
						at = &f // the right schema, holding another shard id
					}
				}
			}
			switch {
			case at == nil:
				out = append(out, Problem{Kind: ProblemMissing, Shard: sh.ID, Place: here,
					Message: fmt.Sprintf("shard %d: no generator in %s (run shardid pg up --map)", sh.ID, here)})
			case at.outdated:
				out = append(out, Problem{Kind: ProblemOutdated, Shard: sh.ID, Place: here,
					Message: fmt.Sprintf("shard %d: %s holds %s applied by an older shardid, whose body lacks this release's fixes", sh.ID, here, describe(at.meta))})
			case !at.meta.SameGenerator(want):
				out = append(out, Problem{Kind: ProblemMismatch, Shard: sh.ID, Place: here,
					Message: fmt.Sprintf("shard %d: %s holds %s; the map says %s", sh.ID, here, describe(at.meta), describe(want))})
			case at.meta.LeadMS != want.LeadMS:
				out = append(out, Problem{Kind: ProblemMismatch, Shard: sh.ID, Place: here,
					Message: fmt.Sprintf("shard %d: %s holds a generator with a lead of %s; the map says %s (pg up --map refuses it: pg down, then pg up --map, carries its counter on)", sh.ID, here, at.meta.Lead(), want.Lead())})
			}
		}
	}
	ids := make([]int64, 0, len(byShard))
	for id := range byShard {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		places := byShard[id]
		for _, f := range places {
			if f.template {
				out = append(out, Problem{Kind: ProblemTemplate, Shard: id, Place: f.place,
					Message: fmt.Sprintf("shard %d is in %s, a template database: every CREATE DATABASE from it copies the generator, and the copies hand out the same IDs; move the shard to a database the application uses", id, f.place)})
			}
		}
		owner, mapped := m.Owner(id)
		schema, _ := pgfunc.SchemaName(m.SchemaFormat, id)
		isExpected := func(p Place) bool {
			return mapped && p.same(Place{Database: databaseOf(owner), Schema: schema, server: servers[owner.Name]})
		}
		if len(places) > 1 {
			// The map's place first, when it is one of them.
			first := slices.IndexFunc(places, func(f found) bool { return isExpected(f.place) })
			first = max(first, 0)
			p := Problem{Kind: ProblemDuplicate, Shard: id, Place: places[first].place}
			others := make([]string, 0, len(places)-1)
			for j, g := range places {
				if j != first {
					p.Also = append(p.Also, g.place)
					others = append(others, g.place.String())
				}
			}
			p.Message = fmt.Sprintf("shard %d is held by %s and by %s: they hand out the same IDs", id, p.Place, strings.Join(others, " and by "))
			out = append(out, p)
			continue
		}
		for _, f := range places {
			expected := isExpected(f.place)
			switch {
			case !mapped:
				out = append(out, Problem{Kind: ProblemUnmapped, Shard: id, Place: f.place,
					Message: fmt.Sprintf("shard %d in %s is not in the map", id, f.place)})
			case !expected:
				out = append(out, Problem{Kind: ProblemMisplaced, Shard: id, Place: f.place,
					Message: fmt.Sprintf("shard %d is in %s; the map puts it on server %s (%s) in %s.%s", id, f.place, owner.Name, hostOf(owner), databaseOf(owner), schema)})
			}
		}
	}
	return out
}

// databaseOf is the database a server's DSN names (the server's default,
// the user's name, when it names none).
func databaseOf(s Server) string {
	cfg, err := dsn.PGConfig(s.DSN)
	if err != nil {
		return ""
	}
	if cfg.Database == "" {
		return cfg.User
	}
	return cfg.Database
}

// describe renders a generator's metadata in one phrase.
func describe(m pgfunc.Meta) string {
	return fmt.Sprintf("shard %d, mode %s, %d/%d/%d bits of %dms since %s", m.Shard, m.Mode, m.TimeBits, m.ShardBits, m.SeqBits,
		m.UnitMS, time.UnixMilli(m.EpochMS).UTC().Format(time.RFC3339Nano))
}

// shardSpans writes ascending shard ids as the map writes them: runs as
// first-last, joined by commas (0-3,8).
func shardSpans(ids []int64) string {
	var b strings.Builder
	for i := 0; i < len(ids); {
		j := i
		for j+1 < len(ids) && ids[j+1] == ids[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%d", ids[i])
		if j > i {
			fmt.Fprintf(&b, "-%d", ids[j])
		}
		i = j + 1
	}
	return b.String()
}
