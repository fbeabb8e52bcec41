package pgfunc_test

import (
	"context"
	"testing"

	"github.com/shardid/shardid/pgfunc"
)

func TestSmoke(t *testing.T) {
	db, _ := newDB(t)
	ctx := context.Background()
	for _, mode := range pgfunc.Modes() {
		m, err := pgfunc.NewMigrator(db, pgfunc.Options{Mode: mode})
		if err != nil {
			t.Fatal(err)
		}
		sh := pgfunc.Shard{Schema: "s_" + string(mode[0:1]) + map[bool]string{true: "sql", false: ""}[mode == pgfunc.ModeClassicSQL], ID: int64(len(mode))}
		for _, r := range m.Up(ctx, []pgfunc.Shard{sh}, nil) {
			if r.Err != nil {
				t.Fatal(r.Err)
			}
		}
		var id int64
		if err := db.QueryRowContext(ctx, "SELECT "+sh.Schema+".next_id()").Scan(&id); err != nil {
			t.Fatal(err)
		}
		p, _ := pgfunc.Instagram().Decompose(id)
		t.Logf("%s: %d %+v", mode, id, p)
	}
}
