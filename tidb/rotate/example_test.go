package rotate_test

import (
	"fmt"

	"github.com/shardid/shardid/tidb/rotate"
)

func Example() {
	// Four consecutive Snowflake IDs share their leading digits and would
	// all be written to the last region of the table.
	for _, id := range []int64{561632371732905984, 561632371732905985, 561632371732905986, 561632371732905987} {
		r, err := rotate.Rotate(id, 1)
		if err != nil {
			panic(err)
		}
		back, _ := rotate.Unrotate(r, 1)
		fmt.Println(id, "→", r, "range", rotate.Range(r, 1), back == id)
	}
	// Output:
	// 561632371732905984 → 546163237173290598 range 54 true
	// 561632371732905985 → 556163237173290598 range 55 true
	// 561632371732905986 → 566163237173290598 range 56 true
	// 561632371732905987 → 576163237173290598 range 57 true
}

func ExampleRotate_overflow() {
	_, err := rotate.Rotate(9223372036854775807, 1)
	fmt.Println(err)
	// Output:
	// rotate 9223372036854775807 by 1 digits: result overflows int64 (9722337203685477580 > 9223372036854775807)
}
