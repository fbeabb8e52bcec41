package apply_test

import (
	"testing"

	"github.com/shardid/shardid/tools/testsrv"
)

// TestMain runs the tests and stops every server they started.
func TestMain(m *testing.M) { testsrv.Main(m) }
