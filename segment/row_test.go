package segment_test

import (
	"testing"
	"time"

	"github.com/shardid/shardid/segment"
)

// TestTagRow: times in UTC; no rewind is a null last_rewind, one found
// is kept whole.
func TestTagRow(t *testing.T) {
	at := time.Date(2026, 12, 2, 17, 0, 0, 0, time.FixedZone("CET", 3600))
	row := segment.Tag{Tag: "orders", MaxID: 99, Step: 10, UpdateTime: at}.Row()
	if row.Tag != "orders" || row.MaxID != 99 || row.Step != 10 || row.UpdateTime.Location() != time.UTC || !row.UpdateTime.Equal(at) || row.LastRewind != nil {
		t.Errorf("Row = %+v", row)
	}
	row = segment.Tag{Tag: "x", Fenced: true, LastRewind: segment.Rewind{Time: at, Seen: 7, Found: 3}}.Row()
	if w := row.LastRewind; !row.Fenced || w == nil || w.Seen != 7 || w.Found != 3 || w.Time.Location() != time.UTC {
		t.Errorf("a rewind: Row = %+v", row)
	}
}
