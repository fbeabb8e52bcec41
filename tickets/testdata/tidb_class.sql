-- +goose NO TRANSACTION
-- Rendered by shardid: class table of ticket name `tickets64` (TiDB).

-- +goose Up
CREATE TABLE IF NOT EXISTS `tickets64_class` (
  `offset` int NOT NULL,
  `seen` bigint NOT NULL DEFAULT 0,
  `rewinds` bigint NOT NULL DEFAULT 0,
  `resumes` bigint NOT NULL DEFAULT 0,
  `rewound_at` timestamp(3) NULL DEFAULT NULL,
  `rewound_got` bigint NOT NULL DEFAULT 0,
  `rewound_high` bigint NOT NULL DEFAULT 0,
  `rewound_by` varchar(255) NOT NULL DEFAULT '',
  `resumed_to` bigint NOT NULL DEFAULT 0,
  `resumed_at` timestamp(3) NULL DEFAULT NULL,
  PRIMARY KEY (`offset`) /*T![clustered_index] CLUSTERED */,
  CHECK (`offset` BETWEEN 1 AND 65535)
) ENGINE=InnoDB;

-- +goose Down
-- Nothing to undo: the rows record what clients saw of the servers, which
-- shardid tickets resume reads to move a restored server past it.
