package migrate

import (
	"context"
	"fmt"

	"github.com/shardid/shardid/pgfunc"
)

// upgrade replaces, in one transaction under the shard's jump lock, the
// functions of sh's generator in mode unique (Installed.Upgradable: its
// body lacks next_id_bulk() and next_ids()) with the ones this release
// renders, for the Migrator's options, which Up has checked describe the
// same generator and lead. The counter, the jump counters and the jump
// lock stay, and so does the goose history, which records the generator's
// one migration either way; tables keep their DEFAULT next_id().
//
// Draws stay unique while it runs and after: both bodies keep the same
// counter and the same bookkeeping of the jump counters (a jump moves
// jumps_begun first and sets jumps_done to it once the counter has
// moved), and both fast paths test jumps_begun read after the draw
// against jumps_done read before it. A session that began before the
// commit may still run the earlier body (a statement under way keeps the
// expression it was planned with; a function being called keeps its code
// until it returns): its draws and its jumps interleave with the new
// body's as two sessions' draws and jumps of one body do.
func (m *Migrator) upgrade(ctx context.Context, sh pgfunc.Shard) (applied bool, note string, err error) {
	text, err := pgfunc.RenderUpgrade(sh, m.opts)
	if err != nil {
		return false, "", err
	}
	tx, err := m.db.BeginTx(ctx, nil)
	if err != nil {
		return false, "", fmt.Errorf("upgrade: %w", err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, string(text)); err != nil {
		return false, "", fmt.Errorf("upgrade: %w", err)
	}
	if err := m.RecordMeta(ctx, tx, sh, metaOf(sh, m.opts)); err != nil {
		return false, "", fmt.Errorf("upgrade: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return false, "", fmt.Errorf("upgrade: %w", err)
	}
	return true, "upgraded", nil
}
