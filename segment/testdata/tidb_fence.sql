-- +goose NO TRANSACTION
-- Rendered by shardid: segment allocation table `shardid_segments` (TiDB), fence and rewind record.

-- +goose Up
ALTER TABLE `shardid_segments`
  ADD COLUMN `fenced` boolean NOT NULL DEFAULT FALSE,
  ADD COLUMN `rewind_time` timestamp(6) NULL DEFAULT NULL,
  ADD COLUMN `rewind_seen` bigint NOT NULL DEFAULT 0,
  ADD COLUMN `rewind_found` bigint NOT NULL DEFAULT 0;

-- +goose Down
-- Nothing to undo: a client fences a tag it finds rewound through these
-- columns; without them a restored table would hand out the same IDs again.
