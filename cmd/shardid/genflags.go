package main

// The flags of the ID's layout and of the generator, shared by every
// command that renders or decodes IDs (pg, tidb, decode, idgen, worker).

import (
	"errors"
	"strings"
	"time"

	"github.com/shardid/shardid"
	"github.com/shardid/shardid/pgfunc"
)

// Environment variables read by the pg commands; flags win over them.
const (
	envPGDSN    = "SHARDID_PG_DSN"  // --dsn
	envLayout   = "SHARDID_LAYOUT"  // --layout
	envEpoch    = "SHARDID_EPOCH"   // --epoch
	envMode     = "SHARDID_MODE"    // --mode
	envSchemaFm = "SHARDID_SCHEMAS" // --schema-format
	envLead     = "SHARDID_LEAD"    // --lead
)

// layoutFlags are the flags every command that renders or decodes shares.
type layoutFlags struct {
	layout, epoch string
}

// layoutHelp describes what --layout takes.
var layoutHelp = "a preset (" + strings.Join(shardid.LayoutNames(), ", ") + ") or fields from the top, e.g. time:41,shard:13,seq:10 or time:28@1s,node:22,seq:13 or time:41,node:6,seq:12,route:4"

func (f *layoutFlags) register(fs *flagSet) {
	fs.envStringVar(&f.layout, "layout", envLayout, "instagram", "ID layout: "+layoutHelp+" (env "+envLayout+")")
	fs.StringVar(&f.epoch, "epoch", "",
		"custom epoch, RFC 3339 or Unix ms (default "+shardid.DefaultEpoch().Format(time.RFC3339)+"; env "+envEpoch+")")
	fs.envVar("epoch", envEpoch)
}

// resolve reads --layout and --epoch (shardid.ParseLayoutEpoch), blaming
// the flag at fault.
func (f *layoutFlags) resolve() (shardid.Layout, error) {
	l, err := shardid.ParseLayoutEpoch(f.layout, f.epoch)
	switch {
	case errors.Is(err, shardid.ErrInvalidEpoch):
		return l, flagUsagef("epoch", "%v", err)
	case err != nil:
		return l, flagUsagef("layout", "%v", err)
	}
	return l, nil
}

// genFlags are the flags shared by the commands that render shards.
type genFlags struct {
	layoutFlags
	mode, schemaFormat, shards string
	lead                       time.Duration
}

// register defines the flags; shards is the help of --shards after the
// example ("" leaves --shards out).
func (f *genFlags) register(fs *flagSet, shards string) {
	f.layoutFlags.register(fs)
	fs.StringVar(&f.mode, "mode", string(pgfunc.ModeUnique),
		"next_id() body: unique (never repeats), classic or classic-sql (lock-free, repeat past 2^seq IDs per tick; env "+envMode+")")
	fs.envVar("mode", envMode)
	fs.DurationVar(&f.lead, "lead", pgfunc.DefaultLead,
		"mode unique: how far ahead of the server's clock IDs may go, a burst borrowing the following ticks; a restore or failover whose new primary draws later than this after the old one's last draw repeats nothing (env "+envLead+")")
	fs.envVar("lead", envLead)
	fs.StringVar(&f.schemaFormat, "schema-format", pgfunc.DefaultSchemaFormat,
		"schema name of shard N, with one %d (env "+envSchemaFm+")")
	fs.envVar("schema-format", envSchemaFm)
	if shards != "" {
		fs.StringVar(&f.shards, "shards", "", "shard ids, e.g. 0-63 or 0-3,8,10-12 ("+shards+")")
	}
}

// spec is the generator the flags name, as pgfunc.Spec reads it.
func (f *genFlags) spec() pgfunc.Spec {
	return pgfunc.Spec{Layout: f.layout, Epoch: f.epoch, Mode: f.mode, Lead: f.lead, Shards: f.shards, SchemaFormat: f.schemaFormat}
}

// parse reads the flags (pgfunc.Spec.Parse, one call from the flags to
// the options and shards), blaming the flag at fault; required says
// --shards must name some.
func (f *genFlags) parse(required bool) (pgfunc.Options, []pgfunc.Shard, error) {
	s := f.spec()
	if !required {
		s.Shards = "" // read by the command itself, or not at all
	}
	o, shards, err := s.Parse()
	var se *pgfunc.SpecError
	errors.As(err, &se)
	switch {
	case se != nil && (se.Field == "epoch" || se.Field == "mode" || se.Field == "layout" && !errors.Is(err, pgfunc.ErrRouteUnsupported)):
		return o, nil, flagUsagef(se.Field, "%v", se.Err)
	case f.lead <= 0 || se != nil && se.Field == "lead":
		// One message for every bad lead (the library's also offers 0 for
		// the default, which the flag, whose default is shown, does not).
		return o, nil, flagUsagef("lead", "%s is not a lead for layout %s (allowed: a whole number of milliseconds from its tick, %s, to %s; default %s)",
			f.lead, o.Layout, o.Layout.TimeUnit, pgfunc.MaxLead, pgfunc.DefaultLead)
	case required && f.shards == "":
		return o, nil, shardsMissing()
	case se != nil:
		return o, nil, flagUsagef(se.Field, "%v", se.Err)
	}
	return o, shards, err
}

// options reads the generator's flags alone (parse without --shards).
func (f *genFlags) options() (pgfunc.Options, error) {
	o, _, err := f.parse(false)
	return o, err
}

// shardsMissing is the error of a command given no --shards.
func shardsMissing() error {
	return usagef("--shards is required (e.g. --shards 0-63 or 0-3,8,10-12)")
}

// shardList reads spec as shard ids of layout l (pgfunc.Spec.ShardList),
// each with the schema --schema-format names.
func (f *genFlags) shardList(l shardid.Layout, spec string) ([]pgfunc.Shard, error) {
	if spec == "" {
		return nil, shardsMissing()
	}
	shards, err := pgfunc.Spec{Shards: spec, SchemaFormat: f.schemaFormat}.ShardList(l)
	var se *pgfunc.SpecError
	if errors.As(err, &se) {
		return nil, flagUsagef(se.Field, "%v", se.Err)
	}
	return shards, err
}
