package adopt

import (
	"time"

	"github.com/shardid/shardid"
)

// Report is the outcome of a Run, as `shardid pg adopt --json` prints it:
// one entry per schema (Add) and the counts by state.
type Report struct {
	Apply   bool          `json:"apply"`
	Shards  []ReportShard `json:"shards"`
	DryRun  int           `json:"dry_run"`
	Adopted int           `json:"adopted"`
	Current int           `json:"current"`
	Failed  int           `json:"failed"`
	Took    string        `json:"took"`
	// Asked is how many schemas the run was asked for, which the text
	// summary counts (not in the JSON document).
	Asked int `json:"-"`
}

// ReportShard is one schema of a Report, its instants to the millisecond.
type ReportShard struct {
	Schema   string      `json:"schema"`
	Shard    int64       `json:"shard"`
	State    string      `json:"state"` // dry run, adopted, current, refused
	Kind     string      `json:"kind,omitempty"`
	Layout   string      `json:"layout,omitempty"` // the spec --layout takes, epoch included
	Epoch    string      `json:"epoch,omitempty"`
	Sequence string      `json:"old_sequence,omitempty"` // published: the sequence retired
	Keys     []ReportKey `json:"keys,omitempty"`
	Clock    string      `json:"clock,omitempty"`
	Start    string      `json:"counter_starts,omitempty"`
	FirstID  int64       `json:"first_id,omitempty"`
	Roles    []string    `json:"roles_granted,omitempty"`
	Error    string      `json:"error,omitempty"`
}

// ReportKey is one key column of a ReportShard.
type ReportKey struct {
	Table  string `json:"table"`
	Column string `json:"column"`
	Max    *int64 `json:"max"`
	Time   string `json:"max_time,omitempty"`
	Shard  int64  `json:"max_shard"`
	Seq    int64  `json:"max_seq"`
	// A bigserial-like key's sequence and its last value (kind serial).
	Sequence string `json:"sequence,omitempty"`
	Last     int64  `json:"sequence_last,omitempty"`
}

// MillisFormat is how a Report, and pg adopt's text, write instants.
const MillisFormat = "2006-01-02T15:04:05.000Z07:00"

// Add records a, counting it as failed (refused), adopted, current
// (shardid's already) or a dry run.
func (rep *Report) Add(a Adoption) {
	switch {
	case a.Err != nil:
		rep.Failed++
	case a.Applied:
		rep.Adopted++
	case a.Note == "current":
		rep.Current++
	default:
		rep.DryRun++
	}
	rep.Shards = append(rep.Shards, reportShard(a))
}

// Finish sets Took to the time since start.
func (rep *Report) Finish(start time.Time) {
	rep.Took = time.Since(start).Round(time.Millisecond).String()
}

// reportShard is a as a Report holds it.
func reportShard(a Adoption) ReportShard {
	s := ReportShard{Schema: a.Shard.Schema, Shard: a.Shard.ID, State: a.Note, Kind: a.Kind}
	if a.Err != nil {
		s.State, s.Error = "refused", a.Err.Error()
	}
	if a.Layout != (shardid.Layout{}) {
		s.Layout, s.Epoch = a.Layout.String(), a.Layout.Epoch.UTC().Format(MillisFormat)
	}
	if a.Kind == "" || a.Err != nil {
		return s
	}
	s.Sequence, s.Roles, s.FirstID = a.Sequence, a.Roles, a.FirstID
	s.Clock = a.Clock.Format(MillisFormat)
	s.Start = a.Layout.TickTime(a.Start >> a.Layout.SeqBits).Format(MillisFormat)
	for _, k := range a.Keys {
		kj := ReportKey{Table: k.Table, Column: k.Column, Sequence: k.Sequence, Last: k.Last}
		if !k.Empty {
			kj.Max = &k.Max
		}
		if !k.Empty && a.Kind != AdoptSerial {
			kj.Time, kj.Shard, kj.Seq = k.Parts.Time.Format(MillisFormat), k.Parts.Shard, k.Parts.Seq
		}
		s.Keys = append(s.Keys, kj)
	}
	return s
}

// Rows are the schemas: the rows of the --json document of shardid pg
// adopt.
func (r Report) Rows() []any {
	rows := make([]any, len(r.Shards))
	for i, s := range r.Shards {
		rows[i] = s
	}
	return rows
}

// Totals are the document's totals: whether it applied, the counts by
// state and how long it took.
func (r Report) Totals() map[string]any {
	return map[string]any{"apply": r.Apply, "dry_run": r.DryRun, "adopted": r.Adopted, "current": r.Current, "failed": r.Failed, "took": r.Took}
}
