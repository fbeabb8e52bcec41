package citus

// This file reads a Citus cluster's generators through its coordinator
// (docs/citus.md): the nodes and the slot ledger, where each shard's
// schema is placed, every node's copy of every shard's counter, and any
// copy that could hand out an ID another has.

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/shardid/shardid"
	"github.com/shardid/shardid/pgfunc"
	"github.com/shardid/shardid/pgfunc/inventory"
)

// Counter is one node's counter of one logical shard.
type Counter struct {
	// Node is the node holding it (its group as the node itself says).
	Node Node `json:"node"`
	// Schema is the companion schema holding it (<schema>_node).
	Schema string `json:"schema"`
	// Shard, Group, Slot and Slots are what its comment says it was made
	// for: shard id, node group, slot and slot count (-1 when unreadable).
	Shard int64 `json:"shard"`
	Group int   `json:"group"`
	Slot  int   `json:"slot"`
	Slots int   `json:"slots"`
	// Step is its increment, Last its last value.
	Step int64 `json:"step"`
	Last int64 `json:"last"`
	// HandedOut is the largest counter value behind the IDs of its slot
	// in the shard's tables keyed by next_id() (-1: none found).
	HandedOut int64 `json:"handed_out"`
}

// String names the counter and its node, for messages.
func (c Counter) String() string {
	return fmt.Sprintf("%s.next_id_node_seq on node group %d (%s:%d)", c.Schema, c.Node.Group, c.Node.Host, c.Node.Port)
}

// Status is a Citus cluster's generators as the coordinator and
// every node show them.
type Status struct {
	// Nodes are the cluster's primary node groups, with their slots.
	Nodes []Node `json:"nodes"`
	// Placements map each shard's schema to the node group holding its
	// tables (-1: distributed, no table yet; -2: not distributed).
	Placements map[string]int `json:"placements"`
	// Counters are every node's copies of the shards' counters.
	Counters []Counter `json:"counters"`
	// Problems each name a node and a counter that could repeat an ID,
	// or refuses to draw; none means every copy is safe.
	Problems []string `json:"problems"`
}

// Survey reads, through the coordinator db is connected to, every node's
// counters of shards (all shards when none are given) and what could
// repeat, judging the IDs in the shards' tables with o's layout; nil when
// db's database has no Citus, ErrWorker on a worker. A node that cannot
// be reached is a problem, not an error.
func Survey(ctx context.Context, db *sql.DB, o pgfunc.Options, shards []pgfunc.Shard) (*Status, error) {
	nodes, err := clusterNodes(ctx, db, "pg status reads a Citus cluster through its coordinator")
	if err != nil || nodes == nil {
		return nil, err
	}
	st := &Status{Nodes: nodes, Placements: map[string]int{}}
	handed, err := handedOut(ctx, db, o.Normalized().Layout, shards, st)
	if err != nil {
		return nil, err
	}
	for _, n := range nodes {
		if n.Slot < 0 {
			st.Problems = append(st.Problems, fmt.Sprintf("%s has no slot: its draws refuse until shardid pg up on the coordinator gives it one", n))
		}
		err := eachNode(ctx, db, []Node{n}, func(n Node, node *sql.DB) error {
			cs, err := readNodeCounters(ctx, node, n)
			for i := range cs {
				cs[i].HandedOut = -1
				if h, ok := handed[cs[i].Shard][cs[i].Slot]; ok {
					cs[i].HandedOut = h
				}
			}
			st.Counters = append(st.Counters, cs...)
			return err
		})
		if err != nil {
			st.Problems = append(st.Problems, fmt.Sprintf("%s could not be read: %v", n, err))
		}
	}
	st.Problems = append(st.Problems, problems(st, shards)...)
	return st, nil
}

// handedOut reads each shard's placement and, for each shard and slot,
// the largest counter value behind the IDs of the shard's tables.
func handedOut(ctx context.Context, db *sql.DB, l shardid.Layout, shards []pgfunc.Shard, st *Status) (map[int64]map[int]int64, error) {
	place, err := templates.Query("citusPlacement", nil)
	if err != nil {
		return nil, err
	}
	keyed, err := templates.Query("citusKeyed", nil)
	if err != nil {
		return nil, err
	}
	out := map[int64]map[int]int64{}
	for _, sh := range shards {
		var distributed bool
		var group sql.NullInt64
		switch err := db.QueryRowContext(ctx, place, sh.Schema).Scan(&distributed, &group); {
		case err == sql.ErrNoRows:
			st.Placements[sh.Schema] = -2
			continue
		case err != nil:
			return nil, fmt.Errorf("citus placement of %s: %w", sh.Schema, err)
		}
		st.Placements[sh.Schema] = -2
		if distributed {
			st.Placements[sh.Schema] = -1
			if group.Valid {
				st.Placements[sh.Schema] = int(group.Int64)
			}
		}
		rows, err := db.QueryContext(ctx, keyed, sh.Schema)
		if err != nil {
			return nil, fmt.Errorf("tables keyed by %s.next_id(): %w", sh.Schema, err)
		}
		type col struct{ table, column string }
		var cols []col
		for rows.Next() {
			var c col
			if err := rows.Scan(&c.table, &c.column); err != nil {
				rows.Close()
				return nil, err
			}
			cols = append(cols, c)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
		out[sh.ID] = map[int]int64{}
		for _, c := range cols {
			q, err := templates.Query("citusHandedOut", map[string]any{
				"Table": c.table, "Column": c.column, "SlotMask": pgfunc.CitusSlots - 1, "RouteBits": l.RouteBits,
				"ShardSeqBits": l.ShardBits + l.SeqBits, "SeqBits": l.SeqBits, "MaxSeq": l.MaxSeq(),
			})
			if err != nil {
				return nil, err
			}
			rows, err := db.QueryContext(ctx, q)
			if err != nil {
				return nil, fmt.Errorf("IDs of %s.%s: %w", c.table, c.column, err)
			}
			for rows.Next() {
				var slot int
				var units int64
				if err := rows.Scan(&slot, &units); err != nil {
					rows.Close()
					return nil, err
				}
				if units > out[sh.ID][slot] {
					out[sh.ID][slot] = units
				}
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// readNodeCounters lists node n's counters of every shard.
func readNodeCounters(ctx context.Context, node *sql.DB, n Node) ([]Counter, error) {
	q, err := templates.Query("citusCounters", nil)
	if err != nil {
		return nil, err
	}
	g, err := localGroup(ctx, node)
	if err != nil {
		return nil, err
	}
	n.Group = g
	rows, err := node.QueryContext(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("counters: %w", err)
	}
	defer rows.Close()
	var out []Counter
	for rows.Next() {
		c := Counter{Node: n, Shard: -1, Group: -1, Slot: -1, Slots: -1}
		var comment sql.NullString
		var start int64
		var last sql.NullInt64
		if err := rows.Scan(&c.Schema, &comment, &c.Step, &start, &last); err != nil {
			return nil, fmt.Errorf("counters: %w", err)
		}
		c.Last = start
		if last.Valid {
			c.Last = last.Int64
		}
		var meta pgfunc.CitusCounterMeta
		if comment.Valid && json.Unmarshal([]byte(comment.String), &meta) == nil && meta.Tool == pgfunc.CitusCounterTool {
			c.Shard, c.Group, c.Slot, c.Slots = meta.Shard, meta.Group, meta.Slot, meta.Slots
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// problems lists what in st could repeat an ID or refuses to draw,
// each naming the node and the counter.
func problems(st *Status, shards []pgfunc.Shard) []string {
	var out []string
	ledger := map[int]int{}
	for _, n := range st.Nodes {
		ledger[n.Group] = n.Slot
	}
	wanted := map[int64]bool{}
	for _, sh := range shards {
		wanted[sh.ID] = true
	}
	type key struct {
		shard int64
		slot  int64
	}
	holders := map[key][]Counter{}
	for _, c := range st.Counters {
		if len(shards) > 0 && !wanted[c.Shard] {
			continue
		}
		switch {
		case c.Shard < 0:
			out = append(out, fmt.Sprintf("%s carries no shardid metadata: a counter nobody can place", c))
			continue
		case c.Group != c.Node.Group:
			out = append(out, fmt.Sprintf("%s was made for node group %d (slot %d), but the node is group %d (a copied data directory, or a node removed and added back): its draws refuse until shardid pg up gives it a slot", c, c.Group, c.Slot, c.Node.Group))
		case ledger[c.Node.Group] != c.Slot:
			out = append(out, fmt.Sprintf("%s draws in slot %d, but the ledger gave node group %d slot %d: it could repeat the IDs of the slot's holder", c, c.Slot, c.Node.Group, ledger[c.Node.Group]))
		}
		if c.Step != pgfunc.CitusSlots || c.Slots != pgfunc.CitusSlots || c.Last&(pgfunc.CitusSlots-1) != int64(c.Slot) {
			out = append(out, fmt.Sprintf("%s counts by %d at remainder %d, not in its slot %d of %d: it could repeat another node's IDs", c, c.Step, c.Last&(pgfunc.CitusSlots-1), c.Slot, pgfunc.CitusSlots))
		}
		if c.HandedOut > c.Last {
			out = append(out, fmt.Sprintf("%s stands at %d, behind %d, the last value its slot handed out to the shard's tables: set back (or restored), it could hand those IDs out again", c, c.Last, c.HandedOut))
		}
		k := key{c.Shard, c.Last & (pgfunc.CitusSlots - 1)}
		holders[k] = append(holders[k], c)
	}
	keys := make([]key, 0, len(holders))
	for k := range holders {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		return keys[i].shard < keys[j].shard || keys[i].shard == keys[j].shard && keys[i].slot < keys[j].slot
	})
	for _, k := range keys {
		if hs := holders[k]; len(hs) > 1 {
			var names []string
			for _, c := range hs {
				names = append(names, c.String())
			}
			out = append(out, fmt.Sprintf("shard %d: %s draw in the same slot %d: they can hand out the same IDs", k.shard, strings.Join(names, " and "), k.slot))
		}
	}
	return out
}

// Shards lists the shards whose counters the coordinator db is
// connected to holds in their companion schemas; ok is false when db's
// database has no Citus or db is a worker.
func Shards(ctx context.Context, db *sql.DB) (shards []pgfunc.Shard, ok bool, err error) {
	citus, coordinator, err := nodeRole(ctx, db)
	if err != nil || !citus || !coordinator {
		return nil, false, err
	}
	cs, err := readNodeCounters(ctx, db, Node{})
	if err != nil {
		return nil, true, err
	}
	for _, c := range cs {
		if c.Shard >= 0 {
			shards = append(shards, pgfunc.Shard{Schema: strings.TrimSuffix(c.Schema, pgfunc.NodeSchemaSuffix), ID: c.Shard})
		}
	}
	return shards, true, nil
}

// Generators lists the generators of the Citus cluster whose
// coordinator db is connected to, as the checks of an up read a single
// server's (package inventory): every shard schema whose counters the
// coordinator holds, with what its next_id_meta() records, Retired when
// a down took it and kept the counters. ok is false when db's database
// has no Citus or db is a worker.
func Generators(ctx context.Context, db *sql.DB) (out []inventory.Installed, ok bool, err error) {
	shards, ok, err := Shards(ctx, db)
	if err != nil || !ok {
		return nil, ok, err
	}
	for _, sh := range shards {
		meta, live, found, err := readMeta(ctx, db, sh.Schema)
		if err != nil {
			return nil, true, err
		}
		in := inventory.Installed{Schema: sh.Schema, Meta: meta, Retired: !live}
		if !found {
			in.Meta.Shard = sh.ID
			in.Unreadable = "its nodes' counters carry shard " + fmt.Sprint(sh.ID) + ", but the schema holds no next_id_meta()"
		}
		out = append(out, in)
	}
	return out, true, nil
}

// Meta reads the metadata of schema's generator from its next_id_meta()
// on a Citus node, whose shard schemas hold no counter (the companion
// schemas do); false when the schema has no such generator, or a down
// took it (see readMeta).
func Meta(ctx context.Context, db *sql.DB, schema string) (pgfunc.Meta, bool, error) {
	meta, live, ok, err := readMeta(ctx, db, schema)
	return meta, ok && live, err
}

// readMeta reads the metadata of schema's generator from its
// next_id_meta(): ok false when there is none; live false when a down
// took the generator and kept its metadata with the nodes' counters.
func readMeta(ctx context.Context, db *sql.DB, schema string) (meta pgfunc.Meta, live, ok bool, err error) {
	q, err := templates.Query("citusMeta", nil)
	if err != nil {
		return pgfunc.Meta{}, false, false, err
	}
	var body sql.NullString
	switch err := db.QueryRowContext(ctx, q, schema).Scan(&body, &live); {
	case err == sql.ErrNoRows:
		return pgfunc.Meta{}, false, false, nil
	case err != nil:
		return pgfunc.Meta{}, false, false, fmt.Errorf("generator of %s: %w", schema, err)
	}
	meta, ok = inventory.MetaFromBody(body)
	return meta, live, ok, nil
}
