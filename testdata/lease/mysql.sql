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

-- statement now
SELECT TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6));

-- statement list
SELECT node_id, holder, token, layout, last_ms,
       TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', lease_end),
       TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6))
FROM `app`.`shardid_worker_lease` ORDER BY node_id;

-- statement insert
INSERT INTO `app`.`shardid_worker_lease` (node_id, holder, token, layout, lease_end, last_ms)
VALUES (?, ?, ?, ?, UTC_TIMESTAMP(6) + INTERVAL ? MICROSECOND, 0)
ON DUPLICATE KEY UPDATE node_id = node_id;

-- statement takeover
UPDATE `app`.`shardid_worker_lease`
SET holder = ?, token = ?, lease_end = UTC_TIMESTAMP(6) + INTERVAL ? MICROSECOND,
    renewals = renewals + 1
WHERE node_id = ? AND layout = ? AND lease_end <= UTC_TIMESTAMP(6);

-- statement readback
SELECT token, last_ms FROM `app`.`shardid_worker_lease` WHERE node_id = ?;

-- statement renew
UPDATE `app`.`shardid_worker_lease`
SET lease_end = UTC_TIMESTAMP(6) + INTERVAL ? MICROSECOND,
    last_ms = GREATEST(last_ms, ?), renewals = renewals + 1
WHERE node_id = ? AND token = ?;

-- statement release
UPDATE `app`.`shardid_worker_lease`
SET lease_end = UTC_TIMESTAMP(6), token = '', last_ms = ?, renewals = renewals + 1
WHERE node_id = ? AND token = ?;
