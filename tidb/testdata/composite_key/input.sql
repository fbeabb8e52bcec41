-- A two-column key: only shard-rowid suits it.
CREATE TABLE tenant_items (
  tenant_id int NOT NULL,
  item_id bigint NOT NULL,
  name varchar(100) NOT NULL,
  PRIMARY KEY (tenant_id, item_id)
);
