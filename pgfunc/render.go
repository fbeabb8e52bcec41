package pgfunc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"text/template"
	"time"

	"github.com/shardid/shardid"
	"github.com/shardid/shardid/pgfunc/internal/sqlt"
)

// Mode selects the body of the generated next_id() function.
type Mode string

const (
	// ModeUnique (the default) never returns the same ID twice for a
	// shard: not on bursts past 2^SeqBits IDs per tick (it borrows the
	// following ticks), not across concurrent sessions, not when the clock
	// steps back, not after a crash (docs/guarantees.md says exactly what
	// holds, and when). Its schema gets next_id() for DEFAULT and
	// single-row statements (PL/pgSQL: planned like nextval()),
	// next_id_bulk() for statements that draw many IDs (one inlinable SQL
	// expression) and next_ids(n) for n IDs at once. A draw costs about two
	// sequence reads over the classic body, plus a short locked jump about
	// once per ShortTick per shard at ordinary rates; a transaction that
	// draws further ahead of the clock than ShortTick without a transaction
	// id takes the slow path once, to commit durably.
	ModeUnique Mode = "unique"
	// ModeClassic is Instagram's lock-free design as one PL/pgSQL RETURN
	// expression: nextval % 2^SeqBits as the sequence field. LIMIT: more
	// than 2^SeqBits calls for a shard within one tick, concurrent sessions
	// straddling a tick, or a clock stepped back return duplicate IDs.
	ModeClassic Mode = "classic"
	// ModeClassicSQL is the classic design as an inlinable LANGUAGE sql
	// function, the cheapest body, with the same LIMIT as ModeClassic.
	ModeClassicSQL Mode = "classic-sql"
)

// Modes lists the accepted modes, default first.
func Modes() []Mode { return []Mode{ModeUnique, ModeClassic, ModeClassicSQL} }

// ParseMode returns the mode with that name ("" means ModeUnique), or an
// error wrapping ErrInvalidMode.
func ParseMode(s string) (Mode, error) {
	if s == "" {
		return ModeUnique, nil
	}
	for _, m := range Modes() {
		if string(m) == s {
			return m, nil
		}
	}
	return "", fmt.Errorf("%w %q (allowed: unique, classic, classic-sql)", ErrInvalidMode, s)
}

// Sentinel errors returned by the rendering functions.
var (
	// ErrInvalidMode is returned by ParseMode and Render for an unknown mode.
	ErrInvalidMode = errors.New("invalid mode")
	// ErrInvalidSchema is returned when a schema name (or the name a schema
	// format makes) is not a plain lower-case PostgreSQL identifier.
	ErrInvalidSchema = errors.New("invalid schema name")
	// ErrInvalidLead is returned by Render, Options.Validate, migrate.New and MetaFor when
	// Options.Lead is not a whole number of milliseconds from the layout's
	// tick to MaxLead.
	ErrInvalidLead = errors.New("invalid lead")
	// ErrRouteUnsupported is returned by Render, Options.Validate, MetaFor and migrate.New
	// for a layout with a route field (Layout.RouteBits) in mode classic
	// or classic-sql, and by RenderPublished for any layout with one: only
	// mode unique renders next_id(route), so the others are refused
	// rather than handing out IDs whose route says nothing.
	ErrRouteUnsupported = errors.New("route bits unsupported")
)

// CheckLayout returns an error wrapping shardid.ErrInvalidLayout when l
// fails Validate. A layout with a route field passes: mode unique renders
// next_id(route) for it (Options.normalize refuses it in the classic
// modes, with ErrRouteUnsupported).
func CheckLayout(l shardid.Layout) error {
	return l.Validate()
}

// checkRoute returns ErrRouteUnsupported for a layout with a route field
// in a mode other than unique.
func checkRoute(l shardid.Layout, m Mode) error {
	if l.RouteBits > 0 && m != ModeUnique {
		return fmt.Errorf("%w: layout %s has %d route bits; mode %s fills no route field (allowed: mode unique, whose next_id(route) fills it, or a layout without route)",
			ErrRouteUnsupported, l, l.RouteBits, m)
	}
	return nil
}

// DefaultLead is how far ahead of the server's clock a generator in mode
// unique may hand out IDs unless Options.Lead says otherwise: a burst
// borrows up to this much of the following ticks (5 s is 5,120,000 IDs per
// shard with the instagram layout, 128,000 with js53), and a restore or
// failover whose new primary draws its first ID more than this after the
// old primary's last repeats nothing.
const DefaultLead = 5 * time.Second

// MaxLead is the longest lead Options.Lead accepts.
const MaxLead = time.Hour

// DefaultLeadWait is how long a draw that would hand out an ID past the
// lead waits for the clock before it raises LeadExceededState.
const DefaultLeadWait = time.Second

// LeadExceededState is the SQLSTATE next_id() raises, in mode unique, when
// the next ID would lie further ahead of the clock than the generator's
// lead and the clock did not catch up within DefaultLeadWait: the counter
// was pushed past the lead (raw nextval calls on it, a clock stepped back),
// or draws outran the layout's ticks for longer than the lead.
const LeadExceededState = "SHR10"

// DefaultSchemaFormat names shard N's schema: "insta%d" gives insta0, insta1, ...
const DefaultSchemaFormat = "insta%d"

// schemaRE is what a schema name may look like. Restricting names to plain
// lower-case identifiers means the quoted and unquoted spellings are the same
// name, which goose's WithTableName (unquoted) needs.
var schemaRE = regexp.MustCompile(`^[a-z_][a-z0-9_]{0,62}$`)

// CheckSchema returns an error wrapping ErrInvalidSchema unless name is a
// plain lower-case identifier of at most 63 bytes that does not start with
// "pg_" (reserved by PostgreSQL).
func CheckSchema(name string) error {
	if !schemaRE.MatchString(name) || strings.HasPrefix(name, "pg_") {
		return fmt.Errorf("%w %q: want lower-case letters, digits and _, starting with a letter or _, at most 63 bytes, not pg_*", ErrInvalidSchema, name)
	}
	return nil
}

// SchemaName formats shard's schema name from format, which must contain
// exactly one %d verb and nothing else that fmt would interpret.
func SchemaName(format string, shard int64) (string, error) {
	if format == "" {
		format = DefaultSchemaFormat
	}
	if strings.Count(format, "%") != 1 || !strings.Contains(format, "%d") {
		return "", fmt.Errorf("%w: schema format %q must contain exactly one %%d and no other %% verb", ErrInvalidSchema, format)
	}
	name := fmt.Sprintf(format, shard)
	if err := CheckSchema(name); err != nil {
		return "", err
	}
	return name, nil
}

// Shard is one logical shard: a schema and the shard id its IDs carry.
type Shard struct {
	// Schema is the schema holding the shard's generator and tables: a
	// plain lower-case identifier (see CheckSchema).
	Schema string
	// ID is the logical shard id every ID from this schema carries.
	ID int64
}

// Options says which generator to render: the ID layout and the body of
// next_id(). The zero value renders the Instagram layout in ModeUnique.
// How generators are applied is a separate concern (migrate.Options).
type Options struct {
	// Layout is the ID layout. The zero value means shardid.Instagram().
	// One with route bits needs ModeUnique (ErrRouteUnsupported
	// otherwise), which renders next_id(route) and id_route(id) beside
	// the other functions.
	Layout shardid.Layout
	// Mode is the next_id() body. Empty means ModeUnique.
	Mode Mode
	// Lead bounds, in mode unique, how far ahead of the server's clock an
	// ID may lie: no ID's tick ends more than Lead after the clock reading
	// of the draw that hands it out. A draw past it waits for the clock
	// (DefaultLeadWait at most), then raises LeadExceededState. It must be
	// a whole number of milliseconds from the layout's tick to MaxLead;
	// zero means DefaultLead. The classic modes have no lead.
	Lead time.Duration

	// clock is the SQL expression next_id() reads the time from; empty
	// means clock_timestamp(). Only tests set it (see export_test.go), to
	// step the clock of one session without touching the machine's.
	clock string
	// leadWait is how long a draw past the lead waits for the clock; zero
	// means DefaultLeadWait. Only tests set it, for a frozen test clock.
	leadWait time.Duration
	// checked leaves out the migration's checks of its database
	// (template, shard id, kind of generator), keeping its carry-on from
	// kept counters: set by migrate.Migrator.Up alone, which has made every one of
	// those checks itself, over the whole server, under its lock.
	checked bool
}

// normalize fills defaults and validates; the result is ready to render.
func (o Options) normalize() (Options, error) {
	if o.Layout == (shardid.Layout{}) {
		o.Layout = shardid.Instagram()
	}
	if err := CheckLayout(o.Layout); err != nil {
		return o, err
	}
	m, err := ParseMode(string(o.Mode))
	if err != nil {
		return o, err
	}
	o.Mode = m
	if err := checkRoute(o.Layout, o.Mode); err != nil {
		return o, err
	}
	if o.Lead == 0 {
		o.Lead = DefaultLead
	}
	if o.Lead < o.Layout.TimeUnit || o.Lead > MaxLead || o.Lead%time.Millisecond != 0 {
		return o, fmt.Errorf("%w %s: want a whole number of milliseconds from the layout's tick (%s) to %s, or 0 for %s",
			ErrInvalidLead, o.Lead, o.Layout.TimeUnit, MaxLead, DefaultLead)
	}
	if o.clock == "" {
		o.clock = "pg_catalog.clock_timestamp()"
	}
	if o.leadWait == 0 {
		o.leadWait = DefaultLeadWait
	}
	return o, nil
}

// Meta is what the counter sequence's comment records about how it was rendered, so
// that a rerun with different options is refused instead of silently
// keeping the old generator.
type Meta struct {
	Tool      string `json:"tool"`       // always "shardid"
	Shard     int64  `json:"shard"`      // the shard id the generator stamps
	Mode      Mode   `json:"mode"`       // the next_id() body
	Layout    string `json:"layout"`     // preset name, informational
	EpochMS   int64  `json:"epoch_ms"`   // Layout.Epoch in Unix ms
	UnitMS    int64  `json:"unit_ms"`    // Layout.TimeUnit in ms
	TimeBits  uint   `json:"time_bits"`  // Layout.TimeBits
	ShardBits uint   `json:"shard_bits"` // Layout.ShardBits
	SeqBits   uint   `json:"seq_bits"`   // Layout.SeqBits
	// RouteBits is Layout.RouteBits (left out when 0, so that a
	// generator without a route field records what it always did).
	RouteBits uint `json:"route_bits,omitempty"`
	// LeadMS is Options.Lead in ms, in mode unique (0 in the classic
	// modes, and in a generator applied by a shardid without a bounded
	// lead). It is not part of what makes two generators the same (see
	// SameGenerator): the lead bounds how far ahead of the clock IDs go,
	// not which IDs the counter has handed out, so a generator with one
	// lead may carry on from the counter of one with another.
	LeadMS int64 `json:"lead_ms,omitempty"`
}

// Lead is the recorded lead (0: none recorded).
func (m Meta) Lead() time.Duration { return time.Duration(m.LeadMS) * time.Millisecond }

// LayoutOf returns the layout the metadata records (named by its
// informational preset name).
func (m Meta) LayoutOf() shardid.Layout {
	return shardid.Layout{Name: m.Layout, Epoch: time.UnixMilli(m.EpochMS).UTC(), TimeUnit: time.Duration(m.UnitMS) * time.Millisecond,
		TimeBits: m.TimeBits, ShardBits: m.ShardBits, SeqBits: m.SeqBits, RouteBits: m.RouteBits}
}

// MetaFor returns the metadata Render records for shard rendered with o
// (whose zero fields mean their defaults), to compare with what Discover
// finds; it returns Render's option errors.
func MetaFor(sh Shard, o Options) (Meta, error) {
	o, err := o.normalize()
	if err != nil {
		return Meta{}, err
	}
	return metaFor(sh, o), nil
}

// metaFor describes shard rendered with o, normalized.
func metaFor(sh Shard, o Options) Meta {
	l := o.Layout
	meta := Meta{Tool: "shardid", Shard: sh.ID, Mode: o.Mode, Layout: l.Name, EpochMS: l.EpochMillis(),
		UnitMS: l.UnitMillis(), TimeBits: l.TimeBits, ShardBits: l.ShardBits, SeqBits: l.SeqBits, RouteBits: l.RouteBits}
	if o.Mode == ModeUnique {
		meta.LeadMS = o.Lead.Milliseconds()
	}
	return meta
}

// sameBody reports whether two metas describe the same IDs and the same
// next_id() body: the same generator and the same lead.
func (m Meta) sameBody(o Meta) bool { return m.sameGenerator(o) && m.LeadMS == o.LeadMS }

// SameGenerator reports whether two metas describe the same IDs: the same
// shard id, mode and layout (its informational name and the lead aside).
func (m Meta) SameGenerator(o Meta) bool { return m.sameGenerator(o) }

// sameGenerator reports whether two metas describe the same IDs (the
// informational layout name and the lead aside).
func (m Meta) sameGenerator(o Meta) bool {
	m.Layout, o.Layout = "", ""
	m.LeadMS, o.LeadMS = 0, 0
	return m == o
}

type renderData struct {
	Schema            string // quoted identifier
	Shard             int64
	Jump              string // the jump function's name: next_id_jump_<shard>
	Reserve           string // the reservation's name: next_id_reserve_<shard>
	Layout            shardid.Layout
	Mode              Mode
	LayoutText        string
	SeqReg            string // string literal naming the counter sequence
	BegunReg          string // string literal naming the jumps-begun sequence
	DoneReg           string // string literal naming the jumps-done sequence
	LockReg           string // string literal naming the jump lock's table
	SchemaLit         string // string literal of the schema's name, for messages
	JumpLit           string // string literal of the jump function's name
	ShardPrefix       string // string literal: how Comment, and every comment of this shard id, begins
	Checked           bool   // see Options.checked
	ShardPart         int64  // shard << SeqBits
	ShardSeqBits      uint
	TimeShift         uint // where the time field begins in an ID: ShardSeqBits + RouteBits
	ShardShift        uint // where the shard field begins in an ID: SeqBits + RouteBits
	MaxUnits          int64
	SeqMax            int64 // the counter's MAXVALUE in mode unique (seqMax)
	NextTickMillis    int64 // epoch + one unit, in Unix ms: where tick 0's successor starts
	WindowTicks       int64 // see windowTicks: how far past the clock's tick a draw needs no flush
	WindowText        string
	WindowMicros      int64 // where the clock term's third bucket starts without a transaction id
	WindowUnits       int64 // WindowTicks in counter units past the start of the clock's tick
	AheadTicks        int64 // see aheadTicks: where a jump lands past the clock's tick
	AheadUnits        int64
	TickEndScale      string // (units | MaxSeq) * TickEndScale + TickEndOffset: the end of units' tick in Unix seconds
	TickEndOffset     string
	SpliceFactor      int64 // units + (units >> SeqBits) * SpliceFactor + ShardPart: the ID of units
	ClockWeight       int64 // next_id_bulk()'s clock term: never a difference of the jump counters
	LeadMicros        int64 // Options.Lead in µs
	LeadUnits         int64 // the IDs the lead holds: whole ticks of it, in counter units
	LeadText          string
	LeadWaitMicros    int64 // Options.leadWait in µs
	LeadWaitText      string
	LeadExceededState string
	Clock             string
	Comment           string // string literal
	GrantComment      string // the grant template for <role>, as SQL comment lines
	EpochText         string
	EndText           string
}

var pgTemplates = template.Must(template.New("pg").Funcs(template.FuncMap{
	"inc": func(v int64) int64 { return v + 1 },
	// op names a built-in operator by its schema, so that the caller's
	// search_path cannot put another operator in its place.
	"op": func(symbol string) string { return "OPERATOR(pg_catalog." + symbol + ")" },
}).ParseFS(templateFS, "sql/*.sql.tmpl"))

func init() { sqlt.SetBase(pgTemplates) }

// Render returns the goose migration (Up and Down) that installs shard's
// generator and decode helpers in its schema: plain SQL with goose
// annotations in comments, the Down statements after the Up ones (so give
// the whole file to goose; psql would run both).
func Render(sh Shard, o Options) ([]byte, error) {
	return render("shard.sql.tmpl", sh, o)
}

// RenderPublished returns one statement that creates
// <schema>.next_id_published(): the next_id() body Instagram published in
// 2012 (SELECT … INTO through SPI, EXTRACT returning numeric), with o's
// layout constants, drawing from the counter sequence of the generator Render
// installs in the schema, which must be applied first (a layout with a
// route field is refused: ErrRouteUnsupported). It is a baseline for
// measurements (shardid bench), never a generator to use: it repeats IDs
// like ModeClassic and costs several times as much. It returns Render's
// errors.
func RenderPublished(sh Shard, o Options) ([]byte, error) {
	if err := checkRoute(o.Layout, ModeClassic); err != nil {
		return nil, err
	}
	return render("published.sql.tmpl", sh, o)
}

// render executes the named template for one shard.
func render(name string, sh Shard, o Options) ([]byte, error) {
	d, err := newRenderData(sh, o)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := pgTemplates.ExecuteTemplate(&buf, name, d); err != nil {
		return nil, fmt.Errorf("render %s: %w", sh.Schema, err)
	}
	return buf.Bytes(), nil
}

// newRenderData validates sh and o and returns what the templates render
// one shard's generator from.
func newRenderData(sh Shard, o Options) (renderData, error) {
	o, err := o.normalize()
	if err != nil {
		return renderData{}, err
	}
	if err := CheckSchema(sh.Schema); err != nil {
		return renderData{}, err
	}
	if err := o.Layout.CheckShard(sh.ID); err != nil {
		return renderData{}, err
	}
	l := o.Layout
	meta, err := json.Marshal(metaFor(sh, o))
	if err != nil {
		return renderData{}, fmt.Errorf("render %s: %w", sh.Schema, err)
	}
	q := quoteIdent(sh.Schema)
	// The checks find comments of this shard id by their beginning, which
	// encoding/json writes in Meta's field order.
	prefix := fmt.Sprintf(`{"tool":"shardid","shard":%d,`, sh.ID)
	if !bytes.HasPrefix(meta, []byte(prefix)) {
		return renderData{}, fmt.Errorf("render %s: metadata %s does not begin with %s", sh.Schema, meta, prefix)
	}
	window, ahead, leadTicks := windowTicks(l, o.Lead), aheadTicks(l, o.Lead), int64(o.Lead/l.TimeUnit)
	unitSeconds := float64(l.UnitMillis()) / 1000 / float64(int64(1)<<l.SeqBits)
	grants, err := RenderGrant(sh, "<role>", o.Mode, l.RouteBits > 0)
	if err != nil {
		return renderData{}, err
	}
	d := renderData{
		Schema:            q,
		Shard:             sh.ID,
		Jump:              jumpName(sh.ID),
		Reserve:           reserveName(sh.ID),
		Layout:            l,
		Mode:              o.Mode,
		LayoutText:        l.Describe(),
		SeqReg:            quoteLiteral(q + ".next_id_seq"),
		BegunReg:          quoteLiteral(q + ".next_id_jumps_begun"),
		DoneReg:           quoteLiteral(q + ".next_id_jumps_done"),
		LockReg:           quoteLiteral(q + ".next_id_jump_lock"),
		SchemaLit:         quoteLiteral(sh.Schema),
		JumpLit:           quoteLiteral(jumpName(sh.ID)),
		ShardPrefix:       quoteLiteral(prefix),
		Checked:           o.checked,
		ShardPart:         sh.ID << l.SeqBits,
		ShardSeqBits:      l.ShardBits + l.SeqBits,
		TimeShift:         l.ShardBits + l.SeqBits + l.RouteBits,
		ShardShift:        l.SeqBits + l.RouteBits,
		MaxUnits:          (l.MaxTicks()+1)<<l.SeqBits - 1,
		SeqMax:            seqMax(l),
		NextTickMillis:    l.EpochMillis() + l.UnitMillis(),
		WindowTicks:       window,
		WindowText:        (time.Duration(window) * l.TimeUnit).String(),
		WindowMicros:      (time.Duration(window) * l.TimeUnit).Microseconds() + 1,
		WindowUnits:       window << l.SeqBits,
		AheadTicks:        ahead,
		AheadUnits:        ahead << l.SeqBits,
		TickEndScale:      strconv.FormatFloat(unitSeconds, 'g', -1, 64),
		TickEndOffset:     strconv.FormatFloat(float64(l.EpochMillis())/1000+unitSeconds, 'g', -1, 64),
		SpliceFactor:      1<<(l.ShardBits+l.SeqBits) - 1<<l.SeqBits,
		ClockWeight:       1<<40 + 1<<19,
		LeadMicros:        o.Lead.Microseconds(),
		LeadUnits:         leadTicks << l.SeqBits,
		LeadText:          o.Lead.String(),
		LeadWaitMicros:    o.leadWait.Microseconds(),
		LeadWaitText:      o.leadWait.String(),
		LeadExceededState: LeadExceededState,
		Clock:             o.clock,
		Comment:           quoteLiteral(string(meta)),
		GrantComment:      commentLines(grants),
		EpochText:         l.Epoch.UTC().Format(time.RFC3339), // in the body's text: to the second, so the rendered
		EndText:           l.End().Format(time.RFC3339),       // migration stays byte-identical across releases
	}
	return d, nil
}

// ShortTick is how far past the clock a value may lie and need no flush
// to stay unique after a crash, as long as the clock does not step back
// across the crash: the first draw after recovery finds the clock past
// every such value's tick, and the counter jumps past them. The shortest
// crash measured (kill -9 of a backend to the next next_id() that
// succeeded, a small server with fsync off: TestCrashKeepsReadOnlyDraws)
// took 57 ms, more than five times ShortTick.
const ShortTick = 10 * time.Millisecond

// windowTicks is how many ticks past the clock's a value drawn by a
// transaction without a transaction id may lie and need no flush: the
// whole ticks within ShortTick and within the lead (none for ticks longer
// than ShortTick: every value not behind the clock is made durable).
func windowTicks(l shardid.Layout, lead time.Duration) int64 {
	return int64(min(ShortTick, lead) / l.TimeUnit)
}

// aheadTicks is how many ticks past the clock's a jump lands: two short
// of the window, so that the draws after it need no flush while the clock
// catches up, and within the lead; 0 for windows of two ticks or less.
func aheadTicks(l shardid.Layout, lead time.Duration) int64 {
	return max(0, min(windowTicks(l, lead)-2, int64(lead/l.TimeUnit)-1))
}

// commentLines turns SQL text into "-- " comment lines.
func commentLines(text string) string {
	var b strings.Builder
	for _, line := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		b.WriteString("--   " + line + "\n")
	}
	return b.String()
}

func jumpName(shard int64) string    { return sqlt.JumpName(shard) }
func reserveName(shard int64) string { return sqlt.ReserveName(shard) }
func quoteIdent(s string) string     { return sqlt.Ident(s) }
func quoteLiteral(s string) string   { return sqlt.Literal(s) }

// seqMax is the MAXVALUE of a mode-unique counter: room past the last
// ID's units for sessions drawing at once at the layout's end. The fast
// path masks a value past the end with the last ID's units (all ones),
// so every such value lands near the epoch, behind any clock at the end,
// goes to the jump, which raises "time field exhausted" and puts the
// counter back; the room lets that many draws race the put-back without
// meeting nextval's own error. It is 2^20 values (far more sessions than
// a server runs, whatever the sequence width), at most a quarter of the
// layout's units (the masked values stay in its first quarter) and as far
// as int64 goes. A layout whose units fill int64 has no room, and
// nextval's error stands at its end.
func seqMax(l shardid.Layout) int64 {
	last := (l.MaxTicks()+1)<<l.SeqBits - 1
	if last == math.MaxInt64 {
		return last
	}
	return last + max(1, min(1<<20, (last+1)/4, math.MaxInt64-last))
}

// RenderUpgrade renders what migrate.Up runs to bring a generator in mode
// unique whose body lacks next_id_bulk() to this release's body.
func RenderUpgrade(sh Shard, o Options) ([]byte, error) { return render("upgrade", sh, o) }

// RenderRecordMeta renders the statement that creates next_id_meta() in
// sh's schema recording o's generator: for a generator of an earlier
// release whose counter's comment alone records its metadata.
func RenderRecordMeta(sh Shard, o Options) ([]byte, error) { return render("record_meta", sh, o) }

// Files renders a goose directory for the stock goose CLI: one migration
// per shard, versioned shard id + 1, each creating its schema first. The
// stock CLI keeps one history table for the directory (goose_db_version in
// the connection's search_path) rather than one per schema.
func Files(shards []Shard, o Options) (map[string][]byte, error) {
	out := make(map[string][]byte, len(shards))
	for _, sh := range shards {
		text, err := Render(sh, o)
		if err != nil {
			return nil, err
		}
		out[fmt.Sprintf("%05d_shardid_%s.sql", sh.ID+1, sh.Schema)] = text
	}
	return out, nil
}
