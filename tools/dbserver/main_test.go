package dbserver_test

import (
	"testing"

	"github.com/shardid/shardid/tools/testsrv"
)

func TestMain(m *testing.M) { testsrv.Main(m) }
