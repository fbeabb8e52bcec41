-- shardid: ID generator for logical shard 5 in schema "insta5"
-- layout: snowflake (time 41 bits of 1ms since 2025-01-01T00:00:00Z, shard 10 bits, sequence 12 bits)
-- mode:   unique
--
-- What an application role needs, and nothing more (shardid pg grant
-- --role ROLE runs exactly this, takes back anything beyond it, and checks):
--   REVOKE ALL ON SEQUENCE "insta5".next_id_seq FROM <role>;
--   REVOKE ALL ON SEQUENCE "insta5".next_id_jumps_begun, "insta5".next_id_jumps_done FROM <role>;
--   REVOKE ALL ON TABLE "insta5".next_id_jump_lock FROM <role>;
--   GRANT USAGE ON SCHEMA "insta5" TO <role>;
--   GRANT USAGE, SELECT ON SEQUENCE "insta5".next_id_seq TO <role>;
--   GRANT SELECT ON SEQUENCE "insta5".next_id_jumps_begun, "insta5".next_id_jumps_done TO <role>;
--   GRANT EXECUTE ON FUNCTION "insta5".next_id(), "insta5".next_id_bulk(), "insta5".next_ids(integer),
--       "insta5".next_id_jump_5(), "insta5".next_id_reserve_5(bigint) TO <role>;
--   GRANT EXECUTE ON FUNCTION "insta5".id_timestamp(bigint), "insta5".id_shard(bigint),
--       "insta5".id_seq(bigint), "insta5".min_id(pg_catalog.timestamptz) TO <role>;
--
-- +goose Up
-- The whole Up is one statement for goose, sent in one round trip (inside
-- goose's transaction): a fleet of 8,192 shards pays per statement.
-- +goose StatementBegin

-- The guard: what else this database holds, checked before anything is
-- created. Each refusal names what is in the way and raises its own
-- SQLSTATE (pgfunc.Migrator.Up returns each as one of its Err values):
--   SHR07: the layout has ended: every draw would raise;
--   SHR04: the database is a template: CREATE DATABASE copies everything
--          in it, and every copy of a generator hands out the same IDs;
--   SHR03: another schema holds shard 5: two schemas with one shard id
--          hand out the same IDs;
--   SHR06: a counter looks like a generator's (the jump lock's table or
--          the next_id_ticks domain beside it, or kept by a down) but its metadata
--          cannot be read: it could hold any shard id, of any kind;
--   SHR02: a counter a down kept, of this schema or of shard 5, belongs
--          to a generator of other options: one made with these could hand
--          out its IDs again (a later epoch starts below them);
--   SHR05: another schema holds a generator of another layout, epoch or
--          mode, or a down kept one's counter: such generators can hand out
--          the same IDs (shardid.Overlap says when), so a database holds one
--          kind unless shardid pg up --allow-mixed has shown they cannot.
-- Then the schema and the counter; the carry-on, at the end of the Up,
-- carries on from the highest counter a down kept of this schema or of
-- shard 5 under any other name. Other databases of the server only
-- shardid pg up can read.
DO $shardid$
DECLARE
    -- The schema, or 0 before it exists: nothing is created before the
    -- checks have passed.
    own pg_catalog.oid := COALESCE(pg_catalog.to_regnamespace('insta5')::pg_catalog.oid, 0::pg_catalog.oid);
    mine pg_catalog.jsonb := '{"tool":"shardid","shard":5,"mode":"unique","layout":"snowflake","epoch_ms":1735689600000,"unit_ms":1,"time_bits":41,"shard_bits":10,"seq_bits":12,"lead_ms":5000}'::pg_catalog.jsonb OPERATOR(pg_catalog.-) '{layout,lead_ms}'::pg_catalog.text[];
    kept record;
    other pg_catalog.text;
    holder pg_catalog.text;
    holder_meta pg_catalog.text;
    held_by pg_catalog.text;
    unreadable pg_catalog.text;
    kind pg_catalog.jsonb := '{"tool":"shardid","shard":5,"mode":"unique","layout":"snowflake","epoch_ms":1735689600000,"unit_ms":1,"time_bits":41,"shard_bits":10,"seq_bits":12,"lead_ms":5000}'::pg_catalog.jsonb OPERATOR(pg_catalog.-) '{layout,lead_ms,shard}'::pg_catalog.text[];
    is_template boolean;
    gen record;
    theirs pg_catalog.jsonb;
    same_kind boolean := false;
    meet bigint;
    a_low int; a_first bigint; a_ticks bigint; b_low int; b_ticks bigint;
    lo bigint; hi bigint; fixed bigint; val bigint; diff bigint; pb bigint; qb bigint;
BEGIN
    IF pg_catalog.clock_timestamp() OPERATOR(pg_catalog.>=) '2094-09-07T15:47:35Z'::pg_catalog.timestamptz THEN
        RAISE EXCEPTION 'shardid: shard 5''s layout ended at 2094-09-07T15:47:35Z: every draw would raise "time field exhausted"; render it with a later epoch'
            USING ERRCODE = 'SHR07'; -- pgfunc.Up reads it as ErrLayoutEnds
    END IF;
    -- Whether the database is a template, and a live generator of shard 5
    -- elsewhere that names its jump function after it, as mode unique's
    -- do (one lookup in pg_proc's name index; the pass over the
    -- generators below finds every other). Objects in temporary schemas
    -- do not count: any role with TEMP makes those.
    SELECT (SELECT d.datistemplate FROM pg_catalog.pg_database d WHERE d.datname OPERATOR(pg_catalog.=) pg_catalog.current_database()),
           (SELECT p.pronamespace::pg_catalog.regnamespace::pg_catalog.text
            FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) p.pronamespace
            WHERE p.proname OPERATOR(pg_catalog.=) 'next_id_jump_5' AND p.pronamespace OPERATOR(pg_catalog.<>) own
              AND n.nspname OPERATOR(pg_catalog.!~) '^pg_(toast_)?temp_' LIMIT 1)
      INTO is_template, holder;
    IF is_template THEN
        RAISE EXCEPTION 'shardid: database % is a template: every database created from it would copy shard 5''s generator, and the copies hand out the same IDs; apply shards to the databases the application uses',
                pg_catalog.current_database()
            USING ERRCODE = 'SHR04'; -- pgfunc.Up reads it as ErrTemplateDatabase
    END IF;
    IF holder IS NOT NULL THEN
        RAISE EXCEPTION 'shardid: shard 5 is already held by schema % of this database: two schemas with one shard id hand out the same IDs',
                holder
            USING ERRCODE = 'SHR03'; -- pgfunc.Up reads it as ErrShardConflict
    END IF;
    -- Every other generator of the database, live or a counter a down
    -- kept (one pass over pg_class's name index, and each one's
    -- next_id_meta() or comment: a database made with pg up --allow-mixed
    -- holds several kinds, so no one of them stands for the rest). A live
    -- one of shard 5 holds it (whatever its mode, its metadata read
    -- from a copy that lost its comments too). One of another kind is in
    -- the way when the IDs this one can hand out from now on and the IDs
    -- it can hand out over its whole life meet (shardid.Overlap's rule,
    -- below), and, in a database that holds none of this kind, whatever
    -- they are: only pg up --allow-mixed adds a kind, once it has shown
    -- that no two meet.
    a_low := (kind OPERATOR(pg_catalog.->>) 'shard_bits')::int OPERATOR(pg_catalog.+) ((kind OPERATOR(pg_catalog.->>) 'seq_bits')::int OPERATOR(pg_catalog.+) COALESCE((kind OPERATOR(pg_catalog.->>) 'route_bits')::int, 0));
    a_ticks := CASE WHEN least((kind OPERATOR(pg_catalog.->>) 'time_bits')::int, 63 OPERATOR(pg_catalog.-) (kind OPERATOR(pg_catalog.->>) 'shard_bits')::int OPERATOR(pg_catalog.-) ((kind OPERATOR(pg_catalog.->>) 'seq_bits')::int OPERATOR(pg_catalog.+) COALESCE((kind OPERATOR(pg_catalog.->>) 'route_bits')::int, 0))) OPERATOR(pg_catalog.>=) 63
     THEN 9223372036854775807
     ELSE (1::bigint OPERATOR(pg_catalog.<<) least((kind OPERATOR(pg_catalog.->>) 'time_bits')::int, 63 OPERATOR(pg_catalog.-) (kind OPERATOR(pg_catalog.->>) 'shard_bits')::int OPERATOR(pg_catalog.-) ((kind OPERATOR(pg_catalog.->>) 'seq_bits')::int OPERATOR(pg_catalog.+) COALESCE((kind OPERATOR(pg_catalog.->>) 'route_bits')::int, 0)))) OPERATOR(pg_catalog.-) 1 END;
    a_first := greatest(0, pg_catalog.floor((pg_catalog.date_part('epoch', pg_catalog.clock_timestamp()) OPERATOR(pg_catalog.*) 1000::double precision
                   OPERATOR(pg_catalog.-) (kind OPERATOR(pg_catalog.->>) 'epoch_ms')::double precision) OPERATOR(pg_catalog./) (kind OPERATOR(pg_catalog.->>) 'unit_ms')::double precision)::bigint);
    holder := NULL;
    FOR gen IN
        SELECT n.nspname::pg_catalog.text OPERATOR(pg_catalog.||) CASE WHEN c.relname OPERATOR(pg_catalog.=) 'next_id_retired_seq' THEN ' (a counter kept by pg down)' ELSE '' END AS schema,
               c.relname OPERATOR(pg_catalog.=) 'next_id_retired_seq' AS retired,
               COALESCE(pg_catalog.replace(pg_catalog.substring((SELECT p.prosrc FROM pg_catalog.pg_proc p
 WHERE p.proname OPERATOR(pg_catalog.=) 'next_id_meta' AND p.proargtypes OPERATOR(pg_catalog.=) ''::pg_catalog.oidvector
   AND p.pronamespace OPERATOR(pg_catalog.=) c.relnamespace), '^SELECT ''(.*)''::pg_catalog\.jsonb$'), '''''', ''''),
         pg_catalog.obj_description(c.oid, 'pg_class')) AS meta,
               (EXISTS (SELECT FROM pg_catalog.pg_class l
         WHERE l.relnamespace OPERATOR(pg_catalog.=) n.oid AND l.relname OPERATOR(pg_catalog.=) 'next_id_jump_lock')
 OR EXISTS (SELECT FROM pg_catalog.pg_type y
            WHERE y.typnamespace OPERATOR(pg_catalog.=) n.oid AND y.typname OPERATOR(pg_catalog.=) 'next_id_ticks')) AS looks
        FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) c.relnamespace
        WHERE c.relname OPERATOR(pg_catalog.=) ANY ('{next_id_seq,next_id_retired_seq}'::pg_catalog.name[]) AND c.relkind OPERATOR(pg_catalog.=) 'S'
          AND c.relnamespace OPERATOR(pg_catalog.<>) own AND n.nspname OPERATOR(pg_catalog.!~) '^pg_(toast_)?temp_'
        ORDER BY n.nspname, c.relname
    LOOP
        IF gen.meta IS NULL OR NOT pg_catalog.starts_with(gen.meta, '{"tool":"shardid",') THEN
            IF gen.looks OR gen.retired THEN
                unreadable := COALESCE(unreadable, gen.schema);
            END IF;
            CONTINUE; -- a plain sequence of that name is not a generator
        END IF;
        other := gen.meta;
        theirs := other::pg_catalog.jsonb;
        IF NOT gen.retired AND (theirs OPERATOR(pg_catalog.->>) 'shard') OPERATOR(pg_catalog.=) '5' THEN
            held_by := COALESCE(held_by, gen.schema);
        END IF;
        IF (theirs OPERATOR(pg_catalog.-) '{layout,lead_ms,shard}'::pg_catalog.text[]) OPERATOR(pg_catalog.=) kind THEN
            same_kind := true;
            CONTINUE;
        END IF;
        IF holder_meta IS NULL THEN
            holder := gen.schema;
            holder_meta := other;
        END IF;
        CONTINUE WHEN meet IS NOT NULL; -- one that meets was found: the rest only for held_by
        -- The smallest ID both can make, if any: IDs from lo to hi (the
        -- later first tick, the earlier last) whose shard fields hold
        -- both shard ids (fixed, val).
        b_low := (theirs OPERATOR(pg_catalog.->>) 'shard_bits')::int OPERATOR(pg_catalog.+) ((theirs OPERATOR(pg_catalog.->>) 'seq_bits')::int OPERATOR(pg_catalog.+) COALESCE((theirs OPERATOR(pg_catalog.->>) 'route_bits')::int, 0));
        b_ticks := CASE WHEN least((theirs OPERATOR(pg_catalog.->>) 'time_bits')::int, 63 OPERATOR(pg_catalog.-) (theirs OPERATOR(pg_catalog.->>) 'shard_bits')::int OPERATOR(pg_catalog.-) ((theirs OPERATOR(pg_catalog.->>) 'seq_bits')::int OPERATOR(pg_catalog.+) COALESCE((theirs OPERATOR(pg_catalog.->>) 'route_bits')::int, 0))) OPERATOR(pg_catalog.>=) 63
     THEN 9223372036854775807
     ELSE (1::bigint OPERATOR(pg_catalog.<<) least((theirs OPERATOR(pg_catalog.->>) 'time_bits')::int, 63 OPERATOR(pg_catalog.-) (theirs OPERATOR(pg_catalog.->>) 'shard_bits')::int OPERATOR(pg_catalog.-) ((theirs OPERATOR(pg_catalog.->>) 'seq_bits')::int OPERATOR(pg_catalog.+) COALESCE((theirs OPERATOR(pg_catalog.->>) 'route_bits')::int, 0)))) OPERATOR(pg_catalog.-) 1 END;
        CONTINUE WHEN a_first OPERATOR(pg_catalog.>) a_ticks;
        lo := a_first OPERATOR(pg_catalog.<<) a_low;
        hi := least((a_ticks OPERATOR(pg_catalog.<<) a_low) OPERATOR(pg_catalog.|) ((OPERATOR(pg_catalog.~)0::bigint) OPERATOR(pg_catalog.#) ((-1)::bigint OPERATOR(pg_catalog.<<) a_low)),
                    (b_ticks OPERATOR(pg_catalog.<<) b_low) OPERATOR(pg_catalog.|) ((OPERATOR(pg_catalog.~)0::bigint) OPERATOR(pg_catalog.#) ((-1)::bigint OPERATOR(pg_catalog.<<) b_low)));
        fixed := (OPERATOR(pg_catalog.~)((-1)::bigint OPERATOR(pg_catalog.<<) 10)) OPERATOR(pg_catalog.<<) ((kind OPERATOR(pg_catalog.->>) 'seq_bits')::int OPERATOR(pg_catalog.+) COALESCE((kind OPERATOR(pg_catalog.->>) 'route_bits')::int, 0));
        val := 5::bigint OPERATOR(pg_catalog.<<) ((kind OPERATOR(pg_catalog.->>) 'seq_bits')::int OPERATOR(pg_catalog.+) COALESCE((kind OPERATOR(pg_catalog.->>) 'route_bits')::int, 0));
        diff := (OPERATOR(pg_catalog.~)((-1)::bigint OPERATOR(pg_catalog.<<) (theirs OPERATOR(pg_catalog.->>) 'shard_bits')::int)) OPERATOR(pg_catalog.<<) ((theirs OPERATOR(pg_catalog.->>) 'seq_bits')::int OPERATOR(pg_catalog.+) COALESCE((theirs OPERATOR(pg_catalog.->>) 'route_bits')::int, 0));
        pb := (theirs OPERATOR(pg_catalog.->>) 'shard')::bigint OPERATOR(pg_catalog.<<) ((theirs OPERATOR(pg_catalog.->>) 'seq_bits')::int OPERATOR(pg_catalog.+) COALESCE((theirs OPERATOR(pg_catalog.->>) 'route_bits')::int, 0));
        CONTINUE WHEN lo OPERATOR(pg_catalog.>) hi OR (fixed OPERATOR(pg_catalog.&) diff OPERATOR(pg_catalog.&) (val OPERATOR(pg_catalog.#) pb)) OPERATOR(pg_catalog.<>) 0;
        fixed := fixed OPERATOR(pg_catalog.|) diff;
        val := val OPERATOR(pg_catalog.|) pb;
        -- The smallest x >= lo with x & fixed = val: where lo first
        -- differs from val in a fixed bit (the highest such bit, pb),
        -- either that bit goes up to 1 and the fixed bits below take
        -- val's, or, lo having a 1 there, the lowest free 0 bit of lo
        -- above it (qb) goes up to 1 and everything below takes val's
        -- fixed bits.
        meet := lo;
        diff := (lo OPERATOR(pg_catalog.#) val) OPERATOR(pg_catalog.&) fixed;
        IF diff OPERATOR(pg_catalog.<>) 0 THEN
            pb := 1::bigint OPERATOR(pg_catalog.<<) (64 OPERATOR(pg_catalog.-) pg_catalog.strpos(diff::bit(64)::pg_catalog.text, '1'));
            IF (val OPERATOR(pg_catalog.&) pb) OPERATOR(pg_catalog.<>) 0 THEN
                meet := (lo OPERATOR(pg_catalog.&) OPERATOR(pg_catalog.~)((pb OPERATOR(pg_catalog.-) 1) OPERATOR(pg_catalog.|) pb)) OPERATOR(pg_catalog.|) (val OPERATOR(pg_catalog.&) ((pb OPERATOR(pg_catalog.-) 1) OPERATOR(pg_catalog.|) pb));
            ELSE
                qb := OPERATOR(pg_catalog.~)lo OPERATOR(pg_catalog.&) OPERATOR(pg_catalog.~)fixed OPERATOR(pg_catalog.&) 9223372036854775807 OPERATOR(pg_catalog.&) OPERATOR(pg_catalog.~)((pb OPERATOR(pg_catalog.-) 1) OPERATOR(pg_catalog.|) pb);
                IF qb OPERATOR(pg_catalog.=) 0 THEN
                    meet := NULL;
                ELSE
                    qb := qb OPERATOR(pg_catalog.&) (OPERATOR(pg_catalog.-) qb);
                    meet := (lo OPERATOR(pg_catalog.&) OPERATOR(pg_catalog.~)((qb OPERATOR(pg_catalog.-) 1) OPERATOR(pg_catalog.|) qb)) OPERATOR(pg_catalog.|) qb OPERATOR(pg_catalog.|) (val OPERATOR(pg_catalog.&) (qb OPERATOR(pg_catalog.-) 1));
                END IF;
            END IF;
        END IF;
        IF meet OPERATOR(pg_catalog.<=) hi THEN
            holder := gen.schema;
            holder_meta := other;
        ELSE
            meet := NULL;
        END IF;
    END LOOP;
    IF held_by IS NOT NULL THEN
        RAISE EXCEPTION 'shardid: shard 5 is already held by schema % of this database: two schemas with one shard id hand out the same IDs',
                held_by
            USING ERRCODE = 'SHR03'; -- pgfunc.Up reads it as ErrShardConflict
    END IF;
    IF unreadable IS NOT NULL THEN
        RAISE EXCEPTION 'shardid: schema % holds a counter beside a generator''s objects whose metadata cannot be read (no next_id_meta(), no metadata comment): it could hold shard 5, or be of another kind; record its metadata (shardid pg status shows it) before applying another shard here',
                unreadable
            USING ERRCODE = 'SHR06'; -- pgfunc.Up reads it as ErrUnreadableGenerator
    END IF;
    IF meet IS NULL AND same_kind THEN
        holder := NULL; -- the database holds this kind already, and none of another meets it
    END IF;
    -- Every counter a down kept (there are few): this schema's own,
    -- whatever shard id it held, and any other schema's of shard 5
    -- are carried on from (the carry-on), so their generators must be
    -- this one's.
    FOR kept IN
        SELECT c.relnamespace OPERATOR(pg_catalog.=) own AS ours, c.relnamespace::pg_catalog.regnamespace::pg_catalog.text AS schema,
               COALESCE(pg_catalog.replace(pg_catalog.substring((SELECT p.prosrc FROM pg_catalog.pg_proc p
 WHERE p.proname OPERATOR(pg_catalog.=) 'next_id_meta' AND p.proargtypes OPERATOR(pg_catalog.=) ''::pg_catalog.oidvector
   AND p.pronamespace OPERATOR(pg_catalog.=) c.relnamespace), '^SELECT ''(.*)''::pg_catalog\.jsonb$'), '''''', ''''),
         pg_catalog.obj_description(c.oid, 'pg_class')) AS meta
        FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) c.relnamespace
        WHERE c.relname OPERATOR(pg_catalog.=) 'next_id_retired_seq' AND c.relkind OPERATOR(pg_catalog.=) 'S'
          AND n.nspname OPERATOR(pg_catalog.!~) '^pg_(toast_)?temp_'
        ORDER BY c.relnamespace
    LOOP
        other := kept.meta;
        IF NOT kept.ours AND NOT COALESCE(pg_catalog.starts_with(other, '{"tool":"shardid","shard":5,'), false) THEN
            CONTINUE;
        END IF;
        IF other IS NULL OR NOT pg_catalog.starts_with(other, '{"tool":"shardid",')
           OR (other::pg_catalog.jsonb OPERATOR(pg_catalog.-) '{layout,lead_ms}'::pg_catalog.text[]) OPERATOR(pg_catalog.<>) mine THEN
            IF kept.ours THEN
                RAISE EXCEPTION 'shardid: schema % held another generator until pg down (%); one made with other options could hand out its IDs again: up with the options it had, or drop the schema once none of its IDs is in use anywhere',
                        'insta5', other
                    USING ERRCODE = 'SHR02'; -- pgfunc.Up reads it as ErrGeneratorMismatch
            END IF;
            RAISE EXCEPTION 'shardid: schema % held shard 5 until pg down, made with other options (%); one made with these could hand out its IDs again: up with the options it had, or drop that schema''s next_id_retired_seq once none of its IDs is in use anywhere',
                    kept.schema, other
                USING ERRCODE = 'SHR02';
        END IF;
    END LOOP;
    IF meet IS NOT NULL THEN
        RAISE EXCEPTION 'shardid: schema % holds a generator made with other options (%), and shard 5''s generator could hand out ID %, which that one makes too: refused; give this shard another id, or render it with the options of that one',
                holder, holder_meta, meet
            USING ERRCODE = 'SHR05'; -- pgfunc.Up reads it as ErrMixedGenerators
    END IF;
    IF holder IS NOT NULL THEN
        RAISE EXCEPTION 'shardid: schema % holds a generator made with other options (%): generators of other layouts, epochs or modes in one database can hand out the same IDs; render this one with the options the database has (shardid pg status shows them), or apply it with shardid pg up --allow-mixed, which does so only when it can show that their IDs never meet',
                holder, holder_meta
            USING ERRCODE = 'SHR05'; -- pgfunc.Up reads it as ErrMixedGenerators
    END IF;
    -- Every check passed: the schema and the counter, which nothing
    -- after the guard creates (see above).
    CREATE SCHEMA IF NOT EXISTS "insta5";
    CREATE SEQUENCE IF NOT EXISTS "insta5".next_id_seq
        AS bigint MINVALUE 0 MAXVALUE 9007199255789567 START 0 CACHE 1 NO CYCLE;
END
$shardid$;

-- The counter behind next_id(), which the guard creates (nothing before
-- its checks pass; see checks.sql.tmpl). CACHE 1 is deliberate: with a per-session
-- cache each session hands out values it reserved earlier, so the counter
-- no longer follows the clock across sessions. In mode unique every call must
-- see the shared high-water mark (a cached block would hold values from the
-- past and drive every call into the slow path); in the classic modes
-- sessions drawing from separate cached blocks collide on nextval % 2^seqBits
-- within the same tick. MAXVALUE stops the counter where the layout's time
-- field ends, so it can never carry into the sign bit: in mode unique
-- up to 9007199255789567, room past the last ID's for draws racing at the end, which no
-- path hands out but which send the draws that reach them to the jump, to
-- raise "time field exhausted" rather than nextval's own error, also for
-- sessions that draw at once at the end.

-- The jump counters: how many jumps of the counter have begun and how many
-- have finished. Only the jump, holding the shard's jump lock, moves
-- them (with setval, and only forward); they differ exactly while a jump
-- is under way. They step by 2^20: a role that was given USAGE on them
-- (GRANT USAGE ON ALL SEQUENCES ..., the habit for serial columns) can
-- only add multiples of 2^20 with nextval, which never makes them equal
-- while a jump is under way; it can only send draws to the slow path.
-- UPDATE on them (setval) can fake them: never grant it.
CREATE SEQUENCE IF NOT EXISTS "insta5".next_id_jumps_begun
    AS bigint INCREMENT BY 1048576 MINVALUE 0 START 0 CACHE 1 NO CYCLE;
CREATE SEQUENCE IF NOT EXISTS "insta5".next_id_jumps_done
    AS bigint INCREMENT BY 1048576 MINVALUE 0 START 0 CACHE 1 NO CYCLE;
SELECT pg_catalog.nextval('"insta5".next_id_jumps_begun'), pg_catalog.nextval('"insta5".next_id_jumps_done');

-- The jump lock: the jump takes it in SHARE UPDATE EXCLUSIVE mode.
-- It holds no rows and nobody needs a privilege on it. A role without
-- rights on this schema cannot name it, and can lock it by OID only in
-- ACCESS SHARE mode (pg_relation_size and the like), which does not
-- conflict; a role with USAGE on the schema can hold ROW SHARE or ROW
-- EXCLUSIVE on it without any privilege (a PREPAREd SELECT ... FOR UPDATE
-- or INSERT in an open transaction), which does not conflict either.
-- Unlike an advisory lock, nothing anybody can take for free makes a
-- jump wait. (A role with USAGE on the schema can still queue a stronger
-- request behind an open transaction, as on any table: CREATE RULE asks
-- for ACCESS EXCLUSIVE before it checks ownership.)
CREATE TABLE IF NOT EXISTS "insta5".next_id_jump_lock ();

-- next_id_jump_5() (next_id_jump_<shard>, below "the jump"): the slow path of
-- next_id_bulk(), and so of next_id(), below; on its own it also returns a
-- valid, unique ID. The jump lock is taken inside a subtransaction that
-- is always rolled back (RAISE ... SQLSTATE 'SHR01'): sequences are not
-- transactional, so the jump stays, while the lock is released as soon as
-- the jump is over, and on cancel or error as well. Nothing is ever left
-- held for other sessions to wait on. A jump cut short leaves begun >
-- done; the next jump completes it.
--
-- A counter behind the clock jumps 8 ticks past the start of the clock's tick
-- (or just past its last value, when that is further): every draw until
-- the clock catches up takes the fast path, so at rates below 4096 IDs per
-- tick a jump happens about once per 9 ticks rather than once per tick. An
-- ID then decodes up to 8 ticks after the moment it was drawn.
--
-- When the counter did not jump and the value it returns lies 10 ticks
-- or more past the clock's (further than the 10ms that need no flush,
-- below), it writes a setval that
-- changes nothing (the lock is held): that gives the calling transaction a
-- transaction id and a WAL record of its own, so it commits like a
-- transaction that wrote a row, and its commit flushes the WAL, which
-- covers every value it drew before. (A nextval logs the counter 32
-- values ahead; a session that draws values covered by another session's
-- record writes no WAL and, without a transaction id, commits without
-- flushing anything. A jump's own setvals do the same.)
--
-- The lead: no ID's tick ends more than 5s after the clock reading of
-- the draw that hands it out. When the value drawn lies further ahead (a
-- burst outran the ticks for longer than the lead, raw nextval calls
-- pushed the counter, a clock stepped back), the jump lets go of the lock
-- and waits for the clock, in short sleeps, at most 1s; then it
-- returns the value, or raises SQLSTATE 'SHR10' if the clock is still
-- too far behind it. A value it raises for is never handed out: the
-- counter has moved past it, and no jump moves the counter back.
-- So every ID this shard ever handed out lies within the lead of the
-- clock that drew it: a server restored from a backup, or a replica
-- promoted, whose first draw reads a clock more than the lead past the
-- last draw of the old server (its clock reading) hands out none of the
-- old server's IDs, whatever WAL was lost (every value any path returns
-- has its tick end after the clock reading of its draw).
--
-- It runs with its owner's rights (setval and the lock need them), so
-- callers need no more than what shardid pg grant gives; a fixed
-- search_path keeps a caller's objects out of it.
CREATE OR REPLACE FUNCTION "insta5".next_id_jump_5() RETURNS bigint
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $shardid$
DECLARE
    begun bigint;
    done  bigint;
    units bigint;
    now_units bigint;
    now_ts pg_catalog.timestamptz;
    ahead pg_catalog.interval;
    deadline pg_catalog.timestamptz;
BEGIN
    BEGIN
        LOCK TABLE "insta5".next_id_jump_lock IN SHARE UPDATE EXCLUSIVE MODE;
        now_ts := pg_catalog.clock_timestamp();
        now_units := pg_catalog.floor((((pg_catalog.date_part('epoch', now_ts) OPERATOR(pg_catalog.*) 1000::double precision) OPERATOR(pg_catalog.-) 1735689600000::double precision) OPERATOR(pg_catalog./) 1::double precision))::bigint << 12;
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
                greatest(pg_catalog.pg_sequence_last_value('"insta5".next_id_seq') + 1, least(now_units + 32768, 9007199254740991)), false);
            units := pg_catalog.nextval('"insta5".next_id_seq');
            PERFORM pg_catalog.setval('"insta5".next_id_jumps_done', begun);
        ELSIF units >= now_units + 40960 THEN
            PERFORM pg_catalog.setval('"insta5".next_id_jumps_done', done);
        END IF;
        IF units > 9007199254740991 THEN
            RAISE EXCEPTION 'shardid: time field exhausted: the layout ends at 2094-09-07T15:47:35Z'
                USING ERRCODE = 'numeric_value_out_of_range';
        END IF;
        RAISE SQLSTATE 'SHR01';
    EXCEPTION WHEN SQLSTATE 'SHR01' THEN
        NULL;
    WHEN sequence_generator_limit_exceeded OR numeric_value_out_of_range THEN
        -- Values past the last ID's, once taken, are put back (no path
        -- hands them out): the next draws take them again and come here,
        -- rather than meeting nextval's own error. Sessions drawing at
        -- once in between take the next ones, in the counter's room.
        IF pg_catalog.pg_sequence_last_value('"insta5".next_id_seq') > 9007199254740991 THEN
            PERFORM pg_catalog.setval('"insta5".next_id_seq', 9007199254740991, true);
        END IF;
        RAISE EXCEPTION 'shardid: time field exhausted: the layout ends at 2094-09-07T15:47:35Z'
            USING ERRCODE = 'numeric_value_out_of_range';
    END;
    -- The lead, outside the lock: a jump lands within it, so only a
    -- value drawn without one, or a reservation's, can lie past it.
    ahead := pg_catalog.to_timestamp(((((units >> 12) * 1) + 1735689600001)::double precision / 1000::double precision)) - now_ts;
    IF ahead > '5000000 microseconds'::interval THEN
        deadline := pg_catalog.clock_timestamp() + '1000000 microseconds'::interval;
        LOOP
            PERFORM pg_catalog.pg_sleep(pg_catalog.date_part('epoch', least(ahead - '5000000 microseconds'::interval, '10 milliseconds'::interval)));
            now_ts := pg_catalog.clock_timestamp();
            ahead := pg_catalog.to_timestamp(((((units >> 12) * 1) + 1735689600001)::double precision / 1000::double precision)) - now_ts;
            EXIT WHEN ahead <= '5000000 microseconds'::interval;
            IF pg_catalog.clock_timestamp() >= deadline THEN
                RAISE EXCEPTION 'shardid: shard 5 (schema %) would hand out an ID % ahead of the clock, past its lead of 5s; waited 1s for the clock: draw again later',
                    'insta5', pg_catalog.justify_hours(ahead)
                USING ERRCODE = 'SHR10', -- shardid's own: pgfunc.LeadExceededState
                      HINT = COALESCE((
                          -- A resume that moved the counter past the lead, until the
                          -- clock is back within it: what it recorded on the jump
                          -- lock's table (pgfunc.Migrator.Resume), read only here.
                          SELECT 'shardid pg resume moved this counter at ' || (r.j ->> 'at') || ' past ' || (r.j ->> 'past')
                                 || ' (by a lead of ' || (r.j ->> 'lead') || ', more than this generator''s own): draws go on from '
                                 || (r.j ->> 'until') || ', when the clock is back within the lead'
                          FROM (SELECT CASE WHEN pg_catalog.starts_with(d.c, '{"shardid_resume":') THEN d.c::pg_catalog.jsonb END AS j
                                FROM (SELECT pg_catalog.obj_description('"insta5".next_id_jump_lock'::pg_catalog.regclass, 'pg_class') AS c) AS d) AS r
                          WHERE (r.j ->> 'until')::pg_catalog.timestamptz > now_ts),
                          'the counter ran further ahead of the clock than the lead: a burst faster than the layout''s ticks for longer than the lead, nextval called on the counter directly, or a clock stepped back');
            END IF;
        END LOOP;
    END IF;
    RETURN (units >> 12) << 22 | 20480::bigint | (units & 4095::bigint);
END
$shardid$;

-- next_id_reserve_5(n) (below "the reservation"): moves the counter past n
-- consecutive values at once and returns the first, for next_ids(). It is
-- a jump that moves the counter: the same lock, the same bookkeeping of
-- the jump counters (draws that race it fail their test and take the slow
-- path), the same lead, and its setvals make the calling transaction
-- durable. The values start at the clock's tick or past the counter's last
-- value, whichever is further; n is at most what the lead holds
-- (20480000 IDs: 5s of 4096 IDs per tick of 1ms). A reservation whose last
-- value would lie past the lead moves the counter no further than one
-- draw: it lets go of the lock, waits for the clock and tries again, and
-- raises SQLSTATE 'SHR10' once the wait is over. So calls that are refused
-- (many at once, back to back, or by a role set on pushing the counter)
-- leave the counter where it was, and the draws of others go on.
CREATE OR REPLACE FUNCTION "insta5".next_id_reserve_5(n bigint) RETURNS bigint
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $shardid$
DECLARE
    begun bigint;
    first bigint;
    units bigint;
    now_units bigint;
    now_ts pg_catalog.timestamptz;
    ahead pg_catalog.interval;
    deadline pg_catalog.timestamptz;
    reserved boolean;
BEGIN
    IF n IS NULL OR n < 1 OR n > 20480000 THEN
        RAISE EXCEPTION 'shardid: next_ids(%): want 1 to 20480000 IDs at once (what shard 5''s lead of 5s holds)', n
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    deadline := pg_catalog.clock_timestamp() + '1000000 microseconds'::interval;
    LOOP
        BEGIN
            LOCK TABLE "insta5".next_id_jump_lock IN SHARE UPDATE EXCLUSIVE MODE;
            now_ts := pg_catalog.clock_timestamp();
            now_units := pg_catalog.floor((((pg_catalog.date_part('epoch', now_ts) OPERATOR(pg_catalog.*) 1000::double precision) OPERATOR(pg_catalog.-) 1735689600000::double precision) OPERATOR(pg_catalog./) 1::double precision))::bigint << 12;
            begun := greatest(pg_catalog.pg_sequence_last_value('"insta5".next_id_jumps_begun'), pg_catalog.pg_sequence_last_value('"insta5".next_id_jumps_done')) + 1;
            PERFORM pg_catalog.setval('"insta5".next_id_jumps_begun', begun);
            -- A draw, not a read of the last value: the counter's last value
            -- reads NULL while a jump cut short left it set but not drawn from.
            first := greatest(pg_catalog.nextval('"insta5".next_id_seq'), now_units);
            IF first > 9007199254740991 - n + 1 THEN
                RAISE EXCEPTION 'shardid: time field exhausted: the layout ends at 2094-09-07T15:47:35Z'
                    USING ERRCODE = 'numeric_value_out_of_range';
            END IF;
            units := first + n - 1;
            ahead := pg_catalog.to_timestamp(((((units >> 12) * 1) + 1735689600001)::double precision / 1000::double precision)) - now_ts;
            reserved := ahead <= '5000000 microseconds'::interval;
            IF reserved THEN
                PERFORM pg_catalog.setval('"insta5".next_id_seq', units);
            END IF;
            PERFORM pg_catalog.setval('"insta5".next_id_jumps_done', begun);
            RAISE SQLSTATE 'SHR01';
        EXCEPTION WHEN SQLSTATE 'SHR01' THEN
            NULL;
    WHEN sequence_generator_limit_exceeded OR numeric_value_out_of_range THEN
        -- Values past the last ID's, once taken, are put back (no path
        -- hands them out): the next draws take them again and come here,
        -- rather than meeting nextval's own error. Sessions drawing at
        -- once in between take the next ones, in the counter's room.
        IF pg_catalog.pg_sequence_last_value('"insta5".next_id_seq') > 9007199254740991 THEN
            PERFORM pg_catalog.setval('"insta5".next_id_seq', 9007199254740991, true);
        END IF;
        RAISE EXCEPTION 'shardid: time field exhausted: the layout ends at 2094-09-07T15:47:35Z'
            USING ERRCODE = 'numeric_value_out_of_range';
        END;
        EXIT WHEN reserved;
        -- Past the lead: the counter stays (but for the one value drawn,
        -- which nobody is handed); wait for the clock, outside the lock.
        IF pg_catalog.clock_timestamp() >= deadline THEN
            RAISE EXCEPTION 'shardid: shard 5 (schema %) would hand out an ID % ahead of the clock, past its lead of 5s; waited 1s for the clock: draw again later',
                    'insta5', pg_catalog.justify_hours(ahead)
                USING ERRCODE = 'SHR10', -- shardid's own: pgfunc.LeadExceededState
                      HINT = COALESCE((
                          -- A resume that moved the counter past the lead, until the
                          -- clock is back within it: what it recorded on the jump
                          -- lock's table (pgfunc.Migrator.Resume), read only here.
                          SELECT 'shardid pg resume moved this counter at ' || (r.j ->> 'at') || ' past ' || (r.j ->> 'past')
                                 || ' (by a lead of ' || (r.j ->> 'lead') || ', more than this generator''s own): draws go on from '
                                 || (r.j ->> 'until') || ', when the clock is back within the lead'
                          FROM (SELECT CASE WHEN pg_catalog.starts_with(d.c, '{"shardid_resume":') THEN d.c::pg_catalog.jsonb END AS j
                                FROM (SELECT pg_catalog.obj_description('"insta5".next_id_jump_lock'::pg_catalog.regclass, 'pg_class') AS c) AS d) AS r
                          WHERE (r.j ->> 'until')::pg_catalog.timestamptz > now_ts),
                          'the counter ran further ahead of the clock than the lead: a burst faster than the layout''s ticks for longer than the lead, nextval called on the counter directly, or a clock stepped back');
        END IF;
        PERFORM pg_catalog.pg_sleep(pg_catalog.date_part('epoch', least(ahead - '5000000 microseconds'::interval, '10 milliseconds'::interval)));
    END LOOP;
    RETURN first;
END
$shardid$;

-- next_id_bulk(), mode unique: never returns the same ID twice for this
-- shard. The form for statements that draw many IDs (INSERT ... SELECT,
-- SELECT next_id_bulk() FROM ...): one inlinable SQL expression, so a
-- draw costs no function call; but every plan of a statement that names
-- it reads its stored body back, which costs a one-row INSERT planned
-- afresh (the simple query protocol) several times its execution. As a
-- DEFAULT, use next_id(), below.
--
-- The counter holds time and sequence together, in units of
-- (ticks << 12) | seq, and the ID is the counter value with the shard
-- id spliced in (units + (units >> 12) * 4190208 + 20480), so distinct
-- counter values give distinct IDs whatever the clock says. The clock only
-- decides when the counter must jump forward.
--
-- Fast path: read jumps_done, draw from the counter, read jumps_begun. If
-- begun (read after the draw) equals done (read before it), no jump was
-- under way at any moment in between, so no jump can ever move the counter
-- back over the value drawn. The test is one sum, evaluated left to right
-- as PostgreSQL evaluates operator arguments: -done + clock term + begun,
-- which is 0 exactly when begun = done and the clock term is 0. The clock
-- term is 0 or +-W, W = 2^40 + 2^19, and begun - done is always a
-- multiple of 2^20 plus 0, 1 or 2 (jumps add 1; a role with USAGE on the
-- jump counters can add multiples of 2^20, however many times it calls
-- nextval), so it is never +-W. currval() then re-reads the value this
-- session drew, so no variable is bound (a bound variable would stop the
-- planner from inlining the function).
--
-- The clock term places the end of the drawn value's tick against the
-- clock ((units | 4095) * 2.44140625e-07 + 1.7356896000000002e+09 is that end in Unix seconds;
-- timestamps, exact to the microsecond: a date_part() of the clock would
-- cost more than the rest of the term): -W if the tick has ended (behind:
-- the counter must jump), +W if it ends more than the bound after the
-- clock reading, else 0. The counter may take values past the last
-- ID's, up to 9007199255789567 (its MAXVALUE), so that the end of the layout reads as
-- one: the units are masked with 9007199254740991 (all ones) before they become a
-- time, which leaves every value up to the last ID's as it is and puts those
-- past it near the epoch, long behind the clock, so they
-- go to the jump (which says the time field is exhausted) at no cost to
-- other draws.
-- The bound depends on whether the transaction has
-- a transaction id, tested after the draw (a draw that logged the counter
-- gave its transaction one, with WAL of its own):
--   - with one, the lead (5s): a value ahead of the clock within the lead
--     (more than 4096 IDs in one tick, a jump landed ahead, a clock
--     stepped back) is returned, the ID borrows the following ticks and
--     the clock catches up; past the lead, the jump waits for the clock.
--     A transaction id comes with WAL of the transaction's own (a row
--     written, or the counter logged by its own nextval), so its commit
--     flushes the WAL that covers the value. This is the path of every
--     draw of a burst after its first;
--   - without one, 10ms (10 ticks): a value further ahead would sit in WAL
--     that nobody need flush, so the jump draws instead and gives the
--     transaction a WAL record of its own, once: the next draws find a
--     transaction id. A value within 10ms of the clock needs no flush: a
--     crash and restart takes longer than that (pgfunc.ShortTick), so the
--     first draw after it finds the counter behind a later clock and jumps
--     past every value handed out before.
--
-- Otherwise the jump (above) takes the shard's jump lock, bumps
-- jumps_begun, moves the counter forward with setval, draws, and sets
-- jumps_done = jumps_begun; or, when the counter needs no jump, draws
-- under the lock. Values other sessions drew while a jump was under way
-- fail their begun = done test and are thrown away, so setval can never
-- hand out again a value anybody returned.
CREATE OR REPLACE FUNCTION "insta5".next_id_bulk() RETURNS bigint
    LANGUAGE sql VOLATILE
    RETURN CASE
        WHEN (((0 OPERATOR(pg_catalog.-) pg_catalog.pg_sequence_last_value('"insta5".next_id_jumps_done'))
              OPERATOR(pg_catalog.+) ((pg_catalog.width_bucket(
                    pg_catalog.to_timestamp((((pg_catalog.nextval('"insta5".next_id_seq') OPERATOR(pg_catalog.|) 4095::bigint) OPERATOR(pg_catalog.&) 9007199254740991::bigint)::double precision OPERATOR(pg_catalog.*) 2.44140625e-07::double precision) OPERATOR(pg_catalog.+) 1.7356896000000002e+09::double precision) OPERATOR(pg_catalog.-) pg_catalog.clock_timestamp(),
                    CASE WHEN pg_catalog.pg_current_xact_id_if_assigned() IS NULL
                         THEN '{"1 microsecond","10001 microseconds"}'::pg_catalog.interval[]
                         ELSE '{"1 microsecond","5000001 microseconds"}'::pg_catalog.interval[] END) OPERATOR(pg_catalog.-) 1) OPERATOR(pg_catalog.*) 1099512152064::bigint))
              OPERATOR(pg_catalog.+) pg_catalog.pg_sequence_last_value('"insta5".next_id_jumps_begun')) OPERATOR(pg_catalog.=) 0
        THEN (pg_catalog.currval('"insta5".next_id_seq') OPERATOR(pg_catalog.+) ((pg_catalog.currval('"insta5".next_id_seq') OPERATOR(pg_catalog.>>) 12) OPERATOR(pg_catalog.*) 4190208::bigint)) OPERATOR(pg_catalog.+) 20480::bigint
        ELSE "insta5".next_id_jump_5()
    END;

-- next_id(), mode unique: never returns the same ID twice for this shard;
-- the form for DEFAULT and single-row statements. It is next_id_bulk() in
-- a PL/pgSQL body, which the planner does not read back: a plan that names
-- next_id() costs what a plan naming nextval() does, and PL/pgSQL plans
-- next_id_bulk()'s expression once per session. A draw costs a PL/pgSQL
-- call more than next_id_bulk()'s. The one name in the body is qualified
-- and no operator is written, so the caller's search_path cannot reach it.
CREATE OR REPLACE FUNCTION "insta5".next_id() RETURNS bigint
    LANGUAGE plpgsql VOLATILE
AS $shardid$
BEGIN
    RETURN "insta5".next_id_bulk();
END
$shardid$;

-- next_ids(n): n new IDs of this shard at once, from one reservation (the
-- reservation, above) instead of n draws: the cheapest way to key many
-- rows whose number is known, up to the 20480000 IDs the lead holds. The IDs
-- come in increasing order, so WITH ORDINALITY numbers them:
--   INSERT INTO t (id, v)
--   SELECT i.id, s.v FROM (SELECT v, row_number() OVER () AS k FROM src) AS s
--   JOIN "insta5".next_ids((SELECT count(*) FROM src)::int) WITH ORDINALITY AS i(id, k) USING (k);
CREATE OR REPLACE FUNCTION "insta5".next_ids(n integer) RETURNS SETOF bigint
    LANGUAGE sql VOLATILE
BEGIN ATOMIC
    SELECT ((u.u OPERATOR(pg_catalog.+) ((u.u OPERATOR(pg_catalog.>>) 12) OPERATOR(pg_catalog.*) 4190208::bigint)) OPERATOR(pg_catalog.+) 20480::bigint)
    FROM (SELECT "insta5".next_id_reserve_5(n::bigint) AS first) AS r,
         pg_catalog.generate_series(r.first, ((r.first OPERATOR(pg_catalog.+) n::bigint) OPERATOR(pg_catalog.-) 1::bigint)) AS u(u);
END;

-- How this generator was rendered, for shardid up, status and verify. It is
-- the counter's comment rather than next_id()'s: COMMENT ON FUNCTION finds
-- the function among every schema's next_id() (a cost that grows with the
-- number of shards on the server), COMMENT ON SEQUENCE by one index lookup.
COMMENT ON SEQUENCE "insta5".next_id_seq IS '{"tool":"shardid","shard":5,"mode":"unique","layout":"snowflake","epoch_ms":1735689600000,"unit_ms":1,"time_bits":41,"shard_bits":10,"seq_bits":12,"lead_ms":5000}';

-- Who this generator is, for shardid and for the checks of every later
-- migration: the metadata above as the body of a function, which every
-- copy of the schema keeps, where the comment is lost to pg_dump and
-- pg_restore --no-comments. Owner, privileges and security labels do not
-- make it, so --no-owner, --no-privileges and --no-security-labels leave
-- it; it is schema, not data, so -n, --schema-only, a pg_dumpall round
-- trip and the schema copy a logical subscriber starts from carry it;
-- its body does not name the schema, so ALTER SCHEMA ... RENAME keeps it
-- true. shardid reads its text and never calls it (a function of that
-- name in someone else's schema could run anything); a client may:
-- SELECT "insta5".next_id_meta(). A down keeps it beside the counter it
-- keeps.
CREATE OR REPLACE FUNCTION "insta5".next_id_meta() RETURNS pg_catalog.jsonb
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $shardid$SELECT '{"tool":"shardid","shard":5,"mode":"unique","layout":"snowflake","epoch_ms":1735689600000,"unit_ms":1,"time_bits":41,"shard_bits":10,"seq_bits":12,"lead_ms":5000}'::pg_catalog.jsonb$shardid$;

-- The carry-on: the highest counter a down kept of this schema (the guard
-- checked it held this generator) or of shard 5 in any other schema of
-- the database, which this generator carries on from, above every ID
-- they handed out whatever the clock says now; then the kept counters go
-- (another schema's next_id_meta() with its counter, when nothing else
-- there needs it).
DO $shardid$
DECLARE
    own pg_catalog.oid := pg_catalog.to_regnamespace('insta5')::pg_catalog.oid;
    kept record;
    last bigint;
    called boolean;
    top bigint;
    top_called boolean;
BEGIN
    FOR kept IN
        SELECT c.oid::pg_catalog.regclass AS reg, c.relnamespace OPERATOR(pg_catalog.=) own AS ours, c.relnamespace::pg_catalog.regnamespace AS nsp,
               COALESCE(pg_catalog.replace(pg_catalog.substring((SELECT p.prosrc FROM pg_catalog.pg_proc p
 WHERE p.proname OPERATOR(pg_catalog.=) 'next_id_meta' AND p.proargtypes OPERATOR(pg_catalog.=) ''::pg_catalog.oidvector
   AND p.pronamespace OPERATOR(pg_catalog.=) c.relnamespace), '^SELECT ''(.*)''::pg_catalog\.jsonb$'), '''''', ''''),
         pg_catalog.obj_description(c.oid, 'pg_class')) AS meta,
               EXISTS (SELECT FROM pg_catalog.pg_class l WHERE l.relnamespace OPERATOR(pg_catalog.=) c.relnamespace AND l.relname OPERATOR(pg_catalog.=) 'next_id_seq') AS live
        FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) c.relnamespace
        WHERE c.relname OPERATOR(pg_catalog.=) 'next_id_retired_seq' AND c.relkind OPERATOR(pg_catalog.=) 'S'
          AND n.nspname OPERATOR(pg_catalog.!~) '^pg_(toast_)?temp_'
        ORDER BY c.relnamespace
    LOOP
        CONTINUE WHEN NOT kept.ours AND NOT COALESCE(pg_catalog.starts_with(kept.meta, '{"tool":"shardid","shard":5,'), false);
        EXECUTE pg_catalog.format('SELECT s.last_value, s.is_called FROM %s AS s', kept.reg) INTO last, called;
        IF top IS NULL OR last OPERATOR(pg_catalog.>) top OR (last OPERATOR(pg_catalog.=) top AND called AND NOT top_called) THEN
            top := last;
            top_called := called;
        END IF;
        EXECUTE pg_catalog.format('DROP SEQUENCE %s', kept.reg);
        IF NOT kept.ours AND NOT kept.live THEN
            EXECUTE pg_catalog.format('DROP FUNCTION IF EXISTS %s.next_id_meta()', kept.nsp);
        END IF;
    END LOOP;
    IF top IS NOT NULL THEN
        PERFORM pg_catalog.setval('"insta5".next_id_seq', top, top_called);
    END IF;
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
-- The counter can be ahead of the clock (a burst borrows the following
-- ticks; a clock stepped back), and a generator made anew starts at the
-- clock: dropping it then would let the next Up hand out its IDs again.
-- So Down first holds off every draw (ALTER SEQUENCE takes a lock nextval
-- waits for, until this transaction ends), then goes on only once the
-- clock's tick is past the counter's, waiting up to a second; otherwise
-- it refuses. A generator made anew then starts above every ID this one
-- handed out, provided the clock does not step back below this moment.
DO $shardid$
DECLARE
    deadline pg_catalog.timestamptz := pg_catalog.clock_timestamp() OPERATOR(pg_catalog.+) '1 second'::pg_catalog.interval;
    last bigint;
    now_ticks bigint;
BEGIN
    IF pg_catalog.to_regclass('"insta5".next_id_seq') IS NULL THEN
        RETURN; -- no counter to outrun (the Down is a no-op, like its DROP ... IF EXISTS)
    END IF;
    ALTER SEQUENCE "insta5".next_id_seq NO CYCLE;
    SELECT s.last_value INTO last FROM "insta5".next_id_seq AS s;
    LOOP
        now_ticks := pg_catalog.floor((((pg_catalog.date_part('epoch', pg_catalog.clock_timestamp()) OPERATOR(pg_catalog.*) 1000::double precision) OPERATOR(pg_catalog.-) 1735689600000::double precision) OPERATOR(pg_catalog./) 1::double precision))::bigint;
        EXIT WHEN (last OPERATOR(pg_catalog.>>) 12) OPERATOR(pg_catalog.<) now_ticks;
        IF pg_catalog.clock_timestamp() OPERATOR(pg_catalog.>=) deadline THEN
            RAISE EXCEPTION 'shardid: shard 5''s counter is % ms ahead of the clock, and a generator made anew would hand out its IDs again: run down again once the clock has passed it',
                    (((last OPERATOR(pg_catalog.>>) 12) OPERATOR(pg_catalog.-) now_ticks) OPERATOR(pg_catalog.+) 1) OPERATOR(pg_catalog.*) 1
                USING ERRCODE = 'object_not_in_prerequisite_state';
        END IF;
        PERFORM pg_catalog.pg_sleep(0.01);
    END LOOP;
END
$shardid$;
DROP FUNCTION IF EXISTS "insta5".min_id(pg_catalog.timestamptz);
DROP FUNCTION IF EXISTS "insta5".id_seq(bigint);
DROP FUNCTION IF EXISTS "insta5".id_shard(bigint);
DROP FUNCTION IF EXISTS "insta5".id_timestamp(bigint);
DROP FUNCTION IF EXISTS "insta5".next_ids(integer);
DROP FUNCTION IF EXISTS "insta5".next_id();
DROP FUNCTION IF EXISTS "insta5".next_id_bulk();
DROP FUNCTION IF EXISTS "insta5".next_id_reserve_5(bigint);
DROP FUNCTION IF EXISTS "insta5".next_id_jump_5();
DROP TABLE IF EXISTS "insta5".next_id_jump_lock;
DROP SEQUENCE IF EXISTS "insta5".next_id_jumps_done;
DROP SEQUENCE IF EXISTS "insta5".next_id_jumps_begun;
-- The counter stays, with its comment and next_id_meta(), for the next
-- up: see there.
DROP SEQUENCE IF EXISTS "insta5".next_id_retired_seq;
ALTER SEQUENCE IF EXISTS "insta5".next_id_seq RENAME TO next_id_retired_seq;
DROP DOMAIN IF EXISTS "insta5".next_id_ticks;
-- +goose StatementEnd


