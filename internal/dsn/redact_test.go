package dsn

import (
	"testing"
)

// TestRedactDSN: the DSN shown in progress and errors keeps everything
// but the password, whichever way the password is written.
func TestRedactDSN(t *testing.T) {
	for in, want := range map[string]string{
		"postgres://app:s3cret@db1:5432/app?sslmode=disable": "postgres://app:xxxxx@db1:5432/app?sslmode=disable",
		"postgres://app@db1/app":                             "postgres://app@db1/app",
		"host=db1 user=app password=s3cret dbname=app":       "host=db1 user=app password=xxxxx dbname=app",
		"host=db1 password='s3 cret' dbname=app":             "host=db1 password=xxxxx dbname=app",
		"host=db1 password = s3cret dbname=app":              "host=db1 password = xxxxx dbname=app",
		"host=db1 PassWord=s3cret dbname=app":                "host=db1 PassWord=xxxxx dbname=app",
		`host=db1 password=s3\ cret dbname=app`:              "host=db1 password=xxxxx dbname=app",
		`host=db1 password='s3\' cret' dbname=app`:           "host=db1 password=xxxxx dbname=app",
		"host=db1 sslpassword=s3cret dbname=app":             "host=db1 sslpassword=xxxxx dbname=app",
		"app:s3cret@tcp(db1:4000)/app?parseTime=true":        "app:xxxxx@tcp(db1:4000)/app?parseTime=true",
		"root@tcp(127.0.0.1:4000)/app":                       "root@tcp(127.0.0.1:4000)/app",
		// libpq and pgx also take the password as a URL query parameter.
		"postgres://app@db1/app?password=s3cret&sslmode=disable":        "postgres://app@db1/app?password=xxxxx&sslmode=disable",
		"postgresql://db1/app?sslmode=disable&user=app&password=s3cret": "postgresql://db1/app?sslmode=disable&user=app&password=xxxxx",
		"postgres://app:s3cret@db1/app?password=s3cret":                 "postgres://app:xxxxx@db1/app?password=xxxxx",
		"postgres://app@db1/app?pass%77ord=s3cret":                      "postgres://app@db1/app?pass%77ord=xxxxx",
		"app:p@s3cret@tcp(db1:4000)/app":                                "app:xxxxx@tcp(db1:4000)/app",
		"postgres://app:p@s3cret@db1/app":                               "postgres://app:xxxxx@db1/app",
		"postgres://app:p/s3cret@db1/app":                               "postgres://app:xxxxx@db1/app",
	} {
		if got := Redact(in); got != want {
			t.Errorf("Redact(%q) = %q; want %q", in, got, want)
		}
	}
}

// TestScrubDSNPieces: a message derived from a DSN loses every piece of
// the password a driver may print after splitting it, and nothing else.
func TestScrubDSNPieces(t *testing.T) {
	for _, c := range []struct{ dsn, msg, want string }{
		{"postgres://postgres:a@Zq9PASSleak@127.0.0.1:1/app", "lookup Zq9PASSleak@127.0.0.1: no such host",
			"lookup xxxxx@127.0.0.1: no such host"},
		{`host=h password=a\ Zq9PASSleak connect_timeout=abc`, "cannot parse `host=h password=xxxxx Zq9PASSleak connect_timeout=abc`: invalid connect_timeout",
			"cannot parse `host=h password=xxxxx xxxxx connect_timeout=abc`: invalid connect_timeout"},
		{"host=h password='Zq9 PASSleak' port=1", "a Zq9 PASSleak b", "a xxxxx b"},
		// A short password is masked where the DSN is shown (Redact),
		// not letter by letter all over a message.
		{"postgres://u:pw@h/app", "failed to connect to `user=u database=app`: wrong password", "failed to connect to `user=u database=app`: wrong password"},
	} {
		if got := NewRedactor(c.dsn).Scrub(c.msg); got != c.want {
			t.Errorf("scrub(%q) with %q = %q; want %q", c.msg, c.dsn, got, c.want)
		}
	}
}
