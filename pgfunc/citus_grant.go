package pgfunc

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// citusGrant is Grant on a Citus cluster: on every node, in one
// transaction per shard, what role needs on the shard's public functions
// and on that node's companion schema, checked there; false when db's
// database has no Citus.
func citusGrant(ctx context.Context, db *sql.DB, shards []Shard, role string, each func(Result)) ([]Result, bool, error) {
	citus, coordinator, err := citusRole(ctx, db)
	if err != nil || !citus {
		return nil, false, err
	}
	if !coordinator {
		return nil, true, fmt.Errorf("%w: run pg grant on the coordinator, which grants on every node", ErrCitusWorker)
	}
	ledger, err := readLedger(ctx, db)
	if err != nil {
		return nil, true, err
	}
	nodes, err := citusNodes(ctx, db, ledger)
	if err != nil {
		return nil, true, err
	}
	failed := map[int64]error{}
	err = eachCitusNode(ctx, db, nodes, func(n CitusNode, node *sql.DB) error {
		for _, sh := range shards {
			if failed[sh.ID] != nil {
				continue
			}
			if err := citusGrantShard(ctx, node, sh, role, n); err != nil {
				failed[sh.ID] = fmt.Errorf("%s: %w", n, err)
			}
		}
		return nil
	})
	if err != nil {
		return nil, true, err
	}
	out := make([]Result, 0, len(shards))
	for _, sh := range shards {
		r := Result{Shard: sh, Applied: failed[sh.ID] == nil, Err: failed[sh.ID]}
		if each != nil {
			each(r)
		}
		out = append(out, r)
	}
	return out, true, nil
}

// citusGrantShard grants role what it needs of sh on one node, and checks.
func citusGrantShard(ctx context.Context, node *sql.DB, sh Shard, role string, n CitusNode) error {
	q, err := citusSQL("citusMeta", nil)
	if err != nil {
		return err
	}
	var body sql.NullString
	if err := node.QueryRowContext(ctx, q, sh.Schema).Scan(&body); err != nil && err != sql.ErrNoRows {
		return fmt.Errorf("generator of %s: %w", sh.Schema, err)
	}
	meta, ok := metaFromBody(body)
	if !ok {
		return fmt.Errorf("%w %s (apply it first: shardid pg up on the coordinator)", ErrNoGenerator, sh.Schema)
	}
	d, err := newCitusData(sh, Options{Layout: meta.LayoutOf(), Mode: meta.Mode, Lead: meta.Lead()}, n)
	if err != nil {
		return err
	}
	d.Role = quoteIdent(role)
	stmts, err := citusSQL("citusGrant", d)
	if err != nil {
		return err
	}
	check, err := citusSQL("citusGrantCheck", d)
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
		return fmt.Errorf("%w: role %s %s; revoke what it still has where it was given (a role it belongs to, PUBLIC, another grantor), and grant as the generator's owner", ErrUnsafePrivileges, role, strings.Join(problems, "; "))
	}
	return nil
}
