package testsrv

import (
	"flag"
	"strconv"
)

// Parallel parses the test flags and raises -test.parallel to n unless
// the command line gave it: for a package whose parallel tests mostly wait
// (on leases ending by a database's clock, on servers restarting), not
// compute, so more of them can wait at once than the machine has cores
// (the default). Call it first in TestMain.
func Parallel(n int) {
	if !flag.Parsed() {
		flag.Parse()
	}
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given {
		_ = flag.Set("test.parallel", strconv.Itoa(n))
	}
}
