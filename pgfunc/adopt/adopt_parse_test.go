package adopt

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/shardid/shardid/pgfunc"
)

// instagramBlog is next_id()'s body as Instagram's engineering blog
// published it (2012), comments and spacing as users copy them.
const instagramBlog = `
DECLARE
    our_epoch bigint := 1314220021721;
    seq_id bigint;
    now_millis bigint;
    -- the shard this schema is
    shard_id int := 5;
BEGIN
    SELECT nextval('insta5.table_id_seq') % 1024 INTO seq_id;

    SELECT FLOOR(EXTRACT(EPOCH FROM clock_timestamp()) * 1000) INTO now_millis;
    result := (now_millis - our_epoch) << 23;
    result := result | (shard_id << 10);
    result := result | (seq_id);
END;
    `

func TestParsePublished(t *testing.T) {
	rendered, err := pgfunc.RenderPublished(pgfunc.Shard{Schema: "insta7", ID: 7}, pgfunc.Options{})
	if err != nil {
		t.Fatal(err)
	}
	body := string(rendered)
	body = body[strings.Index(body, "$shardid$")+len("$shardid$"):]
	body = body[:strings.Index(body, "$shardid$")]
	for _, tc := range []struct {
		name, src string
		want      publishedBody
		err       string
	}{
		{name: "blog", src: instagramBlog, want: publishedBody{Sequence: "insta5.table_id_seq", Modulus: 1024, EpochMS: 1314220021721, Shard: 5, TimeShift: 23, SeqShift: 10, Clock: "clock_timestamp"}},
		{name: "rendered", src: body, want: publishedBody{Sequence: `"insta7".next_id_seq`, Modulus: 1024, EpochMS: 1735689600000, Shard: 7, TimeShift: 23, SeqShift: 10, Clock: "clock_timestamp"}},
		{name: "assignments and return", src: `declare e bigint := 1000; s bigint; n bigint; r bigint;
			begin s := nextval('a.s'::regclass) % 4096; n := floor(extract(epoch from now()) * 1000);
			r := (n - e) << 22; r := r | (3 << 12); r := r | s; return r; end`,
			want: publishedBody{Sequence: "a.s", Modulus: 4096, EpochMS: 1000, Shard: 3, TimeShift: 22, SeqShift: 12, Clock: "now"}},
		{name: "random seq", src: strings.Replace(instagramBlog, "nextval('insta5.table_id_seq') % 1024", "floor(random() * 1024)", 1), err: "statement 1"},
		{name: "other clock", src: strings.Replace(instagramBlog, "clock_timestamp()", "statement_timestamp()", 1), err: "the clock is statement_timestamp()"},
		{name: "extra statement", src: strings.Replace(instagramBlog, "END;", "PERFORM pg_sleep(1); END;", 1), err: "want END"},
		{name: "undeclared epoch", src: strings.Replace(instagramBlog, "our_epoch bigint := 1314220021721;", "our_epoch bigint;", 1), err: "statement 3"},
		{name: "names mixed up", src: strings.Replace(instagramBlog, "result | (seq_id)", "result | (now_millis)", 1), err: "statement 5"},
		{name: "comment unterminated", src: instagramBlog + "/* x", err: "unterminated comment"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parsePublished(tc.src)
			if tc.err != "" {
				if err == nil || !errors.Is(err, ErrCannotInfer) || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want ErrCannotInfer containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Fatalf("got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestPublishedLayout(t *testing.T) {
	b := publishedBody{Modulus: 1024, EpochMS: 1314220021721, Shard: 5, TimeShift: 23, SeqShift: 10}
	l, err := b.layout()
	if err != nil {
		t.Fatal(err)
	}
	if l.Name != "instagram" || l.TimeBits != 41 || l.ShardBits != 13 || l.SeqBits != 10 || l.TimeUnit != time.Millisecond || l.EpochMillis() != 1314220021721 {
		t.Fatalf("layout %+v", l)
	}
	snow, err := publishedBody{Modulus: 4096, EpochMS: 1288834974657, Shard: 5, TimeShift: 22, SeqShift: 12}.layout()
	if err != nil || snow.Name != "snowflake" || snow.TimeBits != 41 || snow.ShardBits != 10 {
		t.Fatalf("snowflake shifts: %+v, %v", snow, err)
	}
	odd, err := publishedBody{Modulus: 256, EpochMS: 1288834974657, Shard: 5, TimeShift: 20, SeqShift: 8}.layout()
	if err != nil || odd.Name != "" || odd.TimeBits != 44 || odd.UsableTimeBits() != 43 {
		t.Fatalf("12/8 shifts: %+v, %v", odd, err)
	}
	for _, tc := range []struct {
		name string
		b    publishedBody
		err  string
	}{
		{"modulus", publishedBody{Modulus: 2048, TimeShift: 23, SeqShift: 10}, "% 2048 into a 10-bit"},
		{"shifts", publishedBody{Modulus: 1024, TimeShift: 10, SeqShift: 10}, "want 0 < shard shift < time shift"},
		{"shard", publishedBody{Modulus: 1024, TimeShift: 12, SeqShift: 10, Shard: 4}, "does not fit its 2 shard bits"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := tc.b.layout(); err == nil || !errors.Is(err, ErrCannotInfer) || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("err = %v, want %q", err, tc.err)
			}
		})
	}
}
