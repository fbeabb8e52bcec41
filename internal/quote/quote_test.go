package quote

import "testing"

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
