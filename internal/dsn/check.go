package dsn

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/shardid/shardid/dialect"
)

// Want says what connection strings of the forms f look like, for
// messages: "a PostgreSQL URL (…) or key=value words (…)", a MySQL DSN, or
// both.
func (f Form) Want() string {
	const (
		pg = "a PostgreSQL URL (postgres://user:password@host:5432/db) or key=value words (host=… user=… dbname=…)"
		my = "a go-sql-driver/mysql DSN (user:password@tcp(host:3306)/db)"
	)
	switch f {
	case Postgres:
		return pg
	case MySQL:
		return my
	}
	return pg + ", or " + my
}

// CheckError is what Check returns for a DSN it refuses: a one-line
// message for people, naming what gave the DSN (a flag, a variable, a
// map's entry), what is wrong and which forms are allowed. The DSN is
// shown with its passwords masked, if at all; Err is the *Error of Parse.
type CheckError struct {
	// Msg is the whole message.
	Msg string
	// Err is Parse's *Error.
	Err error
}

func (e *CheckError) Error() string { return e.Msg }

// Unwrap returns Err.
func (e *CheckError) Unwrap() error { return e.Err }

// Check is Parse for a DSN a person gave under name (e.g. "--dsn"): its
// error is a *CheckError that says what is wrong in words that name the
// DSN's source and the allowed forms, without a password.
func Check(name, s string, allowed Form) (DSN, error) {
	d, err := Parse(s, allowed)
	var pe *Error
	if err == nil || !errors.As(err, &pe) {
		return d, Scrub(err, s)
	}
	var msg string
	shown := Redact(s)
	switch {
	case errors.Is(err, ErrEmpty):
		msg = fmt.Sprintf("%s is required: %s", name, allowed.Want())
	case errors.Is(err, ErrNotAllowed) && pe.Form == Postgres:
		msg = fmt.Sprintf("%s: %s is a PostgreSQL connection string; want %s", name, shown, allowed.Want())
	case errors.Is(err, ErrNotAllowed) && pe.Form == MySQL:
		msg = fmt.Sprintf("%s: %s is a MySQL URL; want %s", name, shown, allowed.Want())
	case errors.Is(err, ErrNotAllowed):
		msg = fmt.Sprintf("%s: not %s", name, allowed.Want())
	case errors.Is(err, ErrAtInUserInfo):
		msg = fmt.Sprintf("%s: the user name or password of %s holds an @ (write it as %%40); want %s", name, shown, allowed.Want())
	case errors.Is(err, ErrMySQLURL):
		msg = fmt.Sprintf("%s: %s is a URL; go-sql-driver/mysql wants user:password@tcp(host:3306)/db", name, shown)
	case errors.Is(err, ErrSyntax) && pe.Form == Postgres:
		msg = fmt.Sprintf("%s: not a PostgreSQL connection string (%s); want %s", name, pe.Reason, allowed.Want())
	default:
		msg = fmt.Sprintf("%s: not %s (%s)", name, allowed.Want(), pe.Reason)
	}
	return DSN{}, &CheckError{Msg: NewRedactor(s).Scrub(msg), Err: err}
}

// Connect opens a pool on d, pings it and tells which dialect its server
// speaks. A failed ping matches ErrConnect (errors.Is); every error's
// message is scrubbed of d's passwords (Scrub).
func Connect(ctx context.Context, d DSN) (*sql.DB, dialect.Dialect, error) {
	db, err := Open(ctx, d)
	if err != nil {
		return nil, "", err
	}
	found, err := Detect(ctx, db)
	if err != nil {
		return nil, "", Scrub(err, d.Source)
	}
	return db, found, nil
}

// scrubbed is an error whose message has passwords scrubbed; errors.Is
// and errors.As still see the error it wraps.
type scrubbed struct {
	msg string
	err error
}

func (e *scrubbed) Error() string { return e.msg }
func (e *scrubbed) Unwrap() error { return e.err }

// Scrub returns err with the passwords of dsns scrubbed from its message
// (a Redactor's Scrub), still matching what err matches; nil for nil, and
// err itself when there was nothing to scrub.
func Scrub(err error, dsns ...string) error {
	if err == nil {
		return nil
	}
	msg := NewRedactor(dsns...).Scrub(err.Error())
	if msg == err.Error() {
		return err
	}
	return &scrubbed{msg: msg, err: err}
}
