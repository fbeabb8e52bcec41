-- +goose NO TRANSACTION
-- Rendered by shardid: ticket table `photos`, increment 3, offset 2 (MySQL, MariaDB).

-- +goose Up
CREATE TABLE IF NOT EXISTS `photos` (
  `stub` char(1) NOT NULL,
  `id` bigint NOT NULL,
  `increment` int NOT NULL,
  `offset` int NOT NULL,
  PRIMARY KEY (`stub`),
  CHECK (`increment` BETWEEN 1 AND 65535 AND `offset` BETWEEN 1 AND `increment`)
) ENGINE=InnoDB;

INSERT INTO `photos` (`stub`, `id`, `increment`, `offset`) VALUES ('a', 72157623227190422, 3, 2)
ON DUPLICATE KEY UPDATE `stub` = `stub`;

-- +goose Down
-- Nothing to undo: the table holds the last ticket drawn, and one made
-- anew would hand out the same tickets again. Drop it by hand only when no
-- ticket it issued is in use anywhere.
