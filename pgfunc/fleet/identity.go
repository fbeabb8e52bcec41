package fleet

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"time"

	"github.com/shardid/shardid/pgfunc/inventory"
)

// Errors of Up (per shard) and Status (per server) for a map entry that
// is not a server of its own to apply to.
var (
	// ErrClone is returned for a map entry that reaches another running
	// server with the system identifier of another entry's server: a copy
	// of its data directory (pg_basebackup restored beside it, a promoted
	// replica still running beside its old primary). Both would hand out
	// the same IDs, so nothing is applied to either.
	ErrClone = errors.New("server is a clone of another server of the map")
	// ErrStandby is returned for a map entry that reaches a server in
	// recovery (a standby): it hands out no IDs and cannot be applied to.
	ErrStandby = errors.New("server is a standby")
	// ErrUnidentified is returned for a map entry that reaches a running
	// primary when the system identifier of it or of another entry's
	// running primary could not be read (the role may not execute
	// pg_control_system()): whether one is a copy of the other cannot be
	// told, so, as with ErrClone, nothing is applied or moved through it.
	ErrUnidentified = errors.New("server's system identifier could not be read")
)

// identity is who answers on one map entry.
type identity struct {
	inst inventory.Instance
	err  error  // the entry could not be identified (it is reported unreachable when read)
	key  string // one running server, whatever entries reach it: the first entry's name
	// clones are the other entries reaching another running primary with
	// this entry's system identifier (this one a primary too).
	clones []string
	// unknown are the other entries reaching another running primary
	// (this one a primary too) when either system identifier could not be
	// read: clones or not, nobody can tell.
	unknown []string
	system  map[string]string // the system identifier of each unknown entry ("": not read)
}

// problem is why nothing may be applied through this entry, if anything.
func (id *identity) problem(m *Map, s Server) error {
	switch {
	case id == nil || id.err != nil:
		return nil
	case id.inst.Standby:
		return fmt.Errorf("%w: server %s (%s) is in recovery; apply to its primary, and take the standby out of the map", ErrStandby, s.Name, s.Address)
	case len(id.clones) > 0:
		return fmt.Errorf("%w: server %s (%s, started %s) and %s are different running servers with one system identifier %s, copies of one data directory (pg_basebackup, a promoted replica): both would hand out the same IDs; stop one, or make it a cluster of its own (initdb, then move shards with pg_dump -n)",
			ErrClone, s.Name, s.Address, id.inst.Started.UTC().Format(time.RFC3339), m.describe(id.clones), id.inst.System)
	case len(id.unknown) > 0:
		return fmt.Errorf("%w: %s", ErrUnidentified, id.doubt(m, s))
	}
	return nil
}

// doubt says why nobody can tell whether the entry s, of identity id, and
// the entries of id.unknown reach copies of one data directory.
func (id *identity) doubt(m *Map, s Server) string {
	return fmt.Sprintf("%s: whether server %s (%s) is a copy of one data directory with %s, which would hand out the same IDs, cannot be told; grant EXECUTE ON FUNCTION pg_catalog.pg_control_system() to the map's role there (PostgreSQL grants it to PUBLIC unless it was revoked)",
		m.unreadSystems(s.Name, id), s.Name, s.Address, m.describe(id.unknown))
}

// unreadSystems names the servers among s and id's unknown ones whose
// system identifier could not be read.
func (m *Map) unreadSystems(name string, id *identity) string {
	var names []string
	if id.inst.System == "" {
		names = append(names, name)
	}
	for _, o := range id.unknown {
		if id.system[o] == "" {
			names = append(names, o)
		}
	}
	return "the system identifier of server " + strings.Join(names, " and server ") + " could not be read"
}

// describe names map entries with their addresses, for messages.
func (m *Map) describe(names []string) string {
	var out []string
	for _, name := range names {
		o := m.server(name)
		out = append(out, fmt.Sprintf("server %s (%s)", o.Name, o.Address))
	}
	return strings.Join(out, " and ")
}

// server returns the map's server called name.
func (m *Map) server(name string) Server {
	for _, s := range m.Servers {
		if s.Name == name {
			return s
		}
	}
	return Server{Name: name}
}

// identify finds out which map entries reach one running server (each
// entry marks a session of its own; an entry that sees another's mark
// reaches the same server, since a copy of a data directory cannot carry
// a lock held in memory), which are standbys, and which reach different
// running primaries with one system identifier: clones. It returns the
// identity of each entry by name.
func (m *Map) identify(ctx context.Context) map[string]*identity {
	out := make(map[string]*identity, len(m.Servers))
	conns := make([]*sql.Conn, len(m.Servers))
	keys := make([]int32, len(m.Servers))
	ids := make([]*identity, len(m.Servers))
	var closers []func()
	var mu sync.Mutex
	defer func() {
		for _, c := range closers {
			c()
		}
	}()
	// Each entry's session reads who answers and takes its mark ...
	var wg sync.WaitGroup
	for i, s := range m.Servers {
		ids[i] = &identity{key: s.Name}
		wg.Go(func() {
			db, err := Open(ctx, s.DSN, "")
			if err != nil {
				ids[i].err = err
				return
			}
			conn, err := db.Conn(ctx)
			mu.Lock()
			closers = append(closers, func() {
				if conn != nil {
					conn.Close()
				}
				db.Close()
			})
			mu.Unlock()
			if err != nil {
				ids[i].err = err
				return
			}
			if ids[i].inst, err = inventory.ReadInstance(ctx, conn); err != nil {
				ids[i].err = err
				return
			}
			for range 8 {
				k := rand.Int32N(1<<31 - 1)
				got, err := inventory.Mark(ctx, conn, k)
				if err != nil {
					ids[i].err = err
					return
				}
				if got {
					conns[i], keys[i] = conn, k
					return
				}
			}
			ids[i].err = errors.New("could not take a mark of its own: every key tried was held")
		})
	}
	wg.Wait()
	// ... then lists the marks its server holds: every entry whose mark
	// it sees reaches the same running server.
	owner := map[int32]int{}
	for i, c := range conns {
		if c != nil {
			owner[keys[i]] = i
		}
	}
	sees := make([][]int, len(m.Servers))
	for i, c := range conns {
		if c == nil {
			continue
		}
		wg.Go(func() {
			marks, err := inventory.Marks(ctx, c)
			if err != nil {
				ids[i].err = err
				return
			}
			for _, k := range marks {
				if j, ok := owner[k]; ok && j != i {
					sees[i] = append(sees[i], j)
				}
			}
		})
	}
	wg.Wait()
	// One running server per group of entries that see each other, named
	// after its first entry in map order.
	root := make([]int, len(m.Servers))
	for i := range root {
		root[i] = i
	}
	var find func(int) int
	find = func(i int) int {
		if root[i] != i {
			root[i] = find(root[i])
		}
		return root[i]
	}
	for i := range m.Servers {
		for _, j := range sees[i] {
			if a, b := find(i), find(j); a != b {
				root[max(a, b)] = min(a, b)
			}
		}
	}
	for i := range m.Servers {
		ids[i].key = m.Servers[find(i)].Name
	}
	// Different running primaries with one system identifier: clones.
	for i, a := range ids {
		for j, b := range ids {
			if i != j && a.err == nil && b.err == nil && a.inst.System != "" && a.inst.System == b.inst.System &&
				a.key != b.key && !a.inst.Standby && !b.inst.Standby {
				a.clones = append(a.clones, m.Servers[j].Name)
			}
		}
	}
	// Different running primaries, one of whose system identifiers could
	// not be read: clones or not, nobody can tell.
	for i, a := range ids {
		for j, b := range ids {
			if i != j && a.err == nil && b.err == nil && (a.inst.System == "" || b.inst.System == "") &&
				a.key != b.key && !a.inst.Standby && !b.inst.Standby {
				a.unknown = append(a.unknown, m.Servers[j].Name)
				if a.system == nil {
					a.system = map[string]string{}
				}
				a.system[m.Servers[j].Name] = b.inst.System
			}
		}
	}
	for i, s := range m.Servers {
		out[s.Name] = ids[i]
	}
	return out
}
