package main

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/shardid/shardid/pgfunc/resume"
)

// withPassword returns dsn with user postgres and a password the test
// servers ignore (they trust local connections), to check no output
// shows it.
func withPassword(t *testing.T, dsn, user string) string {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.UserPassword(user, "s3cret")
	return u.String()
}

// TestPGResume drives pg resume and status against a real server: status
// flags a counter pushed past its lead by raw nextval; resume moves every
// counter to the clock plus the lead, leaves the pushed one (already
// past), moves nothing on a rerun, prints JSON, refuses a role that does
// not own the generators and bad input, and never shows the password.
func TestPGResume(t *testing.T) {
	t.Parallel()
	dsn := withPassword(t, pgDSN(t), "postgres")
	env := map[string]string{"SHARDID_PG_DSN": dsn}
	db := openPG(t, dsn)
	if code, out, errOut := runCLI(t, "", env, "pg", "up", "--shards", "0-2", "--layout", "js53"); code != 0 {
		t.Fatalf("up: exit %d\n%s%s", code, out, errOut)
	}
	if _, err := db.Exec("SELECT insta0.next_id()"); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := runCLI(t, "", env, "pg", "status"); code != 0 || strings.Contains(out, "AHEAD") {
		t.Fatalf("status before the push: exit %d\n%s%s", code, out, errOut)
	}
	// --shards alone asks about shards, not about options: js53
	// generators are judged against no default layout.
	if code, out, errOut := runCLI(t, "", env, "pg", "status", "--shards", "0-2"); code != 0 || strings.Contains(out, "differs") {
		t.Fatalf("status --shards of js53 generators without --layout: exit %d\n%s%s", code, out, errOut)
	}
	if _, err := db.Exec("SELECT count(nextval('insta0.next_id_seq')) FROM generate_series(1, 300000)"); err != nil { // 11.7 s of js53 ticks
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, "", env, "pg", "status")
	if code != 1 || strings.Count(out, "AHEAD: the counter stands") != 1 || !strings.Contains(out, "past its lead of 5s") ||
		!strings.Contains(errOut, "1 counter stands further ahead of the clock than its lead") {
		t.Fatalf("status after a push past the lead: exit %d\n%s%s", code, out, errOut)
	}
	// Down reads the generator's own layout: no flags needed.
	code, out, errOut = runCLI(t, "", env, "pg", "down", "--shards", "1", "--layout", "instagram")
	if code != 1 || !strings.Contains(out, "give down the generator's own options") {
		t.Fatalf("down naming another layout: exit %d\n%s%s", code, out, errOut)
	}
	if code, out, errOut = runCLI(t, "", env, "pg", "down", "--shards", "2"); code != 0 || !strings.Contains(out, "1 removed") {
		t.Fatalf("down without options of a js53 generator: exit %d\n%s%s", code, out, errOut)
	}
	// Told the largest lead the old server ran with (the default is
	// the largest pg up accepts, TestPGResumeDefaultLead).
	code, out, errOut = runCLI(t, "", env, "pg", "resume", "--apply", "--lead", "5s")
	if code != 0 || strings.Count(out, "moved    insta") != 2 || !strings.Contains(out, "current  insta0") || !strings.Contains(out, "moved    insta2 (kept by down)") ||
		!strings.Contains(out, "3 counters: 2 moved, 1 already past, 0 not taking part, 0 failed") {
		t.Fatalf("resume: exit %d\n%s%s", code, out, errOut)
	}
	// A rerun moves nothing already past (with the default, the clock has
	// moved on since: an --after from before the first run).
	code, out, errOut = runCLI(t, "", env, "pg", "resume", "--apply", "--json", "--after", time.Now().UTC().Add(-time.Second).Format(time.RFC3339Nano))
	var doc report
	err := json.Unmarshal([]byte(out), &doc)
	counters := rowsOf[resume.Counter](t, doc)
	if code != 0 || err != nil || doc.Command != "pg resume" || !doc.OK || doc.Totals["moved"] != float64(0) || doc.Totals["already_past"] != float64(3) || len(counters) != 3 || counters[0].Schema != "insta0" {
		t.Fatalf("resume --json rerun: exit %d, %v, %+v\n%s%s", code, err, doc, out, errOut)
	}
	// The application role may draw, not move counters.
	if _, err := db.Exec("CREATE ROLE resume_app LOGIN"); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := runCLI(t, "", env, "pg", "grant", "--role", "resume_app", "--shards", "0-1"); code != 0 {
		t.Fatalf("grant: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = runCLI(t, "", nil, "pg", "resume", "--apply", "--dsn", withPassword(t, dsn, "resume_app"), "--shards", "1")
	if code != 1 || !strings.Contains(out, "FAILED   insta1") || !strings.Contains(out, "permission denied") || !strings.Contains(errOut, "1 counter, database or server was not moved") {
		t.Fatalf("resume as the application role: exit %d\n%s%s", code, out, errOut)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"pg", "resume", "--after", "yesterday"}, `--after: "yesterday" is not an RFC 3339 instant`},
		{[]string{"pg", "resume", "--lead", "1ms500us"}, "--lead: 1.5ms is not a lead shardid accepts"},
		{[]string{"pg", "resume", "--parallel", "0"}, "--parallel: 0 is out of range"},
		{[]string{"pg", "resume", "--map", "fleet.toml", "--shards", "1"}, "--map holds the servers, shards and generator; drop --shards"},
		{[]string{"pg", "resume", "--lead", "2h"}, "--lead: 2h0m0s is not a lead shardid accepts (a whole number of milliseconds from 1ms to 1h0m0s)"},
		{[]string{"pg", "resume", "--lock-timeout", "0s"}, "--lock-timeout: 0s is not a positive duration"},
		{[]string{"pg", "resume", "--after", "2070-01-01T00:00:00Z"}, "--after: instant past the end of a layout: 2070-01-01T00:00:00Z is at or past 2068-"},
	} {
		code, _, errOut := runCLI(t, "", env, c.args...)
		if code != 2 || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d %q; want exit 2 and one line with %q", c.args, code, errOut, c.want)
		}
	}
	for _, text := range []string{out, errOut} {
		if strings.Contains(text, "s3cret") {
			t.Fatalf("output shows the password:\n%s", text)
		}
	}
}

// TestPGUpRefusesLayoutEnd: up refuses, as bad input before it connects,
// a layout that has ended or ends within --end-margin.
func TestPGUpRefusesLayoutEnd(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--epoch", "1980-01-01T00:00:00Z"}, "--epoch: layout ends too soon: layout js53 with epoch 1980-01-01T00:00:00Z ended at 2023-"},
		{[]string{"--epoch", "1981-06-01T00:00:00Z", "--end-margin", "0"}, "ended at 2024-"},
		{[]string{"--end-margin", "-1s"}, "--end-margin: -1s is negative"},
		{[]string{"--epoch", "2025-01-01T00:00:00Z", "--end-margin", "400000h"}, "ends at 2068-07-21T06:52:14Z, within the end margin of 400000h0m0s"},
	} {
		args := append([]string{"pg", "up", "--dsn", "postgres://nobody@127.0.0.1:1/x", "--shards", "0", "--layout", "js53"}, c.args...)
		code, _, errOut := runCLI(t, "", nil, args...)
		if code != 2 || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d %q; want exit 2 and one line with %q", c.args, code, errOut, c.want)
		}
	}
}

// TestPGResumeLockTimeout: a session holding pg up's server-wide lock
// (any role may take it) makes resume give up after --lock-timeout, exit
// 1, naming the holder.
func TestPGResumeLockTimeout(t *testing.T) {
	t.Parallel()
	dsn := pgDSN(t)
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/postgres"
	holder := openPG(t, u.String())
	holder.SetMaxOpenConns(1)
	if _, err := holder.Exec("SELECT pg_advisory_lock(1397310514, 0)"); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, "", nil, "pg", "resume", "--dsn", dsn, "--lock-timeout", "1s", "--lead", "5s")
	if code != 1 || !strings.Contains(errOut, "server lock held by another session for 1s") || !strings.Contains(errOut, "held by pid") {
		t.Fatalf("resume while another session holds the lock: exit %d\n%s%s", code, out, errOut)
	}
}
