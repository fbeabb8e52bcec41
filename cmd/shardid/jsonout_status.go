package main

import (
	"github.com/shardid/shardid/segment"
	"github.com/shardid/shardid/tickets"
)

// segmentTagRow is one tag of segment status --json.
type segmentTagRow = segment.TagRow

// ticketsRow is one server of tickets status --json.
type ticketsRow = tickets.ServerRow
