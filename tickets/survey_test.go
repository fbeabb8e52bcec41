package tickets_test

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"github.com/shardid/shardid/tickets"
	"github.com/shardid/shardid/tools/testsrv"
)

// TestSurvey on MariaDB: each server's settings and class row, how far
// behind the furthest table server each stands (Lagging past
// DefaultMaxLag), a server without a class table said so, and a server
// that cannot be read failing alone.
func TestSurvey(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, _ := testsrv.MariaDBDB(t)
	b, _ := testsrv.MariaDBDB(t)
	up(t, a, tickets.Counter{Name: "s", Increment: 2, Offset: 1})
	up(t, b, tickets.Counter{Name: "s", Increment: 2, Offset: 2})
	if _, err := b.Exec("UPDATE s SET id = ?", 2*(tickets.DefaultMaxLag+10)); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Exec("UPDATE s SET id = 1"); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Exec("DROP TABLE " + tickets.ClassTable("s")); err != nil {
		t.Fatal(err)
	}
	closed, err := sql.Open("mysql", "u:p@tcp(127.0.0.1:1)/x")
	if err != nil {
		t.Fatal(err)
	}
	closed.Close()
	got, top := tickets.Survey(ctx, []tickets.Server{{Name: "a", DB: a}, {Name: "b", DB: b}, {Name: "gone", DB: closed}}, "s", 5*time.Second)
	if len(got) != 3 || top != 2*(tickets.DefaultMaxLag+10) {
		t.Fatalf("Survey: %d servers, top %d; want 3, %d", len(got), top, 2*(tickets.DefaultMaxLag+10))
	}
	sa, sb, gone := got[0], got[1], got[2]
	if sa.Err != nil || sa.HasClass || sa.Settings.Offset != 1 || sa.Behind < tickets.DefaultMaxLag || !sa.Lagging() {
		t.Errorf("a: %+v; want read, no class table, lagging", sa)
	}
	if sb.Err != nil || !sb.HasClass || sb.Settings.Server != "b" || sb.Behind != 0 || sb.Lagging() {
		t.Errorf("b: %+v; want read, the furthest", sb)
	}
	if gone.Err == nil || gone.Name != "gone" || gone.Settings != (tickets.ServerSettings{}) {
		t.Errorf("gone: %+v; want its error alone", gone)
	}
}
