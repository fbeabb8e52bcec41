-- shardid: ID generator for logical shard 5 in schema "insta5"
-- layout: snowflake (time 41 bits of 1ms since 2025-01-01T00:00:00Z, shard 10 bits, sequence 12 bits)
-- mode:   classic-sql
--
-- What an application role needs, and nothing more (shardid pg grant
-- --role ROLE runs exactly this, takes back anything beyond it, and checks):
--   REVOKE ALL ON SEQUENCE "insta5".next_id_seq FROM <role>;
--   GRANT USAGE ON SCHEMA "insta5" TO <role>;
--   GRANT USAGE ON SEQUENCE "insta5".next_id_seq TO <role>;
--   GRANT EXECUTE ON FUNCTION "insta5".next_id() TO <role>;
--   GRANT EXECUTE ON FUNCTION "insta5".id_timestamp(bigint), "insta5".id_shard(bigint),
--       "insta5".id_seq(bigint), "insta5".min_id(pg_catalog.timestamptz) TO <role>;
--
-- +goose Up
-- The whole Up is one statement for goose, sent in one round trip (inside
-- goose's transaction): a fleet of 8,192 shards pays per statement.
-- +goose StatementBegin
CREATE SCHEMA IF NOT EXISTS "insta5";

-- The counter behind next_id(). CACHE 1 is deliberate: with a per-session
-- cache each session hands out values it reserved earlier, so the counter
-- no longer follows the clock across sessions. In mode unique every call must
-- see the shared high-water mark (a cached block would hold values from the
-- past and drive every call into the slow path); in the classic modes
-- sessions drawing from separate cached blocks collide on nextval % 2^seqBits
-- within the same tick. MAXVALUE stops the counter where the layout's time
-- field ends, so it can never carry into the sign bit.
CREATE SEQUENCE IF NOT EXISTS "insta5".next_id_seq
    AS bigint MINVALUE 0 MAXVALUE 9007199254740991 START 0 CACHE 1 NO CYCLE;
-- The time field of a classic ID: casting the clock's tick count to this
-- domain raises, naming the constraint, once the clock leaves the layout's
-- range (2025-01-01T00:00:00Z to 2094-09-07T15:47:35Z), instead of wrapping into the sign bit.
CREATE DOMAIN "insta5".next_id_ticks AS bigint
    CONSTRAINT clock_within_layout_range CHECK (VALUE BETWEEN 0 AND 2199023255551);

-- next_id(), mode classic-sql: the classic design as an inlinable SQL
-- function, the cheapest body.
-- LIMIT: as mode classic, more than 4096 calls for this shard within one
-- tick of 1ms, concurrent sessions straddling a tick, or a clock stepped
-- back return IDs already handed out.
CREATE OR REPLACE FUNCTION "insta5".next_id() RETURNS bigint
    LANGUAGE sql VOLATILE
    RETURN (((pg_catalog.floor((((pg_catalog.date_part('epoch', pg_catalog.clock_timestamp()) OPERATOR(pg_catalog.*) 1000::double precision) OPERATOR(pg_catalog.-) 1735689600000::double precision) OPERATOR(pg_catalog./) 1::double precision))::bigint)::"insta5".next_id_ticks OPERATOR(pg_catalog.<<) 22) OPERATOR(pg_catalog.|) 20480::bigint) OPERATOR(pg_catalog.|) (pg_catalog.nextval('"insta5".next_id_seq') OPERATOR(pg_catalog.%) 4096::bigint);

-- How this generator was rendered, for shardid up, status and verify. It is
-- the counter's comment rather than next_id()'s: COMMENT ON FUNCTION finds
-- the function among every schema's next_id() (a cost that grows with the
-- number of shards on the server), COMMENT ON SEQUENCE by one index lookup.
COMMENT ON SEQUENCE "insta5".next_id_seq IS '{"tool":"shardid","shard":5,"mode":"classic-sql","layout":"snowflake","epoch_ms":1735689600000,"unit_ms":1,"time_bits":41,"shard_bits":10,"seq_bits":12}';

-- A generator this schema held until a down: the down kept its counter, with
-- its comment, as next_id_retired_seq. A generator made with another
-- layout, epoch or mode could hand out its IDs again (a later epoch starts
-- below them), so that is refused; this one carries on from its counter,
-- above every ID it handed out, whatever the clock says now. Its lead may
-- differ: the lead bounds how far ahead of the clock IDs go, not which
-- values the counter has handed out.
DO $shardid$
DECLARE
    retired pg_catalog.regclass := pg_catalog.to_regclass('"insta5".next_id_retired_seq');
    old pg_catalog.text;
BEGIN
    IF retired IS NULL THEN
        RETURN;
    END IF;
    old := pg_catalog.obj_description(retired, 'pg_class');
    IF old IS NULL OR (old::pg_catalog.jsonb OPERATOR(pg_catalog.-) '{layout,lead_ms}'::pg_catalog.text[]) OPERATOR(pg_catalog.<>) ('{"tool":"shardid","shard":5,"mode":"classic-sql","layout":"snowflake","epoch_ms":1735689600000,"unit_ms":1,"time_bits":41,"shard_bits":10,"seq_bits":12}'::pg_catalog.jsonb OPERATOR(pg_catalog.-) '{layout,lead_ms}'::pg_catalog.text[]) THEN
        RAISE EXCEPTION 'shardid: schema % held another generator until pg down (%); one made with other options could hand out its IDs again: up with the options it had, or drop the schema once none of its IDs is in use anywhere',
                'insta5', old
            USING ERRCODE = 'SHR02'; -- shardid's own: pgfunc.Up reads it as ErrGeneratorMismatch
    END IF;
    PERFORM pg_catalog.setval('"insta5".next_id_seq', s.last_value, s.is_called) FROM "insta5".next_id_retired_seq AS s;
    DROP SEQUENCE "insta5".next_id_retired_seq;
END
$shardid$;

-- Decode helpers for this layout, usable in queries and indexes.
CREATE OR REPLACE FUNCTION "insta5".id_timestamp(id bigint) RETURNS pg_catalog.timestamptz
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN pg_catalog.to_timestamp(((((id OPERATOR(pg_catalog.>>) 22) OPERATOR(pg_catalog.*) 1) OPERATOR(pg_catalog.+) 1735689600000)::double precision) OPERATOR(pg_catalog./) 1000::double precision);

CREATE OR REPLACE FUNCTION "insta5".id_shard(id bigint) RETURNS int
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN ((id OPERATOR(pg_catalog.>>) 12) OPERATOR(pg_catalog.&) 1023::bigint)::int;

CREATE OR REPLACE FUNCTION "insta5".id_seq(id bigint) RETURNS int
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN (id OPERATOR(pg_catalog.&) 4095::bigint)::int;

-- The smallest ID of any shard at instant ts (shard 0, sequence 0 of ts's
-- tick), for time-range scans: WHERE id >= min_id(now() - interval '1 day').
-- Instants before the epoch, and -infinity, give 0; instants past the
-- layout's end, and infinity, give the smallest ID of its last tick.
-- (date_part reads an infinite timestamp as an infinite number of seconds;
-- a difference of timestamps would raise for it, or overflow far out.)
CREATE OR REPLACE FUNCTION "insta5".min_id(ts pg_catalog.timestamptz) RETURNS bigint
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN least(greatest(pg_catalog.floor(
        (((pg_catalog.date_part('epoch', ts) OPERATOR(pg_catalog.*) 1000::double precision)
          OPERATOR(pg_catalog.-) 1735689600000::double precision) OPERATOR(pg_catalog./) 1::double precision)
    ), 0::double precision), 2199023255551::double precision)::bigint OPERATOR(pg_catalog.<<) 22;
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
DROP FUNCTION IF EXISTS "insta5".min_id(pg_catalog.timestamptz);
DROP FUNCTION IF EXISTS "insta5".id_seq(bigint);
DROP FUNCTION IF EXISTS "insta5".id_shard(bigint);
DROP FUNCTION IF EXISTS "insta5".id_timestamp(bigint);
DROP FUNCTION IF EXISTS "insta5".next_id();
DROP FUNCTION IF EXISTS "insta5".next_id_jump_5();
DROP TABLE IF EXISTS "insta5".next_id_jump_lock;
DROP SEQUENCE IF EXISTS "insta5".next_id_jumps_done;
DROP SEQUENCE IF EXISTS "insta5".next_id_jumps_begun;
-- The counter stays, with its comment, for the next up: see there.
DROP SEQUENCE IF EXISTS "insta5".next_id_retired_seq;
ALTER SEQUENCE IF EXISTS "insta5".next_id_seq RENAME TO next_id_retired_seq;
DROP DOMAIN IF EXISTS "insta5".next_id_ticks;
-- +goose StatementEnd



