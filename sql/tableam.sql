-- The hummock table access method: scans at a table's committed epoch or
-- at hummock_stream.query_epoch, and every write rejected clearly.
CREATE EXTENSION hummock_stream;
CREATE EXTENSION hummock_stream_test;
SELECT ((extract(epoch FROM now()) * 1000)::bigint - 1735689600000) << 16 AS base \gset

CREATE TABLE mv (id int, name text, amount numeric) USING hummock;
SELECT * FROM mv;                                   -- nothing committed yet

SELECT hummock_stream_test.test_load('mv', :base + 10,
  $$SELECT g, 'name ' || g, g * 1.5 FROM generate_series(1, 5) g$$) IS NOT NULL AS loaded;
SELECT * FROM mv;
SELECT count(*), sum(amount) FROM mv WHERE id > 2;

SELECT hummock_stream_test.test_load('mv', :base + 20,
  $$SELECT g, CASE WHEN g = 2 THEN 'two' ELSE 'name ' || g END, g * 1.5
      FROM generate_series(1, 3) g$$) IS NOT NULL AS loaded;
SELECT * FROM mv;

-- time travel
SELECT (:base + 10)::text AS e10 \gset
SET hummock_stream.query_epoch = :'e10';
SELECT * FROM mv;
SELECT (:base + 30)::text AS e30 \gset
SET hummock_stream.query_epoch = :'e30';
SET hummock_stream.wait_timeout = '100ms';
DO $$                                 -- not committed yet, after waiting
DECLARE
  t0 timestamptz := clock_timestamp();
BEGIN
  PERFORM * FROM mv;
EXCEPTION WHEN OTHERS THEN
  RAISE NOTICE '%: % (waited: %)', SQLSTATE, regexp_replace(SQLERRM, '[0-9]{8,}', 'N', 'g'),
    clock_timestamp() - t0 >= interval '100 ms';
END $$;
RESET hummock_stream.wait_timeout;
RESET hummock_stream.query_epoch;
SET hummock_stream.query_epoch = 'soon';
RESET hummock_stream.query_epoch;

-- large rows and NULLs come back whole
CREATE TABLE wide (id int, payload text, note text) USING hummock;
SELECT hummock_stream_test.test_load('wide', :base + 10,
  $$SELECT 1, repeat('x', 100000), NULL::text$$) IS NOT NULL AS loaded;
SELECT id, length(payload), note IS NULL AS null_note FROM wide;

-- writes are the streaming engine's
\set VERBOSITY default
INSERT INTO mv VALUES (9, 'nine', 9);
UPDATE mv SET amount = 0;
DELETE FROM mv;
TRUNCATE mv;
COPY mv FROM '/dev/null';
SELECT * FROM mv FOR UPDATE;
CREATE INDEX ON mv (id);
-- VACUUM FULL passes over hummock relations (their rows are in the store),
-- with a warning where they are named, so a database-wide one runs through
VACUUM FULL mv;
VACUUM (FULL, ANALYZE) wide, pg_class;
VACUUM FULL;
CLUSTER mv;
CREATE UNLOGGED TABLE u (id int) USING hummock;
SELECT hummock_stream_test.test_load('pg_class', 1, 'SELECT 1');
SELECT hummock_stream_test.test_load('mv', :base + 40, 'SELECT 1');
VACUUM mv;                                           -- harmless
ANALYZE mv;                                          -- harmless

-- the relation's data goes with it
SELECT count(*) AS tables_before FROM hummock_stream.table_epochs()
 WHERE relation IN ('mv'::regclass, 'wide'::regclass);
DROP TABLE mv, wide;
SELECT count(*) AS tables_after FROM hummock_stream.table_epochs();



-- consistency: global (default) reads every relation of a statement at one
-- epoch, the oldest committed; per_table reads each at its own
CREATE TABLE ca (k int, v text) USING hummock;
CREATE TABLE cb (k int, v text) USING hummock;
-- (above every epoch read before: the global epoch never goes back, and a
-- relation below the highest one computed so far is read at its own)
SELECT hummock_stream_test.test_load('ca', :base + 50, $$SELECT 1, 'a at 50'$$) IS NOT NULL AS loaded;
SELECT hummock_stream_test.test_load('cb', :base + 50, $$SELECT 1, 'b at 50'$$) IS NOT NULL AS loaded;
SELECT hummock_stream_test.test_load('ca', :base + 60, $$SELECT 1, 'a at 60'$$) IS NOT NULL AS loaded;
SELECT relation, committed_epoch - :base AS committed
  FROM hummock_stream.committed_epochs() ORDER BY 1;
SHOW hummock_stream.query_consistency;
SELECT ca.v, cb.v FROM ca, cb;
SET hummock_stream.query_consistency = per_table;
SELECT ca.v, cb.v FROM ca, cb;
SET hummock_stream.query_consistency = 'sometimes';
RESET hummock_stream.query_consistency;
-- b catches up: the global epoch moves with it
SELECT hummock_stream_test.test_load('cb', :base + 60, $$SELECT 1, 'b at 60'$$) IS NOT NULL AS loaded;
SELECT ca.v, cb.v FROM ca, cb;
DROP TABLE ca, cb;

-- planner statistics: sizes from SST statistics, ANALYZE samples rows
CREATE TABLE big (id int, grp int, v text) USING hummock;
SELECT hummock_stream_test.test_load('big', :base + 10,
  $$SELECT g, g % 10, md5(g::text) FROM generate_series(1, 5000) g$$) IS NOT NULL AS loaded;
ANALYZE big;
SELECT reltuples BETWEEN 4500 AND 5500 AS reltuples_ok FROM pg_class WHERE relname = 'big';
-- sizes: the data is in SSTs, not in the relation's files
SELECT pg_relation_size('big') AS relation_files,
       hummock_stream.estimated_size('big') > 0 AS sst_bytes,
       hummock_stream.estimated_rows('big') AS sst_keys,
       hummock_stream.estimated_size('pg_class') AS not_hummock;
SELECT attname, n_distinct FROM pg_stats WHERE tablename = 'big' AND attname = 'grp';
CREATE FUNCTION pg_temp.plan_rows(q text) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE j json;
BEGIN
  EXECUTE 'EXPLAIN (FORMAT JSON) ' || q INTO j;
  RETURN (j->0->'Plan'->>'Plan Rows')::float8;
END $$;
SELECT pg_temp.plan_rows('SELECT * FROM big WHERE grp = 3') AS estimated_rows;
EXPLAIN (COSTS OFF) SELECT * FROM big WHERE grp = 3;
SELECT count(*) FROM big WHERE grp = 3;
DROP TABLE big;

-- the change log of a relation, typed by its row type, one checkpoint at a time
CREATE TABLE cl (id int, v text) USING hummock;
SELECT hummock_stream_test.test_load('cl', :base + 10,
  $$SELECT g, 'v' || g FROM generate_series(1, 3) g$$) IS NOT NULL AS loaded;
SELECT hummock_stream_test.test_load('cl', :base + 20,
  $$VALUES (1, 'v1'), (2, 'two')$$) IS NOT NULL AS loaded;
SELECT op, epoch - :base AS epoch, ("row").*
  FROM hummock_stream.change_log(NULL::cl, :base, :base + 20);
SELECT op, epoch - :base AS epoch, ("row").*
  FROM hummock_stream.change_log(NULL::cl, :base + 10, :base + 20);
DO $$
BEGIN
  PERFORM * FROM hummock_stream.change_log(NULL::cl, 1, (SELECT max(committed_epoch) + 10
                                                            FROM hummock_stream.committed_epochs()));
EXCEPTION WHEN OTHERS THEN
  RAISE NOTICE '%: %', SQLSTATE, regexp_replace(SQLERRM, '[0-9]{8,}', 'N', 'g');
END $$;
SELECT op FROM hummock_stream.change_log(NULL::int, 0, 1);
SELECT op FROM hummock_stream.change_log(NULL::pg_class, 0, 1);
DROP TABLE cl;

-- parallel sequential scans: the leader and the workers claim chunks of
-- the key space and read them at the epoch and version the leader chose
CREATE TABLE par (id int, v text) USING hummock;
SELECT hummock_stream_test.test_load('par', :base + 10,
  $$SELECT g, 'v' || g FROM generate_series(1, 20000) g$$) IS NOT NULL AS loaded;
CREATE TABLE par_heap AS SELECT g AS id FROM generate_series(1, 20000) g;
ANALYZE par_heap;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT count(*) FROM par;
-- every row exactly once
SELECT count(*), count(DISTINCT id), sum(id), min(v), max(v) FROM par;
EXPLAIN (COSTS OFF) SELECT count(*) FROM par JOIN par_heap USING (id);
SELECT count(*) FROM par JOIN par_heap USING (id);
-- the leader alone, and again in one transaction (the chunks restart)
SET parallel_leader_participation = off;
SELECT count(*), sum(id) FROM par;
RESET parallel_leader_participation;
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT count(*), sum(id) FROM par WHERE id % 2 = 0;
SELECT count(*), sum(id) FROM par WHERE id % 2 = 1;
COMMIT;
-- a serial scan of a hummock relation inside a parallel plan (the leader
-- reads it in parallel mode, at the epoch it prepared before)
ALTER TABLE par SET (parallel_workers = 0);
EXPLAIN (COSTS OFF)
SELECT count(*) FROM par_heap h WHERE h.id < (SELECT max(id) FROM par);
SELECT count(*) FROM par_heap h WHERE h.id < (SELECT max(id) FROM par);
ALTER TABLE par RESET (parallel_workers);
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;

-- TABLESAMPLE: pseudo-blocks of 100 rows in key order, as for ANALYZE
EXPLAIN (COSTS OFF) SELECT * FROM par TABLESAMPLE SYSTEM (10);
SELECT count(*) FROM par TABLESAMPLE BERNOULLI (100);
SELECT count(*) FROM par TABLESAMPLE SYSTEM (100);
SELECT count(*) FROM par TABLESAMPLE BERNOULLI (0);
SELECT count(*) BETWEEN 1500 AND 2500 AS about_a_tenth
  FROM par TABLESAMPLE BERNOULLI (10) REPEATABLE (7);
SELECT count(*) BETWEEN 1000 AND 3000 AS about_a_tenth
  FROM par TABLESAMPLE SYSTEM (10) REPEATABLE (7);
-- the same seed gives the same sample
SELECT (SELECT array_agg(id) FROM par TABLESAMPLE SYSTEM (5) REPEATABLE (3))
     = (SELECT array_agg(id) FROM par TABLESAMPLE SYSTEM (5) REPEATABLE (3)) AS same_sample;
-- SYSTEM takes whole pseudo-blocks
SELECT bool_and(n = 100) AS whole_blocks
  FROM (SELECT (id - 1) / 100 AS b, count(*) AS n
          FROM par TABLESAMPLE SYSTEM (10) REPEATABLE (1) GROUP BY 1) x;
-- a sample scan rescanned in a nested loop starts over
SELECT count(*) FROM (VALUES (1), (2)) v(x),
  LATERAL (SELECT id FROM par TABLESAMPLE BERNOULLI (100) WHERE id <= v.x * 10) s;

-- scroll cursors: a hummock scan reads forward only, so a scroll cursor
-- that could fetch backward into one reads it through a Material node
EXPLAIN (COSTS OFF) DECLARE c SCROLL CURSOR FOR SELECT id, v FROM par;
EXPLAIN (COSTS OFF)
DECLARE c SCROLL CURSOR FOR SELECT id FROM par WHERE id <= 300 LIMIT 5;
EXPLAIN (COSTS OFF)
DECLARE c SCROLL CURSOR FOR SELECT id FROM par UNION ALL SELECT id FROM par_heap;
-- a Sort reads its input first: no Material; nor without SCROLL
EXPLAIN (COSTS OFF) DECLARE c SCROLL CURSOR FOR SELECT id FROM par ORDER BY v;
EXPLAIN (COSTS OFF) DECLARE c CURSOR FOR SELECT id FROM par;
BEGIN;
DECLARE c SCROLL CURSOR FOR SELECT id, v FROM par;
FETCH 3 FROM c;
FETCH BACKWARD 2 FROM c;
FETCH PRIOR FROM c;
FETCH PRIOR FROM c;
FETCH ABSOLUTE 300 FROM c;
MOVE FORWARD 1000 IN c;
FETCH RELATIVE -2 FROM c;
FETCH LAST FROM c;
FETCH BACKWARD 2 FROM c;
FETCH FIRST FROM c;
COMMIT;
-- with an initPlan, and rewound
BEGIN;
DECLARE c SCROLL CURSOR FOR
  SELECT id FROM par WHERE id > (SELECT max(id) - 3 FROM par_heap);
FETCH ALL FROM c;
FETCH BACKWARD 2 FROM c;
FETCH FIRST FROM c;
MOVE ABSOLUTE 0 IN c;
FETCH NEXT FROM c;
COMMIT;
-- a cursor declared without SCROLL reads forward; backward it is refused
BEGIN;
DECLARE c CURSOR FOR SELECT id FROM par;
FETCH 2 FROM c;
FETCH BACKWARD 1 FROM c;
ROLLBACK;
DO $$
DECLARE
  c refcursor;
  r record;
  ids text := '';
BEGIN
  OPEN c SCROLL FOR SELECT id FROM par WHERE id <= 600;
  MOVE LAST IN c;
  FOR i IN 1..3 LOOP
    FETCH PRIOR FROM c INTO r;
    ids := ids || r.id || ' ';
  END LOOP;
  FETCH ABSOLUTE 257 FROM c INTO r;
  RAISE NOTICE 'backward: %, absolute 257: %', ids, r.id;
  CLOSE c;
END $$;

-- the shared block cache: the scans above cached par's blocks, and a new
-- session (whose own block cache is empty) copies them from shared memory
SELECT capacity_bytes > 0 AS enabled, blocks > 0 AS has_blocks
  FROM hummock_stream.shared_block_cache;
SELECT hits AS hits_before, misses AS misses_before
  FROM hummock_stream.shared_block_cache \gset
\c
SET hummock_stream.query_consistency = per_table;
SELECT count(*), sum(id) FROM par;
SELECT hits > :hits_before AS served_from_shared_memory,
       misses = :misses_before AS no_misses
  FROM hummock_stream.shared_block_cache;
RESET hummock_stream.query_consistency;
DROP TABLE par, par_heap;

-- epochs and wall-clock time
SELECT hummock_stream.epoch_to_timestamp(hummock_stream.epoch_at('2026-01-02 03:04:05.678+00'))
       = '2026-01-02 03:04:05.678+00'::timestamptz AS round_trip;
SELECT hummock_stream.epoch_at('2026-01-01 00:00:00+00') AS epoch_2026;
SELECT hummock_stream.epoch_at('2024-01-01');
SELECT hummock_stream.epoch_at('infinity');
-- an epoch is a non-negative int64: past its range, 22008 (not a wrapped value)
SELECT hummock_stream.epoch_at('6484-01-01') > 0 AS in_range;
SELECT hummock_stream.epoch_at('9999-01-01');
SELECT hummock_stream.epoch_at('294276-12-31');

-- an epoch that retention gave up: no time-travel retention, a newer load,
-- a compaction (last: it moves the safe epoch of every table)
ALTER SYSTEM SET hummock_stream.time_travel_retention = 0;
SELECT pg_reload_conf();
\c
SHOW hummock_stream.time_travel_retention;
CREATE TABLE rt (id int, v text) USING hummock;
SELECT hummock_stream_test.test_load('rt', :base + 10, $$SELECT 1, 'old'$$) IS NOT NULL AS loaded;
SELECT hummock_stream_test.test_load('rt', :base + 20, $$SELECT 1, 'new'$$) IS NOT NULL AS loaded;
SELECT hummock_stream.compact(true) IS NOT NULL AS compacted;
SET hummock_stream.query_epoch = :'e10';
DO $$                                               -- no longer retained
BEGIN
  PERFORM * FROM rt;
EXCEPTION WHEN OTHERS THEN
  RAISE NOTICE '%: %', SQLSTATE, regexp_replace(SQLERRM, '[0-9]{8,}', 'N', 'g');
END $$;
RESET hummock_stream.query_epoch;
SELECT * FROM rt;
DROP TABLE rt;
ALTER SYSTEM RESET hummock_stream.time_travel_retention;
SELECT pg_reload_conf();

DROP EXTENSION hummock_stream_test;
DROP EXTENSION hummock_stream;
