-- A log table without a primary key: TiDB keys its rows by _tidb_rowid.
CREATE TABLE audit_log (
  at timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP,
  who varchar(32) NOT NULL,
  what text,
  KEY (at)
);
