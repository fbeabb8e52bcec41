CREATE TABLE `events` (
  `id` BIGINT(20) NOT NULL /*T![auto_rand] AUTO_RANDOM(5) */,
  `kind` VARCHAR(16) NOT NULL,
  `payload` JSON DEFAULT NULL,
  PRIMARY KEY (`id`) /*T![clustered_index] CLUSTERED */
);
