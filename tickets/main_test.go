package tickets_test

import (
	"testing"
	"time"

	"github.com/shardid/shardid/tools/testsrv"
)

func TestMain(m *testing.M) {
	testsrv.Parallel(4) // the tests mostly wait for servers: to draw, restart, restore
	testsrv.Main(m)
}

// patient is the call timeout of the tests' clients that are not about
// timeouts: a safety net for a server that never answers, far above what
// a loaded machine takes, so that only the property under test can fail
// them (the timeout and budget tests set their own).
const patient = time.Minute
