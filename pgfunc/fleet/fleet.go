package fleet

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/shardid/shardid/pgfunc"
	"github.com/shardid/shardid/pgfunc/inventory"
	"github.com/shardid/shardid/pgfunc/migrate"
	"github.com/shardid/shardid/pgfunc/privilege"
	"github.com/shardid/shardid/pgfunc/resume"
)

// Open opens a pool on the database dsn names, as database (empty: the
// DSN's own), and pings it within 15 seconds. Errors never show the DSN's
// password.
func Open(ctx context.Context, dsn, database string) (*sql.DB, error) {
	return migrate.OpenDatabase(ctx, dsn, database)
}

// ServerResult is what one server of the map did in Up or Down.
type ServerResult struct {
	// Server is the map's server.
	Server Server
	// Results has one entry per shard of the server, in map order. When
	// the server could not be reached every shard fails with that error.
	Results []pgfunc.Result
	// Duration is how long the server took.
	Duration time.Duration
}

// Failed counts the shards of r that failed.
func (r ServerResult) Failed() int {
	n := 0
	for _, x := range r.Results {
		if x.Err != nil {
			n++
		}
	}
	return n
}

// Changed counts the shards of r applied (or removed, or granted).
func (r ServerResult) Changed() int {
	n := 0
	for _, x := range r.Results {
		if x.Applied {
			n++
		}
	}
	return n
}

// FirstErr is the error of the first shard of r that failed, nil when
// none did.
func (r ServerResult) FirstErr() error {
	for _, x := range r.Results {
		if x.Err != nil {
			return x.Err
		}
	}
	return nil
}

// Event is one shard finished on one server, for progress displays.
type Event struct {
	// Server is the server's name in the map.
	Server string
	// Result is the shard's result.
	Result pgfunc.Result
}

// migrator opens server s and builds its Migrator, which sees and locks
// the whole server.
func (m *Map) migrator(ctx context.Context, s Server) (*migrate.Migrator, *sql.DB, error) {
	db, err := Open(ctx, s.DSN, "")
	if err != nil {
		return nil, nil, fmt.Errorf("server %s (%s): %w", s.Name, s.Address, err)
	}
	mig, err := migrate.New(db, m.Options(), migrate.Options{
		Parallel: m.Parallel,
		Connect: func(ctx context.Context, database string) (*sql.DB, error) {
			return Open(ctx, s.DSN, database)
		},
		AllowMixed:           m.AllowMixed,
		AllowUnreadDatabases: m.AllowUnreadDatabases,
		LockTimeout:          m.LockTimeout,
	})
	if err != nil {
		db.Close()
		return nil, nil, err
	}
	return mig, db, nil
}

// run applies op to every server at once and returns the servers'
// results in map order; each, if not nil, is called (one call at a time)
// as shards finish.
func (m *Map) run(ctx context.Context, each func(Event),
	op func(*migrate.Migrator, context.Context, []pgfunc.Shard, func(pgfunc.Result)) ([]pgfunc.Result, error)) []ServerResult {
	out := make([]ServerResult, len(m.Servers))
	var mu sync.Mutex
	report := func(server string, r pgfunc.Result) {
		if each != nil {
			mu.Lock()
			each(Event{Server: server, Result: r})
			mu.Unlock()
		}
	}
	ids := m.identify(ctx)
	var wg sync.WaitGroup
	for i, s := range m.Servers {
		wg.Go(func() {
			start := time.Now()
			shards := m.Schemas(s)
			mig, db, err := m.migrator(ctx, s)
			if err == nil {
				if err = ids[s.Name].problem(m, s); err != nil {
					db.Close()
				}
			}
			var results []pgfunc.Result
			if err != nil {
				for _, sh := range shards {
					r := pgfunc.Result{Shard: sh, Err: err}
					results = append(results, r)
					report(s.Name, r)
				}
			} else {
				results, _ = op(mig, ctx, shards, func(r pgfunc.Result) { report(s.Name, r) }) // a partial error: each result says
				db.Close()
			}
			out[i] = ServerResult{Server: s, Results: results, Duration: time.Since(start)}
		})
	}
	wg.Wait()
	return out
}

// Up installs the map's generator in every shard's schema on its server:
// all servers at once, Map.Parallel schemas at a time within a server,
// under each server's lock (see migrate.Options). A server that is
// down or fails does not stop the others; a rerun applies what is missing
// and touches nothing already done. Nothing is applied through an entry
// that reaches a standby (ErrStandby), or a running server that has the
// system identifier of another entry's but is another server (ErrClone:
// both entries fail), or one that cannot be told from such a copy because
// a system identifier could not be read (ErrUnidentified).
func (m *Map) Up(ctx context.Context, each func(Event)) []ServerResult {
	return m.run(ctx, each, (*migrate.Migrator).Up)
}

// Down removes the generator from every shard's schema of the map (see
// migrate.Migrator.Down), all servers at once.
func (m *Map) Down(ctx context.Context, each func(Event)) []ServerResult {
	return m.run(ctx, each, (*migrate.Migrator).Down)
}

// Grant gives role exactly what drawing IDs needs on every shard of the
// map (privilege.Grant), all servers at once. A server where the grant cannot
// start (no such role there, a superuser) fails all its shards with why.
func (m *Map) Grant(ctx context.Context, role string, each func(Event)) []ServerResult {
	return m.run(ctx, each, func(mig *migrate.Migrator, ctx context.Context, shards []pgfunc.Shard, cb func(pgfunc.Result)) ([]pgfunc.Result, error) {
		res, err := privilege.Grant(ctx, mig.Server().DB(), shards, role, cb)
		if err == nil || pgfunc.IsPartial(err) {
			return res, err
		}
		out := make([]pgfunc.Result, len(shards))
		for i, sh := range shards {
			out[i] = pgfunc.Result{Shard: sh, Err: err}
			cb(out[i])
		}
		return pgfunc.Partial(out)
	})
}

// ServerStatus is the status of one server's shards.
type ServerStatus struct {
	// Server is the map's server.
	Server Server
	// Shards has one entry per shard of the server, in map order.
	Shards []migrate.Status
	// Census is what the server holds beyond the map's shards: the
	// databases the role could not read, kept counters, templates.
	Census inventory.Census
	// Err is why the server could not be read (or is a standby, or a
	// clone of another server of the map, or cannot be told from one:
	// ErrStandby, ErrClone, ErrUnidentified); Shards is then empty.
	Err error
}

// Status reads every server's shards (migrate.Migrator.Status), all servers
// at once.
func (m *Map) Status(ctx context.Context) []ServerStatus {
	out := make([]ServerStatus, len(m.Servers))
	ids := m.identify(ctx)
	var wg sync.WaitGroup
	for i, s := range m.Servers {
		wg.Go(func() {
			out[i].Server = s
			if out[i].Err = ids[s.Name].problem(m, s); out[i].Err != nil {
				return
			}
			mig, db, err := m.migrator(ctx, s)
			if err != nil {
				out[i].Err = err
				return
			}
			defer db.Close()
			out[i].Shards, out[i].Census, out[i].Err = mig.Survey(ctx, m.Schemas(s))
		})
	}
	wg.Wait()
	return out
}

// ServerResumed is what Resume did on one server of the map.
type ServerResumed struct {
	// Server is the map's server.
	Server Server
	// Counters has one entry per counter Resume found on the running
	// server the entry reaches, in every database (see
	// migrate.resume.Run with no shards), mapped or not, and one per
	// mapped shard of the server without a counter (Missing). Database is
	// always set. Empty for an entry reaching the same running server as
	// an earlier entry of the map (SameAs).
	Counters []resume.Resumed
	// SameAs names the earlier entry of the map that reaches the same
	// running server: its run moved this entry's counters too.
	SameAs string
	// Err is why nothing was moved on the server: it could not be
	// reached, is still in recovery (resume.ErrInRecovery), is a clone of
	// another server of the map (ErrClone) or cannot be told from one
	// (ErrUnidentified), or an option was refused.
	Err error
	// Duration is how long the server took.
	Duration time.Duration
}

// Resume moves, on every running server the map's entries reach, the
// counter of every generator of the server past anything an old server
// could have handed out (migrate.resume.Run with no shards: every
// database, mapped shards or not, since a restore or failover brings back
// every generator of the server), once per running server however many
// entries reach it, all servers at once. A counter of no mapped shard says
// so in its Note; a mapped shard without a counter is a Resumed with
// Missing set. An entry that reaches a clone of another entry's server
// (ErrClone), or one that cannot be told from a clone (ErrUnidentified),
// moves nothing: resume one, stop the other. each, if not
// nil, is called (one call at a time) as counters finish, with the name of
// the entry whose run moved them.
func (m *Map) Resume(ctx context.Context, ro resume.Options, each func(server string, r resume.Resumed)) []ServerResumed {
	out := make([]ServerResumed, len(m.Servers))
	ids := m.identify(ctx)
	// The entries of each running server, by the name of its first.
	group := map[string][]int{}
	for i, s := range m.Servers {
		out[i].Server = s
		k := ids[s.Name].key
		group[k] = append(group[k], i)
		if k != s.Name {
			out[i].SameAs = k
		}
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i, s := range m.Servers {
		if out[i].SameAs != "" {
			continue
		}
		wg.Go(func() {
			start := time.Now()
			defer func() { out[i].Duration = time.Since(start) }()
			for _, j := range group[s.Name] {
				if err := ids[m.Servers[j].Name].problem(m, m.Servers[j]); errors.Is(err, ErrClone) || errors.Is(err, ErrUnidentified) {
					out[i].Err = err
					return
				}
			}
			// Which (database, schema) the map puts a shard in.
			mapped := map[[2]string]bool{}
			for _, j := range group[s.Name] {
				db := databaseOf(m.Servers[j])
				for _, sh := range m.Schemas(m.Servers[j]) {
					mapped[[2]string{db, sh.Schema}] = true
				}
			}
			own := databaseOf(s)
			seen := map[[2]string]bool{}
			report := func(r resume.Resumed) {
				if r.Database == "" {
					r.Database = own
				}
				if r.Schema != "" {
					seen[[2]string{r.Database, r.Schema}] = true
					if !mapped[[2]string{r.Database, r.Schema}] && r.Err == nil {
						note := "not in the map: moved too, a restore brings back every generator of the server"
						if !r.Moved {
							note = "not in the map"
						}
						r.Note = strings.TrimPrefix(r.Note+"; "+note, "; ")
					}
				}
				out[i].Counters = append(out[i].Counters, r)
				if each != nil {
					each(s.Name, r)
				}
			}
			mig, db, err := m.migrator(ctx, s)
			if err != nil {
				out[i].Err = err
				return
			}
			defer db.Close()
			if _, err := resume.Run(ctx, mig, nil, ro, func(r resume.Resumed) {
				mu.Lock()
				defer mu.Unlock()
				report(r)
			}); err != nil && !pgfunc.IsPartial(err) { // partial: each counter's result says
				out[i].Err = err
				return
			}
			mu.Lock()
			defer mu.Unlock()
			for _, j := range group[s.Name] {
				db := databaseOf(m.Servers[j])
				for _, sh := range m.Schemas(m.Servers[j]) {
					if !seen[[2]string{db, sh.Schema}] {
						report(resume.Resumed{Database: db, Schema: sh.Schema, Shard: sh.ID, From: -1, To: -1, Missing: true,
							Note: "MISSING: the map puts this shard here, but the schema holds no generator's counter"})
					}
				}
			}
		})
	}
	wg.Wait()
	return out
}
