-- Rendered by shardid: segment record table "shardid_segments_record" (PostgreSQL): the tags ever created and the highest ID taken from each.

-- +goose Up
CREATE TABLE "shardid_segments_record" (
  tag text NOT NULL PRIMARY KEY,
  high bigint NOT NULL,
  update_time timestamptz NOT NULL DEFAULT pg_catalog.now()
);
INSERT INTO "shardid_segments_record" (tag, high) SELECT tag, max_id FROM "shardid_segments";

-- +goose Down
-- Nothing to undo: without the record a restored allocation table could
-- hand out the same IDs again under a tag created anew.
