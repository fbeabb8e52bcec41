package bench

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"text/template"
	"time"
)

// Errors returned by RunPG and RunTiDB.
var (
	// ErrInvalidSettings is returned when a Settings field is out of
	// range; the message names the field and what it allows.
	ErrInvalidSettings = errors.New("invalid settings")
	// ErrExists is returned when a schema or database the bench would
	// create already exists: the bench works only in its own, and never
	// drops one it did not create.
	ErrExists = errors.New("already exists")
	// ErrDuplicates is returned, together with the complete report, when a
	// generator that must never repeat an ID did. It is a bug in that
	// generator (or in the server), never noise.
	ErrDuplicates = errors.New("a generator that must never repeat an ID repeated one")
)

// Defaults of the Settings fields.
const (
	DefaultRounds  = 5
	DefaultClients = 2
	DefaultCalls   = 500_000
	DefaultRows    = 4000
	DefaultBatches = 300
	DefaultIDs     = 2000
	// BatchRows is the number of rows of one batched INSERT statement.
	BatchRows = 100
	// InMemoryFactor is how many more IDs per client the methods that
	// serve IDs from memory (segments, leased generators) draw per round
	// than those that ask the server for each.
	InMemoryFactor = 100
)

// Settings says how much to measure. Every zero value means the default
// named beside it, so Settings{} is a full run.
type Settings struct {
	// Rounds is how many times every body is measured: 1–1000, 0 for
	// DefaultRounds.
	Rounds int `json:"rounds"`
	// Clients is how many connections insert (and draw IDs) at once:
	// 1–64, 0 for DefaultClients.
	Clients int `json:"clients"`
	// Calls is how many IDs one statement makes for the server-side cost
	// and the duplicate count (PostgreSQL only): 1–100,000,000, 0 for
	// DefaultCalls.
	Calls int `json:"calls"`
	// Rows is how many single-row INSERT statements each client runs per
	// table per round: 1–10,000,000, 0 for DefaultRows.
	Rows int `json:"rows"`
	// Batches is how many BatchRows-row INSERT statements each client runs
	// per table per round: 1–1,000,000, 0 for DefaultBatches.
	Batches int `json:"batches"`
	// IDs is how many IDs each client draws per round from a method that
	// asks the server for each one (InMemoryFactor times as many from
	// segments and leased generators): 1–100,000, since every ID is kept
	// to count repeats; 0 for DefaultIDs.
	IDs int `json:"ids"`
	// Progress, when set, is called before every measurement.
	Progress func(Step) `json:"-"`
	// Peers are SQL expressions RunPG measures beside shardid's
	// generators (PostgreSQL only).
	Peers []Peer `json:"peers,omitempty"`

	// afterSetup, when set (tests only), runs after the bench's objects
	// are created and before anything is measured.
	afterSetup func(ctx context.Context) error
	// proc, when set (tests only), is where RunPG looks for the server's
	// processes instead of /proc.
	proc string
}

// Limit is the range of one of Settings' counts: 1 to Max, 0 for Default.
type Limit struct {
	// Name is the count's name in messages (the CLI flag's name).
	Name string
	// Default is what 0 stands for; Max the largest value allowed.
	Default, Max int
	// Field returns the count in s.
	Field func(s *Settings) *int
}

// Limits are the ranges of Settings' counts, in field order.
var Limits = []Limit{
	{"rounds", DefaultRounds, 1000, func(s *Settings) *int { return &s.Rounds }},
	{"clients", DefaultClients, 64, func(s *Settings) *int { return &s.Clients }},
	{"calls", DefaultCalls, 100_000_000, func(s *Settings) *int { return &s.Calls }},
	{"rows", DefaultRows, 10_000_000, func(s *Settings) *int { return &s.Rows }},
	{"batches", DefaultBatches, 1_000_000, func(s *Settings) *int { return &s.Batches }},
	{"ids", DefaultIDs, 100_000, func(s *Settings) *int { return &s.IDs }},
}

// normalize fills in the defaults and checks the ranges.
func (s Settings) normalize() (Settings, error) {
	for _, l := range Limits {
		v := l.Field(&s)
		if *v == 0 {
			*v = l.Default
		}
		if *v < 1 || *v > l.Max {
			return s, fmt.Errorf("%w: %s %d (allowed 1-%d, or 0 for %d)", ErrInvalidSettings, l.Name, *v, l.Max, l.Default)
		}
	}
	return s, nil
}

// Step is what Settings.Progress hears before each measurement.
type Step struct {
	// Done is the number of measurements finished; Total those of the
	// whole run.
	Done, Total int
	// Round is the round under way (1-based), of Rounds.
	Round, Rounds int
	// What names the measurement about to start.
	What string
}

// progress counts the steps of a run and reports them.
type progress struct {
	s     Settings
	done  int
	total int
	round int
}

// next reports the measurement about to start.
func (p *progress) next(what string) {
	if p.s.Progress != nil {
		p.s.Progress(Step{Done: p.done, Total: p.total, Round: p.round, Rounds: p.s.Rounds, What: what})
	}
	p.done++
}

// Stat is one figure over the rounds of a run: the median and the range.
type Stat struct {
	Median float64 `json:"median"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
}

// statOf returns the median and range of name's samples.
func statOf(s *Samples, name string) Stat {
	lo, hi := s.Range(name)
	return Stat{Median: s.Median(name), Min: lo, Max: hi}
}

// Machine says where a run happened, so figures can be compared.
type Machine struct {
	Go   string `json:"go"`
	OS   string `json:"os"`
	Arch string `json:"arch"`
	CPUs int    `json:"cpus"`
	// LoadStart and LoadEnd are the 1, 5 and 15 minute load averages
	// before and after the run (Linux; empty elsewhere): other work on
	// the machine widens the ranges.
	LoadStart string `json:"load_start,omitempty"`
	LoadEnd   string `json:"load_end,omitempty"`
}

// ThisMachine describes this machine now (LoadStart set), for reports of
// other packages; LoadAvg reads the load again at their end.
func ThisMachine() Machine { return machine() }

// LoadAvg is the 1, 5 and 15 minute load averages (Linux; "" elsewhere).
func LoadAvg() string { return loadAvg() }

// machine describes this machine now.
func machine() Machine {
	return Machine{Go: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH, CPUs: runtime.NumCPU(), LoadStart: loadAvg()}
}

// loadAvg returns the first three fields of /proc/loadavg, or "".
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) >= 3 {
		return strings.Join(f[:3], " ")
	}
	return ""
}

// Run is what every report says about its run.
type Run struct {
	// Server is the server's version string.
	Server string `json:"server"`
	// Settings are the settings used, defaults filled in.
	Settings Settings `json:"settings"`
	// Machine is where the bench ran (the client's side).
	Machine Machine `json:"machine"`
	// Started is when the run began; Seconds how long it took.
	Started time.Time `json:"started"`
	Seconds float64   `json:"seconds"`
}

// InsertPhase is one way of inserting, measured for every key.
type InsertPhase struct {
	// Name says how: "single-row, synchronous_commit on".
	Name string `json:"name"`
	// RowsPerStatement is 1 or BatchRows; every statement commits.
	RowsPerStatement int `json:"rows_per_statement"`
	// SynchronousCommit is "on" or "off" on PostgreSQL, "" on TiDB.
	SynchronousCommit string `json:"synchronous_commit,omitempty"`
	// Keys holds one row per table, the baseline first.
	Keys []InsertRow `json:"keys"`
}

// InsertRow is one table's figures in one phase.
type InsertRow struct {
	// Key names the table's key: "bigserial", "unique", "auto_random", ….
	Key string `json:"key"`
	// RowsPerSecond counts the rows of all clients together.
	RowsPerSecond Stat `json:"rows_per_second"`
	// VsBase is RowsPerSecond as a multiple of the baseline's in the same
	// round.
	VsBase Stat `json:"x_base"`
	// DuplicateKeys is the number of statements the server refused for a
	// duplicate key, over all rounds (each counted as done: it cost the
	// server the same work).
	DuplicateKeys int64 `json:"duplicate_keys"`
	// MustBeUnique is set for keys whose generator may never repeat.
	MustBeUnique bool `json:"must_be_unique"`
}

// IDRow is one way of getting IDs, measured by
type IDRow struct {
	// Method names it: "nextval", "segments", "leased", ….
	Method string `json:"method"`
	// IDsPerClient is the number of IDs each client drew per round.
	IDsPerClient int `json:"ids_per_client"`
	// PerClient is IDs per second per client.
	PerClient Stat `json:"ids_per_second_per_client"`
	// VsBase is PerClient as a multiple of the baseline's in the same
	// round.
	VsBase Stat `json:"x_base"`
	// RoundTripsPer1000 counts database round trips (on the wire) per
	// 1,000 IDs.
	RoundTripsPer1000 Stat `json:"round_trips_per_1000"`
	// Duplicates is the number of IDs, over all rounds, that repeated an
	// earlier one of the same round; always 0 for these methods unless
	// something is broken.
	Duplicates int64 `json:"duplicates"`
}

// cause returns err, or ctx's error with err beside it when ctx ended: a
// query cancelled half-way reports a broken connection, not why.
func cause(ctx context.Context, err error) error {
	if ctx.Err() != nil && !errors.Is(err, ctx.Err()) {
		return fmt.Errorf("%w (%v)", ctx.Err(), err)
	}
	return err
}

// rotated returns xs starting at element round%len(xs), wrapping around,
// so that no body is always measured first or right after another.
func rotated[T any](xs []T, round int) []T {
	k := round % len(xs)
	return append(append([]T(nil), xs[k:]...), xs[:k]...)
}

// idRound measures every method once (in rotated order) with clients
// clients and adds to s, per method m: "ids/m", "rt/m" and, once all ran,
// "idsx/m" against the method its Vs names (the first method when "").
// Repeated IDs are added to dups.
func idRound(ctx context.Context, p *progress, methods []Method, ctr *Counter, s *Samples, dups map[string]int64) error {
	rate := map[string]float64{}
	for _, m := range rotated(methods, p.round) {
		p.next("IDs from " + m.Name)
		r, rep, err := m.Run(ctx, p.s.Clients, ctr)
		if err != nil {
			return err
		}
		rate[m.Name] = r.PerClient
		s.Add("ids/"+m.Name, r.PerClient)
		s.Add("rt/"+m.Name, r.RoundTripsPer1000)
		dups[m.Name] += rep
	}
	for _, m := range methods {
		base := methods[0].Name
		if m.Vs != "" {
			base = m.Vs
		}
		s.Add("idsx/"+m.Name, rate[m.Name]/rate[base])
	}
	return nil
}

// idRows returns the figures idRound collected.
func idRows(methods []Method, s *Samples, dups map[string]int64) []IDRow {
	rows := make([]IDRow, 0, len(methods))
	for _, m := range methods {
		rows = append(rows, IDRow{Method: m.Name, IDsPerClient: m.IDs, PerClient: statOf(s, "ids/"+m.Name),
			VsBase: statOf(s, "idsx/"+m.Name), RoundTripsPer1000: statOf(s, "rt/"+m.Name), Duplicates: dups[m.Name]})
	}
	return rows
}

// inserter runs one INSERT statement for one client.
type inserter func(ctx context.Context) error

// insertRun runs perClient statements on every client's inserter at once
// and returns the statements per second of all clients together and the
// number the server refused as a duplicate key (isDup), which count as
// done. Any other error ends the run.
func insertRun(ctx context.Context, clients []inserter, perClient int, isDup func(error) bool) (float64, int64, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var dups atomic.Int64
	var stop sync.Once
	var first error // the error that stopped the run, not the cancellations it caused
	next := 0
	r, err := Drive(ctx, len(clients), perClient, nil, func() (Draw, error) {
		ins := clients[next]
		next++
		return func(ctx context.Context) (int64, error) {
			err := ins(ctx)
			switch {
			case err == nil:
			case isDup(err):
				dups.Add(1)
				return 0, nil
			default:
				stop.Do(func() { first = err; cancel() })
			}
			return 0, err
		}, nil
	})
	if first != nil {
		return 0, 0, first
	}
	if err != nil {
		return 0, 0, err
	}
	return r.PerClient * float64(len(clients)), dups.Load(), nil
}

// templates are the bench's statements (sql/ beside this file).
var templates = template.Must(template.ParseFS(templateFS, "sql/*.sql.tmpl"))

// render executes the named statement template.
func render(name string, data any) (string, error) {
	var b bytes.Buffer
	if err := templates.ExecuteTemplate(&b, name, data); err != nil {
		return "", fmt.Errorf("render %s: %w", name, err)
	}
	return b.String(), nil
}

// exec renders the named statement with data and runs it.
func exec(ctx context.Context, db *sql.DB, name string, data any, args ...any) error {
	q, err := render(name, data)
	if err != nil {
		return err
	}
	_, err = db.ExecContext(ctx, q, args...)
	return err
}

// queryRow renders the named query with data and scans its one row into
// dest.
func queryRow(ctx context.Context, db *sql.DB, name string, data any, dest ...any) error {
	q, err := render(name, data)
	if err != nil {
		return err
	}
	return db.QueryRowContext(ctx, q).Scan(dest...)
}

// insertRound runs the phase once for every key (in rotated order), each
// client's inserters made by clients, and adds to s "ins/<phase>/<key>"
// (rows per second) and, once all ran, "insx/<phase>/<key>" against the
// first key. Statements refused as duplicate keys are added to dups under
// the same name as the rate.
func insertRound(ctx context.Context, p *progress, ph InsertPhase, keys []string, clients func(key string) ([]inserter, error),
	isDup func(error) bool, s *Samples, dups map[string]int64) error {
	per := p.s.Rows
	if ph.RowsPerStatement > 1 {
		per = p.s.Batches
	}
	rate := map[string]float64{}
	for _, k := range rotated(keys, p.round) {
		p.next("INSERT into " + k + ", " + ph.Name)
		ins, err := clients(k)
		if err != nil {
			return err
		}
		r, d, err := insertRun(ctx, ins, per, isDup)
		if err != nil {
			return fmt.Errorf("INSERT into %s, %s: %w", k, ph.Name, err)
		}
		rate[k] = r * float64(ph.RowsPerStatement)
		s.Add("ins/"+ph.Name+"/"+k, rate[k])
		dups["ins/"+ph.Name+"/"+k] += d
	}
	for _, k := range keys {
		s.Add("insx/"+ph.Name+"/"+k, rate[k]/rate[keys[0]])
	}
	return nil
}

// insertRowOf returns the figures insertRound collected for key in phase.
func insertRowOf(s *Samples, dups map[string]int64, phase, key string, unique bool) InsertRow {
	name := phase + "/" + key
	return InsertRow{Key: key, RowsPerSecond: statOf(s, "ins/"+name), VsBase: statOf(s, "insx/"+name),
		DuplicateKeys: dups["ins/"+name], MustBeUnique: unique}
}

// repeats lists, one phrase each, the INSERT keys and ID methods that must
// never repeat an ID and did.
func repeats(phases []InsertPhase, ids []IDRow) []string {
	var bad []string
	for _, ph := range phases {
		for _, k := range ph.Keys {
			if k.MustBeUnique && k.DuplicateKeys > 0 {
				bad = append(bad, fmt.Sprintf("INSERT into %s (%s): %d statements refused for a duplicate key", k.Key, ph.Name, k.DuplicateKeys))
			}
		}
	}
	for _, r := range ids {
		if r.Duplicates > 0 {
			bad = append(bad, fmt.Sprintf("%s: %d repeated IDs", r.Method, r.Duplicates))
		}
	}
	return bad
}

// duplicatesError returns nil for no findings, else ErrDuplicates with
// them.
func duplicatesError(bad []string) error {
	if len(bad) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %s", ErrDuplicates, strings.Join(bad, "; "))
}
