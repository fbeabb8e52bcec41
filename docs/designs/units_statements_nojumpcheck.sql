-- A candidate body for issue 34, measured by:
--   shardid bench pg --instructions --only bigserial,floor,next_id --extra units_statements_nojumpcheck=docs/designs/units_statements_nojumpcheck.sql
-- Not shipped: a measurement input (docs/benchmarks.md § The write path's floor).
-- Shard 1 of layout instagram (epoch 2025-01-01); the first draw of each backend takes the slow path.
CREATE SCHEMA d5;
CREATE SEQUENCE d5.c AS bigint MINVALUE 0 CACHE 1;
CREATE SEQUENCE d5.next_id_jumps_begun AS bigint INCREMENT BY 1048576 MINVALUE 0 START 0 CACHE 1;
CREATE SEQUENCE d5.next_id_jumps_done AS bigint INCREMENT BY 1048576 MINVALUE 0 START 0 CACHE 1;
SELECT pg_catalog.nextval('d5.next_id_jumps_begun'), pg_catalog.nextval('d5.next_id_jumps_done');
-- The slow path is a stand-in for the jump (no lock, no lead, no wait): it moves the counter to 8 ticks past
-- the clock (or past its last value's tick) and marks the jump in the jump counters, so that the benchmark counts it. Only the prepared, simple
-- and per-row columns measure the candidate (0 jumps there); its jump column measures this stand-in.
CREATE FUNCTION d5.slow() RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    j bigint := pg_catalog.pg_sequence_last_value('d5.next_id_jumps_done') OPERATOR(pg_catalog.+) 1;
    ticks bigint := pg_catalog.floor((pg_catalog.date_part('epoch', pg_catalog.clock_timestamp()) OPERATOR(pg_catalog.*) 1000::double precision) OPERATOR(pg_catalog.-) 1735689600000::double precision)::bigint;
BEGIN
    PERFORM pg_catalog.setval('d5.next_id_jumps_begun', j);
    PERFORM pg_catalog.setval('d5.c', greatest((ticks OPERATOR(pg_catalog.+) 8) OPERATOR(pg_catalog.<<) 10, pg_catalog.pg_sequence_last_value('d5.c') OPERATOR(pg_catalog.+) 1), false);
    PERFORM pg_catalog.setval('d5.next_id_jumps_done', j);
    RETURN (pg_catalog.nextval('d5.c') OPERATOR(pg_catalog.+) ((pg_catalog.currval('d5.c') OPERATOR(pg_catalog.>>) 10) OPERATOR(pg_catalog.*) 8387584::bigint)) OPERATOR(pg_catalog.+) 1024::bigint;
END$$;
-- As units_statements without the jump counters: NOT strict; measured for what that check costs.
CREATE FUNCTION d5.next_id() RETURNS bigint LANGUAGE plpgsql VOLATILE AS $$
DECLARE u bigint;
BEGIN
  u := pg_catalog.nextval('d5.c');
  IF pg_catalog.width_bucket((u::double precision OPERATOR(pg_catalog.*) 9.765625e-07::double precision) OPERATOR(pg_catalog.-) pg_catalog.date_part('epoch', pg_catalog.clock_timestamp()), -1735689600.000999::double precision, -1735689599.990999::double precision, 1) OPERATOR(pg_catalog.=) 1 THEN
    RETURN (u OPERATOR(pg_catalog.+) ((u OPERATOR(pg_catalog.>>) 10) OPERATOR(pg_catalog.*) 8387584::bigint)) OPERATOR(pg_catalog.+) 1024::bigint;
  END IF;
  RETURN d5.slow();
END$$;
-- default: d5.next_id()
