-- shardid: ID generator for logical shard 5 in schema "insta5"
-- layout: snowflake (time 41 bits of 1ms since 2025-01-01T00:00:00Z, shard 10 bits, sequence 12 bits)
-- mode:   unique
--
-- +goose Up
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

-- The jump counters: how many jumps of the counter have begun and how many
-- have finished. Only a session holding the shard's jump lock moves them,
-- and only forward; they differ exactly while a jump is under way.
CREATE SEQUENCE IF NOT EXISTS "insta5".next_id_jumps_begun
    AS bigint MINVALUE 0 START 0 CACHE 1 NO CYCLE;
CREATE SEQUENCE IF NOT EXISTS "insta5".next_id_jumps_done
    AS bigint MINVALUE 0 START 0 CACHE 1 NO CYCLE;
SELECT pg_catalog.nextval('"insta5".next_id_jumps_begun'), pg_catalog.nextval('"insta5".next_id_jumps_done');

-- +goose StatementBegin
-- next_id_jump(): the slow path of next_id() (below); on its own it also
-- returns a valid, unique ID. The jump lock is a transaction-level advisory lock
-- taken inside a subtransaction that is always rolled back (RAISE ...
-- SQLSTATE 'SHR01'): sequences are not transactional, so the jump stays,
-- while the lock is released as soon as the jump is over, and on cancel or
-- error as well. Nothing is ever left held for other sessions to wait on.
-- A jump cut short leaves begun > done; the next jump completes it.
-- It runs with its owner's rights (setval needs UPDATE on the sequences),
-- so callers need no more than USAGE on the schema and its sequences; a
-- fixed search_path keeps a caller's objects out of it.
CREATE OR REPLACE FUNCTION "insta5".next_id_jump() RETURNS bigint
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $shardid$
DECLARE
    begun bigint;
    done  bigint;
    units bigint;
    now_units bigint;
BEGIN
    BEGIN
        PERFORM pg_catalog.pg_advisory_xact_lock(1397310513, 5);
        now_units := pg_catalog.floor((pg_catalog.date_part('epoch', pg_catalog.clock_timestamp()) * 1000 - 1735689600000) / 1)::bigint << 12;
        IF now_units > 9007199254740991 THEN
            RAISE EXCEPTION 'shardid: time field exhausted: the layout ends at 2094-09-07T15:47:35Z'
                USING ERRCODE = 'numeric_value_out_of_range';
        END IF;
        begun := pg_catalog.pg_sequence_last_value('"insta5".next_id_jumps_begun');
        done := pg_catalog.pg_sequence_last_value('"insta5".next_id_jumps_done');
        units := pg_catalog.nextval('"insta5".next_id_seq');
        IF units < now_units OR begun <> done THEN
            begun := greatest(begun, done) + 1;
            PERFORM pg_catalog.setval('"insta5".next_id_jumps_begun', begun);
            PERFORM pg_catalog.setval('"insta5".next_id_seq',
                greatest(pg_catalog.pg_sequence_last_value('"insta5".next_id_seq') + 1, now_units), false);
            units := pg_catalog.nextval('"insta5".next_id_seq');
            PERFORM pg_catalog.setval('"insta5".next_id_jumps_done', begun);
        END IF;
        RAISE SQLSTATE 'SHR01';
    EXCEPTION WHEN SQLSTATE 'SHR01' THEN
        NULL;
    END;
    RETURN (units >> 12) << 22 | 20480::bigint | (units & 4095::bigint);
END
$shardid$;

-- next_id(), mode unique: never returns the same ID twice for this shard.
--
-- The counter holds time and sequence together, in units of
-- (ticks << 12) | seq, and the ID is the counter value with the shard
-- id spliced in, so distinct counter values give distinct IDs whatever the
-- clock says. The clock only decides when the counter must jump forward.
--
-- Fast path, one inlinable SQL expression: read jumps_done, draw from the
-- counter, read jumps_begun. If begun (read after the draw) equals done
-- (read before it), no jump was under way at any moment in between, so no
-- jump can ever move the counter back over the value drawn: it is
-- returned, unless it is behind the clock (the tick after the value's
-- started already). A value ahead of the clock (more than 4096 IDs in
-- one tick, or a clock stepped back) is returned as well: the ID borrows
-- the following ticks and the clock catches up.
-- The test is one sum, evaluated left to right as PostgreSQL evaluates
-- operator arguments: -done + (behind ? 2^40 : 0) + begun, which is 0
-- exactly when begun = done and the value is not behind (begun and done
-- never differ by anything near 2^40). currval() then re-reads the value
-- this session drew, so no variable is bound: a bound variable would stop
-- the planner from inlining the function, and inlined it costs about a
-- third of a PL/pgSQL body. Timestamps are compared rather than the clock
-- turned into ticks, which costs a date_part() per call.
--
-- Otherwise next_id_jump() (above) takes the shard's jump lock, bumps
-- jumps_begun, moves the counter to max(its last value + 1, now) with
-- setval, draws, and sets jumps_done = jumps_begun. Values other sessions
-- drew while the jump was under way fail their begun = done test and are
-- thrown away, so setval can never hand out again a value anybody returned.
-- A jump happens at most about once per tick per shard.
CREATE OR REPLACE FUNCTION "insta5".next_id() RETURNS bigint
    LANGUAGE sql VOLATILE
AS $shardid$
    SELECT CASE
        WHEN ((0 - pg_catalog.pg_sequence_last_value('"insta5".next_id_jumps_done'))
              + (pg_catalog.to_timestamp(((pg_catalog.nextval('"insta5".next_id_seq') >> 12) * 1 + 1735689600001)::double precision / 1000)
                 <= pg_catalog.clock_timestamp())::int * 1099511627776::bigint)
              + pg_catalog.pg_sequence_last_value('"insta5".next_id_jumps_begun') = 0
        THEN (pg_catalog.currval('"insta5".next_id_seq') >> 12) << 22 | 20480::bigint
             | (pg_catalog.currval('"insta5".next_id_seq') & 4095::bigint)
        ELSE "insta5".next_id_jump()
    END
$shardid$;
-- +goose StatementEnd

COMMENT ON FUNCTION "insta5".next_id() IS '{"tool":"shardid","shard":5,"mode":"unique","layout":"snowflake","epoch_ms":1735689600000,"unit_ms":1,"time_bits":41,"shard_bits":10,"seq_bits":12}';

-- Decode helpers for this layout, usable in queries and indexes.
CREATE OR REPLACE FUNCTION "insta5".id_timestamp(id bigint) RETURNS timestamptz
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
AS $shardid$
    SELECT pg_catalog.to_timestamp(((id >> 22) * 1 + 1735689600000)::double precision / 1000)
$shardid$;

CREATE OR REPLACE FUNCTION "insta5".id_shard(id bigint) RETURNS int
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
AS $shardid$
    SELECT ((id >> 12) & 1023)::int
$shardid$;

CREATE OR REPLACE FUNCTION "insta5".id_seq(id bigint) RETURNS int
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
AS $shardid$
    SELECT (id & 4095)::int
$shardid$;

-- The smallest ID of any shard at instant ts (shard 0, sequence 0 of ts's
-- tick), for time-range scans: WHERE id >= min_id(now() - interval '1 day').
-- Instants before the epoch give 0; instants past the layout's end give the
-- smallest ID of its last tick.
CREATE OR REPLACE FUNCTION "insta5".min_id(ts timestamptz) RETURNS bigint
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
AS $shardid$
    SELECT least(greatest(pg_catalog.floor(
        (pg_catalog.date_part('epoch', ts - timestamptz '1970-01-01 00:00:00+00') * 1000 - 1735689600000) / 1
    ), 0), 2199023255551)::bigint << 22
$shardid$;

-- +goose Down
DROP FUNCTION IF EXISTS "insta5".min_id(timestamptz);
DROP FUNCTION IF EXISTS "insta5".id_seq(bigint);
DROP FUNCTION IF EXISTS "insta5".id_shard(bigint);
DROP FUNCTION IF EXISTS "insta5".id_timestamp(bigint);
DROP FUNCTION IF EXISTS "insta5".next_id();
DROP FUNCTION IF EXISTS "insta5".next_id_jump();
DROP SEQUENCE IF EXISTS "insta5".next_id_jumps_done;
DROP SEQUENCE IF EXISTS "insta5".next_id_jumps_begun;
DROP SEQUENCE IF EXISTS "insta5".next_id_seq;
DROP DOMAIN IF EXISTS "insta5".next_id_ticks;


