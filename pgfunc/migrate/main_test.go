package migrate_test

import (
	"testing"

	"github.com/shardid/shardid/internal/testsrv"
)

func TestMain(m *testing.M) { testsrv.Main(m) }
