-- shardid: ID generator for logical shard 5 in schema "insta5"
-- layout: js53 (time 37 bits of 10ms since 2025-01-01T00:00:00Z, shard 8 bits, sequence 8 bits)
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
    mine pg_catalog.jsonb := '{"tool":"shardid","shard":5,"mode":"classic-sql","layout":"js53","epoch_ms":1735689600000,"unit_ms":10,"time_bits":37,"shard_bits":8,"seq_bits":8}'::pg_catalog.jsonb OPERATOR(pg_catalog.-) '{layout,lead_ms}'::pg_catalog.text[];
    kept record;
    other pg_catalog.text;
    holder pg_catalog.text;
    holder_meta pg_catalog.text;
    held_by pg_catalog.text;
    unreadable pg_catalog.text;
    kind pg_catalog.jsonb := '{"tool":"shardid","shard":5,"mode":"classic-sql","layout":"js53","epoch_ms":1735689600000,"unit_ms":10,"time_bits":37,"shard_bits":8,"seq_bits":8}'::pg_catalog.jsonb OPERATOR(pg_catalog.-) '{layout,lead_ms,shard}'::pg_catalog.text[];
    is_template boolean;
    gen record;
    theirs pg_catalog.jsonb;
    same_kind boolean := false;
    meet bigint;
    a_low int; a_first bigint; a_ticks bigint; b_low int; b_ticks bigint;
    lo bigint; hi bigint; fixed bigint; val bigint; diff bigint; pb bigint; qb bigint;
BEGIN
    IF pg_catalog.clock_timestamp() OPERATOR(pg_catalog.>=) '2068-07-21T06:52:14Z'::pg_catalog.timestamptz THEN
        RAISE EXCEPTION 'shardid: shard 5''s layout ended at 2068-07-21T06:52:14Z: every draw would raise "time field exhausted"; render it with a later epoch'
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
        fixed := (OPERATOR(pg_catalog.~)((-1)::bigint OPERATOR(pg_catalog.<<) 8)) OPERATOR(pg_catalog.<<) ((kind OPERATOR(pg_catalog.->>) 'seq_bits')::int OPERATOR(pg_catalog.+) COALESCE((kind OPERATOR(pg_catalog.->>) 'route_bits')::int, 0));
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
        AS bigint MINVALUE 0 MAXVALUE 35184372088831 START 0 CACHE 1 NO CYCLE;
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
-- field ends, so it can never carry into the sign bit.
-- The time field of a classic ID: casting the clock's tick count to this
-- domain raises, naming the constraint, once the clock leaves the layout's
-- range (2025-01-01T00:00:00Z to 2068-07-21T06:52:14Z), instead of wrapping into the sign bit.
CREATE DOMAIN "insta5".next_id_ticks AS bigint
    CONSTRAINT clock_within_layout_range CHECK (VALUE BETWEEN 0 AND 137438953471);

-- next_id(), mode classic-sql: the classic design as an inlinable SQL
-- function, the cheapest body.
-- LIMIT: as mode classic, more than 256 calls for this shard within one
-- tick of 10ms, concurrent sessions straddling a tick, or a clock stepped
-- back return IDs already handed out.
CREATE OR REPLACE FUNCTION "insta5".next_id() RETURNS bigint
    LANGUAGE sql VOLATILE
    RETURN (((pg_catalog.floor((((pg_catalog.date_part('epoch', pg_catalog.clock_timestamp()) OPERATOR(pg_catalog.*) 1000::double precision) OPERATOR(pg_catalog.-) 1735689600000::double precision) OPERATOR(pg_catalog./) 10::double precision))::bigint)::"insta5".next_id_ticks OPERATOR(pg_catalog.<<) 16) OPERATOR(pg_catalog.|) 1280::bigint) OPERATOR(pg_catalog.|) (pg_catalog.nextval('"insta5".next_id_seq') OPERATOR(pg_catalog.%) 256::bigint);

-- How this generator was rendered, for shardid up, status and verify. It is
-- the counter's comment rather than next_id()'s: COMMENT ON FUNCTION finds
-- the function among every schema's next_id() (a cost that grows with the
-- number of shards on the server), COMMENT ON SEQUENCE by one index lookup.
COMMENT ON SEQUENCE "insta5".next_id_seq IS '{"tool":"shardid","shard":5,"mode":"classic-sql","layout":"js53","epoch_ms":1735689600000,"unit_ms":10,"time_bits":37,"shard_bits":8,"seq_bits":8}';

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
    AS $shardid$SELECT '{"tool":"shardid","shard":5,"mode":"classic-sql","layout":"js53","epoch_ms":1735689600000,"unit_ms":10,"time_bits":37,"shard_bits":8,"seq_bits":8}'::pg_catalog.jsonb$shardid$;

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
    RETURN pg_catalog.to_timestamp(((((id OPERATOR(pg_catalog.>>) 16) OPERATOR(pg_catalog.*) 10) OPERATOR(pg_catalog.+) 1735689600000)::double precision) OPERATOR(pg_catalog./) 1000::double precision);

CREATE OR REPLACE FUNCTION "insta5".id_shard(id bigint) RETURNS int
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN ((id OPERATOR(pg_catalog.>>) 8) OPERATOR(pg_catalog.&) 255::bigint)::int;

CREATE OR REPLACE FUNCTION "insta5".id_seq(id bigint) RETURNS int
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN (id OPERATOR(pg_catalog.&) 255::bigint)::int;

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
          OPERATOR(pg_catalog.-) 1735689600000::double precision) OPERATOR(pg_catalog./) 10::double precision)
    ), 0::double precision), 137438953471::double precision)::bigint OPERATOR(pg_catalog.<<) 16;
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
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


