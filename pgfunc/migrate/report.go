package migrate

import (
	"cmp"
	"context"
	"slices"
	"strings"

	"github.com/shardid/shardid/pgfunc"
	"github.com/shardid/shardid/pgfunc/citus"
	"github.com/shardid/shardid/pgfunc/inventory"
	"github.com/shardid/shardid/pgfunc/privilege"
)

// Report is everything a status of one server shows, read by one call
// (Migrator.Report).
type Report struct {
	// Statuses is Survey's answer for the shards, in shard id order
	// (insta2 before insta10), schemas of one shard id by name.
	Statuses []Status
	// Census is what the same reading of the server found beyond the
	// shards (Survey).
	Census inventory.Census
	// Dangers are the privileges that let a role break the shards'
	// generators (privilege.Dangers).
	Dangers []privilege.Danger
	// Citus is the cluster as its coordinator shows it (citus.Survey),
	// nil on a server without Citus.
	Citus *citus.Status
}

// Report reads what a status shows of the shards (with no shards, of
// every generator of the Migrator's database): Survey's statuses and
// census from one reading of the server, the dangerous privileges on
// them, and on a Citus coordinator every node's counters. It stops at the
// first reading that fails.
func (m *Migrator) Report(ctx context.Context, shards []pgfunc.Shard) (Report, error) {
	var r Report
	var err error
	if r.Statuses, r.Census, err = m.Survey(ctx, shards); err != nil {
		return Report{}, err
	}
	slices.SortStableFunc(r.Statuses, func(a, b Status) int {
		return cmp.Or(cmp.Compare(a.Shard.ID, b.Shard.ID), strings.Compare(a.Shard.Schema, b.Shard.Schema))
	})
	if r.Dangers, err = privilege.Dangers(ctx, m.db, shards); err != nil {
		return Report{}, err
	}
	if r.Citus, err = citus.Survey(ctx, m.db, m.opts, shards); err != nil {
		return Report{}, err
	}
	return r, nil
}
