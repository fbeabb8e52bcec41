package pgfunc_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/shardid/shardid"
	"github.com/shardid/shardid/pgfunc"
	"github.com/shardid/shardid/pgfunc/inventory"
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
		span, _ := inventory.SpanFrom(mine, time.Now())
		_, meets, err := shardid.Overlap(span, inventory.WholeSpan(sf4))
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
	var gens []inventory.Installed
	for _, id := range []int64{0, 1, 2, 3, 16, 18} {
		meta, _ := pgfunc.MetaFor(pgfunc.Shard{ID: id}, ig)
		gens = append(gens, inventory.Installed{Schema: fmt.Sprintf("insta%d", id), Meta: meta})
	}
	gens = append(gens, inventory.Installed{Schema: "sf4", Meta: sf4})
	var met []string
	for _, p := range inventory.MixedAt(gens, time.Now()) {
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

// TestMigrationComparesRouteKinds: the migration's own comparison places
// the shard field above the sequence and the route field, as
// shardid.Overlap does. A database holds instagram shard 0 and, applied
// with pg up --allow-mixed, shard 1 of a layout with 9 shard bits and 4
// route bits (time:41,shard:9,seq:10,route:4): its shard field is
// instagram's shard field's top 9 bits, so instagram shards 16-31 make
// its IDs. Instagram shards applied by goose alone, and route shards
// applied the same way, are refused (SHR05) exactly when Overlap finds an
// ID both make, route shard 50 (whose shard field is instagram shards
// 800-815's) among them. (Before: the check shifted the route layout's shard by
// its sequence bits only, and applied instagram shard 16 beside route
// shard 1: 1,549 and 3,675 repeats in 300k draws from each, in an outside
// trial.)
func TestMigrationComparesRouteKinds(t *testing.T) {
	t.Parallel()
	db, _ := newDB(t)
	ig := pgfunc.Options{}
	routeLayout, err := shardid.ParseLayout("time:41,shard:9,seq:10,route:4")
	if err != nil {
		t.Fatal(err)
	}
	rt := pgfunc.Options{Layout: routeLayout}
	installWith(t, db, pgfunc.Shard{Schema: "insta0", ID: 0}, ig)
	installWith(t, db, pgfunc.Shard{Schema: "r1", ID: 1}, rt)
	metas := map[string]pgfunc.Meta{}
	for sh, o := range map[pgfunc.Shard]pgfunc.Options{{Schema: "insta0", ID: 0}: ig, {Schema: "r1", ID: 1}: rt} {
		if metas[sh.Schema], err = pgfunc.MetaFor(sh, o); err != nil {
			t.Fatal(err)
		}
	}
	// try applies sh with goose alone and checks the verdict against
	// Overlap with every generator of the other kind applied so far.
	try := func(sh pgfunc.Shard, o pgfunc.Options, others []string) (applied bool) {
		t.Helper()
		mine, err := pgfunc.MetaFor(sh, o)
		if err != nil {
			t.Fatal(err)
		}
		span, _ := inventory.SpanFrom(mine, time.Now())
		var meets []string
		for _, other := range others {
			_, meet, err := shardid.Overlap(span, inventory.WholeSpan(metas[other]))
			if err != nil {
				t.Fatal(err)
			}
			if meet {
				meets = append(meets, other)
			}
		}
		err = gooseUp(t, db, "goose_"+sh.Schema, []pgfunc.Shard{sh}, o)
		switch {
		case len(meets) > 0 && (sqlState(err) != "SHR05" || !strings.Contains(err.Error(), "could hand out ID")):
			t.Errorf("goose up of %s, whose IDs meet those of %v: %v; want SQLSTATE SHR05 and an ID", sh.Schema, meets, err)
		case len(meets) > 0:
		case err != nil:
			t.Errorf("goose up of %s, whose IDs meet none of %v: %v; want it applied", sh.Schema, others, err)
		default:
			metas[sh.Schema] = mine
			return true
		}
		return false
	}
	count := func(applied bool, refused, ok *int) {
		if applied {
			*ok++
		} else {
			*refused++
		}
	}
	refused, ok := 0, 0
	insta := []string{"insta0"}
	for _, id := range append(shardRange(2, 39), shardRange(800, 805)...) {
		sh := pgfunc.Shard{Schema: fmt.Sprintf("insta%d", id), ID: id}
		applied := try(sh, ig, []string{"r1"})
		count(applied, &refused, &ok)
		if applied {
			insta = append(insta, sh.Schema)
		}
	}
	if _, held := metas["insta16"]; held || refused == 0 || ok == 0 {
		t.Fatalf("instagram shards: %d refused, %d applied (insta16 applied: %v); want 16-31 refused and the rest applied", refused, ok, held)
	}
	// Route shard 50's shard field is that of instagram shards 800-815
	// (held: 800-805); 51-53 meet none. (Shard ids any schema holds are
	// refused before any comparison: SHR03.)
	refused, ok = 0, 0
	for _, id := range shardRange(50, 53) {
		count(try(pgfunc.Shard{Schema: fmt.Sprintf("r%d", id), ID: id}, rt, insta), &refused, &ok)
	}
	if refused == 0 || ok == 0 {
		t.Fatalf("route shards: %d refused, %d applied: the case wants both", refused, ok)
	}
}

// shardRange is the shard ids from lo to hi.
func shardRange(lo, hi int64) []int64 {
	var out []int64
	for id := lo; id <= hi; id++ {
		out = append(out, id)
	}
	return out
}
