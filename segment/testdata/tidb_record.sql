-- +goose NO TRANSACTION
-- Rendered by shardid: segment record table `shardid_segments_record` (TiDB): the tags ever created and the highest ID taken from each.

-- +goose Up
CREATE TABLE IF NOT EXISTS `shardid_segments_record` (
  `tag` varchar(128) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
  `high` bigint NOT NULL,
  `update_time` timestamp(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  PRIMARY KEY (`tag`) /*T![clustered_index] CLUSTERED */
) ENGINE=InnoDB;
INSERT IGNORE INTO `shardid_segments_record` (`tag`, `high`) SELECT `tag`, `max_id` FROM `shardid_segments`;

-- +goose Down
-- Nothing to undo: without the record a restored allocation table could
-- hand out the same IDs again under a tag created anew.
