package apply

import (
	"context"
	"fmt"

	"github.com/shardid/shardid/tidb"
	"github.com/shardid/shardid/tidb/script"
)

// checkRefusals refuses, before anything is applied, pending migrations
// whose CREATE TABLE TiDB would refuse, when the server is TiDB.
func (m *Migrator) checkRefusals(ctx context.Context, st []Status) error {
	var pending []Status
	for _, s := range st {
		if !s.Applied && s.Migration.Kind != script.KindData && s.Migration.Kind != script.KindRoutine {
			pending = append(pending, s)
		}
	}
	if len(pending) == 0 {
		return nil
	}
	if tidb, err := m.isTiDB(ctx); err != nil || !tidb {
		return err
	}
	for _, s := range pending {
		stmts, err := upStatements(s.Migration.Text)
		if err != nil {
			continue
		}
		for _, stmt := range stmts {
			if err := tidb.Refused(stmt); err != nil {
				return fmt.Errorf("%s: %w; nothing was applied", s.Migration.Name, err)
			}
		}
	}
	return nil
}
