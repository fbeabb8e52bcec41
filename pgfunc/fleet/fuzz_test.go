package fleet_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/shardid/shardid/pgfunc/fleet"
)

// FuzzParse: any text either is refused with ErrMap in one line that
// shows no password, or gives a map whose every shard id is within the
// layout and on exactly one server.
func FuzzParse(f *testing.F) {
	f.Add(goodMap)
	f.Add("[[servers]]\nname = \"a\"\ndsn = \"postgres://u:s3cret@h/d\"\nshards = \"0-3,7\"\n")
	f.Add("layout = \"js53\"\n[[servers]]\nname=\"x\"\ndsn_env=\"X\"\nshards=\"0-255\"\n[[servers]]\nname=\"y\"\ndsn=\"host=h password=s3cret\"\nshards=\"255\"\n")
	// The passwords that must never show are the environment's: the text
	// itself may name a server after anything.
	getenv := env(map[string]string{"DB2_DSN": "postgres://app:env-s3cret@db2/app", "X": "postgres://x:env-s3cret@x/x"})
	f.Fuzz(func(t *testing.T, text string) {
		if len(text) > 4096 {
			return
		}
		m, err := fleet.Parse("fleet.toml", []byte(text), getenv)
		if err != nil {
			if !errors.Is(err, fleet.ErrMap) || strings.Contains(err.Error(), "\n") || strings.Contains(err.Error(), "env-s3cret") {
				t.Fatalf("%q: error %q (want ErrMap, one line, no password)", text, err)
			}
			return
		}
		seen := map[int64]string{}
		for _, s := range m.Servers {
			for _, id := range s.Shards {
				if id < 0 || id > m.Layout.MaxShard() {
					t.Fatalf("%q: shard %d outside the layout", text, id)
				}
				if other, ok := seen[id]; ok {
					t.Fatalf("%q: shard %d on %s and %s", text, id, other, s.Name)
				}
				seen[id] = s.Name
			}
			if strings.Contains(s.Address, "env-s3cret") {
				t.Fatalf("%q: address %q shows the password", text, s.Address)
			}
		}
	})
}
