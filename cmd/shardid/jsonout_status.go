package main

import (
	"github.com/shardid/shardid/segment"
	"github.com/shardid/shardid/tickets"
)

// segmentTagRow is one tag of segment status --json.
type segmentTagRow = segment.TagRow

// segmentStatusJSON adds tags to r.
func segmentStatusJSON(r *jsonReport, tags []segment.Tag) {
	for _, t := range tags {
		r.row(t.Row())
	}
	r.total("tags", len(tags))
}

// ticketsRow is one server of tickets status --json.
type ticketsRow = tickets.ServerRow
