-- A generated column computes on the AUTO_INCREMENT key: TiDB refuses the
-- table as written, and AUTO_RANDOM keys overflow the expression.
CREATE TABLE `用户表` (
  `编号` BIGINT AUTO_INCREMENT PRIMARY KEY,
  `双倍` BIGINT AS (`编号`*2) VIRTUAL
)
