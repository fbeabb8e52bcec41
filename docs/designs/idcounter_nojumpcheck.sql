-- A candidate body for issue 34, measured by:
--   shardid bench pg --instructions --only bigserial,floor,next_id --extra idcounter_nojumpcheck=docs/designs/idcounter_nojumpcheck.sql
-- Not shipped: a measurement input (docs/benchmarks.md § The write path's floor).
-- Shard 1 of layout instagram (epoch 2025-01-01); the first draw of each backend takes the slow path.
CREATE SCHEMA d3;
CREATE SEQUENCE d3.c AS bigint MINVALUE 0 CACHE 1;
CREATE SEQUENCE d3.next_id_jumps_begun AS bigint INCREMENT BY 1048576 MINVALUE 0 START 0 CACHE 1;
CREATE SEQUENCE d3.next_id_jumps_done AS bigint INCREMENT BY 1048576 MINVALUE 0 START 0 CACHE 1;
SELECT pg_catalog.nextval('d3.next_id_jumps_begun'), pg_catalog.nextval('d3.next_id_jumps_done');
-- The slow path is a stand-in for the jump (no lock, no lead, no wait): it moves the counter to 8 ticks past
-- the clock (or past its last value's tick) and marks the jump in the jump counters, so that the benchmark counts it. Only the prepared, simple
-- and per-row columns measure the candidate (0 jumps there); its jump column measures this stand-in.
CREATE FUNCTION d3.slow() RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    j bigint := pg_catalog.pg_sequence_last_value('d3.next_id_jumps_done') OPERATOR(pg_catalog.+) 1;
    ticks bigint := pg_catalog.floor((pg_catalog.date_part('epoch', pg_catalog.clock_timestamp()) OPERATOR(pg_catalog.*) 1000::double precision) OPERATOR(pg_catalog.-) 1735689600000::double precision)::bigint;
BEGIN
    PERFORM pg_catalog.setval('d3.next_id_jumps_begun', j);
    PERFORM pg_catalog.setval('d3.c', greatest(((ticks OPERATOR(pg_catalog.+) 8) OPERATOR(pg_catalog.<<) 23) OPERATOR(pg_catalog.|) 1024, (((pg_catalog.pg_sequence_last_value('d3.c') OPERATOR(pg_catalog.>>) 23) OPERATOR(pg_catalog.+) 1) OPERATOR(pg_catalog.<<) 23) OPERATOR(pg_catalog.|) 1024), false);
    PERFORM pg_catalog.setval('d3.next_id_jumps_done', j);
    RETURN pg_catalog.nextval('d3.c');
END$$;
-- As idcounter_plpgsql without reading the jump counters: NOT strict (a value drawn during a jump can be
-- handed out again once the jump sets the counter); measured for what that check costs.
CREATE FUNCTION d3.next_id() RETURNS bigint LANGUAGE plpgsql VOLATILE AS $$BEGIN RETURN CASE WHEN (((pg_catalog.nextval('d3.c') OPERATOR(pg_catalog.>>) 10) OPERATOR(pg_catalog.&) 8191::bigint) OPERATOR(pg_catalog.*) 4::bigint) OPERATOR(pg_catalog.+) (pg_catalog.width_bucket(((pg_catalog.currval('d3.c') OPERATOR(pg_catalog.>>) 23)::double precision OPERATOR(pg_catalog.*) 0.001::double precision) OPERATOR(pg_catalog.-) pg_catalog.date_part('epoch', pg_catalog.clock_timestamp()), -1735689600.000999::double precision, (CASE WHEN pg_catalog.pg_current_xact_id_if_assigned() IS NULL THEN -1735689599.990999::double precision ELSE -1735689595.000999::double precision END), 1)::bigint OPERATOR(pg_catalog.*) 1099512152064::bigint) OPERATOR(pg_catalog.=) 1099512152068::bigint THEN pg_catalog.currval('d3.c') ELSE d3.slow() END; END$$;
-- default: d3.next_id()
