-- T_TX_GLOBAL_LIST from the TiDB hotspot article (seeds/003): global
-- transactions keyed by a Snowflake ID.
CREATE TABLE `T_TX_GLOBAL_LIST` (
`global_tx_id` varchar(32) NOT NULL,
`global_tx_no` bigint NOT NULL,
`trace_id` varchar(18) NOT NULL,
`busi_unique_seq` varchar(18) NOT NULL,
`as_code` varchar(10) NOT NULL,
`as_version` varchar(5) NOT NULL,
`framework_type` char(1) NOT NULL,
`tx_stat` char(1) NOT NULL,
`code` char(2) DEFAULT NULL,
`msg` varchar(32) DEFAULT NULL,
`create_time` timestamp NOT NULL,
`update_time` timestamp NULL DEFAULT NULL ON UPDATE CURRENT_TIMESTAMP,
PRIMARY KEY (`global_tx_no`),
KEY `index1` (`create_time`,`tx_stat`)
);
