package segment_test

import (
	"testing"

	"github.com/shardid/shardid/tools/testsrv"
)

func TestMain(m *testing.M) {
	testsrv.Parallel(4) // the tests mostly wait for servers: to allocate, restart, restore
	testsrv.Main(m)
}
