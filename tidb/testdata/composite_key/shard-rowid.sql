CREATE TABLE `tenant_items` (
  `tenant_id` INT NOT NULL,
  `item_id` BIGINT NOT NULL,
  `name` VARCHAR(100) NOT NULL,
  PRIMARY KEY (`tenant_id`, `item_id`) /*T![clustered_index] NONCLUSTERED */
) /*T! SHARD_ROW_ID_BITS=4 PRE_SPLIT_REGIONS=4 */;
