package adopt

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/shardid/shardid/internal/words"
)

// WriteText writes what `shardid pg adopt` prints for one schema: a head
// line (refused with why, current, or what was found), then for a
// schema adopted or to adopt the layout, the old sequence, the keys, where
// the new counter starts and the roles granted.
func (a Adoption) WriteText(w io.Writer) error {
	var b strings.Builder
	head := fmt.Sprintf("%-20s shard %-5d ", a.Shard.Schema, a.Shard.ID)
	switch {
	case a.Err != nil:
		b.WriteString(head + "REFUSED  " + words.OneLine(a.Err.Error()) + "\n")
	case a.Note == "current":
		b.WriteString(head + "current  shardid's generator already (" + a.Layout.String() + "): pg status shows it\n")
	default:
		a.writeFound(&b, head)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeFound writes a schema adopted or to adopt.
func (a Adoption) writeFound(b *strings.Builder, head string) {
	what := "Instagram's published next_id()"
	if a.Kind == AdoptSerial {
		what = "bigserial-like keys, no next_id()"
	}
	b.WriteString(head + a.Note + "  " + what + "\n")
	fmt.Fprintf(b, "  layout    %s\n", a.Layout.Describe())
	fmt.Fprintf(b, "  as flags  --layout %s (what pg up, status and decode take)\n", a.Layout.String())
	verb := "retired by --apply"
	if a.Applied {
		verb = "retired: a draw through the old body fails"
	}
	if a.Kind == AdoptPublished {
		fmt.Fprintf(b, "  sequence  %s (%s)\n", a.Sequence, verb)
	}
	if len(a.Keys) == 0 {
		b.WriteString("  keys      no column defaults to next_id()\n")
	}
	for _, k := range a.Keys {
		switch {
		case a.Kind == AdoptSerial:
			to, highest := "defaults to next_id() with --apply", "none"
			if a.Applied {
				to = "defaults to next_id() now"
			}
			if !k.Empty {
				highest = strconv.FormatInt(k.Max, 10)
			}
			fmt.Fprintf(b, "  key       %s.%s: highest %s, %s handed out up to %d; %s, the sequence capped below the first new ID\n",
				k.Table, k.Column, highest, k.Sequence, k.Last, to)
		case k.Empty:
			fmt.Fprintf(b, "  key       %s.%s: no rows\n", k.Table, k.Column)
		default:
			fmt.Fprintf(b, "  key       %s.%s: highest %d = %s shard %d seq %d\n", k.Table, k.Column, k.Max,
				k.Parts.Time.Format(MillisFormat), k.Parts.Shard, k.Parts.Seq)
		}
	}
	fmt.Fprintf(b, "  counter   starts at %s: past the clock (%s) and the keys above; first new ID %d\n",
		a.Layout.TickTime(a.Start>>a.Layout.SeqBits).Format(MillisFormat), a.Clock.Format(MillisFormat), a.FirstID)
	for _, r := range a.Roles {
		fmt.Fprintf(b, "  granted   %s (it could draw from the old sequence): what drawing needs, as pg grant gives it\n", r)
	}
}

// WriteText writes the summary line `shardid pg adopt` prints after the
// schemas: how many it was asked for (Asked), adopted or would adopt,
// found shardid's already and refused.
func (rep *Report) WriteText(w io.Writer) error {
	what, n := "would be adopted (a dry run: nothing changed; --apply replaces each next_id())", rep.DryRun
	if rep.Apply {
		what, n = "adopted", rep.Adopted
	}
	_, err := fmt.Fprintf(w, "%d %s: %d %s, %d already shardid's, %d refused (%s)\n", rep.Asked, words.Plural(rep.Asked, "schema", "schemas"),
		n, what, rep.Current, rep.Failed, rep.Took)
	return err
}

// Err is the error of a run that refused schemas, nil when none was.
func (rep *Report) Err() error {
	if rep.Failed > 0 {
		return fmt.Errorf("%d %s refused (each says why); nothing was changed in %s", rep.Failed, words.Plural(rep.Failed, "schema was", "schemas were"),
			words.Plural(rep.Failed, "it", "them"))
	}
	return nil
}
