package privilege

import (
	"fmt"
	"io"
	"strings"
)

// DangerList is the dangerous privileges a status found on the shards'
// generators (Dangers), as migrate.Report holds them.
type DangerList []Danger

// WriteText writes l as shardid pg status prints it after its table: an
// empty line, a heading saying what to do, then a line per privilege
// with its schema; nothing when l is empty.
func (l DangerList) WriteText(w io.Writer) error {
	if len(l) == 0 {
		return nil
	}
	var b strings.Builder
	b.WriteString("\nprivileges that let a role break a generator (revoke them; shardid pg grant --role ROLE gives an application exactly what it needs):\n")
	for _, d := range l {
		fmt.Fprintf(&b, "  %-20s %s\n", d.Schema, d)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
