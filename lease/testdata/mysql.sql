-- +goose NO TRANSACTION
-- shardid: worker-id lease table `app`.`shardid_worker_lease` (one row per node id ever leased)
-- MySQL-family DDL is not transactional: one statement, IF NOT EXISTS, so a
-- rerun completes.
--
-- +goose Up
CREATE TABLE IF NOT EXISTS `app`.`shardid_worker_lease` (
  node_id   BIGINT       NOT NULL PRIMARY KEY COMMENT 'the layout''s node (shard) field',
  holder    VARCHAR(255) NOT NULL COMMENT 'who holds or last held it: stable names make ids sticky',
  token     VARCHAR(64)  NOT NULL COMMENT 'random per acquisition; empty once released',
  layout    VARCHAR(255) NOT NULL COMMENT 'the ID layout of the generators leasing from this table',
  lease_end DATETIME(6)  NOT NULL COMMENT 'database time, UTC; the id is free from then on',
  last_ms   BIGINT       NOT NULL COMMENT 'Unix ms: no holder of this id drew an ID after it (holder''s clock)',
  renewals  BIGINT       NOT NULL DEFAULT 0 COMMENT 'bumped by every write, so each write changes the row'
);

-- +goose Down
-- Dropping the table forgets the latest time each id was drawn at; the next
-- holders then rely on their clocks alone.
DROP TABLE IF EXISTS `app`.`shardid_worker_lease`;

-- +goose NO TRANSACTION
-- shardid: worker-id lease table `app`.`shardid_worker_lease`: each holder's TTL
-- Each claim and renewal records the holder's TTL (microseconds), so that a
-- fence (shardid worker fence) waits out the longest any holder uses. Rows
-- from before this migration record 0: not known. One statement: MySQL-family
-- DDL is not transactional, and a single ALTER is all or nothing.
--
-- +goose Up
ALTER TABLE `app`.`shardid_worker_lease` ADD COLUMN ttl_us BIGINT NOT NULL DEFAULT 0 COMMENT 'the holder''s TTL in microseconds; 0: not known (leased before this column)';

-- +goose Down
-- Nothing to undo: without the column a fence cannot know how long the
-- holders lease for.

-- statement now
SELECT TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6));

-- statement list
SELECT node_id, holder, token, layout, last_ms, renewals, ttl_us,
       TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', lease_end),
       TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6))
FROM `app`.`shardid_worker_lease` ORDER BY node_id;

-- statement insert
INSERT INTO `app`.`shardid_worker_lease` (node_id, holder, token, layout, lease_end, last_ms, ttl_us)
SELECT ?, ?, ?, ?, UTC_TIMESTAMP(6) + INTERVAL ? MICROSECOND, 0, ? FROM DUAL WHERE (@@global.innodb_flush_log_at_trx_commit = 1 AND (@@global.log_bin = 0 OR @@global.sync_binlog = 1))
ON DUPLICATE KEY UPDATE node_id = node_id;

-- statement takeover
UPDATE `app`.`shardid_worker_lease`
SET holder = ?, token = ?, lease_end = UTC_TIMESTAMP(6) + INTERVAL ? MICROSECOND,
    ttl_us = ?, renewals = renewals + 1
WHERE node_id = ? AND layout = ? AND lease_end <= UTC_TIMESTAMP(6) AND (@@global.innodb_flush_log_at_trx_commit = 1 AND (@@global.log_bin = 0 OR @@global.sync_binlog = 1));

-- statement readback
SELECT token, last_ms, renewals FROM `app`.`shardid_worker_lease` WHERE node_id = ?;

-- statement renew
UPDATE `app`.`shardid_worker_lease`
SET lease_end = UTC_TIMESTAMP(6) + INTERVAL ? MICROSECOND,
    last_ms = GREATEST(last_ms, ?), ttl_us = ?, renewals = LAST_INSERT_ID(renewals + 1)
WHERE node_id = ? AND token = ? AND renewals BETWEEN ? AND ? AND (@@global.innodb_flush_log_at_trx_commit = 1 AND (@@global.log_bin = 0 OR @@global.sync_binlog = 1));

-- statement state
SELECT (@@global.innodb_flush_log_at_trx_commit = 1 AND (@@global.log_bin = 0 OR @@global.sync_binlog = 1)), CONCAT('innodb_flush_log_at_trx_commit=', @@global.innodb_flush_log_at_trx_commit,
    ', log_bin=', @@global.log_bin, ', sync_binlog=', @@global.sync_binlog),
       l.token, l.renewals, l.holder, l.lease_end > UTC_TIMESTAMP(6)
FROM (SELECT 1 AS one) AS q LEFT JOIN `app`.`shardid_worker_lease` AS l ON l.node_id = ?;

-- statement release
UPDATE `app`.`shardid_worker_lease`
SET lease_end = UTC_TIMESTAMP(6), token = '', last_ms = ?, renewals = renewals + 1
WHERE node_id = ? AND token = ?;

-- statement fence
UPDATE `app`.`shardid_worker_lease`
SET token = 'fenced', lease_end = GREATEST(lease_end, UTC_TIMESTAMP(6) + INTERVAL ? MICROSECOND),
    last_ms = GREATEST(last_ms, TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6)) DIV 1000 + ?),
    renewals = renewals + 1
WHERE node_id >= 0;

-- statement fence_insert
INSERT INTO `app`.`shardid_worker_lease` (node_id, holder, token, layout, lease_end, last_ms)
VALUES (?, '', 'fenced', ?, UTC_TIMESTAMP(6) + INTERVAL ? MICROSECOND,
        TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6)) DIV 1000 + ?)
ON DUPLICATE KEY UPDATE node_id = node_id;
