-- +goose NO TRANSACTION
-- Rendered by shardid: segment allocation table `shardid_segments` (TiDB).

-- +goose Up
CREATE TABLE IF NOT EXISTS `shardid_segments` (
  `tag` varchar(128) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
  `max_id` bigint NOT NULL,
  `step` bigint NOT NULL,
  `description` varchar(256) NOT NULL DEFAULT '',
  `update_time` timestamp(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  PRIMARY KEY (`tag`) /*T![clustered_index] CLUSTERED */,
  CHECK (`step` > 0)
) ENGINE=InnoDB;

-- +goose Down
-- Nothing to undo: the table holds the high-water mark of every tag, and a
-- table made anew would hand out the same IDs again. Drop it by hand only
-- when no ID it issued is in use anywhere.
