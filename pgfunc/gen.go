package pgfunc

import (
	"fmt"
	"io"

	"github.com/shardid/shardid/internal/gooseup"
	"github.com/shardid/shardid/internal/words"
)

// Written is what WriteDir did to a goose directory.
type Written struct {
	// Dir is the directory.
	Dir string
	// Written are the files created or (forced) overwritten, Unchanged
	// those that already held exactly their content.
	Written, Unchanged []string
}

// WriteDir renders shards' goose migrations (Files) and joins them to
// directory dir, as shardid pg gen does: offset is added to every version
// (shard id + 1), to follow the migrations dir holds; a file whose
// content differs is refused unless force. A version at or below one
// of dir's own migrations is a *gooseup.VersionError naming the least
// offset that would do.
func WriteDir(dir string, shards []Shard, o Options, offset int64, force bool) (Written, error) {
	files, err := Files(shards, o)
	if err != nil {
		return Written{}, err
	}
	res, err := gooseup.Join(dir, files, gooseup.JoinOptions{Offset: offset, Own: "_shardid_", Force: force})
	return Written{Dir: dir, Written: res.Written, Unchanged: res.Unchanged}, err
}

// WriteText writes the line shardid pg gen prints: how many migrations
// it wrote to the directory and how many were there already, and the
// goose command that applies them.
func (r Written) WriteText(w io.Writer) error {
	_, err := fmt.Fprintf(w, "wrote %d %s to %s (%d already there, unchanged); apply with: goose -dir %s postgres \"$SHARDID_PG_DSN\" up\n",
		len(r.Written), words.Plural(len(r.Written), "migration", "migrations"), r.Dir, len(r.Unchanged), r.Dir)
	return err
}
