-- Rendered by shardid: segment allocation table "shardid_segments" (PostgreSQL).

-- +goose Up
CREATE TABLE "shardid_segments" (
  tag text NOT NULL PRIMARY KEY,
  max_id bigint NOT NULL,
  step bigint NOT NULL CHECK (step > 0),
  description text NOT NULL DEFAULT '',
  update_time timestamptz NOT NULL DEFAULT pg_catalog.now()
);

-- +goose Down
-- Nothing to undo: the table holds the high-water mark of every tag, and a
-- table made anew would hand out the same IDs again. Drop it by hand only
-- when no ID it issued is in use anywhere.
