package citus

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/shardid/shardid"
	"github.com/shardid/shardid/pgfunc"
	"github.com/shardid/shardid/pgfunc/internal/sqlt"
)

// Grant grants, through the coordinator db is connected to, on every
// node of the Citus cluster, in one transaction per shard and node, what
// role (checked by the caller, privilege.Grant) needs on the shard's
// public functions and on that node's companion schema, revoking first,
// and checks there what role lacks or holds beyond it
// (pgfunc.ErrUnsafePrivileges). ok is false when db's database has no
// Citus; ErrWorker on a worker. Other shards' results stand when one
// fails (the error is then a *pgfunc.PartialError); each, if not nil, is
// called after every shard.
func Grant(ctx context.Context, db *sql.DB, shards []pgfunc.Shard, role string, each func(pgfunc.Result)) (res []pgfunc.Result, ok bool, err error) {
	citus, coordinator, err := nodeRole(ctx, db)
	if err != nil || !citus {
		return nil, false, err
	}
	if !coordinator {
		return nil, true, fmt.Errorf("%w: run pg grant on the coordinator, which grants on every node", ErrWorker)
	}
	ledger, err := readLedger(ctx, db)
	if err != nil {
		return nil, true, err
	}
	nodes, err := listNodes(ctx, db, ledger)
	if err != nil {
		return nil, true, err
	}
	failed := map[int64]error{}
	err = eachNode(ctx, db, nodes, func(n Node, node *sql.DB) error {
		for _, sh := range shards {
			if failed[sh.ID] != nil {
				continue
			}
			if err := grantShard(ctx, node, sh, role); err != nil {
				failed[sh.ID] = fmt.Errorf("%s: %w", n, err)
			}
		}
		return nil
	})
	if err != nil {
		return nil, true, err
	}
	out := make([]pgfunc.Result, 0, len(shards))
	for _, sh := range shards {
		r := pgfunc.Result{Shard: sh, Applied: failed[sh.ID] == nil, Err: failed[sh.ID]}
		if each != nil {
			each(r)
		}
		out = append(out, r)
	}
	res, err = pgfunc.Partial(out)
	return res, true, err
}

// grantShard grants role what it needs of sh on one node, and checks.
func grantShard(ctx context.Context, node *sql.DB, sh pgfunc.Shard, role string) error {
	meta, ok, err := Meta(ctx, node, sh.Schema)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("%w %s (apply it first: shardid pg up on the coordinator)", pgfunc.ErrNoGenerator, sh.Schema)
	}
	d, err := newGrantData(sh, meta, role)
	if err != nil {
		return err
	}
	stmts, err := templates.Query("citusGrant", d)
	if err != nil {
		return err
	}
	check, err := templates.Query("citusGrantCheck", d)
	if err != nil {
		return err
	}
	tx, err := node.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	if _, err := tx.ExecContext(ctx, stmts); err != nil {
		return fmt.Errorf("grant to %s: %w", role, err)
	}
	rows, err := tx.QueryContext(ctx, check, role)
	if err != nil {
		return fmt.Errorf("check the grant to %s: %w", role, err)
	}
	var problems []string
	for rows.Next() {
		var p string
		if err := rows.Scan(&p); err != nil {
			rows.Close()
			return err
		}
		problems = append(problems, p)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	if len(problems) > 0 {
		return fmt.Errorf("%w: role %s %s; revoke what it still has where it was given (a role it belongs to, PUBLIC, another grantor), and grant as the generator's owner", pgfunc.ErrUnsafePrivileges, role, strings.Join(problems, "; "))
	}
	return nil
}

// grantData is what the grant templates render one shard on one node
// from: quoted names and the layout.
type grantData struct {
	Schema     string // quoted shard schema
	NodeSchema string // quoted <schema>_node
	Role       string // quoted role
	NSeqReg    string // the node counters, as quoted literals
	NBegunReg  string
	NDoneReg   string
	NLockReg   string
	JumpSig    string // the jump's signature, as a quoted literal
	Layout     shardid.Layout
}

// newGrantData validates sh against the generator meta describes and
// returns what the grant of role renders from.
func newGrantData(sh pgfunc.Shard, meta pgfunc.Meta, role string) (grantData, error) {
	l := meta.LayoutOf()
	node := sh.Schema + pgfunc.NodeSchemaSuffix
	if err := pgfunc.CheckSchema(sh.Schema); err != nil {
		return grantData{}, err
	}
	if err := l.CheckShard(sh.ID); err != nil {
		return grantData{}, err
	}
	if err := pgfunc.CheckSchema(node); err != nil {
		return grantData{}, fmt.Errorf("citus companion schema of %s: %w", sh.Schema, err)
	}
	q := sqlt.Ident(node)
	return grantData{
		Schema:     sqlt.Ident(sh.Schema),
		NodeSchema: q,
		Role:       sqlt.Ident(role),
		NSeqReg:    sqlt.Literal(q + ".next_id_node_seq"),
		NBegunReg:  sqlt.Literal(q + ".next_id_node_begun"),
		NDoneReg:   sqlt.Literal(q + ".next_id_node_done"),
		NLockReg:   sqlt.Literal(q + ".next_id_node_lock"),
		JumpSig:    sqlt.Literal(q + ".next_id_jump(pg_catalog.timestamptz)"),
		Layout:     l,
	}, nil
}
