package privilege_test

import (
	"os"

	"github.com/shardid/shardid/pgfunc/privilege"
)

// What pg status prints of the privileges that let a role break a
// generator.
func ExampleDangerList_WriteText() {
	l := privilege.DangerList{{Schema: "insta3", Role: "app", Object: "insta3.next_id_seq", Privilege: "UPDATE", Effect: "setval can move the counter back, and IDs repeat"}}
	_ = l.WriteText(os.Stdout)
	// Output:
	//
	// privileges that let a role break a generator (revoke them; shardid pg grant --role ROLE gives an application exactly what it needs):
	//   insta3               role app has UPDATE on insta3.next_id_seq: setval can move the counter back, and IDs repeat
}
