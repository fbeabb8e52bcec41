package citus_test

import (
	"testing"

	"github.com/shardid/shardid/pgfunc/internal/pgtest"
	"github.com/shardid/shardid/tools/testsrv"
)

func TestMain(m *testing.M) { testsrv.Main(m) }

// dbNameOf is the name of the database db is connected to.
var dbNameOf = pgtest.DBNameOf
