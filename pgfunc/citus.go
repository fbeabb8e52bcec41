package pgfunc

// This file installs the generator on a Citus cluster (docs/citus.md):
// every logical shard a distributed schema, whose next_id() draws, on
// whichever node runs it, from that node's own counter of the shard. The
// counters split the sequence field between nodes by remainder: each
// node group holds a slot of CitusSlots, given once by the slot ledger
// on the coordinator, and its counters step by CitusSlots from it.

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/stdlib"

	"github.com/shardid/shardid/internal/dsn"
)

// CitusSlots is how many slots a Citus cluster's counters split the
// sequence field into: at most this many node groups ever draw IDs of a
// cluster (a slot is never given twice), and each draws at most
// 1/CitusSlots of a tick's sequence numbers per shard before its counter
// borrows the following ticks.
const CitusSlots = 16

// NodeSchemaSuffix ends the name of a shard's companion schema on every
// Citus node, <schema>_node, which holds that node's own counter of the
// shard and which Citus neither records nor moves.
const NodeSchemaSuffix = "_node"

var (
	// ErrCitusWorker is returned by Migrator.Up on a Citus worker: the
	// generator is installed through the coordinator.
	ErrCitusWorker = errors.New("a Citus worker, not the coordinator")
	// ErrCitusSlots is returned by Migrator.Up when a Citus node group
	// needs a slot and all CitusSlots have been given.
	ErrCitusSlots = errors.New("no Citus slot left")
	// ErrCitusMode is returned by Migrator.Up on Citus for a mode other
	// than ModeUnique: the classic modes repeat IDs on one server already.
	ErrCitusMode = errors.New("mode not supported on Citus")
)

// CitusNode is one node group of a Citus cluster, as the coordinator's
// metadata (pg_dist_node) and shardid's slot ledger have it.
type CitusNode struct {
	// Group is the node's Citus group id (0: the coordinator).
	Group int `json:"group"`
	// Host and Port are where the coordinator reaches it.
	Host string `json:"host"`
	Port int    `json:"port"`
	// Slot is the slot the ledger gave the group; -1 for none.
	Slot int `json:"slot"`
}

// String names the node group, where it runs and its slot, for messages.
func (n CitusNode) String() string {
	return fmt.Sprintf("node group %d (%s:%d, slot %d)", n.Group, n.Host, n.Port, n.Slot)
}

// citusQueryer is a pool, connection or transaction.
type citusQueryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// citusSlotOf is the slot a node's counters are rendered with: the one
// the ledger gave it. Tests break it (BreakCitusSlots) to show that the
// tests of uniqueness catch two nodes sharing a slot.
var citusSlotOf = func(n CitusNode) int { return n.Slot }

// citusData is what the Citus templates render one shard on one node
// from.
type citusData struct {
	renderData
	NodeSchema  string // quoted <schema>_node
	NSeqReg     string // the node counters, as quoted literals
	NBegunReg   string
	NDoneReg    string
	NLockReg    string
	JumpSig     string // the jump's signature, as a quoted literal
	Role        string // the role pg grant grants to, quoted
	GateLit     string // the session setting the jump sets once the node is checked
	NodeComment string
	Slot        int64
	Slots       int64
	SlotMask    int64
	Group       int64
}

// nodeMeta is the comment on a node's counter of a shard.
type nodeMeta struct {
	Tool  string `json:"tool"`
	Shard int64  `json:"shard"`
	Group int    `json:"group"`
	Slot  int    `json:"slot"`
	Slots int    `json:"slots"`
}

func newCitusData(sh Shard, o Options, n CitusNode) (citusData, error) {
	d, err := newRenderData(sh, o)
	if err != nil {
		return citusData{}, err
	}
	node := sh.Schema + NodeSchemaSuffix
	if err := CheckSchema(node); err != nil {
		return citusData{}, fmt.Errorf("citus companion schema of %s: %w", sh.Schema, err)
	}
	q := quoteIdent(node)
	meta, err := json.Marshal(nodeMeta{Tool: "shardid-citus", Shard: sh.ID, Group: n.Group, Slot: citusSlotOf(n), Slots: CitusSlots})
	if err != nil {
		return citusData{}, err
	}
	return citusData{
		renderData:  d,
		NodeSchema:  q,
		NSeqReg:     quoteLiteral(q + ".next_id_node_seq"),
		NBegunReg:   quoteLiteral(q + ".next_id_node_begun"),
		NDoneReg:    quoteLiteral(q + ".next_id_node_done"),
		NLockReg:    quoteLiteral(q + ".next_id_node_lock"),
		JumpSig:     quoteLiteral(q + ".next_id_jump(pg_catalog.timestamptz)"),
		GateLit:     quoteLiteral(fmt.Sprintf("shardid.citus_%d", sh.ID)),
		NodeComment: quoteLiteral(string(meta)),
		Slot:        int64(citusSlotOf(n)),
		Slots:       CitusSlots,
		SlotMask:    CitusSlots - 1,
		Group:       int64(n.Group),
	}, nil
}

// citusSQL renders the named template of sql/citus.sql.tmpl.
func citusSQL(name string, data any) (string, error) {
	var b strings.Builder
	if err := pgTemplates.ExecuteTemplate(&b, name, data); err != nil {
		return "", fmt.Errorf("render %s: %w", name, err)
	}
	return b.String(), nil
}

// citusRole says what db is connected to: false when Citus is not
// installed in its database; else whether it is the coordinator (node
// group 0).
func citusRole(ctx context.Context, db citusQueryer) (citus, coordinator bool, err error) {
	q, err := citusSQL("citusIsCoordinator", nil)
	if err != nil {
		return false, false, err
	}
	if err := db.QueryRowContext(ctx, q).Scan(&citus); err != nil {
		return false, false, fmt.Errorf("detect citus: %w", err)
	}
	if !citus {
		return false, false, nil
	}
	g, err := citusLocalGroup(ctx, db)
	return true, g == 0, err
}

func citusLocalGroup(ctx context.Context, db citusQueryer) (int, error) {
	q, err := citusSQL("citusLocalGroup", nil)
	if err != nil {
		return 0, err
	}
	var g int
	if err := db.QueryRowContext(ctx, q).Scan(&g); err != nil {
		return 0, fmt.Errorf("citus node group: %w", err)
	}
	return g, nil
}

// IsCitus reports whether db's database has the Citus extension, and
// whether db is connected to its coordinator.
func IsCitus(ctx context.Context, db *sql.DB) (citus, coordinator bool, err error) {
	return citusRole(ctx, db)
}

// citusNodes lists the cluster's primary node groups from the
// coordinator's metadata, the coordinator (group 0) first even when it is
// not registered, with the slots the ledger gave them (-1 for none).
func citusNodes(ctx context.Context, db citusQueryer, ledger map[int]int) ([]CitusNode, error) {
	q, err := citusSQL("citusNodes", nil)
	if err != nil {
		return nil, err
	}
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("citus nodes: %w", err)
	}
	defer rows.Close()
	out := []CitusNode{{Group: 0, Slot: -1}}
	for rows.Next() {
		var n CitusNode
		var active bool
		if err := rows.Scan(&n.Group, &n.Host, &n.Port, &active); err != nil {
			return nil, fmt.Errorf("citus nodes: %w", err)
		}
		if n.Group == 0 {
			out[0].Host, out[0].Port = n.Host, n.Port
			continue
		}
		if active {
			out = append(out, n)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("citus nodes: %w", err)
	}
	for i := range out {
		out[i].Slot = -1
		if s, ok := ledger[out[i].Group]; ok {
			out[i].Slot = s
		}
	}
	return out, nil
}

// readLedger reads the slot ledger (group -> slot); an empty map when
// there is none yet.
func readLedger(ctx context.Context, db citusQueryer) (map[int]int, error) {
	q, err := citusSQL("citusLedgerRead", nil)
	if err != nil {
		return nil, err
	}
	out := map[int]int{}
	has, err := citusSQL("citusHasLedger", nil)
	if err != nil {
		return nil, err
	}
	var exists bool
	if err := db.QueryRowContext(ctx, has).Scan(&exists); err != nil || !exists {
		return out, err
	}
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("read the citus slot ledger: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var g, s, k int
		if err := rows.Scan(&g, &s, &k); err != nil {
			return nil, fmt.Errorf("read the citus slot ledger: %w", err)
		}
		out[g] = s
	}
	return out, rows.Err()
}

// grantSlots gives every node group of the cluster without a slot the
// smallest slot never given, in one transaction on the coordinator that
// locks the ledger, and returns the nodes with their slots.
func grantSlots(ctx context.Context, db *sql.DB) ([]CitusNode, error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer func() { _ = tx.Rollback() }()
	q, err := citusSQL("citusLedger", nil)
	if err != nil {
		return nil, err
	}
	if _, err := tx.ExecContext(ctx, q); err != nil {
		return nil, fmt.Errorf("citus slot ledger: %w", err)
	}
	ledger, err := readLedger(ctx, tx)
	if err != nil {
		return nil, err
	}
	nodes, err := citusNodes(ctx, tx, ledger)
	if err != nil {
		return nil, err
	}
	used := map[int]bool{}
	for _, s := range ledger {
		used[s] = true
	}
	ins, err := citusSQL("citusLedgerGrant", nil)
	if err != nil {
		return nil, err
	}
	for i, n := range nodes {
		if n.Slot >= 0 {
			continue
		}
		slot := 0
		for slot < CitusSlots && used[slot] {
			slot++
		}
		if slot == CitusSlots {
			return nil, fmt.Errorf("%w: %s needs one and all %d have been given (a slot is never given twice: see docs/citus.md)", ErrCitusSlots, n, CitusSlots)
		}
		used[slot] = true
		nodes[i].Slot = slot
		if _, err := tx.ExecContext(ctx, ins, n.Group, slot, CitusSlots, n.Host, n.Port); err != nil {
			return nil, fmt.Errorf("citus slot ledger: %w", err)
		}
	}
	return nodes, tx.Commit()
}

// citusConnector returns how to open the Migrator's database on another
// node of the cluster: the pool's connection settings (a pgx stdlib pool)
// with the node's host and port.
func citusConnector(ctx context.Context, db *sql.DB) (func(context.Context, CitusNode) (*sql.DB, error), error) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	var connect func(context.Context, CitusNode) (*sql.DB, error)
	err = conn.Raw(func(dc any) error {
		sc, ok := dc.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("%w: the pool's connections are %T, not pgx's stdlib: shardid reaches the Citus nodes with the pool's settings", ErrNoConnect, dc)
		}
		cfg := sc.Conn().Config()
		connect = func(ctx context.Context, n CitusNode) (*sql.DB, error) {
			c := cfg.Copy()
			c.Host, c.Port = n.Host, uint16(n.Port)
			c.Fallbacks = nil
			return dsn.OpenPG(ctx, c)
		}
		return nil
	})
	return connect, err
}

// eachCitusNode calls visit with a pool on every node of nodes: the
// Migrator's own for the coordinator.
func eachCitusNode(ctx context.Context, db *sql.DB, nodes []CitusNode, visit func(CitusNode, *sql.DB) error) error {
	var connect func(context.Context, CitusNode) (*sql.DB, error)
	for _, n := range nodes {
		node := db
		if n.Group != 0 {
			if connect == nil {
				var err error
				if connect, err = citusConnector(ctx, db); err != nil {
					return err
				}
			}
			var err error
			if node, err = connect(ctx, n); err != nil {
				return fmt.Errorf("%s: %w", n, err)
			}
		}
		err := visit(n, node)
		if node != db {
			_ = node.Close()
		}
		if err != nil {
			return fmt.Errorf("%s: %w", n, err)
		}
	}
	return nil
}

// inTx runs q in one transaction on db.
func inTx(ctx context.Context, db *sql.DB, q string) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	if _, err := tx.ExecContext(ctx, q); err != nil {
		return err
	}
	return tx.Commit()
}

// citusUp is Up on a Citus cluster; false when db's database has no
// Citus, and Up goes on as on any server.
func (m *Migrator) citusUp(ctx context.Context, shards []Shard, each func(Result)) ([]Result, bool) {
	citus, coordinator, err := citusRole(ctx, m.db)
	if err == nil && !citus {
		return nil, false
	}
	if err == nil && !coordinator {
		err = fmt.Errorf("%w: run up on the coordinator, which installs the generator on every node", ErrCitusWorker)
	}
	if err == nil {
		err = CheckEnd(m.opts.Layout, m.margin, time.Now())
	}
	if err == nil && m.opts.Mode != ModeUnique {
		err = fmt.Errorf("%w: %s (allowed: %s)", ErrCitusMode, m.opts.Mode, ModeUnique)
	}
	var nodes []CitusNode
	if err == nil {
		nodes, err = grantSlots(ctx, m.db)
	}
	if err == nil {
		err = eachCitusNode(ctx, m.db, nodes, func(n CitusNode, node *sql.DB) error {
			for _, sh := range shards {
				d, err := newCitusData(sh, m.opts, n)
				if err != nil {
					return err
				}
				q, err := citusSQL("citusNode", d)
				if err != nil {
					return err
				}
				if err := inTx(ctx, node, q); err != nil {
					return fmt.Errorf("shard %d's counter: %w", sh.ID, err)
				}
			}
			return nil
		})
	}
	out := make([]Result, 0, len(shards))
	for _, sh := range shards {
		start := time.Now()
		r := Result{Shard: sh, Err: err}
		if err == nil {
			r.Err = m.citusShard(ctx, sh, nodes[0])
			r.Applied = r.Err == nil
		}
		r.Duration = time.Since(start)
		if each != nil {
			each(r)
		}
		out = append(out, r)
	}
	return out, true
}

// citusShard creates sh's schema and public functions on the coordinator
// (Citus copies them to every node) and distributes the schema.
func (m *Migrator) citusShard(ctx context.Context, sh Shard, coord CitusNode) error {
	d, err := newCitusData(sh, m.opts, coord)
	if err != nil {
		return err
	}
	q, err := citusSQL("citusShard", d)
	if err != nil {
		return err
	}
	if err := inTx(ctx, m.db, q); err != nil {
		return err
	}
	place, err := citusSQL("citusPlacement", nil)
	if err != nil {
		return err
	}
	var distributed bool
	var group sql.NullInt64
	if err := m.db.QueryRowContext(ctx, place, sh.Schema).Scan(&distributed, &group); err != nil {
		return fmt.Errorf("citus placement of %s: %w", sh.Schema, err)
	}
	if !distributed {
		q, err := citusSQL("citusDistribute", nil)
		if err != nil {
			return err
		}
		if _, err := m.db.ExecContext(ctx, q, sh.Schema); err != nil {
			return fmt.Errorf("citus_schema_distribute(%s): %w", sh.Schema, err)
		}
	}
	return nil
}
