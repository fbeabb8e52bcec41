package quote

import (
	"strings"
	"testing"
)

func TestControls(t *testing.T) {
	for in, want := range map[string]string{
		"":                               "",
		"not a binary number: '0b\n'":    `not a binary number: '0b\n'`,
		"a\tb\x00c\rd\u2028e\u2029f\x7f": `a\tb\x00c\rd\u2028e\u2029f\x7f`,
		"plain, ünïcode 'quoted' \"x\"":  "plain, ünïcode 'quoted' \"x\"",
	} {
		if got := Controls(in); got != want {
			t.Errorf("Controls(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCheckTable(t *testing.T) {
	for _, c := range []struct {
		name   string
		schema bool
		suffix int
		ok     bool
	}{
		{"shardid_segments", true, 24, true},
		{"app.shardid_segments", true, 24, true},
		{"app.shardid_segments", false, 24, false},
		{"_t9", false, 0, true},
		{"a.b.c", true, 0, false},
		{"Leases", true, 0, false},
		{"9t", true, 0, false},
		{"pg_leases", true, 0, false},
		{"app.", true, 0, false},
		{"x; drop table y", true, 0, false},
		{strings.Repeat("a", 39), true, 24, true},
		{strings.Repeat("a", 40), true, 24, false},
		{strings.Repeat("s", 64) + ".t", true, 0, false},
	} {
		if err := CheckTable(c.name, c.schema, c.suffix); (err == nil) != c.ok {
			t.Errorf("CheckTable(%q, %v, %d) = %v; want ok %v", c.name, c.schema, c.suffix, err, c.ok)
		}
	}
	if got := Table("app.ids", true); got != `"app"."ids"` {
		t.Errorf("Table ANSI: %s", got)
	}
	if got := Table("ids", false); got != "`ids`" {
		t.Errorf("Table MySQL: %s", got)
	}
	defer func() {
		if r := recover(); r == nil {
			t.Errorf("Table of an unchecked name did not panic")
		}
	}()
	Table(`a"b`, true)
}

func TestIdent(t *testing.T) {
	for _, c := range []struct {
		in   string
		ansi bool
		want string
	}{
		{"insta0", true, `"insta0"`},
		{`a"b`, true, `"a""b"`},
		{"a`b", true, "\"a`b\""},
		{"t", false, "`t`"},
		{"a`b", false, "`a``b`"},
		{`a"b`, false, "`a\"b`"},
	} {
		if got := Ident(c.in, c.ansi); got != c.want {
			t.Errorf("Ident(%q, %v) = %s, want %s", c.in, c.ansi, got, c.want)
		}
	}
	if got := Literal("it's"); got != "'it''s'" {
		t.Errorf("Literal = %s", got)
	}
}
