package pgfunc_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/shardid/shardid"
	"github.com/shardid/shardid/pgfunc"
)

// TestMigrationComparesEveryKind: in a database pg up --allow-mixed made
// with two kinds (instagram shards 0-3, and a snowflake shard 4 whose
// epoch keeps it apart from them), the migration pg gen writes, applied by
// goose alone, compares itself with every generator of the database, not
// only the first: an instagram shard whose IDs can meet snowflake shard
// 4's is refused (SQLSTATE SHR05, naming sf4 and an ID both make), one
// whose IDs cannot is applied, exactly as shardid.Overlap decides; and
// a kind the database does not hold yet is refused whatever it is.
// (Before: the migration read only the first next_id_seq, insta0's, of
// its own kind, and applied shards 16-19, whose IDs snowflake shard 4
// hands out too: 29,236 repeats in 1.2M draws.)
func TestMigrationComparesEveryKind(t *testing.T) {
	t.Parallel()
	db, _ := newDB(t)
	now := time.Now()
	ig := pgfunc.Options{}
	installWith(t, db, pgfunc.Shard{Schema: "insta0", ID: 0}, ig)
	installWith(t, db, pgfunc.Shard{Schema: "insta1", ID: 1}, ig)
	installWith(t, db, pgfunc.Shard{Schema: "insta2", ID: 2}, ig)
	installWith(t, db, pgfunc.Shard{Schema: "insta3", ID: 3}, ig)
	// The snowflake epoch as far before instagram's as 25 s from now is
	// after it: apart from shards 0-3 from now on, and meeting 16-19.
	sfLayout := shardid.Snowflake()
	sfLayout.Epoch = time.UnixMilli(2*shardid.Instagram().Epoch.UnixMilli() - now.Add(25*time.Second).UnixMilli()).UTC()
	installWith(t, db, pgfunc.Shard{Schema: "sf4", ID: 4}, pgfunc.Options{Layout: sfLayout})
	sf4, err := pgfunc.MetaFor(pgfunc.Shard{Schema: "sf4", ID: 4}, pgfunc.Options{Layout: sfLayout})
	if err != nil {
		t.Fatal(err)
	}
	refused, applied := 0, 0
	for id := int64(5); id < 24; id++ {
		sh := pgfunc.Shard{Schema: fmt.Sprintf("insta%d", id), ID: id}
		mine, _ := pgfunc.MetaFor(sh, ig)
		span, _ := pgfunc.SpanFrom(mine, time.Now())
		_, meets, err := shardid.Overlap(span, pgfunc.WholeSpan(sf4))
		if err != nil {
			t.Fatal(err)
		}
		err = gooseUp(t, db, fmt.Sprintf("goose_%d", id), []pgfunc.Shard{sh}, ig)
		switch {
		case meets && (sqlState(err) != "SHR05" || !strings.Contains(err.Error(), "schema sf4") || !strings.Contains(err.Error(), "could hand out ID")):
			t.Errorf("goose up of %s, whose IDs meet sf4's: %v; want SQLSTATE SHR05 naming sf4 and an ID", sh.Schema, err)
		case meets:
			refused++
		case err != nil:
			t.Errorf("goose up of %s, whose IDs never meet sf4's: %v; want it applied", sh.Schema, err)
		default:
			applied++
		}
	}
	if refused == 0 || applied == 0 {
		t.Fatalf("%d shards refused, %d applied: the case wants both", refused, applied)
	}
	// A third kind, never applied with pg up --allow-mixed, is refused.
	js := pgfunc.Options{Layout: shardid.JS53()}
	if err := gooseUp(t, db, "goose_js", []pgfunc.Shard{{Schema: "js40", ID: 40}}, js); sqlState(err) != "SHR05" {
		t.Fatalf("goose up of a js53 generator into a database of instagram and snowflake: %v; want SHR05", err)
	}
	// MixedAt (pg status) names every pair that meets, each with an ID
	// both can still hand out: shards 16 and 18 beside sf4 here, not only
	// the first.
	var gens []pgfunc.Installed
	for _, id := range []int64{0, 1, 2, 3, 16, 18} {
		meta, _ := pgfunc.MetaFor(pgfunc.Shard{ID: id}, ig)
		gens = append(gens, pgfunc.Installed{Schema: fmt.Sprintf("insta%d", id), Meta: meta})
	}
	gens = append(gens, pgfunc.Installed{Schema: "sf4", Meta: sf4})
	var met []string
	for _, p := range pgfunc.MixedAt(gens, time.Now()) {
		if p.Meet {
			met = append(met, p.A.Schema+"/"+p.B.Schema)
			if !p.Ahead {
				t.Errorf("pair %s/%s: ID %d is not one both can still hand out", p.A.Schema, p.B.Schema, p.ID)
			}
		}
	}
	if strings.Join(met, " ") != "insta16/sf4 insta18/sf4" {
		t.Fatalf("MixedAt: pairs that meet %q; want insta16/sf4 and insta18/sf4", met)
	}
}
