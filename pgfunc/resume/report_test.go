package resume_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/shardid/shardid/pgfunc/resume"
)

// TestReport: each counter is counted under its State (failed, missing,
// moved, skipped without a Past, current), a result without schema or
// node that failed is a database not read, errors are folded to one line,
// Finish sorts by server, database, schema, and NotMoved counts failures,
// databases not read and servers.
func TestReport(t *testing.T) {
	past := time.Date(2026, 12, 2, 16, 0, 0, 0, time.UTC)
	var rep resume.Report
	for _, c := range []struct {
		server string
		r      resume.Resumed
		state  string
	}{
		{"b", resume.Resumed{Schema: "s1", Moved: true, Past: past}, "moved"},
		{"a", resume.Resumed{Schema: "s2", Past: past}, "current"},
		{"a", resume.Resumed{Schema: "s1", Note: "classic"}, "skipped"},
		{"a", resume.Resumed{Schema: "s3", Missing: true}, "missing"},
		{"a", resume.Resumed{Database: "d", Schema: "s0", Err: errors.New("permission\ndenied")}, "failed"},
		{"a", resume.Resumed{Database: "closed", Err: errors.New("no CONNECT")}, "failed"},
	} {
		if got := c.r.State(); got != c.state {
			t.Errorf("%+v: State %q, want %q", c.r, got, c.state)
		}
		rep.Add(c.server, c.r)
	}
	rep.Servers = append(rep.Servers, resume.ServerError{Server: "c", Error: "down"})
	rep.Finish(time.Now())
	if rep.Moved != 1 || rep.Current != 1 || rep.Skipped != 1 || rep.Missing != 1 || rep.Failed != 1 || len(rep.Databases) != 1 || rep.NotMoved() != 3 {
		t.Errorf("counts: %+v, NotMoved %d; want one of each, 3 not moved", rep, rep.NotMoved())
	}
	var order []string
	for _, c := range rep.Counters {
		order = append(order, c.Server+"/"+c.Database+"/"+c.Schema)
	}
	if want := "[a//s1 a//s2 a//s3 a/d/s0 b//s1]"; fmt.Sprint(order) != want {
		t.Errorf("order %v, want %s", order, want)
	}
	if e := rep.Counters[3].Error; e != "permission | denied" {
		t.Errorf("error %q, want it on one line", e)
	}
	if rep.Databases[0].Database != "closed" || rep.Took == "" {
		t.Errorf("databases %+v, took %q", rep.Databases, rep.Took)
	}
}
