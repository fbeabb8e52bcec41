package adopt_test

import (
	"errors"
	"testing"
	"time"

	"github.com/shardid/shardid"
	"github.com/shardid/shardid/pgfunc"
	"github.com/shardid/shardid/pgfunc/adopt"
)

// TestReport: each adoption is counted as refused, adopted, current or a
// dry run; a refused one keeps its error and no keys; a published one
// keeps its keys with the parts of their highest ID, a serial one only
// the highest value, an empty key neither; instants are written to the
// millisecond.
func TestReport(t *testing.T) {
	l := shardid.Instagram()
	id, err := l.Compose(l.Epoch.Add(time.Hour), 3, 7)
	if err != nil {
		t.Fatal(err)
	}
	parts, _ := l.Decompose(id)
	keys := []adopt.AdoptKey{{Table: "t", Column: "id", Max: id, Parts: parts}, {Table: "u", Column: "id", Empty: true}}
	var rep adopt.Report
	for _, a := range []adopt.Adoption{
		{Result: pgfunc.Result{Shard: pgfunc.Shard{Schema: "s0"}, Err: errors.New("not Instagram's")}, Kind: adopt.AdoptPublished, Layout: l, Keys: keys},
		{Result: pgfunc.Result{Shard: pgfunc.Shard{Schema: "s1", ID: 1}, Applied: true, Note: "adopted"}, Kind: adopt.AdoptPublished, Layout: l, Keys: keys},
		{Result: pgfunc.Result{Shard: pgfunc.Shard{Schema: "s2", ID: 2}, Note: "current"}, Layout: l},
		{Result: pgfunc.Result{Shard: pgfunc.Shard{Schema: "s3", ID: 3}, Note: "dry run"}, Kind: adopt.AdoptSerial, Layout: l, Keys: keys},
	} {
		rep.Add(a)
	}
	rep.Finish(time.Now())
	if rep.Failed != 1 || rep.Adopted != 1 || rep.Current != 1 || rep.DryRun != 1 || len(rep.Shards) != 4 || rep.Took == "" {
		t.Fatalf("counts: %+v", rep)
	}
	if s := rep.Shards[0]; s.State != "refused" || s.Error != "not Instagram's" || s.Keys != nil {
		t.Errorf("refused: %+v", s)
	}
	pub := rep.Shards[1].Keys
	if len(pub) != 2 || pub[0].Max == nil || *pub[0].Max != id || pub[0].Shard != 3 || pub[0].Seq != 7 || pub[0].Time != parts.Time.Format(adopt.MillisFormat) || pub[1].Max != nil {
		t.Errorf("published keys: %+v", pub)
	}
	ser := rep.Shards[3].Keys
	if len(ser) != 2 || ser[0].Max == nil || ser[0].Time != "" || ser[0].Shard != 0 {
		t.Errorf("serial keys: %+v", ser)
	}
	if e := rep.Shards[2].Epoch; e != l.Epoch.UTC().Format(adopt.MillisFormat) {
		t.Errorf("epoch %q", e)
	}
}
