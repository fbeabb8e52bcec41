package resume

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/shardid/shardid/dialect"
	"github.com/shardid/shardid/pgfunc/internal/sqlt"
)

// ownerHint adds to a permission error that moving a counter takes the
// generator's owner.
func ownerHint(err error) error {
	if dialect.ErrorCode(err) == "42501" { // insufficient_privilege
		return fmt.Errorf("%w (resume moves counters with setval under the jump lock: run it as the generators' owner, the role that applied them)", err)
	}
	return err
}

// clockNow reads the server's clock on db, as the generators read it.
func (m *run) clockNow(ctx context.Context, db *sql.DB) (time.Time, error) {
	q, err := sqlt.Query("clock_now", m.opts.Clock())
	if err != nil {
		return time.Time{}, err
	}
	var now time.Time
	if err := db.QueryRowContext(ctx, q).Scan(&now); err != nil {
		return time.Time{}, fmt.Errorf("read the clock: %w", err)
	}
	return now, nil
}
