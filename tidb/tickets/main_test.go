package tickets_test

import (
	"flag"
	"testing"

	"github.com/shardid/shardid/internal/testsrv"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/tickets")

func TestMain(m *testing.M) { testsrv.Main(m) }
