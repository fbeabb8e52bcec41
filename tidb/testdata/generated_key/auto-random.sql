CREATE TABLE `用户表` (
  `编号` BIGINT /*M! AUTO_INCREMENT */ /*T![auto_rand] AUTO_RANDOM(5, 54) */,
  `双倍` BIGINT GENERATED ALWAYS AS(`编号`*2) VIRTUAL,
  PRIMARY KEY (`编号`) /*T![clustered_index] CLUSTERED */
) /*T! PRE_SPLIT_REGIONS=4 */;
