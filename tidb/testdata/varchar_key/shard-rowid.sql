CREATE TABLE `orders` (
  `order_no` VARCHAR(20) NOT NULL,
  `customer` VARCHAR(64) NOT NULL COMMENT 'who ordered',
  `amount` DECIMAL(12,2) NOT NULL DEFAULT '0.00',
  `created_at` DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  PRIMARY KEY (`order_no`) /*T![clustered_index] NONCLUSTERED */,
  UNIQUE KEY `uk_customer_created` (`customer`(16), `created_at` DESC),
  KEY `idx_created` (`created_at`)
) ENGINE = InnoDB DEFAULT CHARACTER SET = UTF8MB4 DEFAULT COLLATE = UTF8MB4_BIN COMMENT = 'orders by number' /*T! SHARD_ROW_ID_BITS=4 PRE_SPLIT_REGIONS=4 */;
