package pgfunc

import (
	"errors"
	"time"

	"github.com/shardid/shardid"
)

// Spec is a generator's options and shards as text, as a command line, the
// environment or a configuration file gives them; Parse turns it into
// Options and shards. Its zero value is the default generator and no
// shards.
type Spec struct {
	// Layout and Epoch are shardid.ParseLayoutEpoch's: a preset or fields,
	// and an RFC 3339 time or Unix milliseconds ("" for each default).
	Layout, Epoch string
	// Mode is ParseMode's ("" for ModeUnique).
	Mode string
	// Lead is Options.Lead (zero means DefaultLead).
	Lead time.Duration
	// Shards are shardid.ParseShards's shard ids ("" for none).
	Shards string
	// SchemaFormat names shard N's schema, with one %d (SchemaName; ""
	// means DefaultSchemaFormat).
	SchemaFormat string
}

// SpecError is returned by Spec.Parse: Field names the Spec field at
// fault as a command line names it ("layout", "epoch", "mode", "lead",
// "shards", "schema-format"), Err says what is wrong and what is allowed.
type SpecError struct {
	Field string
	Err   error
}

func (e *SpecError) Error() string { return e.Field + ": " + e.Err.Error() }

// Unwrap returns Err.
func (e *SpecError) Unwrap() error { return e.Err }

// Parse reads s: the layout and epoch, the mode, the options' combination
// (Options.Validate), then the shards, each with its schema. Its errors
// are *SpecError values, in that order; errors.Is still finds
// shardid.ErrInvalidEpoch, ErrInvalidLead and ErrRouteUnsupported through
// them.
func (s Spec) Parse() (Options, []Shard, error) {
	l, err := shardid.ParseLayoutEpoch(s.Layout, s.Epoch)
	switch {
	case errors.Is(err, shardid.ErrInvalidEpoch):
		return Options{}, nil, &SpecError{"epoch", err}
	case err != nil:
		return Options{}, nil, &SpecError{"layout", err}
	}
	mode, err := ParseMode(s.Mode)
	if err != nil {
		return Options{}, nil, &SpecError{"mode", err}
	}
	o := Options{Layout: l, Mode: mode, Lead: s.Lead}
	switch err := o.Validate(); {
	case errors.Is(err, ErrInvalidLead):
		return o, nil, &SpecError{"lead", err}
	case err != nil:
		return o, nil, &SpecError{"layout", err}
	}
	shards, err := s.ShardList(l)
	return o, shards, err
}

// ShardList reads s.Shards as shard ids of layout l, each with the schema
// s.SchemaFormat names; nil for no Shards. Its errors are *SpecError
// values.
func (s Spec) ShardList(l shardid.Layout) ([]Shard, error) {
	if s.Shards == "" {
		return nil, nil
	}
	ids, err := shardid.ParseShards(s.Shards, l)
	if err != nil {
		return nil, &SpecError{"shards", err}
	}
	format := s.SchemaFormat
	if format == "" {
		format = DefaultSchemaFormat
	}
	out := make([]Shard, 0, len(ids))
	for _, id := range ids {
		name, err := SchemaName(format, id)
		if err != nil {
			return nil, &SpecError{"schema-format", err}
		}
		out = append(out, Shard{Schema: name, ID: id})
	}
	return out, nil
}
