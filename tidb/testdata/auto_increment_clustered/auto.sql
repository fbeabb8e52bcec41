CREATE TABLE `events` (
  `id` BIGINT(20) NOT NULL /*M! AUTO_INCREMENT */ /*T![auto_rand] AUTO_RANDOM(5, 54) */,
  `kind` VARCHAR(16) NOT NULL,
  `payload` JSON DEFAULT NULL,
  PRIMARY KEY (`id`) /*T![clustered_index] CLUSTERED */
) /*T! PRE_SPLIT_REGIONS=4 */;
