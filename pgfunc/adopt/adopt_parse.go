package adopt

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/shardid/shardid"
	"github.com/shardid/shardid/pgfunc/internal/sqlt"
)

// ErrCannotInfer is returned (per shard) by Run when a
// schema's next_id() is not in a form whose layout, epoch and shard id can
// be read from its text (Instagram's published PL/pgSQL body), or when
// what its text says and the IDs already stored disagree.
var ErrCannotInfer = errors.New("cannot infer the generator")

// publishedBody is what the text of a next_id() in Instagram's published
// form says: the constants its IDs are made of.
type publishedBody struct {
	Sequence  string // the sequence nextval() draws from, as written in the literal
	Modulus   int64  // nextval(...) % Modulus is the sequence field
	EpochMS   int64  // the epoch constant, Unix ms
	Shard     int64  // the shard id constant
	TimeShift uint64 // (now_millis - epoch) << TimeShift
	SeqShift  uint64 // shard_id << SeqShift
	Clock     string // clock_timestamp or now
}

// layout is the layout the body's constants spell: shard and sequence
// bits from the shifts, the epoch constant, milliseconds; the time field
// as wide as a preset's with the same shard and sequence bits (Instagram's
// 41 of 41/13/10, whose top bit is the sign; Snowflake's 41 of 41/10/12),
// else 64 - TimeShift bits. Only the time bits below the sign make IDs
// (Layout.UsableTimeBits), which the shifts fix either way.
func (b publishedBody) layout() (shardid.Layout, error) {
	switch {
	case b.SeqShift < 1 || b.SeqShift >= b.TimeShift || b.TimeShift > 62:
		return shardid.Layout{}, fmt.Errorf("%w: next_id() shifts the time by %d bits and the shard id by %d: want 0 < shard shift < time shift <= 62",
			ErrCannotInfer, b.TimeShift, b.SeqShift)
	case b.Modulus != 1<<b.SeqShift:
		return shardid.Layout{}, fmt.Errorf("%w: next_id() takes nextval() %% %d into a %d-bit sequence field (want %% %d): its sequence field and its shard field overlap",
			ErrCannotInfer, b.Modulus, b.SeqShift, int64(1)<<b.SeqShift)
	}
	l := shardid.Layout{Epoch: time.UnixMilli(b.EpochMS).UTC(), TimeUnit: time.Millisecond,
		TimeBits: uint(64 - b.TimeShift), ShardBits: uint(b.TimeShift - b.SeqShift), SeqBits: uint(b.SeqShift)}
	for _, name := range shardid.LayoutNames() {
		if p, err := shardid.LayoutByName(name); err == nil && p.TimeUnit == l.TimeUnit &&
			p.ShardBits == l.ShardBits && p.SeqBits == l.SeqBits && p.RouteBits == 0 && p.TimeBits+l.ShardBits+l.SeqBits >= 63 {
			l.Name, l.TimeBits = name, p.TimeBits
		}
	}
	if err := l.Validate(); err != nil {
		return shardid.Layout{}, fmt.Errorf("%w: next_id()'s constants make no valid layout: %w", ErrCannotInfer, err)
	}
	if b.Shard < 0 || b.Shard > l.MaxShard() {
		return shardid.Layout{}, fmt.Errorf("%w: next_id()'s shard id %d does not fit its %d shard bits: it spills into the time field",
			ErrCannotInfer, b.Shard, l.ShardBits)
	}
	return l, nil
}

// token is one lexical unit of a PL/pgSQL body: kind 'i' identifier
// (lower-cased unless quoted), 'n' integer, 's' string literal (its
// value), 'p' punctuation or operator.
type token struct {
	kind byte
	text string
}

// lexBody splits a PL/pgSQL body into tokens, dropping comments and
// white space. It reads the text as data: nothing in it is run.
func lexBody(src string) ([]token, error) {
	var out []token
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f':
			i++
		case strings.HasPrefix(src[i:], "--"):
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case strings.HasPrefix(src[i:], "/*"):
			end := strings.Index(src[i+2:], "*/")
			if end < 0 {
				return nil, errors.New("unterminated comment")
			}
			i += end + 4
		case c == '\'':
			var b strings.Builder
			j := i + 1
			for ; j < len(src); j++ {
				if src[j] == '\'' {
					if j+1 < len(src) && src[j+1] == '\'' {
						b.WriteByte('\'')
						j++
						continue
					}
					break
				}
				b.WriteByte(src[j])
			}
			if j >= len(src) {
				return nil, errors.New("unterminated string literal")
			}
			out = append(out, token{'s', b.String()})
			i = j + 1
		case c == '"':
			end := strings.IndexByte(src[i+1:], '"')
			if end < 0 {
				return nil, errors.New("unterminated quoted identifier")
			}
			out = append(out, token{'i', src[i+1 : i+1+end]})
			i += end + 2
		case c >= '0' && c <= '9':
			j := i
			for j < len(src) && src[j] >= '0' && src[j] <= '9' {
				j++
			}
			out = append(out, token{'n', src[i:j]})
			i = j
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			j := i
			for j < len(src) && (src[j] == '_' || src[j] == '$' || src[j] >= 'a' && src[j] <= 'z' || src[j] >= 'A' && src[j] <= 'Z' || src[j] >= '0' && src[j] <= '9') {
				j++
			}
			out = append(out, token{'i', strings.ToLower(src[i:j])})
			i = j
		default:
			for _, op := range []string{":=", "<<", ">>", "::"} {
				if strings.HasPrefix(src[i:], op) {
					out = append(out, token{'p', op})
					i += len(op)
					goto next
				}
			}
			if c >= 0x80 {
				return nil, fmt.Errorf("unexpected byte %#x", c)
			}
			out = append(out, token{'p', string(c)})
			i++
		next:
		}
	}
	return out, nil
}

// parsePublished reads a next_id() body in Instagram's published form:
//
//	DECLARE
//	    our_epoch bigint := 1314220021721;
//	    seq_id bigint;
//	    now_millis bigint;
//	    shard_id int := 5;
//	BEGIN
//	    SELECT nextval('insta5.table_id_seq') % 1024 INTO seq_id;
//	    SELECT FLOOR(EXTRACT(EPOCH FROM clock_timestamp()) * 1000) INTO now_millis;
//	    result := (now_millis - our_epoch) << 23;
//	    result := result | (shard_id << 10);
//	    result := result | (seq_id);
//	END
//
// Names, case, white space, comments, `x := expr` in place of SELECT …
// INTO x, constants written in place of the epoch and shard variables
// and a final RETURN of the result (a function RETURNS bigint rather
// than OUT result) are all accepted; anything else is refused, naming the
// statement that differs. The text is read, never run.
func parsePublished(src string) (publishedBody, error) {
	toks, err := lexBody(src)
	if err != nil {
		return publishedBody{}, fmt.Errorf("%w: next_id()'s body: %v", ErrCannotInfer, err)
	}
	p := &bodyParser{toks: toks, vars: map[string]string{}, consts: map[string]int64{}}
	b, err := p.parse()
	if err != nil {
		return publishedBody{}, fmt.Errorf("%w: next_id()'s body is not Instagram's published form: %v", ErrCannotInfer, err)
	}
	return b, nil
}

type bodyParser struct {
	toks   []token
	pos    int
	vars   map[string]string // bound pattern names
	consts map[string]int64  // declared constants
}

// statement returns the tokens up to the next ";" (consumed), or false at
// the end.
func (p *bodyParser) statement() ([]token, bool) {
	if p.pos >= len(p.toks) {
		return nil, false
	}
	start := p.pos
	for p.pos < len(p.toks) && !(p.toks[p.pos].kind == 'p' && p.toks[p.pos].text == ";") {
		p.pos++
	}
	st := p.toks[start:p.pos]
	if p.pos < len(p.toks) {
		p.pos++
	}
	return st, true
}

func text(ts []token) string {
	parts := make([]string, len(ts))
	for i, t := range ts {
		if t.kind == 's' {
			parts[i] = sqlt.Literal(t.text)
		} else {
			parts[i] = t.text
		}
	}
	return strings.Join(parts, " ")
}

// match matches st against pattern, whitespace-separated: a literal token,
// or $id:NAME (an identifier, the same one wherever NAME appears), $val:NAME
// (an integer, or a declared constant), $int:NAME, $str:NAME. The bound
// values land in p.vars; $val and $int values as decimal text.
func (p *bodyParser) match(st []token, pattern string) bool {
	pat := strings.Fields(pattern)
	if len(pat) != len(st) {
		return false
	}
	bound := map[string]string{}
	for i, w := range pat {
		t := st[i]
		kind, name, isVar := strings.Cut(w, ":")
		if !isVar || !strings.HasPrefix(kind, "$") {
			if t.kind == 's' || t.text != w {
				return false
			}
			continue
		}
		var v string
		switch kind {
		case "$id":
			if t.kind != 'i' {
				return false
			}
			v = t.text
		case "$int":
			if t.kind != 'n' {
				return false
			}
			v = t.text
		case "$val":
			switch {
			case t.kind == 'n':
				v = t.text
			case t.kind == 'i':
				c, ok := p.consts[t.text]
				if !ok {
					return false
				}
				v = strconv.FormatInt(c, 10)
			default:
				return false
			}
		case "$str":
			if t.kind != 's' {
				return false
			}
			v = t.text
		default:
			return false
		}
		if old, ok := bound[name]; ok && old != v {
			return false
		}
		if old, ok := p.vars[name]; ok && old != v {
			return false
		}
		bound[name] = v
	}
	for k, v := range bound {
		p.vars[k] = v
	}
	return true
}

// matchAny tries each pattern in turn.
func (p *bodyParser) matchAny(st []token, patterns ...string) bool {
	for _, pat := range patterns {
		if p.match(st, pat) {
			return true
		}
	}
	return false
}

func (p *bodyParser) parse() (publishedBody, error) {
	if len(p.toks) == 0 || p.toks[0].text != "declare" {
		return publishedBody{}, errors.New("it does not begin with DECLARE")
	}
	p.pos = 1
	intTypes := map[string]bool{"bigint": true, "int8": true, "int": true, "integer": true, "int4": true}
	for {
		if p.pos < len(p.toks) && p.toks[p.pos].text == "begin" {
			p.pos++
			break
		}
		st, ok := p.statement()
		if !ok {
			return publishedBody{}, errors.New("no BEGIN after DECLARE")
		}
		switch {
		case len(st) == 2 && st[0].kind == 'i' && intTypes[st[1].text]:
		case len(st) == 4 && st[0].kind == 'i' && intTypes[st[1].text] && st[2].text == ":=" && st[3].kind == 'n':
			v, err := strconv.ParseInt(st[3].text, 10, 64)
			if err != nil {
				return publishedBody{}, fmt.Errorf("declaration %q: %v", text(st), err)
			}
			p.consts[st[0].text] = v
		default:
			return publishedBody{}, fmt.Errorf("declaration %q: want NAME bigint or NAME bigint := INTEGER", text(st))
		}
	}
	steps := []struct {
		what     string
		patterns []string
	}{
		{"the sequence draw (SELECT nextval('schema.seq') % 1024 INTO seq_id)", []string{
			"select nextval ( $str:seq ) % $int:mod into $id:seqvar",
			"$id:seqvar := nextval ( $str:seq ) % $int:mod",
			"select nextval ( $str:seq :: regclass ) % $int:mod into $id:seqvar",
			"$id:seqvar := nextval ( $str:seq :: regclass ) % $int:mod",
		}},
		{"the clock (SELECT FLOOR(EXTRACT(EPOCH FROM clock_timestamp()) * 1000) INTO now_millis)", []string{
			"select floor ( extract ( epoch from $id:clock ( ) ) * 1000 ) into $id:nowvar",
			"$id:nowvar := floor ( extract ( epoch from $id:clock ( ) ) * 1000 )",
		}},
		{"the time field (result := (now_millis - our_epoch) << 23)", []string{
			"$id:res := ( $id:nowvar - $val:epoch ) << $int:tshift",
		}},
		{"the shard field (result := result | (shard_id << 10))", []string{
			"$id:res := $id:res | ( $val:shard << $int:sshift )",
		}},
		{"the sequence field (result := result | (seq_id))", []string{
			"$id:res := $id:res | ( $id:seqvar )",
			"$id:res := $id:res | $id:seqvar",
		}},
	}
	for i, step := range steps {
		st, ok := p.statement()
		if !ok {
			return publishedBody{}, fmt.Errorf("statement %d missing: want %s", i+1, step.what)
		}
		if !p.matchAny(st, step.patterns...) {
			return publishedBody{}, fmt.Errorf("statement %d %q: want %s", i+1, text(st), step.what)
		}
	}
	if _, ok := p.vars["mod"]; !ok {
		return publishedBody{}, errors.New("no sequence draw")
	}
	rest, _ := p.statement()
	if len(rest) >= 2 && rest[0].text == "return" {
		if !p.match(rest, "return $id:res") {
			return publishedBody{}, fmt.Errorf("statement %q: want RETURN of the result, or END", text(rest))
		}
		rest, _ = p.statement()
	}
	if !(len(rest) == 1 && rest[0].text == "end" || len(rest) == 2 && rest[0].text == "end" && rest[1].kind == 'i') {
		return publishedBody{}, fmt.Errorf("statement %q: want END", text(rest))
	}
	if extra, ok := p.statement(); ok {
		return publishedBody{}, fmt.Errorf("text after END: %q", text(extra))
	}
	if c := p.vars["clock"]; c != "clock_timestamp" && c != "now" {
		return publishedBody{}, fmt.Errorf("the clock is %s(): want clock_timestamp() or now()", c)
	}
	num := func(name string) int64 { v, _ := strconv.ParseInt(p.vars[name], 10, 64); return v }
	b := publishedBody{Sequence: p.vars["seq"], Modulus: num("mod"), EpochMS: num("epoch"), Shard: num("shard"), Clock: p.vars["clock"]}
	for _, f := range []struct {
		name string
		dst  *uint64
	}{{"tshift", &b.TimeShift}, {"sshift", &b.SeqShift}} {
		v, err := strconv.ParseUint(p.vars[f.name], 10, 8)
		if err != nil {
			return publishedBody{}, fmt.Errorf("shift %s: %v", p.vars[f.name], err)
		}
		*f.dst = v
	}
	return b, nil
}
