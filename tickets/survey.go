package tickets

import (
	"context"
	"errors"
	"time"
)

// ServerStatus is one server of a ticket name as Survey read it.
type ServerStatus struct {
	// Name is the Server's name.
	Name string
	// Settings is Read's answer, with Server set to Name; zero when Err
	// is set.
	Settings ServerSettings
	// Class is the class table's row of the server's offset, merged over
	// every server read (MergeClass).
	Class ClassRow
	// HasClass is false when the server holds no class table the role may
	// see (ErrNoClassTable): rewinds are not recorded there.
	HasClass bool
	// Err says why the server could not be read.
	Err error
	// TimedOut is true when Err came from the server not answering within
	// Survey's timeout.
	TimedOut bool
	// Behind is, for a table server, how many tickets of its class it
	// stands behind the furthest table server that no resume moved ahead
	// (Survey's Top); 0 for a sequence.
	Behind int64
}

// Lagging reports a table server further behind the furthest one than
// DefaultMaxLag tickets although no client recorded a ticket of it above
// its counter: down for a while, or its data went back past what clients
// recorded.
func (s ServerStatus) Lagging() bool {
	return s.Err == nil && s.Settings.Kind == KindTable && s.Behind > DefaultMaxLag && s.Class.Seen <= s.Settings.Last
}

// Survey reads every server of ticket name name, each reading within
// timeout: every server's class table first, then every counter (a
// counter read before a record clients wrote meanwhile could look below
// it). It returns a ServerStatus per server, in the order given, and top,
// the furthest counter of a table server that no resume moved ahead,
// against which Behind is measured. A server that cannot be read has its
// Err set; the others' statuses stand.
func Survey(ctx context.Context, servers []Server, name string, timeout time.Duration) (got []ServerStatus, top int64) {
	got = make([]ServerStatus, len(servers))
	rows := make([][]ClassRow, len(servers))
	read := func(g *ServerStatus, f func(context.Context) error) {
		rctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		g.Err = f(rctx)
		g.TimedOut = g.Err != nil && errors.Is(rctx.Err(), context.DeadlineExceeded)
	}
	for i, s := range servers {
		g := &got[i]
		g.Name = s.Name
		read(g, func(ctx context.Context) (err error) { rows[i], err = ReadClass(ctx, s.DB, name); return err })
		g.HasClass = g.Err == nil
		if errors.Is(g.Err, ErrNoClassTable) {
			g.Err = nil
		}
	}
	for i, s := range servers {
		if g := &got[i]; g.Err == nil {
			read(g, func(ctx context.Context) (err error) { g.Settings, err = Read(ctx, s.DB, name); return err })
			g.Settings.Server = s.Name
		}
		if got[i].Err != nil {
			rows[i] = nil // only what servers read whole tell
		}
	}
	class := map[int64]ClassRow{}
	for _, r := range MergeClass(rows...) {
		class[r.Offset] = r
	}
	for i := range got {
		g := &got[i]
		if g.Err != nil {
			g.Settings = ServerSettings{}
			continue
		}
		g.Class = class[g.Settings.Offset]
		if g.Settings.Kind == KindTable && !Resumed(g.Settings, g.Class) {
			top = max(top, g.Settings.Last)
		}
	}
	for i := range got {
		if g := &got[i]; g.Err == nil && g.Settings.Kind == KindTable {
			g.Behind = max(top-g.Settings.Last, 0) / g.Settings.Increment
		}
	}
	return got, top
}
