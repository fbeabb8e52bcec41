package pgfunc

// This file renders what the generator installs on a Citus cluster
// (docs/citus.md): every logical shard a distributed schema, whose
// next_id() draws, on whichever node runs it, from that node's own
// counter of the shard in the companion schema <schema>_node. The
// counters split the sequence field between nodes by remainder: each
// node group holds a slot of CitusSlots and its counters step by
// CitusSlots from it. Package citus runs what is rendered here.

import (
	"encoding/json"
	"fmt"
	"strings"
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

// CitusCounterMeta is the comment on a Citus node's counter of a shard:
// what the counter was made for.
type CitusCounterMeta struct {
	// Tool is "shardid-citus".
	Tool string `json:"tool"`
	// Shard is the logical shard's id.
	Shard int64 `json:"shard"`
	// Group is the Citus node group the counter was made for, Slot the
	// slot it draws in, Slots how many slots there are.
	Group int `json:"group"`
	Slot  int `json:"slot"`
	Slots int `json:"slots"`
}

// CitusCounterTool is CitusCounterMeta.Tool of shardid's Citus counters.
const CitusCounterTool = "shardid-citus"

// citusData is what the Citus templates render one shard on one node
// from.
type citusData struct {
	renderData
	NodeSchema  string // quoted <schema>_node
	NSeqReg     string // the node counters, as quoted literals
	NBegunReg   string
	NDoneReg    string
	NLockReg    string
	GateLit     string // the session setting the jump sets once the node is checked
	NodeComment string
	Slot        int64
	Slots       int64
	SlotMask    int64
	Group       int64
}

func newCitusData(sh Shard, o Options, group, slot int) (citusData, error) {
	d, err := newRenderData(sh, o)
	if err != nil {
		return citusData{}, err
	}
	node := sh.Schema + NodeSchemaSuffix
	if err := CheckSchema(node); err != nil {
		return citusData{}, fmt.Errorf("citus companion schema of %s: %w", sh.Schema, err)
	}
	q := quoteIdent(node)
	meta, err := json.Marshal(CitusCounterMeta{Tool: CitusCounterTool, Shard: sh.ID, Group: group, Slot: slot, Slots: CitusSlots})
	if err != nil {
		return citusData{}, err
	}
	// The lead's refusal names what a resume recorded on the jump lock's
	// table: on Citus, the node's (package resume).
	d.LockReg = quoteLiteral(q + ".next_id_node_lock")
	return citusData{
		renderData:  d,
		NodeSchema:  q,
		NSeqReg:     quoteLiteral(q + ".next_id_node_seq"),
		NBegunReg:   quoteLiteral(q + ".next_id_node_begun"),
		NDoneReg:    quoteLiteral(q + ".next_id_node_done"),
		NLockReg:    quoteLiteral(q + ".next_id_node_lock"),
		GateLit:     quoteLiteral(fmt.Sprintf("shardid.citus_%d", sh.ID)),
		NodeComment: quoteLiteral(string(meta)),
		Slot:        int64(slot),
		Slots:       CitusSlots,
		SlotMask:    CitusSlots - 1,
		Group:       int64(group),
	}, nil
}

// RenderCitusNode renders what one node group of a Citus cluster
// installs for sh, rendered with o, in one transaction with Citus's DDL
// propagation off: the companion schema <schema>_node with the node's own
// counter of the shard, which draws in slot (0 to CitusSlots-1), its
// jump counters, jump lock and jump.
func RenderCitusNode(sh Shard, o Options, group, slot int) (string, error) {
	if slot < 0 || slot >= CitusSlots {
		return "", fmt.Errorf("citus slot %d of node group %d: allowed 0 to %d", slot, group, CitusSlots-1)
	}
	return renderCitus("citusNode", sh, o, group, slot)
}

// RenderCitusShard renders what the coordinator of a Citus cluster
// installs for sh, rendered with o, in one transaction with propagation
// on: the shard's schema and its public functions, which Citus copies to
// every node and which draw from that node's own counter.
func RenderCitusShard(sh Shard, o Options) (string, error) {
	return renderCitus("citusShard", sh, o, 0, 0)
}

// RenderCitusMeta renders what the coordinator of a Citus cluster
// installs for sh, rendered with o, before any node's counter, in one
// transaction with propagation on: the shard's schema and its
// next_id_meta() alone, the state a down leaves, so that an up failing
// on some node leaves a generator the next up carries on.
func RenderCitusMeta(sh Shard, o Options) (string, error) {
	return renderCitus("citusShardMeta", sh, o, 0, 0)
}

// RenderCitusDown renders the down of sh, whose generator was rendered
// with o, on a Citus cluster: what the coordinator runs with propagation
// on (the shard's public functions dropped on every node; next_id_meta()
// kept), and what every node runs with propagation off after it (its
// jump, jump lock and jump counters dropped once the clock is past its
// counter; the counter kept for the next up).
func RenderCitusDown(sh Shard, o Options) (coordinator, node string, err error) {
	if coordinator, err = renderCitus("citusDownShard", sh, o, 0, 0); err != nil {
		return "", "", err
	}
	node, err = renderCitus("citusDownNode", sh, o, 0, 0)
	return coordinator, node, err
}

func renderCitus(name string, sh Shard, o Options, group, slot int) (string, error) {
	d, err := newCitusData(sh, o, group, slot)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	if err := pgTemplates.ExecuteTemplate(&b, name, d); err != nil {
		return "", fmt.Errorf("render %s: %w", name, err)
	}
	return b.String(), nil
}
