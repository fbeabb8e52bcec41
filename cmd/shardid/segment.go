package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/shardid/shardid/dialect"
	"github.com/shardid/shardid/internal/dsn"
	"github.com/shardid/shardid/segment"
	"github.com/shardid/shardid/tickets"
)

// Environment variables read by the segment commands when the flags are
// not given.
const (
	envSegmentDSN        = "SHARDID_SEGMENT_DSN"         // --dsn
	envSegmentRecordsDSN = "SHARDID_SEGMENT_RECORDS_DSN" // --records-dsn
)

// segmentCommands are the "shardid segment" subcommands.
var segmentCommands = map[string]command{
	"up":     {"create the allocation table (goose) and a tag in it", runSegmentUp},
	"next":   {"take segments for a tag and print IDs, one per line", runSegmentNext},
	"status": {"list the tags of the allocation table, and any rewind a client found", runSegmentStatus},
	"resume": {"after a restore of the allocation table: move tags past every ID handed out before and lift their fence", runSegmentResume},
}

func runSegment(ctx context.Context, env *cliEnv, args []string) error {
	return subcommand(ctx, env, "segment", segmentCommands, args)
}

// segmentFlags are the flags every segment command shares.
type segmentFlags struct {
	dsn, table, tag, records string
}

// register defines --dsn and --table, and --tag with usage tagUsage unless
// that is "".
func (f *segmentFlags) register(fs *flagSet, tagUsage string) {
	fs.envStringVar(&f.dsn, "dsn", envSegmentDSN, "", "PostgreSQL URL or go-sql-driver/mysql DSN (MySQL, MariaDB, TiDB) (env "+envSegmentDSN+")")
	fs.StringVar(&f.table, "table", segment.DefaultTable, "allocation table, [schema.]name")
	fs.envStringVar(&f.records, "records-dsn", envSegmentRecordsDSN, "", "a second database that keeps each tag's record (the highest ID taken) outside the allocation database, so that a restore of that whole database is found; the same on every command and client of the table (env "+envSegmentRecordsDSN+")")
	if tagUsage != "" {
		fs.StringVar(&f.tag, "tag", "", tagUsage)
	}
}

// open checks the table name (and the tag, when the command takes one)
// before anything connects, then connects.
func (f *segmentFlags) open(ctx context.Context, fs *flagSet) (*sql.DB, dialect.Dialect, error) {
	if err := segment.CheckTable(f.table); err != nil {
		return nil, "", usagef("--table: %v", err)
	}
	if fs.Lookup("tag") != nil {
		if f.tag == "" {
			return nil, "", usagef("--tag is required: the ID space, e.g. orders")
		}
		if err := segment.CheckTag(f.tag); err != nil {
			return nil, "", usagef("--tag: %v", err)
		}
	}
	return openAnyDSN(ctx, fs.origin("dsn"), f.dsn, dsn.Postgres|dsn.MySQL)
}

// store opens the record store --records-dsn names, and the database it
// is on (for the caller to close), or returns nil for none.
func (f *segmentFlags) store(ctx context.Context, fs *flagSet) (store segment.RecordStore, db *sql.DB, d dialect.Dialect, err error) {
	if f.records == "" {
		return nil, nil, "", nil
	}
	db, d, err = openAnyDSN(ctx, fs.origin("records-dsn"), f.records, dsn.Postgres|dsn.MySQL)
	if err != nil {
		return nil, nil, "", err
	}
	if store, err = segment.DBRecords(db, d, f.table); err != nil {
		db.Close()
		return nil, nil, "", err
	}
	return store, db, d, nil
}

func runSegmentUp(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlagSet(env, "segment up")
	var f segmentFlags
	f.register(fs, "the ID space to create: 1-128 letters, digits, _ . : - (required)")
	step := fs.Int64("step", 0, fmt.Sprintf("the tag's base step, a client's first and smallest segment (default %d for a new tag; 0 keeps an existing tag's)", segment.DefaultTagStep))
	start := fs.Int64("start", 0, "no ID below this: a new tag starts here, an existing one is raised to it (never lowered); 0: 1 for a new tag; at most 9223372036854775808 minus the step, so that one segment fits")
	desc := fs.String("description", "", "free text stored with a new tag")
	if err := parseNoArgs(env, fs, args); err != nil {
		return err
	}
	// Checked before anything is created; what depends on an existing
	// tag's step is checked by segment.EnsureTag, and changes nothing.
	if err := segment.CheckTagRange(*step, *start); err != nil {
		return tagRangeUsage(err)
	}
	db, d, err := f.open(ctx, fs)
	if err != nil {
		return err
	}
	defer db.Close()
	applied, err := segment.Up(ctx, db, d, f.table)
	if err != nil {
		return err
	}
	if err := (segment.UpResult{Table: f.table, Server: dsn.Redact(f.dsn), Dialect: d, Applied: applied}).WriteText(env.stdout); err != nil {
		return err
	}
	store, rdb, rd, err := f.store(ctx, fs)
	if err != nil {
		return err
	}
	if rdb != nil {
		defer rdb.Close()
		applied, err := segment.UpRecords(ctx, rdb, rd, f.table)
		if err != nil {
			return fmt.Errorf("%s: %w", dsn.Redact(f.records), err)
		}
		if err := (segment.UpResult{Table: f.table, Server: dsn.Redact(f.records), Dialect: rd, Applied: applied, Records: true}).WriteText(env.stdout); err != nil {
			return err
		}
	}
	before, after, err := segment.EnsureTag(ctx, db, d, f.table, segment.Tag{Tag: f.tag, Step: *step, Description: *desc}, *start, store)
	if err != nil {
		return tagRangeUsage(err)
	}
	e := segment.Ensured{Before: before, After: after}
	if err := e.WriteText(env.stdout); err != nil {
		return err
	}
	return e.Err()
}

// tagRangeUsage is a usage error naming the flag behind a step or start
// out of range; other errors are returned as they are.
func tagRangeUsage(err error) error {
	switch {
	case errors.Is(err, segment.ErrStartOutOfRange):
		return usagef("--start: %v", err)
	case errors.Is(err, segment.ErrStepOutOfRange):
		return usagef("--step: %v", err)
	}
	return err
}

func runSegmentNext(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlagSet(env, "segment next")
	var f segmentFlags
	f.register(fs, "the ID space (required)")
	count := fs.Int("n", 1, "number of IDs to print")
	lossy := fs.Bool("allow-lossy-commit", false, lossyCommitUsage)
	if err := parseNoArgs(env, fs, args); err != nil {
		return err
	}
	switch {
	case *count < 1:
		return usagef("-n: %d is out of range (allowed: 1 or more)", *count)
	}
	db, d, err := f.open(ctx, fs)
	if err != nil {
		return err
	}
	defer db.Close()
	store, rdb, _, err := f.store(ctx, fs)
	if err != nil {
		return err
	}
	if rdb != nil {
		defer rdb.Close()
	}
	c, err := segment.New(ctx, db, segment.Settings{Tag: f.tag, Table: f.table, Dialect: d, AllowLossyCommit: *lossy, Records: store,
		OnEvent: func(e segment.Event) {
			// Losses, rewinds and outages: one line each (a refused
			// load ends the command with its error).
			if e.Kind != segment.Loaded && e.Kind != segment.LoadRefused {
				notice(env, "segment next", e.String())
			}
		}})
	if err != nil {
		return lossyCommitHint(err)
	}
	defer c.Close()
	printed, err := printIDs(ctx, env, int64(*count), c.Next)
	if err != nil {
		return lossyCommitHint(fmt.Errorf("after %d of %d IDs: %w", printed, *count, err))
	}
	return nil
}

func runSegmentStatus(ctx context.Context, env *cliEnv, args []string) (err error) {
	fs := newFlagSet(env, "segment status")
	var f segmentFlags
	f.register(fs, "")
	timeout := fs.Duration("timeout", 5*time.Second, "give up on a server that has not answered by then")
	asJSON := jsonFlag(fs)
	if err := parseNoArgs(env, fs, args); err != nil {
		return err
	}
	if *timeout <= 0 {
		return usagef("--timeout: %s is out of range (allowed: more than 0)", *timeout)
	}
	tctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	where := dsn.Redact(f.dsn)
	db, d, err := f.open(tctx, fs)
	if err != nil {
		return fmt.Errorf("%s: %w%s", where, err, timedOut(tctx, *timeout))
	}
	defer db.Close()
	env, rep := startReport(env, *asJSON, "segment status")
	defer func() { err = rep.finish(env, err) }()
	// The records kept outside the allocation database, when
	// --records-dsn names one: the ones a restore of it does not take back.
	_, rdb, rd, err := f.store(tctx, fs)
	if err != nil {
		return fmt.Errorf("%s: %w%s", dsn.Redact(f.records), err, timedOut(tctx, *timeout))
	}
	if rdb != nil {
		defer rdb.Close()
	}
	sv, err := segment.ReadSurvey(tctx, db, d, f.table, rdb, rd)
	var oe *segment.OutsideError
	switch {
	case errors.As(err, &oe):
		return fmt.Errorf("%s: %w%s", dsn.Redact(f.records), err, timedOut(tctx, *timeout))
	case err != nil:
		return fmt.Errorf("%s: %w%s", where, err, timedOut(tctx, *timeout))
	case sv.RecordsErr != nil && tctx.Err() != nil:
		return fmt.Errorf("%s: %w%s", where, sv.RecordsErr, timedOut(tctx, *timeout))
	case sv.RecordsErr != nil:
		// A role without SELECT on the record table: the rest is shown.
		notice(env, "segment status", fmt.Sprintf("the record table %s cannot be read (%v): tags missing from the table or below their record are not shown", segment.RecordTable(f.table), sv.RecordsErr))
	}
	if sv.NoOutside {
		return fmt.Errorf("%s: no record table %s there (shardid segment up --records-dsn creates it)%s", dsn.Redact(f.records), segment.RecordTable(f.table), timedOut(tctx, *timeout))
	}
	for _, t := range sv.Tags {
		rep.row(t.Row())
	}
	rep.total("tags", len(sv.Tags))
	if err := sv.WriteText(env.stdout); err != nil {
		return err
	}
	if err := sv.Unsafe(); err != nil {
		return fmt.Errorf("segment status: %w", err)
	}
	return nil
}

// timedOut says, for an error, that ctx ended after d: the server did not
// answer in time.
func timedOut(ctx context.Context, d time.Duration) string {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return timedOutText(d)
	}
	return ""
}

// timedOutText says a server did not answer within --timeout d.
func timedOutText(d time.Duration) string {
	return fmt.Sprintf(" (no answer within --timeout %s: the server is down or hung)", d)
}

func runSegmentResume(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlagSet(env, "segment resume")
	var f segmentFlags
	f.register(fs, "")
	tag := fs.String("tag", "", "the tag to resume (default: every tag of the table)")
	skip := fs.Int64("skip", 0, "leave this many IDs unused above the highest ID known to be handed out (the tag's, or what clients reported): for IDs handed out after the copy was made that no client reported; each run skips again")
	to := fs.Int64("to", 0, "the least next ID, e.g. above the largest ID your data holds or every client's reported high-water mark; a rerun changes nothing")
	if err := parseNoArgs(env, fs, args); err != nil {
		return err
	}
	switch {
	case !fs.set("skip") && !fs.set("to"):
		return usagef("segment resume: give --skip N (IDs to leave unused above what is known to be handed out; 0 to go by what clients reported only) or --to N (the least next ID)")
	case *skip < 0:
		return usagef("--skip: %d is out of range (allowed: 0 or more)", *skip)
	case *to < 0:
		return usagef("--to: %d is out of range (allowed: 1 or more, or 0 for none)", *to)
	case *tag != "" && segment.CheckTag(*tag) != nil:
		return usagef("--tag: %v", segment.CheckTag(*tag))
	case segment.CheckTable(f.table) != nil:
		return usagef("--table: %v", segment.CheckTable(f.table))
	}
	// (--tag is optional here, so not through f.open, which requires it.)
	db, d, err := openAnyDSN(ctx, fs.origin("dsn"), f.dsn, dsn.Postgres|dsn.MySQL)
	if err != nil {
		return err
	}
	defer db.Close()
	store, rdb, rd, err := f.store(ctx, fs)
	if err != nil {
		return err
	}
	if rdb != nil {
		defer rdb.Close()
	}
	names := []string{*tag}
	if *tag == "" {
		sv, err := segment.ReadSurvey(ctx, db, d, f.table, rdb, rd)
		if err == nil {
			names, err = sv.ResumeNames()
		}
		if err != nil {
			return err
		}
	}
	// Each tag on its own: one that fails leaves the others resumed.
	res, err := segment.ResumeTags(ctx, db, d, f.table, names, segment.Resume{To: *to, Skip: *skip}, store)
	for _, r := range res {
		if werr := r.WriteText(env.stdout, env.line); werr != nil {
			return werr
		}
	}
	if err != nil {
		return fmt.Errorf("segment resume: %w", err)
	}
	return nil
}

// notice prints one line on stderr for something a long-running command's
// client reported (a loss, a rewind, an outage), scrubbed of passwords.
func notice(env *cliEnv, cmd, msg string) {
	fmt.Fprintf(env.stderr, "shardid %s: %s\n", cmd, env.line(msg))
}

// lossyCommitUsage is the help of segment next's and tickets next's
// --allow-lossy-commit.
const lossyCommitUsage = "draw from a server that may lose acknowledged commits in a crash (PostgreSQL synchronous_commit off, MySQL/MariaDB innodb_flush_log_at_trx_commit or sync_binlog not 1); after such a crash IDs handed out just before it can be handed out again"

// lossyCommitHint names the flag where the packages' ErrLossyCommit
// messages name the Go setting (AllowLossyCommit), which a command-line
// user cannot set.
func lossyCommitHint(err error) error {
	if !errors.Is(err, dialect.ErrLossyCommit) && !errors.Is(err, tickets.ErrLossyCommit) {
		return err
	}
	// The message reworded, the error chain kept (errors.Is still finds
	// ErrLossyCommit and ErrExhausted).
	return &redactedError{msg: strings.ReplaceAll(err.Error(), "AllowLossyCommit", "--allow-lossy-commit"), err: err}
}
