package tickets

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// Defaults of ClientSettings.
const (
	// DefaultRetryAfter is how long a server that failed is passed over.
	DefaultRetryAfter = time.Second
	// DefaultTimeout bounds one draw on one server.
	DefaultTimeout = 2 * time.Second
)

// More sentinel errors of the Client; check them with errors.Is.
var (
	// ErrNoServer is returned by Client.Next when no server could draw; it
	// wraps every server's error.
	ErrNoServer = errors.New("no ticket server could draw")
	// ErrWrongClass is returned (as a server's error) when a server hands
	// out a ticket outside its residue class: its settings changed after
	// they were checked. The client never uses that server again.
	ErrWrongClass = errors.New("ticket outside the server's class")
)

// Server is one ticket server: a pool over a MySQL, MariaDB or TiDB
// database holding the ticket name.
type Server struct {
	// Name names the server in messages; never put a password in it.
	Name string
	// DB is the server's connection pool.
	DB *sql.DB
}

// ClientSettings configures a Client. Only Name is required; the zero value
// of every other field means the documented default.
type ClientSettings struct {
	// Name is the ticket name on every server.
	Name string
	// RetryAfter is how long a server that failed is passed over before it
	// is tried again; 0 means DefaultRetryAfter. When every server has
	// failed, all are tried at once.
	RetryAfter time.Duration
	// Timeout bounds one draw on one server; 0 means DefaultTimeout.
	Timeout time.Duration
	// AllowLossyCommit accepts MySQL and MariaDB servers that may lose
	// acknowledged commits in a crash (see ErrLossyCommit). LIMIT: a
	// ticket drawn just before such a crash can be drawn again after it.
	AllowLossyCommit bool
	// Clock returns the current time, for RetryAfter; nil means time.Now.
	Clock func() time.Time
}

// Client draws tickets from several servers of one name, spreading draws
// over them in turn and passing over a server that fails until RetryAfter
// has passed. Before a server is used its settings are read from it and
// checked against the others' (Check); every ticket is then verified to lie
// in its server's residue class, so no two servers' tickets can ever be
// equal within or across clients, and each server's counter never repeats
// a value it committed. It is safe for concurrent use.
type Client struct {
	set     ClientSettings
	servers []*server
	turn    atomic.Uint64

	mu      sync.Mutex // guards reading and checking a server's settings
	checked []ServerSettings

	unchecked bool // tests only: no class check, for negative controls
}

// server is one Server and what the client knows of it.
type server struct {
	Server
	draws atomic.Int64

	mu        sync.Mutex
	settings  *ServerSettings // nil until read and checked
	draw      string          // the draw statement for its kind and dialect
	explain   string
	downUntil time.Time
	lastErr   error
	refused   error // permanent: the server is never used again
}

// ServerState is what a Client knows of one server.
type ServerState struct {
	// Name is the server's name.
	Name string
	// Settings are the server's, once read (nil before).
	Settings *ServerSettings
	// Draws is the number of tickets drawn from it.
	Draws int64
	// Down is true while the server is passed over after an error.
	Down bool
	// LastErr is the server's last error (nil after a successful draw).
	LastErr error
	// Refused is set when the client will never use the server again.
	Refused error
}

// NewClient reads the settings of ticket name s.Name from every server and
// checks them (Check), then returns a client over them. A server that does
// not answer now is read and checked when it first answers, and is refused
// for good if it overlaps. It returns errors wrapping ErrInvalidSettings,
// ErrIncrementMismatch, ErrOverlap, and ErrNoServer when no server answers.
func NewClient(ctx context.Context, servers []Server, s ClientSettings) (*Client, error) {
	if err := CheckName(s.Name); err != nil {
		return nil, err
	}
	if len(servers) == 0 {
		return nil, fmt.Errorf("%w: no servers given", ErrNoServer)
	}
	if s.RetryAfter <= 0 {
		s.RetryAfter = DefaultRetryAfter
	}
	if s.Timeout <= 0 {
		s.Timeout = DefaultTimeout
	}
	if s.Clock == nil {
		s.Clock = time.Now
	}
	c := &Client{set: s}
	read := make([]error, len(servers))
	var wg sync.WaitGroup
	for i, sv := range servers {
		srv := &server{Server: sv}
		c.servers = append(c.servers, srv)
		wg.Add(1)
		go func() {
			defer wg.Done()
			rctx, cancel := context.WithTimeout(ctx, s.Timeout)
			defer cancel()
			read[i] = c.load(rctx, srv, false)
		}()
	}
	wg.Wait()
	if err := Check(c.checked); err != nil {
		return nil, err
	}
	var errs []error
	for i, srv := range c.servers {
		if read[i] != nil {
			srv.lastErr, srv.downUntil = read[i], s.Clock().Add(s.RetryAfter)
			errs = append(errs, fmt.Errorf("%s: %w", srv.Name, read[i]))
		}
	}
	if len(errs) == len(servers) {
		return nil, fmt.Errorf("%w: %w", ErrNoServer, errors.Join(errs...))
	}
	return c, nil
}

// load reads srv's settings; with check, it checks them against the
// servers read before and refuses srv for good when they clash.
func (c *Client) load(ctx context.Context, srv *server, check bool) error {
	got, err := Read(ctx, srv.DB, c.set.Name)
	if err != nil {
		return err
	}
	got.Server = srv.Name
	v := newView(got.Dialect, Settings{Name: c.set.Name, Kind: got.Kind})
	v.Guard = v.Guard && !c.set.AllowLossyCommit
	draw, err := v.render("draw")
	if err != nil {
		return err
	}
	explain, err := v.render("explain")
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	srv.mu.Lock()
	loaded := srv.settings != nil
	srv.mu.Unlock()
	if loaded {
		return nil // another draw read it first; it must not be checked against itself
	}
	if check && !c.unchecked {
		if err := Check(append(c.checked[:len(c.checked):len(c.checked)], got)); err != nil {
			srv.mu.Lock()
			srv.refused = err
			srv.mu.Unlock()
			return err
		}
	}
	c.checked = append(c.checked, got)
	srv.mu.Lock()
	srv.settings, srv.draw, srv.explain = &got, draw, explain
	srv.mu.Unlock()
	return nil
}

// Next draws one ticket. It asks the servers in turn, starting with the
// next one, passing over those that failed less than RetryAfter ago; when
// every other server fails too, those are asked as well. It returns ctx's
// error when ctx ends, and an error wrapping ErrNoServer and every server's
// error when no server could draw.
func (c *Client) Next(ctx context.Context) (int64, error) {
	n := len(c.servers)
	first := int(c.turn.Add(1) % uint64(n))
	now := c.set.Clock()
	order := make([]*server, 0, n)
	var later []*server // down: asked after the others
	var errs []error
	for i := range n {
		srv := c.servers[(first+i)%n]
		srv.mu.Lock()
		refused, down := srv.refused, now.Before(srv.downUntil)
		srv.mu.Unlock()
		switch {
		case refused != nil:
			errs = append(errs, fmt.Errorf("%s: %w", srv.Name, refused))
		case down:
			later = append(later, srv)
		default:
			order = append(order, srv)
		}
	}
	for _, srv := range append(order, later...) {
		id, err := c.drawFrom(ctx, srv)
		if err == nil {
			return id, nil
		}
		if ctx.Err() != nil {
			return 0, ctx.Err()
		}
		errs = append(errs, fmt.Errorf("%s: %w", srv.Name, err))
	}
	return 0, fmt.Errorf("%w %s: %w", ErrNoServer, c.set.Name, errors.Join(errs...))
}

// drawFrom draws one ticket from srv, reading and checking its settings
// first if that has not happened yet, and records the outcome.
func (c *Client) drawFrom(ctx context.Context, srv *server) (int64, error) {
	dctx, cancel := context.WithTimeout(ctx, c.set.Timeout)
	defer cancel()
	id, err := c.try(dctx, srv)
	srv.mu.Lock()
	defer srv.mu.Unlock()
	switch {
	case err == nil:
		srv.lastErr, srv.downUntil = nil, time.Time{}
		srv.draws.Add(1)
	case errors.Is(err, ErrWrongClass):
		srv.refused = err
	case ctx.Err() == nil:
		srv.lastErr, srv.downUntil = err, c.set.Clock().Add(c.set.RetryAfter)
	}
	return id, err
}

// try runs one draw on srv and checks the ticket's class.
func (c *Client) try(ctx context.Context, srv *server) (int64, error) {
	srv.mu.Lock()
	set, draw, explain := srv.settings, srv.draw, srv.explain
	srv.mu.Unlock()
	if set == nil {
		if err := c.load(ctx, srv, true); err != nil {
			return 0, err
		}
		srv.mu.Lock()
		set, draw, explain = srv.settings, srv.draw, srv.explain
		srv.mu.Unlock()
	}
	var id int64
	if set.Kind == KindSequence {
		if err := srv.DB.QueryRowContext(ctx, draw).Scan(&id); err != nil {
			return 0, err
		}
	} else {
		res, err := srv.DB.ExecContext(ctx, draw)
		if err != nil {
			return 0, err
		}
		if n, err := res.RowsAffected(); err != nil || n != 1 {
			return 0, c.whyNoRow(ctx, srv.DB, explain)
		}
		if id, err = res.LastInsertId(); err != nil {
			return 0, err
		}
	}
	if !c.unchecked && (id < 1 || id%set.Increment != set.Offset%set.Increment) {
		return 0, fmt.Errorf("%w: %d is not %d modulo %d", ErrWrongClass, id, set.Offset%set.Increment, set.Increment)
	}
	return id, nil
}

// whyNoRow says why a draw matched no row: the row is gone, or the server
// may lose acknowledged commits.
func (c *Client) whyNoRow(ctx context.Context, db *sql.DB, explain string) error {
	var rows int
	var settings string
	if err := db.QueryRowContext(ctx, explain).Scan(&rows, &settings); err != nil {
		return fmt.Errorf("draw matched no row: %w", err)
	}
	if rows == 0 {
		return fmt.Errorf("%w: table %s has no ticket row (stub 'a')", ErrNoTickets, c.set.Name)
	}
	return fmt.Errorf("%w (%s): a crash could hand out the same tickets again; set innodb_flush_log_at_trx_commit=1 and, with a binary log, sync_binlog=1, or accept the risk with AllowLossyCommit", ErrLossyCommit, settings)
}

// Servers reports what the client knows of each server, in the order
// given to NewClient.
func (c *Client) Servers() []ServerState {
	now := c.set.Clock()
	out := make([]ServerState, len(c.servers))
	for i, srv := range c.servers {
		srv.mu.Lock()
		out[i] = ServerState{Name: srv.Name, Settings: srv.settings, Draws: srv.draws.Load(),
			Down: now.Before(srv.downUntil), LastErr: srv.lastErr, Refused: srv.refused}
		srv.mu.Unlock()
	}
	return out
}
