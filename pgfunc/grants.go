package pgfunc

import (
	"github.com/shardid/shardid/pgfunc/internal/sqlt"
)

// GrantData is what the templates in sql/grant.sql.tmpl read: the names
// of one shard's generator objects, quoted, and the role to grant to. The
// migration Render returns carries the grant in a comment; package
// privilege runs it and checks it.
type GrantData struct {
	Schema    string // quoted identifier
	SchemaLit string // string literal of the schema's name (has_schema_privilege takes it unquoted)
	Role      string // quoted identifier (or <role> in a comment)
	Mode      Mode
	SeqReg    string // string literals naming the generator's objects
	BegunReg  string
	DoneReg   string
	LockReg   string
	Jump      string // the jump function's name, next_id_jump_<shard>
	Reserve   string // the reservation's name, next_id_reserve_<shard>
	Route     bool   // the layout has route bits: next_id(bigint) and id_route(bigint) too
}

// FuncLit returns a string literal naming the schema's function with the
// given signature, for has_function_privilege.
func (d GrantData) FuncLit(signature string) string {
	return quoteLiteral(d.Schema + "." + signature)
}

// NewGrantData names sh's generator objects, for a generator of mode
// (with a route field when route) and role, already quoted.
func NewGrantData(sh Shard, role string, mode Mode, route bool) GrantData {
	q := quoteIdent(sh.Schema)
	return GrantData{Schema: q, SchemaLit: quoteLiteral(sh.Schema), Role: role, Mode: mode, Route: route, Jump: jumpName(sh.ID), Reserve: reserveName(sh.ID),
		SeqReg: quoteLiteral(q + ".next_id_seq"), BegunReg: quoteLiteral(q + ".next_id_jumps_begun"),
		DoneReg: quoteLiteral(q + ".next_id_jumps_done"), LockReg: quoteLiteral(q + ".next_id_jump_lock")}
}

// RenderGrant returns the statements that give role (already quoted, or a
// placeholder for a comment) what drawing from sh's generator needs.
func RenderGrant(sh Shard, role string, mode Mode, route bool) (string, error) {
	return sqlt.Query("grant", NewGrantData(sh, role, mode, route))
}
