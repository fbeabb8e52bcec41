-- An AUTO_INCREMENT BIGINT key, clustered, as SHOW CREATE TABLE prints it:
-- TiDB can switch it to AUTO_RANDOM in place.
CREATE TABLE `events` (
  `id` bigint(20) NOT NULL AUTO_INCREMENT,
  `kind` varchar(16) NOT NULL,
  `payload` json DEFAULT NULL,
  PRIMARY KEY (`id`) /*T![clustered_index] CLUSTERED */
);
