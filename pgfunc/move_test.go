package pgfunc_test

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/shardid/shardid/pgfunc"
	"github.com/shardid/shardid/pgfunc/migrate"
	"github.com/shardid/shardid/tools/testsrv"
)

// TestMoveShardWithPgDump moves a logical shard the way the design intends:
// pg_dump -n <schema> from one database, restore into another. The goose
// history and the counter's high-water mark travel with the schema, so the
// moved shard's next IDs are above every ID it made before the move, and
// goose sees it as up to date.
func TestMoveShardWithPgDump(t *testing.T) {
	t.Parallel()
	src, srcDSN := newDB(t)
	dst, dstDSN := newDB(t)
	sh := install(t, src, "moving", 30, pgfunc.ModeUnique)
	createTable(t, src, sh.Schema)
	// A clock 5 s fast puts the counter ahead of the true clock: after the
	// move, IDs must keep above it, which only the dumped counter can do.
	tx, err := src.Begin()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec("SELECT set_config('shardid_test.offset', '5 s', true)"); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec("INSERT INTO moving.items (session) SELECT 1 FROM generate_series(1, 50000)"); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	dump := exec.Command(filepath.Join(testsrv.PG(t).BinDir(), "pg_dump"), "-n", sh.Schema, "--no-owner", "-d", srcDSN)
	restore := exec.Command(filepath.Join(testsrv.PG(t).BinDir(), "psql"), "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", dstDSN)
	pipe, err := dump.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	restore.Stdin = pipe
	if err := dump.Start(); err != nil {
		t.Fatal(err)
	}
	if out, err := restore.CombinedOutput(); err != nil {
		t.Fatalf("restore: %v\n%s", err, out)
	}
	if err := dump.Wait(); err != nil {
		t.Fatalf("pg_dump: %v", err)
	}
	if _, err := src.Exec("DROP SCHEMA moving CASCADE"); err != nil {
		t.Fatal(err)
	}
	var before int64
	if err := dst.QueryRow("SELECT max(id) FROM moving.items").Scan(&before); err != nil {
		t.Fatal(err)
	}
	if _, err := dst.Exec("INSERT INTO moving.items (session) SELECT 2 FROM generate_series(1, 5000)"); err != nil {
		t.Fatal(err)
	}
	var notAbove int64
	if err := dst.QueryRow("SELECT count(*) FROM moving.items WHERE session = 2 AND id <= $1", before).Scan(&notAbove); err != nil {
		t.Fatal(err)
	}
	if notAbove != 0 {
		t.Fatalf("%d IDs made after the move are not above the last one made before it", notAbove)
	}
	if _, dups := duplicates(t, dst, sh.Schema); dups != 0 {
		t.Fatalf("%d duplicates after the move", dups)
	}
	checkShards(t, dst, sh)
	m, err := migrate.New(dst, pgfunc.WithClock(pgfunc.Options{}, testClock), migrate.Options{OwnDatabaseOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	res, _ := m.Up(t.Context(), []pgfunc.Shard{sh}, nil)
	if res[0].Err != nil || res[0].Applied {
		t.Fatalf("goose on the moved shard: applied=%v err=%v (want: already current)", res[0].Applied, res[0].Err)
	}
	var version int64
	if err := dst.QueryRow(fmt.Sprintf("SELECT max(version_id) FROM %s.goose_db_version", sh.Schema)).Scan(&version); err != nil || version != 1 {
		t.Fatalf("moved goose history: version %d, %v", version, err)
	}
}
