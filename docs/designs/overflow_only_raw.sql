-- A candidate body for issue 34, measured by:
--   shardid bench pg --instructions --only bigserial,floor,next_id --extra overflow_only_raw=docs/designs/overflow_only_raw.sql
-- Not shipped: a measurement input (docs/benchmarks.md § The write path's floor).
-- Shard 1 of layout instagram (epoch 2025-01-01); the first draw of each backend takes the slow path.
CREATE SCHEMA d6;
CREATE SEQUENCE d6.c AS bigint MINVALUE 0 CACHE 1;
CREATE SEQUENCE d6.next_id_jumps_begun AS bigint INCREMENT BY 1048576 MINVALUE 0 START 0 CACHE 1;
CREATE SEQUENCE d6.next_id_jumps_done AS bigint INCREMENT BY 1048576 MINVALUE 0 START 0 CACHE 1;
SELECT pg_catalog.nextval('d6.next_id_jumps_begun'), pg_catalog.nextval('d6.next_id_jumps_done');
-- The slow path is a stand-in for the jump (no lock, no lead, no wait): it moves the counter to 8 ticks past
-- the clock (or past its last value's tick) and marks the jump in the jump counters, so that the benchmark counts it. Only the prepared, simple
-- and per-row columns measure the candidate (0 jumps there); its jump column measures this stand-in.
CREATE FUNCTION d6.slow() RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    j bigint := pg_catalog.pg_sequence_last_value('d6.next_id_jumps_done') OPERATOR(pg_catalog.+) 1;
    ticks bigint := pg_catalog.floor((pg_catalog.date_part('epoch', pg_catalog.clock_timestamp()) OPERATOR(pg_catalog.*) 1000::double precision) OPERATOR(pg_catalog.-) 1735689600000::double precision)::bigint;
BEGIN
    PERFORM pg_catalog.setval('d6.next_id_jumps_begun', j);
    PERFORM pg_catalog.setval('d6.c', greatest(((ticks OPERATOR(pg_catalog.+) 8) OPERATOR(pg_catalog.<<) 23) OPERATOR(pg_catalog.|) 1024, (((pg_catalog.pg_sequence_last_value('d6.c') OPERATOR(pg_catalog.>>) 23) OPERATOR(pg_catalog.+) 1) OPERATOR(pg_catalog.<<) 23) OPERATOR(pg_catalog.|) 1024), false);
    PERFORM pg_catalog.setval('d6.next_id_jumps_done', j);
    RETURN pg_catalog.nextval('d6.c');
END$$;
-- The issue's lower bound: the ID-holding counter with only its overflow check, as a raw DEFAULT expression
-- (no function call). NOT strict and not time-correct (no clock, no jump counters): the cost of the draw alone.
-- default: CASE WHEN ((pg_catalog.nextval('d6.c') OPERATOR(pg_catalog.>>) 10) OPERATOR(pg_catalog.&) 8191::bigint) OPERATOR(pg_catalog.=) 1 THEN pg_catalog.currval('d6.c') ELSE d6.slow() END
