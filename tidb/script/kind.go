package script

// Kind says what a statement does.
type Kind string

const (
	// KindCreate is a CREATE TABLE statement.
	KindCreate Kind = "create"
	// KindAlter is an ALTER TABLE statement.
	KindAlter Kind = "alter"
	// KindSplit is a SPLIT TABLE statement.
	KindSplit Kind = "split"
	// KindIndex is a CREATE INDEX statement of a schema script.
	KindIndex Kind = "index"
	// KindSession is a SET of a session variable the next statement
	// needs, so the statements must run in order on one session:
	// RenderAlter's switch from AUTO_INCREMENT to AUTO_RANDOM needs
	// tidb_allow_remove_auto_inc (TiDB 8.5 refuses it otherwise).
	KindSession Kind = "session"
	// KindForeignKey is an ALTER TABLE … ADD FOREIGN KEY that closes a
	// cycle of FOREIGN KEYs once both tables exist.
	KindForeignKey Kind = "fk"
	// KindData is a script's data: INSERT, REPLACE, UPDATE, DELETE.
	KindData Kind = "data"
	// KindView is a CREATE VIEW.
	KindView Kind = "view"
	// KindRoutine is a trigger, procedure, function or event (or a CALL),
	// which TiDB does not run: a migration for MySQL and MariaDB, a
	// statement to apply by hand for TiDB.
	KindRoutine Kind = "routine"
)
