-- T_TX_BRANCH_LIST from the TiDB hotspot article (seeds/003): the branches
-- of a global transaction, keyed by a Snowflake ID.
CREATE TABLE `T_TX_BRANCH_LIST` (
`branch_tx_id` varchar(32) NOT NULL,
`branch_tx_no` bigint NOT NULL,
`global_tx_no` bigint NOT NULL,
`trace_id` varchar(18) NOT NULL,
`busi_unique_seq` varchar(18) NOT NULL,
`ms_code` varchar(10) NOT NULL,
`ms_version` varchar(5) NOT NULL,
`framework_type` char(1) NOT NULL,
`tx_stat` char(1) NOT NULL,
`code` char(2) DEFAULT NULL,
`msg` varchar(32) DEFAULT NULL,
`input_data` longtext NOT NULL,
`create_time` timestamp NOT NULL,
`update_time` timestamp NULL DEFAULT NULL ON UPDATE CURRENT_TIMESTAMP,
PRIMARY KEY (`branch_tx_no`),
KEY `index1` (`create_time`,`tx_stat`),
KEY `index3` (`global_tx_no`)
);
