CREATE TABLE `T_TX_GLOBAL_LIST` (
  `global_tx_id` VARCHAR(32) NOT NULL,
  `global_tx_no` BIGINT NOT NULL,
  `trace_id` VARCHAR(18) NOT NULL,
  `busi_unique_seq` VARCHAR(18) NOT NULL,
  `as_code` VARCHAR(10) NOT NULL,
  `as_version` VARCHAR(5) NOT NULL,
  `framework_type` CHAR(1) NOT NULL,
  `tx_stat` CHAR(1) NOT NULL,
  `code` CHAR(2) DEFAULT NULL,
  `msg` VARCHAR(32) DEFAULT NULL,
  `create_time` TIMESTAMP NOT NULL,
  `update_time` TIMESTAMP NULL DEFAULT NULL ON UPDATE CURRENT_TIMESTAMP(),
  PRIMARY KEY (`global_tx_no`) /*T![clustered_index] NONCLUSTERED */,
  KEY `index1` (`create_time`, `tx_stat`)
) /*T! SHARD_ROW_ID_BITS=4 PRE_SPLIT_REGIONS=4 */;
