package citus

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/stdlib"

	"github.com/shardid/shardid/internal/dsn"
	"github.com/shardid/shardid/pgfunc"
	"github.com/shardid/shardid/pgfunc/inventory"
)

var (
	// ErrWorker is returned by Up, Survey and Grant on a Citus worker:
	// the generator is installed, read and granted through the
	// coordinator.
	ErrWorker = errors.New("a Citus worker, not the coordinator")
	// ErrSlots is returned by Up when a Citus node group needs a slot and
	// all pgfunc.CitusSlots have been given.
	ErrSlots = errors.New("no Citus slot left")
	// ErrMode is returned by Up on Citus for a mode other than
	// pgfunc.ModeUnique: the classic modes repeat IDs on one server
	// already.
	ErrMode = errors.New("mode not supported on Citus")
)

// Node is one node group of a Citus cluster, as the coordinator's
// metadata (pg_dist_node) and shardid's slot ledger have it.
type Node struct {
	// Group is the node's Citus group id (0: the coordinator).
	Group int `json:"group"`
	// Host and Port are where the coordinator reaches it.
	Host string `json:"host"`
	Port int    `json:"port"`
	// Slot is the slot the ledger gave the group; -1 for none.
	Slot int `json:"slot"`
}

// String names the node group, where it runs and its slot, for messages.
func (n Node) String() string {
	return fmt.Sprintf("node group %d (%s:%d, slot %d)", n.Group, n.Host, n.Port, n.Slot)
}

// queryer is a pool, connection or transaction.
type queryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// slotOf is the slot a node's counters are rendered with: the one the
// ledger gave it. Tests break it (BreakSlots) to show that the tests of
// uniqueness catch two nodes sharing a slot.
var slotOf = func(n Node) int { return n.Slot }

// nodeRole says what db is connected to: false when Citus is not
// installed in its database; else whether it is the coordinator (node
// group 0).
func nodeRole(ctx context.Context, db queryer) (citus, coordinator bool, err error) {
	q, err := templates.Query("citusIsCoordinator", nil)
	if err != nil {
		return false, false, err
	}
	if err := db.QueryRowContext(ctx, q).Scan(&citus); err != nil {
		return false, false, fmt.Errorf("detect citus: %w", err)
	}
	if !citus {
		return false, false, nil
	}
	g, err := localGroup(ctx, db)
	return true, g == 0, err
}

// localGroup is the Citus node group db is connected to.
func localGroup(ctx context.Context, db queryer) (int, error) {
	q, err := templates.Query("citusLocalGroup", nil)
	if err != nil {
		return 0, err
	}
	var g int
	if err := db.QueryRowContext(ctx, q).Scan(&g); err != nil {
		return 0, fmt.Errorf("citus node group: %w", err)
	}
	return g, nil
}

// Detect reports whether db's database has the Citus extension, and
// whether db is connected to its coordinator.
func Detect(ctx context.Context, db *sql.DB) (citus, coordinator bool, err error) {
	return nodeRole(ctx, db)
}

// listNodes lists the cluster's primary node groups from the
// coordinator's metadata, the coordinator (group 0) first even when it is
// not registered, with the slots the ledger gave them (-1 for none).
func listNodes(ctx context.Context, db queryer, ledger map[int]int) ([]Node, error) {
	q, err := templates.Query("citusNodes", nil)
	if err != nil {
		return nil, err
	}
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("citus nodes: %w", err)
	}
	defer rows.Close()
	out := []Node{{Group: 0, Slot: -1}}
	for rows.Next() {
		var n Node
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
func readLedger(ctx context.Context, db queryer) (map[int]int, error) {
	q, err := templates.Query("citusLedgerRead", nil)
	if err != nil {
		return nil, err
	}
	out := map[int]int{}
	has, err := templates.Query("citusHasLedger", nil)
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
func grantSlots(ctx context.Context, db *sql.DB) ([]Node, error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer func() { _ = tx.Rollback() }()
	q, err := templates.Query("citusLedger", nil)
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
	nodes, err := listNodes(ctx, tx, ledger)
	if err != nil {
		return nil, err
	}
	used := map[int]bool{}
	for _, s := range ledger {
		used[s] = true
	}
	ins, err := templates.Query("citusLedgerGrant", nil)
	if err != nil {
		return nil, err
	}
	for i, n := range nodes {
		if n.Slot >= 0 {
			continue
		}
		slot := 0
		for slot < pgfunc.CitusSlots && used[slot] {
			slot++
		}
		if slot == pgfunc.CitusSlots {
			return nil, fmt.Errorf("%w: %s needs one and all %d have been given (a slot is never given twice: see docs/citus.md)", ErrSlots, n, pgfunc.CitusSlots)
		}
		used[slot] = true
		nodes[i].Slot = slot
		if _, err := tx.ExecContext(ctx, ins, n.Group, slot, pgfunc.CitusSlots, n.Host, n.Port); err != nil {
			return nil, fmt.Errorf("citus slot ledger: %w", err)
		}
	}
	return nodes, tx.Commit()
}

// connector returns how to open db's database on another
// node of the cluster: the pool's connection settings (a pgx stdlib pool)
// with the node's host and port.
func connector(ctx context.Context, db *sql.DB) (func(context.Context, Node) (*sql.DB, error), error) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	var connect func(context.Context, Node) (*sql.DB, error)
	err = conn.Raw(func(dc any) error {
		sc, ok := dc.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("%w: the pool's connections are %T, not pgx's stdlib: shardid reaches the Citus nodes with the pool's settings", inventory.ErrNoConnect, dc)
		}
		cfg := sc.Conn().Config()
		connect = func(ctx context.Context, n Node) (*sql.DB, error) {
			c := cfg.Copy()
			c.Host, c.Port = n.Host, uint16(n.Port)
			c.Fallbacks = nil
			return dsn.OpenPG(ctx, c)
		}
		return nil
	})
	return connect, err
}

// eachNode calls visit with a pool on every node of nodes: the
// db itself for the coordinator.
func eachNode(ctx context.Context, db *sql.DB, nodes []Node, visit func(Node, *sql.DB) error) error {
	var connect func(context.Context, Node) (*sql.DB, error)
	for _, n := range nodes {
		node := db
		if n.Group != 0 {
			if connect == nil {
				var err error
				if connect, err = connector(ctx, db); err != nil {
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

// Up installs shards' generators, rendered with o, on the Citus cluster
// whose coordinator db is connected to: it gives every node group without
// a slot one of its own (ErrSlots when none is left), creates on the
// coordinator each shard's schema with its next_id_meta(), installs on
// every node the shards' companion schemas, then on the coordinator each
// shard's public functions, and distributes the schema. It
// refuses a worker (ErrWorker), a mode other than pgfunc.ModeUnique
// (ErrMode) and a layout ending within margin (pgfunc.CheckEnd). ok is
// false when db's database has no Citus: the caller goes on as on any
// server. Other shards' results stand when one fails (the error is then a
// *pgfunc.PartialError); each, if not nil, is called after every shard.
func Up(ctx context.Context, db *sql.DB, o pgfunc.Options, margin time.Duration, shards []pgfunc.Shard, each func(pgfunc.Result)) (res []pgfunc.Result, ok bool, err error) {
	citus, coordinator, err := nodeRole(ctx, db)
	if err == nil && !citus {
		return nil, false, nil
	}
	o = o.Normalized()
	if err == nil && !coordinator {
		err = fmt.Errorf("%w: run up on the coordinator, which installs the generator on every node", ErrWorker)
	}
	if err == nil {
		err = pgfunc.CheckEnd(o.Layout, margin, time.Now())
	}
	if err == nil && o.Mode != pgfunc.ModeUnique {
		err = fmt.Errorf("%w: %s (allowed: %s)", ErrMode, o.Mode, pgfunc.ModeUnique)
	}
	// A generator of the shard already there, live or kept by a down
	// with every node's counter, must be this one: another layout would
	// read the counters' values as other times (pgfunc.ErrGeneratorMismatch).
	refused := map[int64]error{}
	for _, sh := range shards {
		if err != nil {
			break
		}
		var have pgfunc.Meta
		var ok bool
		if have, _, ok, err = readMeta(ctx, db, sh.Schema); err == nil && ok {
			if want, werr := pgfunc.MetaFor(sh, o); werr != nil || !have.SameGenerator(want) {
				refused[sh.ID] = fmt.Errorf("up: %w (a down keeps the generator with every node's counter: bring it up with its own options, as pg status shows them)", inventory.Mismatch(sh, inventory.Installed{Schema: sh.Schema, Meta: have}, o))
			}
		}
	}
	var ns []Node
	if err == nil {
		ns, err = grantSlots(ctx, db)
	}
	// The shard's metadata first, then the nodes' counters: a failure on
	// a node leaves what a down leaves, which the next up carries on,
	// never counters without metadata (which refuse every later up).
	for _, sh := range shards {
		if err != nil {
			break
		}
		if refused[sh.ID] == nil {
			refused[sh.ID] = upMeta(ctx, db, sh, o)
		}
	}
	if err == nil {
		err = eachNode(ctx, db, ns, func(n Node, node *sql.DB) error {
			for _, sh := range shards {
				if refused[sh.ID] != nil {
					continue
				}
				q, err := pgfunc.RenderCitusNode(sh, o, n.Group, slotOf(n))
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
	res, err = eachShard(shards, err, each, func(sh pgfunc.Shard) (bool, string, error) {
		if err := refused[sh.ID]; err != nil {
			return false, "", err
		}
		err := upShard(ctx, db, sh, o)
		return err == nil, "", err
	})
	return res, true, err
}

// eachShard runs do for every shard, unless failed is not nil (every
// shard's result then), calling each, if not nil, after every shard, and
// returns the results with a *pgfunc.PartialError when any failed.
func eachShard(shards []pgfunc.Shard, failed error, each func(pgfunc.Result), do func(pgfunc.Shard) (applied bool, note string, err error)) ([]pgfunc.Result, error) {
	out := make([]pgfunc.Result, 0, len(shards))
	for _, sh := range shards {
		start := time.Now()
		r := pgfunc.Result{Shard: sh, Err: failed}
		if failed == nil {
			r.Applied, r.Note, r.Err = do(sh)
		}
		r.Duration = time.Since(start)
		if each != nil {
			each(r)
		}
		out = append(out, r)
	}
	return pgfunc.Partial(out)
}

// upMeta creates sh's schema and its next_id_meta() on the coordinator
// (Citus copies them to every node), before any node's counter.
func upMeta(ctx context.Context, db *sql.DB, sh pgfunc.Shard, o pgfunc.Options) error {
	q, err := pgfunc.RenderCitusMeta(sh, o)
	if err != nil {
		return err
	}
	if err := inTx(ctx, db, q); err != nil {
		return fmt.Errorf("metadata of %s: %w", sh.Schema, err)
	}
	return nil
}

// upShard creates sh's schema and public functions on the coordinator
// (Citus copies them to every node) and distributes the schema.
func upShard(ctx context.Context, db *sql.DB, sh pgfunc.Shard, o pgfunc.Options) error {
	q, err := pgfunc.RenderCitusShard(sh, o)
	if err != nil {
		return err
	}
	if err := inTx(ctx, db, q); err != nil {
		return err
	}
	place, err := templates.Query("citusPlacement", nil)
	if err != nil {
		return err
	}
	var distributed bool
	var group sql.NullInt64
	if err := db.QueryRowContext(ctx, place, sh.Schema).Scan(&distributed, &group); err != nil {
		return fmt.Errorf("citus placement of %s: %w", sh.Schema, err)
	}
	if !distributed {
		q, err := templates.Query("citusDistribute", nil)
		if err != nil {
			return err
		}
		if _, err := db.ExecContext(ctx, q, sh.Schema); err != nil {
			return fmt.Errorf("citus_schema_distribute(%s): %w", sh.Schema, err)
		}
	}
	return nil
}
