-- RANGE partitioning by the AUTO_INCREMENT key: AUTO_RANDOM keys would all
-- land in the MAXVALUE partition (or in none), so auto picks shard-rowid.
CREATE TABLE orders (
  id BIGINT NOT NULL AUTO_INCREMENT,
  v INT,
  PRIMARY KEY (id)
)
PARTITION BY RANGE (id) (
  PARTITION p0 VALUES LESS THAN (100000000),
  PARTITION p1 VALUES LESS THAN (MAXVALUE)
)
