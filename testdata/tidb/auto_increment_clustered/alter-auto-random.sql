SET @@SESSION.tidb_allow_remove_auto_inc = ON;

ALTER TABLE `events` MODIFY COLUMN `id` BIGINT(20) NOT NULL /*T![auto_rand] AUTO_RANDOM(5) */;
