-- shardid: worker-id lease table "app"."shardid_worker_lease" (one row per node id ever leased)
--
-- +goose Up
CREATE TABLE IF NOT EXISTS "app"."shardid_worker_lease" (
    node_id   bigint      NOT NULL PRIMARY KEY, -- the layout's node (shard) field
    holder    text        NOT NULL,             -- who holds or last held it: stable names make ids sticky
    token     text        NOT NULL,             -- random per acquisition; '' once released
    layout    text        NOT NULL,             -- the ID layout of the generators leasing from this table
    lease_end timestamptz NOT NULL,             -- database time; the id is free from then on
    last_ms   bigint      NOT NULL,             -- Unix ms: no holder of this id drew an ID after it (holder's clock)
    renewals  bigint      NOT NULL DEFAULT 0    -- bumped by every write, so each write changes the row
);

-- +goose Down
-- Dropping the table forgets the latest time each id was drawn at; the next
-- holders then rely on their clocks alone.
DROP TABLE IF EXISTS "app"."shardid_worker_lease";

-- shardid: worker-id lease table "app"."shardid_worker_lease": each holder's TTL
--
-- Each claim and renewal records the holder's TTL (microseconds), so that
-- a fence (shardid worker fence) waits out the longest any holder uses.
-- Rows from before this migration record 0: not known.
--
-- +goose Up
ALTER TABLE "app"."shardid_worker_lease" ADD COLUMN ttl_us bigint NOT NULL DEFAULT 0;

-- +goose Down
-- Nothing to undo: without the column a fence cannot know how long the
-- holders lease for.

-- statement now
SELECT (EXTRACT(EPOCH FROM pg_catalog.now()) * 1000000)::bigint;

-- statement list
SELECT node_id, holder, token, layout, last_ms, renewals, ttl_us,
       (EXTRACT(EPOCH FROM lease_end) * 1000000)::bigint,
       (EXTRACT(EPOCH FROM pg_catalog.now()) * 1000000)::bigint
FROM "app"."shardid_worker_lease" ORDER BY node_id;

-- statement insert
INSERT INTO "app"."shardid_worker_lease" (node_id, holder, token, layout, lease_end, last_ms, ttl_us)
SELECT $1::bigint, $2::text, $3::text, $4::text, pg_catalog.now() + $5::bigint * interval '1 microsecond', 0, $6::bigint
WHERE pg_catalog.current_setting('synchronous_commit') OPERATOR(pg_catalog.<>) 'off'
ON CONFLICT (node_id) DO NOTHING;

-- statement takeover
UPDATE "app"."shardid_worker_lease"
SET holder = $1, token = $2, lease_end = pg_catalog.now() + $3::bigint * interval '1 microsecond',
    ttl_us = $4, renewals = renewals + 1
WHERE node_id = $5 AND layout = $6 AND lease_end <= pg_catalog.now() AND pg_catalog.current_setting('synchronous_commit') OPERATOR(pg_catalog.<>) 'off';

-- statement readback
SELECT token, last_ms, renewals FROM "app"."shardid_worker_lease" WHERE node_id = $1;

-- statement renew
UPDATE "app"."shardid_worker_lease"
SET lease_end = pg_catalog.now() + $1::bigint * interval '1 microsecond',
    last_ms = GREATEST(last_ms, $2), ttl_us = $3, renewals = renewals + 1
WHERE node_id = $4 AND token = $5 AND renewals BETWEEN $6 AND $7 AND pg_catalog.current_setting('synchronous_commit') OPERATOR(pg_catalog.<>) 'off'
RETURNING renewals;

-- statement state
SELECT pg_catalog.current_setting('synchronous_commit') OPERATOR(pg_catalog.<>) 'off', 'synchronous_commit=' OPERATOR(pg_catalog.||) pg_catalog.current_setting('synchronous_commit'),
       l.token, l.renewals, l.holder, l.lease_end > pg_catalog.now()
FROM (SELECT 1 AS one) AS q LEFT JOIN "app"."shardid_worker_lease" AS l ON l.node_id = $1;

-- statement release
UPDATE "app"."shardid_worker_lease"
SET lease_end = pg_catalog.now(), token = '', last_ms = $1, renewals = renewals + 1
WHERE node_id = $2 AND token = $3;

-- statement fence
UPDATE "app"."shardid_worker_lease"
SET token = 'fenced', lease_end = GREATEST(lease_end, pg_catalog.statement_timestamp() + $1::bigint * interval '1 microsecond'),
    last_ms = GREATEST(last_ms, (EXTRACT(EPOCH FROM pg_catalog.statement_timestamp()) * 1000)::bigint + $2::bigint),
    renewals = renewals + 1
WHERE node_id >= 0;

-- statement fence_insert
INSERT INTO "app"."shardid_worker_lease" (node_id, holder, token, layout, lease_end, last_ms)
VALUES ($1, '', 'fenced', $2, pg_catalog.now() + $3::bigint * interval '1 microsecond',
        (EXTRACT(EPOCH FROM pg_catalog.now()) * 1000)::bigint + $4::bigint)
ON CONFLICT (node_id) DO NOTHING;
