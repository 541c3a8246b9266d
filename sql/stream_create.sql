-- create_materialized_view's two protocols: concurrent from autocommit
-- (a creator worker backfills; writers are not blocked), transactional
-- inside a transaction block; their errors.
CREATE EXTENSION hummock_stream;
CREATE TABLE cr (id int PRIMARY KEY, g int, v int);
INSERT INTO cr SELECT i, i % 5, i FROM generate_series(1, 1000) i;

-- concurrent: returns once created, the caller reads it at once
SELECT hummock_stream.create_materialized_view('cr_sum',
  'SELECT g, count(*) AS n, sum(v) AS s FROM cr GROUP BY g');
SELECT * FROM cr_sum ORDER BY g;
SELECT name, state FROM hummock_stream.jobs;
-- nothing is being created any more
SELECT count(*) FROM hummock_stream.create_progress;

-- wait => false: returns at once; wait() waits for the creation
SELECT hummock_stream.create_materialized_view('cr_max',
  'SELECT g, max(v) AS m FROM cr GROUP BY g', wait => false);
SELECT hummock_stream.wait('cr_max');
SELECT * FROM cr_max ORDER BY g;
SELECT name, state FROM hummock_stream.jobs ORDER BY name::text;

-- changes after the creation reach both
INSERT INTO cr VALUES (1001, 0, 5000);
SELECT hummock_stream.wait();
SELECT * FROM cr_sum WHERE g = 0;
SELECT * FROM cr_max WHERE g = 0;

-- transactional: inside a transaction block, the view comes with COMMIT ...
BEGIN;
SELECT hummock_stream.create_materialized_view('cr_tx', 'SELECT id FROM cr WHERE v > 990');
SELECT count(*) FROM cr_tx;
COMMIT;
SELECT count(*) FROM cr_tx;
-- ... or never
BEGIN;
SELECT hummock_stream.create_materialized_view('cr_gone', 'SELECT id FROM cr');
ROLLBACK;
SELECT to_regclass('cr_gone');
SELECT count(*) FROM hummock_stream.jobs WHERE name::text = 'cr_gone';
-- ... or, in a savepoint, not if rolled back to: views created and dropped
-- within subtransactions that abort are taken back, with the versions they
-- committed, and what the transaction does next commits on the version
-- before them
BEGIN;
SAVEPOINT s1;
SELECT hummock_stream.create_materialized_view('cr_sp1', 'SELECT id FROM cr WHERE v > 995');
ROLLBACK TO s1;
SELECT hummock_stream.create_materialized_view('cr_sp2', 'SELECT id FROM cr WHERE v > 995');
SAVEPOINT s2;
SELECT hummock_stream.create_materialized_view('cr_sp3', 'SELECT id FROM cr WHERE v > 995');
SAVEPOINT s3;
SELECT hummock_stream.drop_materialized_view('cr_sp2');
RELEASE s3;
ROLLBACK TO s2;
SELECT hummock_stream.create_materialized_view('cr_sp4', 'SELECT id FROM cr WHERE v > 995');
COMMIT;
SELECT name FROM hummock_stream.jobs WHERE name::text LIKE 'cr_sp%' ORDER BY 1;
UPDATE cr SET v = 999 WHERE id = 1;
SELECT hummock_stream.wait();
SELECT (SELECT count(*) FROM cr_sp2) = (SELECT count(*) FROM cr WHERE v > 995) AS sp2_ok,
       (SELECT count(*) FROM cr_sp4) = (SELECT count(*) FROM cr WHERE v > 995) AS sp4_ok;
SELECT hummock_stream.drop_materialized_view('cr_sp2');
SELECT hummock_stream.drop_materialized_view('cr_sp4');

-- a canceled creation (here by statement_timeout, during a backfill that
-- takes seconds) is cleaned up before the caller has the error: the name
-- can be used again at once
CREATE FUNCTION cr_slow(int) RETURNS int IMMUTABLE LANGUAGE plpgsql
  AS $$BEGIN PERFORM pg_sleep(0.1); RETURN $1; END$$;
SET statement_timeout = '300ms';
SELECT hummock_stream.create_materialized_view('cr_cancel', 'SELECT id, cr_slow(v) AS s FROM cr WHERE id <= 100');
RESET statement_timeout;
SELECT hummock_stream.create_materialized_view('cr_cancel', 'SELECT id FROM cr WHERE id <= 3');
SELECT count(*) FROM cr_cancel;
SELECT hummock_stream.drop_materialized_view('cr_cancel');
DROP FUNCTION cr_slow(int);

-- a temporary streaming view: refused (0A000), by either command
SELECT hummock_stream.create_materialized_view('pg_temp.cr_tmp', 'SELECT id FROM cr WHERE id <= 3');
CREATE MATERIALIZED VIEW pg_temp.cr_tmp USING hummock AS SELECT 1 AS a;
-- also when pg_temp comes first in search_path (not 42501 for its schema)
SET search_path = pg_temp, public;
SELECT hummock_stream.create_materialized_view('cr_tmp', 'SELECT id FROM public.cr WHERE id <= 3');
CREATE MATERIALIZED VIEW cr_tmp USING hummock AS SELECT 1 AS a;
RESET search_path;

-- a view given by a number that names no relation
SELECT hummock_stream.drop_materialized_view(0);
SELECT hummock_stream.drop_materialized_view(12345678);
SELECT hummock_stream.set_change_log(12345678, true);
SELECT hummock_stream.wait(0);
SELECT hummock_stream.wait(12345678);
CALL hummock_stream.rebuild(12345678);
CALL hummock_stream.rebuild(NULL);

-- errors: wait => false in a transaction block, NULL wait, an existing name
BEGIN;
SELECT hummock_stream.create_materialized_view('cr_bg', 'SELECT id FROM cr', wait => false);
ROLLBACK;
SELECT hummock_stream.create_materialized_view('cr_null', 'SELECT id FROM cr', NULL);
SELECT hummock_stream.create_materialized_view('cr_sum', 'SELECT id FROM cr');
-- an error of the backfill (in the creator) reaches the caller, with its
-- SQLSTATE, and leaves nothing behind
SELECT hummock_stream.create_materialized_view('cr_div', 'SELECT id, 100 / (v - 500) AS q FROM cr');
SELECT to_regclass('cr_div') IS NULL AS dropped;
SELECT count(*) FROM hummock_stream.jobs WHERE name::text = 'cr_div';

-- create_progress is readable by anyone, and shows only their creations
CREATE ROLE cr_nobody;
SET ROLE cr_nobody;
SELECT count(*) FROM hummock_stream.create_progress;
RESET ROLE;
DROP ROLE cr_nobody;

-- a multi-statement query string is a transaction block: transactional
SELECT hummock_stream.create_materialized_view('cr_multi', 'SELECT g FROM cr GROUP BY g') \; SELECT 1 AS after;
SELECT count(*) FROM cr_multi;

DROP MATERIALIZED VIEW cr_tx, cr_multi;
SELECT hummock_stream.drop_materialized_view('cr_max');
DROP MATERIALIZED VIEW cr_sum;
DROP TABLE cr;
DROP EXTENSION hummock_stream;
