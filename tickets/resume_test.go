package tickets_test

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"

	"github.com/shardid/shardid/tickets"
	"github.com/shardid/shardid/tools/testsrv"
)

// TestResumeRefuses: bad input and a server with nothing to go by are
// refused with one line naming what is wrong, and nothing moves.
func TestResumeRefuses(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, _ := testsrv.MariaDBDB(t)
	b, _ := testsrv.MariaDBDB(t)
	solo, _ := testsrv.MariaDBDB(t)
	up(t, a, tickets.Counter{Name: "t", Increment: 2, Offset: 1})
	up(t, b, tickets.Counter{Name: "t", Increment: 2, Offset: 2})
	up(t, solo, tickets.Counter{Name: "t"})
	pair := []tickets.Server{{Name: "a", DB: a}, {Name: "b", DB: b}}
	for _, c := range []struct {
		name    string
		servers []tickets.Server
		s       tickets.ResumeSettings
		want    error
		text    string
	}{
		{"offset 0", pair, tickets.ResumeSettings{Name: "t"}, tickets.ErrInvalidSettings, "offset 0 is out of range (allowed 1-65535: the offset of the server to move)"},
		{"negative skip", pair, tickets.ResumeSettings{Name: "t", Offset: 1, Skip: -5}, tickets.ErrInvalidSettings, "skip -5 is out of range (allowed 1-1099511627776 tickets)"},
		{"huge skip", pair, tickets.ResumeSettings{Name: "t", Offset: 1, Skip: 1 << 41}, tickets.ErrInvalidSettings, "skip 2199023255552 is out of range"},
		{"negative after", pair, tickets.ResumeSettings{Name: "t", Offset: 1, After: -1}, tickets.ErrInvalidSettings, "after -1 is out of range"},
		{"bad name", pair, tickets.ResumeSettings{Name: "T", Offset: 1}, tickets.ErrInvalidSettings, `name "T" is not a ticket name`},
		{"no such offset", pair, tickets.ResumeSettings{Name: "t", Offset: 3}, tickets.ErrNoOffset, "no ticket server has the offset 3 among the servers of t that could be read"},
		{"overlap", []tickets.Server{{Name: "a", DB: a}, {Name: "a again", DB: a}}, tickets.ResumeSettings{Name: "t", Offset: 1}, tickets.ErrOverlap, "a and a again both have offset 1"},
		{"nothing to go by", []tickets.Server{{Name: "solo", DB: solo}}, tickets.ResumeSettings{Name: "t", Offset: 1}, tickets.ErrNoEvidence,
			"solo (offset 1) is the only server of t given, and a restore takes its own records back with its counter; give the highest ticket your data holds (After)"},
		{"past the end", pair, tickets.ResumeSettings{Name: "t", Offset: 1, After: 1 << 62}, tickets.ErrInvalidSettings, "moves the counter past 4611686018427387904"},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err := tickets.Resume(ctx, c.servers, c.s)
			if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.text) || strings.Contains(err.Error(), "\n") || res.Moved {
				t.Errorf("%+v: %v; want one line wrapping %v containing %q", res, err, c.want, c.text)
			}
		})
	}
	for name, db := range map[string]*sql.DB{"a": a, "b": b, "solo": solo} {
		if got, err := tickets.Read(ctx, db, "t"); err != nil || got.Last > 0 {
			t.Errorf("%s after the refusals: %+v, %v; want untouched", name, got, err)
		}
	}
	// Given what the data holds, the lone server moves.
	res, err := tickets.Resume(ctx, []tickets.Server{{Name: "solo", DB: solo}}, tickets.ResumeSettings{Name: "t", Offset: 1, After: 5000, Skip: 10})
	if err != nil || !res.Moved || res.Target != 5010 || res.To != 5010 {
		t.Errorf("resume after 5000 by 10: %+v, %v", res, err)
	}
}

// TestResumeAlignsAndReadsPeers: the target is in the server's class,
// past the furthest peer's counter by Skip tickets; a server that cannot
// be read is named and nothing moves; only forward.
func TestResumeAlignsAndReadsPeers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, _ := testsrv.MariaDBDB(t)
	b, _ := testsrv.MariaDBDB(t)
	up(t, a, tickets.Counter{Name: "t", Increment: 3, Offset: 1})
	up(t, b, tickets.Counter{Name: "t", Increment: 3, Offset: 2})
	if _, err := b.Exec("UPDATE t SET id = 1001"); err != nil { // b handed out up to 1001 (2 mod 3)
		t.Fatal(err)
	}
	dead := testsrv.Open(t, "mysql", "root@tcp(127.0.0.1:1)/x?timeout=1s")
	servers := []tickets.Server{{Name: "a", DB: a}, {Name: "b", DB: b}, {Name: "dead", DB: dead}}
	res, err := tickets.Resume(ctx, servers, tickets.ResumeSettings{Name: "t", Offset: 1, Skip: 100})
	if !errors.Is(err, tickets.ErrUnreadServer) || !strings.Contains(err.Error(), "could not read: dead: ") || res.Moved || len(res.Unread) != 1 {
		t.Fatalf("resume with a server down: %+v, %v; want ErrUnreadServer naming it, nothing moved", res, err)
	}
	res, err = tickets.Resume(ctx, servers[:2], tickets.ResumeSettings{Name: "t", Offset: 1, Skip: 100})
	// 1001 + 100·3 = 1301, the first value of class 1 mod 3 at or above it is 1303.
	if err != nil || res.Target != 1303 || res.To != 1303 || res.Peer != "b" || res.PeerLast != 1001 {
		t.Fatalf("resume: %+v, %v", res, err)
	}
	// Asked for less than where it stands, it stays.
	if _, err := a.Exec("UPDATE t SET id = 9997"); err != nil {
		t.Fatal(err)
	}
	res, err = tickets.Resume(ctx, servers[:2], tickets.ResumeSettings{Name: "t", Offset: 1, Skip: 100, Again: true})
	if err != nil || res.Moved || res.To != 9997 {
		t.Errorf("resume below the counter: %+v, %v; want it left at 9997", res, err)
	}
}

// TestBehindAndNoClassTable: a client that reads a server far behind the
// furthest of its name says so (EventBehind); a server set up before class
// tables existed is drawn from, its rewind still found in the running
// client, and the client says the rewind could not be recorded.
func TestBehindAndNoClassTable(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, _ := testsrv.MariaDBDB(t)
	b, _ := testsrv.MariaDBDB(t)
	up(t, a, tickets.Counter{Name: "t", Increment: 2, Offset: 1})
	up(t, b, tickets.Counter{Name: "t", Increment: 2, Offset: 2})
	if _, err := b.Exec("UPDATE t SET id = ?", 2*(tickets.DefaultMaxLag+10)); err != nil {
		t.Fatal(err)
	}
	for _, db := range []*sql.DB{a, b} {
		if _, err := db.Exec("DROP TABLE " + tickets.ClassTable("t")); err != nil {
			t.Fatal(err)
		}
	}
	var ev events
	cl, err := tickets.NewClient(ctx, []tickets.Server{{Name: "a", DB: a}, {Name: "b", DB: b}}, tickets.Settings{Name: "t", OnEvent: ev.add, Timeout: patient})
	if err != nil {
		t.Fatal(err)
	}
	if be := ev.of(tickets.EventBehind, "a"); len(be) != 1 || be[0].Count != tickets.DefaultMaxLag+10 || len(ev.of(tickets.EventBehind, "b")) != 0 {
		t.Errorf("behind events: %+v", ev.list)
	}
	if rf := ev.of(tickets.EventRecordFailed, "a"); len(rf) != 1 || !errors.Is(rf[0].Err, tickets.ErrNoClassTable) {
		t.Errorf("no class table on a: %+v", rf)
	}
	for range 10 {
		if _, err := cl.Next(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := a.Exec("UPDATE t SET id = 1"); err != nil {
		t.Fatal(err)
	}
	for range 10 {
		if _, err := cl.Next(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if st := cl.Servers()[0]; !errors.Is(st.Rewound, tickets.ErrRewound) {
		t.Errorf("a after going back: %+v", st)
	}
	testsrv.WaitFor(t, "the failed report", func() bool {
		for _, e := range ev.of(tickets.EventRecordFailed, "a") {
			if strings.Contains(e.Err.Error(), "clients started later will not know it") {
				return true
			}
		}
		return false
	})
}

// TestDrawingRole on MariaDB: a role with the grants a ticket table
// always needed (SELECT, UPDATE on it) still draws once the class table
// exists, and the client says it cannot record there; with SELECT,
// INSERT, UPDATE on the class table too (the documented grants) its
// record lands.
func TestDrawingRole(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root, dsn := testsrv.MariaDBDB(t)
	up(t, root, tickets.Counter{Name: "t"})
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	user := cfg.DBName + "_app"
	for _, q := range []string{
		"CREATE USER '" + user + "'@'%' IDENTIFIED BY 'pw'",
		"GRANT SELECT, UPDATE ON `" + cfg.DBName + "`.`t` TO '" + user + "'@'%'",
	} {
		if _, err := root.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	cfg.User, cfg.Passwd = user, "pw"
	app := testsrv.Open(t, "mysql", cfg.FormatDSN())
	draw := func() *events {
		t.Helper()
		var ev events
		cl, err := tickets.NewClient(ctx, []tickets.Server{{Name: "m", DB: app}}, tickets.Settings{Name: "t", OnEvent: ev.add, Timeout: patient})
		if err != nil {
			t.Fatal(err)
		}
		for range 3 {
			if _, err := cl.Next(ctx); err != nil {
				t.Fatal(err)
			}
		}
		if err := cl.Record(ctx); err != nil {
			ev.add(tickets.Event{Kind: tickets.EventRecordFailed, Server: "Record", Err: err})
		}
		return &ev
	}
	ev := draw()
	if rf := ev.of(tickets.EventRecordFailed, "m"); len(rf) != 1 || !errors.Is(rf[0].Err, tickets.ErrNoClassTable) || !strings.Contains(rf[0].Err.Error(), "or none this role may see") {
		t.Errorf("a role without grants on the class table: %+v", ev.list)
	}
	if _, err := root.Exec("GRANT SELECT, INSERT, UPDATE ON `" + cfg.DBName + "`.`" + tickets.ClassTable("t") + "` TO '" + user + "'@'%'"); err != nil {
		t.Fatal(err)
	}
	ev = draw()
	if len(ev.list) != 0 || classRow(t, root, "t", 1).Seen != 6 {
		t.Errorf("the documented grants: events %+v, record %+v; want none, 6", ev.list, classRow(t, root, "t", 1))
	}
}
