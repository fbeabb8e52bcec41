-- +goose NO TRANSACTION
-- Rendered by shardid: ticket table `tickets64`, increment 2, offset 2 (TiDB).

-- +goose Up
CREATE TABLE IF NOT EXISTS `tickets64` (
  `stub` char(1) NOT NULL,
  `id` bigint NOT NULL,
  `increment` int NOT NULL,
  `offset` int NOT NULL,
  PRIMARY KEY (`stub`) /*T![clustered_index] CLUSTERED */,
  CHECK (`increment` BETWEEN 1 AND 65535 AND `offset` BETWEEN 1 AND `increment`)
) ENGINE=InnoDB;

INSERT INTO `tickets64` (`stub`, `id`, `increment`, `offset`) VALUES ('a', 0, 2, 2)
ON DUPLICATE KEY UPDATE `stub` = `stub`;

-- +goose Down
-- Nothing to undo: the table holds the last ticket drawn, and one made
-- anew would hand out the same tickets again. Drop it by hand only when no
-- ticket it issued is in use anywhere.
