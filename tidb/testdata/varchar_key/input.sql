-- The article's third experiment: the Snowflake ID stored as text, the key
-- already NONCLUSTERED, as TiDB's SHOW CREATE TABLE prints it.
CREATE TABLE `orders` (
  `order_no` varchar(20) NOT NULL,
  `customer` varchar(64) NOT NULL COMMENT 'who ordered',
  `amount` decimal(12,2) NOT NULL DEFAULT '0.00',
  `created_at` datetime(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  PRIMARY KEY (`order_no`) /*T![clustered_index] NONCLUSTERED */,
  UNIQUE KEY `uk_customer_created` (`customer`(16),`created_at` DESC),
  KEY `idx_created` (`created_at`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin COMMENT='orders by number';
