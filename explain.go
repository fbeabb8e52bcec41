package shardid

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// Decoded is an ID taken apart for reading, as `shardid decode` prints it
// (with --json one object per ID).
type Decoded struct {
	ID int64 `json:"id"`
	// Time is the start of the ID's tick, to the millisecond.
	Time  string `json:"time"`
	Shard int64  `json:"shard"`
	Seq   int64  `json:"seq"`
	// Route is there for a layout with a route field only.
	Route *int64 `json:"route,omitempty"`
	// Warning says why the decoding is likely wrong: its time lies further
	// ahead than any generator can have made it yet.
	Warning string `json:"warning,omitempty"`
	// Field is the word WriteText gives the shard field (ShardField);
	// "" is shard. The JSON key stays "shard" whatever it is.
	Field string `json:"-"`
}

// Explain reads a decimal ID from text (spaces around it ignored), takes
// it apart as Decompose does and words it: an error names the text or the
// ID and what is allowed. Warning is set
// when the ID's time lies more than slack after now: no generator of this
// layout and epoch that runs at most slack ahead of its clock can have
// made it yet (most often a rotated ID, or another layout's or epoch's).
func (l Layout) Explain(text string, now time.Time, slack time.Duration) (Decoded, error) {
	id, err := strconv.ParseInt(strings.TrimSpace(text), 10, 64)
	if err != nil {
		return Decoded{}, fmt.Errorf("bad ID %q: want a decimal integer from 0 to %d", text, l.MaxID())
	}
	p, err := l.Decompose(id)
	if err != nil {
		return Decoded{}, fmt.Errorf("ID %d: %w", id, err)
	}
	d := Decoded{ID: id, Time: p.Time.Format("2006-01-02T15:04:05.000Z07:00"), Shard: p.Shard, Seq: p.Seq}
	if ahead := p.Time.Sub(now); ahead > slack {
		d.Warning = fmt.Sprintf("its time is %s after now, which no generator of this layout and epoch can have made yet: a rotated ID (shardid rotate --reverse), or another --layout or --epoch?", roughly(ahead))
	}
	if l.RouteBits > 0 {
		d.Route = &p.Route
	}
	return d, nil
}

// roughly words a long duration to the unit that matters: 12 days, 5
// hours, 70 minutes.
func roughly(d time.Duration) string {
	switch {
	case d >= 48*time.Hour:
		return fmt.Sprintf("%d days", d/(24*time.Hour))
	case d >= 2*time.Hour:
		return fmt.Sprintf("%d hours", d/time.Hour)
	}
	return fmt.Sprintf("%d minutes", d/time.Minute)
}

// WriteText writes d as one line, as decode prints it: the ID, its time,
// "shard N" (Field for shard), "seq N" and, with a route field, "route
// N", separated by tabs.
func (d Decoded) WriteText(w io.Writer) error {
	field, route := d.Field, ""
	if field == "" {
		field = "shard"
	}
	if d.Route != nil {
		route = fmt.Sprintf("\troute %d", *d.Route)
	}
	_, err := fmt.Fprintf(w, "%d\t%s\t%s %d\tseq %d%s\n", d.ID, d.Time, field, d.Shard, d.Seq, route)
	return err
}

// ShardField is the word a layout spec gives the shard field: node when
// the spec names it so (time:41,node:6,seq:12), shard otherwise.
func ShardField(spec string) string {
	for _, part := range strings.Split(spec, ",") {
		if name, _, ok := strings.Cut(strings.TrimSpace(part), ":"); ok && strings.TrimSpace(name) == "node" {
			return "node"
		}
	}
	return "shard"
}
