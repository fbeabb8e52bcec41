package bench

import (
	"context"
	"database/sql"
	"fmt"
	"regexp"
	"strings"

	"github.com/jackc/pgx/v5"
)

// Peer is an SQL expression measured beside shardid's generators: as the
// DEFAULT of a table's key (its type the expression's), and in the
// server-side cost table. A C-extension generator, or the user's own
// function: `shardid bench pg --peer snowflake='snowflake.nextval()'`.
type Peer struct {
	// Name names it in the report: 1 to 40 letters, digits, '_', '-' or
	// '.'.
	Name string `json:"name"`
	// Expr is the expression, the user's own SQL, run as the bench's
	// role: the server must describe SELECT (Expr) as one column.
	Expr string `json:"expression"`
}

// peerNameRE is what a peer's name may look like.
var peerNameRE = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,40}$`)

// ParsePeer reads a peer written NAME=SQLEXPR, returning an error
// wrapping ErrInvalidSettings that says what is wrong.
func ParsePeer(s string) (Peer, error) {
	name, expr, ok := strings.Cut(s, "=")
	if !ok {
		return Peer{}, fmt.Errorf("%w: peer %q: want NAME=SQLEXPR", ErrInvalidSettings, s)
	}
	p := Peer{Name: strings.TrimSpace(name), Expr: strings.TrimSpace(expr)}
	return p, checkPeers([]Peer{p})
}

// checkPeers refuses a peer without a name or expression, a name outside
// peerNameRE, and a name given twice.
func checkPeers(peers []Peer) error {
	seen := map[string]bool{}
	for _, p := range peers {
		switch {
		case !peerNameRE.MatchString(p.Name):
			return fmt.Errorf("%w: peer name %q: want 1 to 40 letters, digits, '_', '-' or '.'", ErrInvalidSettings, p.Name)
		case strings.TrimSpace(p.Expr) == "" || strings.ContainsRune(p.Expr, 0):
			return fmt.Errorf("%w: peer %s: want an SQL expression after the '='", ErrInvalidSettings, p.Name)
		case seen[p.Name]:
			return fmt.Errorf("%w: peer %s given twice", ErrInvalidSettings, p.Name)
		}
		seen[p.Name] = true
	}
	return nil
}

// PeerType has the server conn is connected to describe p's expression
// (as RunPG does) and returns its type as format_type() writes it, or an
// error wrapping ErrInvalidSettings for an expression that is not one
// value of a type a key can have.
func PeerType(ctx context.Context, conn *pgx.Conn, p Peer) (string, error) {
	pt, err := describePeers(ctx, conn, []Peer{p})
	if err != nil {
		return "", err
	}
	return pt[0].Type, nil
}

// GeneratorSchema is the schema of the shardid generator whose draw
// (schema.next_id() or schema.next_id_bulk()) expr is, or "".
func GeneratorSchema(expr string) string {
	m := generatorRE.FindStringSubmatch(strings.TrimSpace(expr))
	if m == nil || m[1] != m[3] {
		return ""
	}
	return m[2]
}

// peerKey is a peer's name in the report's keys and bodies.
func peerKey(p Peer) string { return "peer:" + p.Name }

// peerTable is a peer described by the server, as the peer_table
// template reads it.
type peerTable struct {
	peer        Peer
	Base, Table string // quoted schema, table name (set by setupPG)
	Type        string // format_type() of the expression's type
	Expr        string
}

// describePeers has the server describe SELECT (expression) of every peer
// (prepared, never run): one statement of one column, whose type names
// the key's. It returns ErrInvalidSettings for an expression that is not
// that.
func describePeers(ctx context.Context, conn *pgx.Conn, peers []Peer) ([]peerTable, error) {
	var out []peerTable
	format, err := render("peer_type", nil)
	if err != nil {
		return nil, err
	}
	for _, p := range peers {
		q, err := render("peer_describe", p.Expr)
		if err != nil {
			return nil, err
		}
		sd, err := conn.Prepare(ctx, "", q)
		if err != nil {
			return nil, fmt.Errorf("%w: peer %s: %s is not one SQL expression the server takes: %v", ErrInvalidSettings, p.Name, p.Expr, err)
		}
		if len(sd.Fields) != 1 || len(sd.ParamOIDs) != 0 {
			return nil, fmt.Errorf("%w: peer %s: %s makes %d columns and takes %d parameters; want one expression of one column", ErrInvalidSettings, p.Name, p.Expr, len(sd.Fields), len(sd.ParamOIDs))
		}
		pt := peerTable{peer: p, Expr: p.Expr}
		var pseudo bool
		if err := conn.QueryRow(ctx, format, sd.Fields[0].DataTypeOID).Scan(&pt.Type, &pseudo); err != nil {
			return nil, fmt.Errorf("peer %s: its type: %w", p.Name, err)
		}
		if pseudo {
			return nil, fmt.Errorf("%w: peer %s: %s is of type %s, which no column can have; want one value, of a type a primary key can have", ErrInvalidSettings, p.Name, p.Expr, pt.Type)
		}
		out = append(out, pt)
	}
	return out, nil
}

// generatorRE matches a peer that names a shardid generator's draw:
// schema.next_id() or schema.next_id_bulk().
var generatorRE = regexp.MustCompile(`^\(*\s*("?)([a-z_][a-z0-9_]*)("?)\.next_id(_bulk)?\(\)\s*\)*$`)

// peerJumps returns the jumps-done counter of the shardid generator a peer
// names, when it names one in mode unique, so that its slow path is
// counted too; "" otherwise.
func peerJumps(ctx context.Context, db *sql.DB, p Peer) (string, error) {
	schema := GeneratorSchema(p.Expr)
	if schema == "" {
		return "", nil
	}
	q, err := render("jumps_of", nil)
	if err != nil {
		return "", err
	}
	var reg sql.NullString
	if err := db.QueryRowContext(ctx, q, schema).Scan(&reg); err != nil {
		return "", fmt.Errorf("peer %s: the jump counters of schema %s: %w", p.Name, schema, err)
	}
	return reg.String, nil
}
