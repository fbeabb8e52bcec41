package segment

import "time"

// TagRow is a Tag as `shardid segment status --json` writes it: one row
// of the document, times in UTC.
type TagRow struct {
	Tag         string     `json:"tag"`
	MaxID       int64      `json:"max_id"` // handed out up to
	Step        int64      `json:"step"`
	Description string     `json:"description"`
	UpdateTime  time.Time  `json:"update_time"`
	Fenced      bool       `json:"fenced"`
	LastRewind  *RewindRow `json:"last_rewind"` // null: none found
}

// RewindRow is a Rewind in a TagRow.
type RewindRow struct {
	Time  time.Time `json:"time"`
	Found int64     `json:"found"`
	Seen  int64     `json:"seen"`
}

// Row returns t as a TagRow.
func (t Tag) Row() TagRow {
	row := TagRow{Tag: t.Tag, MaxID: t.MaxID, Step: t.Step, Description: t.Description, UpdateTime: t.UpdateTime.UTC(), Fenced: t.Fenced}
	if w := t.LastRewind; !w.IsZero() {
		row.LastRewind = &RewindRow{Time: w.Time.UTC(), Found: w.Found, Seen: w.Seen}
	}
	return row
}
