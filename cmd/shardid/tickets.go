package main

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/shardid/shardid/internal/dsn"
	"github.com/shardid/shardid/tickets"
	ticketsreport "github.com/shardid/shardid/tickets/report"
	"github.com/shardid/shardid/tidb/apply"
)

// envTicketsDSN is read by the tickets commands when no --dsn is given.
const envTicketsDSN = "SHARDID_TICKETS_DSN"

// ticketsCommands are the "shardid tickets" subcommands.
var ticketsCommands = map[string]command{
	"up":     {"create a ticket name on one server with its increment and offset (goose)", runTicketsUp},
	"next":   {"draw tickets from one or more servers, one per line; failovers and rewinds one line each on stderr", runTicketsNext},
	"status": {"show each server's settings, counter and records for a ticket name; check that no two overlap and none went back", runTicketsStatus},
	"resume": {"move a server whose data went back (a restore) past every ticket it could have handed out", runTicketsResume},
}

func runTickets(ctx context.Context, env *cliEnv, args []string) error {
	return subcommand(ctx, env, "tickets", ticketsCommands, args)
}

// dsnList is a repeatable --dsn flag.
type dsnList []string

func (l *dsnList) String() string { return fmt.Sprintf("%d DSNs", len(*l)) }

func (l *dsnList) Set(v string) error {
	*l = append(*l, v)
	return nil
}

func runTicketsUp(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlagSet(env, "tickets up")
	dsnFlag := fs.envString("dsn", envTicketsDSN, "", "go-sql-driver/mysql DSN of the ticket server, user:password@tcp(host:3306)/db (env "+envTicketsDSN+")")
	name := fs.String("name", "", "ticket name: the table (or TiDB sequence), lower-case letters, digits and _ (required)")
	inc := fs.Int64("increment", 0, fmt.Sprintf("number of ticket servers of the name, the same on each: 1-%d (required)", tickets.MaxIncrement))
	off := fs.Int64("offset", 0, "this server's offset, 1 to the increment, different on each server (required)")
	start := fs.Int64("start", 1, "the first ticket is the smallest value ≥ start in the server's class (to take over from an existing counter)")
	kind := fs.String("kind", string(tickets.KindTable), "table (MySQL, MariaDB, TiDB) or sequence (TiDB)")
	cache := fs.Int64("cache", 0, fmt.Sprintf("values each TiDB instance caches, 1-1000000 (--kind sequence only; default %d)", tickets.DefaultCache))
	if err := parseNoArgs(env, fs, args); err != nil {
		return err
	}
	// 0 means a default to tickets.Counter; given on the command line it
	// is a value out of range.
	switch {
	case *name == "":
		return usagef("--name is required: the ticket name, e.g. tickets64")
	case !fs.set("increment"):
		return usagef("--increment is required: the number of ticket servers of the name, the same on each, 1-%d (Flickr: 2)", tickets.MaxIncrement)
	case *inc == 0:
		return usagef("--increment: 0 is out of range (allowed 1-%d)", tickets.MaxIncrement)
	case !fs.set("offset"):
		return usagef("--offset is required: 1 to %d (the increment), different on each server", *inc)
	case *off == 0:
		return usagef("--offset: 0 is out of range (allowed 1-%d, the increment)", *inc)
	case fs.set("cache") && tickets.Kind(*kind) != tickets.KindSequence:
		return usagef("--cache applies only to --kind sequence (a TiDB SEQUENCE's cache); drop it for --kind %s", *kind)
	}
	s := tickets.Counter{Name: *name, Increment: *inc, Offset: *off, Start: *start, Kind: tickets.Kind(*kind), Cache: *cache}
	if err := s.Validate(); err != nil {
		return settingUsage(err)
	}
	if dsn.IsPostgres(*dsnFlag) {
		return usagef("%s: %s is PostgreSQL; ticket servers are MySQL, MariaDB or TiDB: want %s (on PostgreSQL use shardid segment, or shardid pg)",
			fs.origin("dsn"), dsn.Redact(*dsnFlag), dsn.MySQL.Want())
	}
	db, _, err := openAnyDSN(ctx, fs.origin("dsn"), *dsnFlag, dsn.MySQL)
	if err != nil {
		return err
	}
	defer db.Close()
	ran, got, err := tickets.Up(ctx, db, s)
	if err != nil {
		return fmt.Errorf("%s: %w", dsn.Redact(*dsnFlag), err)
	}
	return ticketsreport.Up{Server: dsn.Redact(*dsnFlag), Counter: s, Ran: ran, Got: got}.WriteText(env.stdout)
}

// settingUsage is a usage error naming the flag behind a bad ticket
// setting: --offset: 3 is out of range (allowed 1-2, the increment).
func settingUsage(err error) error {
	var se *tickets.SettingError
	if errors.As(err, &se) {
		return usagef("--%s: %s %s", se.Field, se.Value, se.Reason)
	}
	return usagef("tickets: %v", err)
}

// serverFlags are the flags of the commands that talk to every server of
// a ticket name.
type serverFlags struct {
	dsns dsnList
	name string
}

func (f *serverFlags) register(fs *flagSet) {
	fs.Var(&f.dsns, "dsn", "go-sql-driver/mysql DSN of a ticket server, user:password@tcp(host:3306)/db; repeat for each server (env "+envTicketsDSN+", which holds one)")
	fs.envVar("dsn", envTicketsDSN)
	fs.StringVar(&f.name, "name", "", "ticket name (required)")
}

// open checks the flags, then opens a pool per server without waiting for
// it, so that a server that is down does not stop the others.
func (f *serverFlags) open(fs *flagSet) ([]tickets.Server, func(), error) {
	switch {
	case len(f.dsns) == 0:
		return nil, nil, usagef("--dsn is required: one per ticket server (or set %s)", envTicketsDSN)
	case f.name == "":
		return nil, nil, usagef("--name is required: the ticket name")
	}
	if err := tickets.CheckName(f.name); err != nil {
		return nil, nil, settingUsage(err)
	}
	var servers []tickets.Server
	closeAll := func() {
		for _, s := range servers {
			s.DB.Close()
		}
	}
	for _, s := range f.dsns {
		if _, err := parseDSN(fs.origin("dsn"), s, dsn.MySQL); err != nil {
			closeAll()
			return nil, nil, err
		}
		db, err := apply.Open(s)
		if err != nil {
			closeAll()
			return nil, nil, usagef("%s %s: want a go-sql-driver/mysql DSN, user:password@tcp(host:3306)/db: %v", fs.origin("dsn"), dsn.Redact(s), err)
		}
		servers = append(servers, tickets.Server{Name: dsn.Redact(s), DB: db})
	}
	return servers, closeAll, nil
}

func runTicketsNext(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlagSet(env, "tickets next")
	var f serverFlags
	f.register(fs)
	count := fs.Int("n", 1, "number of tickets to print")
	retry := fs.Duration("retry-after", tickets.DefaultRetryAfter, fmt.Sprintf("how long a server that failed is first passed over (then probed, the wait doubling up to %s)", tickets.DefaultMaxRetryAfter))
	budget := fs.Duration("budget", tickets.DefaultBudget, "the least time a draw waits for a silent server while another is left to ask; each server's budget grows to four times its slowest recent answer, up to half of --timeout, so a slow server is waited for and a hung one costs a draw its budget (starting, the client reads every server at once, each for up to --timeout)")
	timeout := fs.Duration("timeout", tickets.DefaultTimeout, "bound on one draw, every server it asks included: the last server left gets what the others' budgets left of it")
	lossy := fs.Bool("allow-lossy-commit", false, "draw from a server that may lose acknowledged commits in a crash (MySQL/MariaDB innodb_flush_log_at_trx_commit or sync_binlog not 1); after such a crash tickets handed out just before it can be handed out again")
	if err := parseNoArgs(env, fs, args); err != nil {
		return err
	}
	switch {
	case *count < 1:
		return usagef("-n: %d is out of range (allowed: 1 or more)", *count)
	case *retry <= 0:
		return usagef("--retry-after: %s is out of range (allowed: a positive duration, e.g. %s)", *retry, tickets.DefaultRetryAfter)
	case *timeout <= 0:
		return usagef("--timeout: %s is out of range (allowed: a positive duration, e.g. %s)", *timeout, tickets.DefaultTimeout)
	case !fs.set("budget"):
		*budget = min(*budget, *timeout)
	case *budget <= 0 || *budget > *timeout:
		return usagef("--budget: %s is out of range (allowed: a positive duration up to --timeout, %s; e.g. %s)", *budget, *timeout, tickets.DefaultBudget)
	}
	servers, closeAll, err := f.open(fs)
	if err != nil {
		return err
	}
	defer closeAll()
	var mu sync.Mutex // events come from the draws and from the client's own goroutines
	say := func(e tickets.Event) {
		if len(servers) == 1 && (e.Kind == tickets.EventServerDown || e.Kind == tickets.EventServerUp) {
			return // with no other server to draw from, the command's own error says it
		}
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(env.stderr, "shardid: tickets next: %s\n", env.line(eventLine(e)))
	}
	cl, err := tickets.NewClient(ctx, servers, tickets.Settings{Name: f.name, RetryAfter: *retry, Budget: *budget, Timeout: *timeout,
		AllowLossyCommit: *lossy, OnEvent: say})
	if err != nil {
		return lossyCommitHint(err)
	}
	printed, err := printIDs(ctx, env, int64(*count), cl.Next)
	// Clients started later learn how far this one drew (a failure is an
	// event line already).
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), *timeout)
	_ = cl.Record(rctx)
	cancel()
	if err != nil {
		return lossyCommitHint(fmt.Errorf("after %d of %d IDs: %w", printed, *count, err))
	}
	// A server left out is an error: an event line above has the values.
	return lossyCommitHint(ticketsreport.LeftOut(cl.Servers()))
}

// eventLine is ticketsreport.EventLine with the flags named where the package
// names its settings.
func eventLine(e tickets.Event) string {
	if e.Err != nil {
		e.Err = lossyCommitHint(e.Err)
	}
	return ticketsreport.EventLine(e)
}
