package tickets

// ServerRow is a ServerStatus as `shardid tickets status --json` writes
// it: one row of the document.
type ServerRow struct {
	Server    string `json:"server"`
	Kind      string `json:"kind,omitempty"`
	Increment int64  `json:"increment,omitempty"`
	Offset    int64  `json:"offset,omitempty"`
	Last      *int64 `json:"last,omitempty"`     // a table server's counter; the most a sequence may have handed out
	Recorded  int64  `json:"recorded,omitempty"` // highest ticket clients recorded
	Behind    *int64 `json:"behind,omitempty"`   // tickets behind the furthest server
	Error     string `json:"error,omitempty"`    // the server could not be read
}

// Row returns s, a server that was read, as a ServerRow; top is Survey's,
// the furthest counter of the table servers.
func (s ServerStatus) Row(top int64) ServerRow {
	set := s.Settings
	row := ServerRow{Server: s.Name, Kind: string(set.Kind), Increment: set.Increment, Offset: set.Offset, Recorded: s.Class.Seen}
	switch {
	case set.Kind == KindTable:
		last, behind := set.Last, max(top-set.Last, 0)/set.Increment
		row.Last, row.Behind = &last, &behind
	case set.LastKnown: // a sequence: the most it may have handed out
		last := set.Last
		row.Last = &last
	}
	return row
}
