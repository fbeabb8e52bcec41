package pgfunc_test

import (
	"errors"
	"testing"
	"time"

	"github.com/shardid/shardid"
	"github.com/shardid/shardid/pgfunc"
)

// TestSpecParse: a Spec reads into the options and shards it names, and
// each bad field is a *SpecError naming that field, in the order layout,
// mode, lead, shards, schema format.
func TestSpecParse(t *testing.T) {
	o, shards, err := pgfunc.Spec{Layout: "js53", Epoch: "2025-01-01T00:00:00Z", Mode: "classic", Lead: 2 * time.Second, Shards: "3,1-2", SchemaFormat: "s%d"}.Parse()
	if err != nil || o.Layout.String() != "js53" || o.Mode != pgfunc.ModeClassic || o.Lead != 2*time.Second {
		t.Fatalf("Parse: %+v, %v", o, err)
	}
	if len(shards) != 3 || shards[0] != (pgfunc.Shard{Schema: "s1", ID: 1}) || shards[2] != (pgfunc.Shard{Schema: "s3", ID: 3}) {
		t.Fatalf("shards %+v; want s1, s2, s3 in id order", shards)
	}
	if o, shards, err := (pgfunc.Spec{}).Parse(); err != nil || shards != nil || o.Layout != shardid.Instagram() || o.Mode != pgfunc.ModeUnique {
		t.Fatalf("zero Spec: %+v, %v, %v; want the default generator and no shards", o, shards, err)
	}
	for _, c := range []struct {
		spec  pgfunc.Spec
		field string
		is    error
	}{
		{pgfunc.Spec{Layout: "nope", Mode: "nope"}, "layout", nil},
		{pgfunc.Spec{Epoch: "yesterday"}, "epoch", shardid.ErrInvalidEpoch},
		{pgfunc.Spec{Mode: "nope", Lead: time.Nanosecond}, "mode", pgfunc.ErrInvalidMode},
		{pgfunc.Spec{Lead: time.Nanosecond, Shards: "x"}, "lead", pgfunc.ErrInvalidLead},
		{pgfunc.Spec{Layout: "time:41,node:6,seq:12,route:4", Mode: "classic"}, "layout", pgfunc.ErrRouteUnsupported},
		{pgfunc.Spec{Shards: "8192"}, "shards", nil},
		{pgfunc.Spec{Shards: "1", SchemaFormat: "Bad%d"}, "schema-format", pgfunc.ErrInvalidSchema},
	} {
		_, _, err := c.spec.Parse()
		var se *pgfunc.SpecError
		if !errors.As(err, &se) || se.Field != c.field || c.is != nil && !errors.Is(err, c.is) {
			t.Errorf("%+v: %v; want a SpecError on %s (%v)", c.spec, err, c.field, c.is)
		}
	}
}
