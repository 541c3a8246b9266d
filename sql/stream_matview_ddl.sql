-- Streaming views with Postgres's own DDL: a streaming view is a
-- materialized view USING hummock.  CREATE MATERIALIZED VIEW ... USING
-- hummock (or with default_table_access_method = hummock) creates one;
-- WITH NO DATA leaves it unpopulated until REFRESH makes it streaming (as
-- a pg_dump script does); REFRESH of a streaming view rebuilds it;
-- ALTER/DROP MATERIALIZED VIEW, \dm and pg_matviews work as for any
-- materialized view.
CREATE EXTENSION hummock_stream;
CREATE TABLE sales (id int PRIMARY KEY, region text, amount numeric);
INSERT INTO sales SELECT i, 'r' || i % 3, i * 1.5 FROM generate_series(1, 30) i;

CREATE MATERIALIZED VIEW by_region USING hummock AS
  SELECT region, count(*) AS n, sum(amount) AS total FROM sales GROUP BY region;
SELECT * FROM by_region ORDER BY region;
SELECT relkind, amname FROM pg_class c JOIN pg_am a ON a.oid = c.relam WHERE c.oid = 'by_region'::regclass;
SELECT name, state FROM hummock_stream.jobs ORDER BY name::text;
INSERT INTO sales VALUES (100, 'r0', 1000);
SELECT hummock_stream.wait('by_region');
SELECT * FROM by_region WHERE region = 'r0';
SELECT matviewname, ispopulated, definition FROM pg_matviews WHERE matviewname = 'by_region';
\dm

-- the default access method; column names; IF NOT EXISTS
SET default_table_access_method = hummock;
CREATE MATERIALIZED VIEW big_sales (sale, amt) AS SELECT id, amount FROM sales WHERE amount > 40;
RESET default_table_access_method;
SELECT * FROM big_sales ORDER BY sale LIMIT 3;
CREATE MATERIALIZED VIEW IF NOT EXISTS big_sales USING hummock AS SELECT 1 AS x FROM sales;
-- a view over it
CREATE MATERIALIZED VIEW big_count USING hummock AS SELECT count(*) AS n FROM big_sales;
SELECT * FROM big_count;

-- WITH NO DATA: not populated (not streaming) until REFRESH
CREATE MATERIALIZED VIEW later USING hummock AS
  SELECT region, max(amount) AS top FROM sales GROUP BY region WITH NO DATA;
SELECT count(*) FROM later;
SELECT count(*) AS jobs FROM hummock_stream.jobs WHERE name = 'later'::regclass;
INSERT INTO sales VALUES (101, 'r1', 2000);
REFRESH MATERIALIZED VIEW later;
SELECT * FROM later ORDER BY region;
SELECT state FROM hummock_stream.jobs WHERE name = 'later'::regclass;
INSERT INTO sales VALUES (102, 'r2', 3000);
SELECT hummock_stream.wait('later');
SELECT * FROM later ORDER BY region;
-- a query that cannot stream is refused WITH NO DATA too
CREATE MATERIALIZED VIEW bad USING hummock AS SELECT id FROM sales LIMIT 3 WITH NO DATA;

-- REFRESH of a streaming view rebuilds it (outside a transaction block)
REFRESH MATERIALIZED VIEW by_region;
SELECT * FROM by_region ORDER BY region;
REFRESH MATERIALIZED VIEW CONCURRENTLY by_region;
BEGIN;
REFRESH MATERIALIZED VIEW by_region;
ROLLBACK;
REFRESH MATERIALIZED VIEW by_region WITH NO DATA;

-- ALTER and DROP as for any materialized view
ALTER MATERIALIZED VIEW big_sales RENAME TO large_sales;
ALTER MATERIALIZED VIEW large_sales RENAME COLUMN amt TO amount;
CREATE SCHEMA reports;
ALTER MATERIALIZED VIEW by_region SET SCHEMA reports;
CREATE ROLE matview_owner;
GRANT SELECT ON sales TO matview_owner;	-- (a view's owner reads its sources)
ALTER MATERIALIZED VIEW reports.by_region OWNER TO matview_owner;
INSERT INTO sales VALUES (103, 'r1', 5);
SELECT hummock_stream.wait();
SELECT * FROM reports.by_region ORDER BY region;
SELECT * FROM large_sales ORDER BY sale DESC LIMIT 2;
SELECT name, state FROM hummock_stream.jobs ORDER BY name::text;
-- a view's storage parameters but its settings (recorded at its creation,
-- with values that depend on the test's locale; below)
CREATE FUNCTION heap_options(r regclass) RETURNS text[] LANGUAGE sql AS $$
  SELECT array(SELECT o FROM pg_class, unnest(reloptions) o
                WHERE oid = r AND o !~ '^settings=')
$$;
-- storage parameters are refused after creation too (a
-- dump would carry them into a CREATE that refuses them)
ALTER MATERIALIZED VIEW large_sales SET (fillfactor = 50);
ALTER MATERIALIZED VIEW large_sales SET (autovacuum_enabled = false);
ALTER MATERIALIZED VIEW large_sales RESET (fillfactor);
-- but parallel_workers (which its parallel scans use) is kept, at creation
-- too, with data or without (as a dump creates it)
ALTER MATERIALIZED VIEW large_sales SET (parallel_workers = 2);
SELECT heap_options('large_sales');
ALTER MATERIALIZED VIEW large_sales RESET (parallel_workers);
SELECT heap_options('large_sales');
CREATE MATERIALIZED VIEW par_sales USING hummock WITH (parallel_workers = 3) AS SELECT id FROM sales;
CREATE MATERIALIZED VIEW par_later USING hummock WITH (parallel_workers = 1) AS SELECT id FROM sales WITH NO DATA;
REFRESH MATERIALIZED VIEW par_later;
SELECT relname, heap_options(oid) FROM pg_class WHERE relname IN ('par_sales', 'par_later') ORDER BY 1;
SELECT (SELECT count(*) FROM par_sales) = (SELECT count(*) FROM sales) AS same;
DROP MATERIALIZED VIEW par_sales, par_later;
-- a bad value is refused before anything is created
CREATE MATERIALIZED VIEW par_bad USING hummock WITH (parallel_workers = -1) AS SELECT id FROM sales;
SELECT count(*) AS created FROM pg_class WHERE relname = 'par_bad';
CREATE MATERIALIZED VIEW par_bad USING hummock WITH (change_log = maybe) AS SELECT id FROM sales;
SELECT count(*) AS created FROM pg_class WHERE relname = 'par_bad';
-- change_log, ours, is a storage parameter too: the same setting as
-- create_materialized_view(..., change_log => true) and set_change_log(),
-- shown by \d+ and dumped with the view (with data or without)
CREATE MATERIALIZED VIEW log_sales USING hummock WITH (change_log, parallel_workers = 2) AS SELECT id FROM sales;
CREATE MATERIALIZED VIEW log_later USING hummock WITH (change_log = true) AS SELECT id FROM sales WITH NO DATA;
SELECT hummock_stream.create_materialized_view('log_fn', 'SELECT id FROM sales', change_log => true);
SELECT relname, heap_options(oid) FROM pg_class WHERE relname IN ('log_sales', 'log_later', 'log_fn') ORDER BY 1;
REFRESH MATERIALIZED VIEW log_later;
SELECT name, change_log FROM hummock_stream.jobs WHERE name::text LIKE 'log%' ORDER BY 1;
ALTER MATERIALIZED VIEW log_sales RESET (change_log);
ALTER MATERIALIZED VIEW log_later SET (change_log = off);
SELECT hummock_stream.set_change_log('log_fn', false);
SELECT hummock_stream.set_change_log('log_later', true);
ALTER MATERIALIZED VIEW log_sales SET (parallel_workers = 1);
SELECT relname, heap_options(oid) FROM pg_class WHERE relname IN ('log_sales', 'log_later', 'log_fn') ORDER BY 1;
SELECT name, change_log FROM hummock_stream.jobs WHERE name::text LIKE 'log%' ORDER BY 1;
-- set alone (Postgres's own ALTER would refuse change_log), by the owner
ALTER MATERIALIZED VIEW log_later OWNER TO CURRENT_USER, SET (parallel_workers = 1);
ALTER MATERIALIZED VIEW log_later SET (change_log = 2);
CREATE ROLE not_owner;
SET ROLE not_owner;
ALTER MATERIALIZED VIEW log_later RESET (change_log);
RESET ROLE;
DROP ROLE not_owner;
DROP MATERIALIZED VIEW log_sales, log_later, log_fn;
-- settings: the values of the settings its expressions may depend on,
-- recorded at its creation (all of them, a storage parameter so that a
-- dump restores the view with them, not with the restoring session's);
-- WITH (settings = ...) names some for a new view; fixed once it streams
CREATE TABLE stamps (id int PRIMARY KEY, ts timestamptz);
INSERT INTO stamps VALUES (1, '2024-01-01 01:00:00+00');
SET TimeZone = 'Asia/Tokyo';
CREATE MATERIALIZED VIEW st_session USING hummock AS SELECT id, ts::text AS s FROM stamps;
CREATE MATERIALIZED VIEW st_named USING hummock WITH (settings = '{timezone=UTC}') AS SELECT id, ts::text AS s FROM stamps;
CREATE MATERIALIZED VIEW st_later USING hummock WITH (settings = '{TimeZone=America/New_York}') AS SELECT id, ts::text AS s FROM stamps WITH NO DATA;
RESET TimeZone;
REFRESH MATERIALIZED VIEW st_later;
SELECT 'session' AS v, * FROM st_session UNION ALL SELECT 'named', * FROM st_named
 UNION ALL SELECT 'later', * FROM st_later ORDER BY 1;
SELECT relname, substring(o from 'TimeZone=[^,]*') AS time_zone,
       o ~ 'DateStyle' AND o ~ 'lc_time' AS all_recorded
  FROM pg_class, unnest(reloptions) o
 WHERE relname LIKE 'st\_%' AND o ~ '^settings=' ORDER BY 1;
SELECT j.job_id::regclass AS name, s FROM hummock_stream.stream_jobs j, unnest(j.settings) s
 WHERE j.job_id::regclass::text LIKE 'st\_%' AND s LIKE 'TimeZone=%' ORDER BY 1;
ALTER MATERIALIZED VIEW st_named SET (settings = '{TimeZone=Europe/Paris}');
ALTER MATERIALIZED VIEW st_named RESET (settings);
CREATE MATERIALIZED VIEW st_bad USING hummock WITH (settings = '{work_mem=1MB}') AS SELECT id FROM stamps;
CREATE MATERIALIZED VIEW st_bad USING hummock WITH (settings = '{TimeZone=Mars/Base}') AS SELECT id FROM stamps;
CREATE MATERIALIZED VIEW st_bad USING hummock WITH (settings = '{TimeZone}') AS SELECT id FROM stamps;
CREATE MATERIALIZED VIEW st_bad USING hummock WITH (settings = 'UTC') AS SELECT id FROM stamps;
DROP MATERIALIZED VIEW st_session, st_named, st_later;
DROP TABLE stamps;
-- rows of a view are the engine's: DML and TRUNCATE are refused
INSERT INTO large_sales VALUES (1, 1);
TRUNCATE large_sales;
-- a source column a view uses keeps its type (Postgres's own rule for views)
ALTER TABLE sales ALTER COLUMN amount TYPE float8;
DROP TABLE sales;
DROP MATERIALIZED VIEW large_sales;
DROP MATERIALIZED VIEW large_sales CASCADE;
DROP MATERIALIZED VIEW reports.by_region, later;
SELECT name FROM hummock_stream.jobs;

-- refused
CREATE MATERIALIZED VIEW m_ts USING hummock TABLESPACE pg_default AS SELECT id FROM sales;
CREATE MATERIALIZED VIEW m_opt USING hummock WITH (fillfactor = 50) AS SELECT id FROM sales;
CREATE MATERIALIZED VIEW m_cols (a, b) USING hummock AS SELECT id FROM sales;
-- a materialized view of another access method is Postgres's own
CREATE MATERIALIZED VIEW plain AS SELECT count(*) AS n FROM sales;
REFRESH MATERIALIZED VIEW plain;
SELECT * FROM plain;
DROP MATERIALIZED VIEW plain;

-- a view created in a transaction is maintained once it commits: waiting
-- for it inside the transaction is refused, and a wait for all views
-- passes over it
BEGIN;
CREATE MATERIALIZED VIEW m_in_xact USING hummock AS SELECT count(*) AS n FROM sales;
SELECT * FROM m_in_xact;
SELECT hummock_stream.wait(NULL, NULL);
SAVEPOINT s;
SELECT hummock_stream.wait('m_in_xact');
ROLLBACK TO s;
COMMIT;
SELECT hummock_stream.wait('m_in_xact');
SELECT * FROM m_in_xact;

-- a wait for a view whose table this transaction locks (TRUNCATE, ALTER
-- TABLE, LOCK TABLE) would wait for itself: refused at once
BEGIN;
TRUNCATE sales;
SAVEPOINT s;
SELECT hummock_stream.wait('m_in_xact');
ROLLBACK TO s;
SELECT hummock_stream.wait(NULL, NULL);
ROLLBACK;
BEGIN;
LOCK TABLE sales IN SHARE MODE;		-- (the views read it still)
SELECT hummock_stream.wait('m_in_xact');
COMMIT;
SELECT * FROM m_in_xact;

-- DDL in REPEATABLE READ and SERIALIZABLE transactions whose snapshot
-- predates the barrier manager's last commits (it updates the version head
-- and every view's position at each barrier): hummock_stream reads and
-- writes its catalog with the latest snapshot there, as Postgres does its
-- own, instead of failing with 40001.
CREATE FUNCTION await_commit_after_snapshot() RETURNS void LANGUAGE plpgsql AS $$
DECLARE deadline timestamptz := clock_timestamp() + interval '120 s';
BEGIN
	-- (barriers() reads shared memory, not this transaction's snapshot)
	WHILE NOT EXISTS (SELECT FROM hummock_stream.barriers()
					   WHERE committed_at > transaction_timestamp() + interval '0.2 s') LOOP
		IF clock_timestamp() > deadline THEN
			RAISE EXCEPTION 'no barrier committed';
		END IF;
		PERFORM pg_sleep(0.02);
	END LOOP;
END $$;
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT count(*) FROM sales;
SELECT await_commit_after_snapshot();
CREATE MATERIALIZED VIEW m_rr USING hummock AS
  SELECT region, count(*) AS n FROM sales GROUP BY region;
SELECT hummock_stream.create_materialized_view('m_rr2', 'SELECT count(*) AS n FROM sales');
COMMIT;
BEGIN ISOLATION LEVEL SERIALIZABLE;
SELECT count(*) FROM sales;
SELECT await_commit_after_snapshot();
ALTER MATERIALIZED VIEW m_rr RENAME TO m_rr_renamed;
INSERT INTO sales VALUES (1000, 'north', 5);
SELECT hummock_stream.drop_materialized_view('m_rr2');
COMMIT;
SELECT hummock_stream.wait('m_rr_renamed');
SELECT count(*) AS differ FROM ((TABLE m_rr_renamed EXCEPT ALL
  SELECT region, count(*) FROM sales GROUP BY region) UNION ALL
  (SELECT region, count(*) FROM sales GROUP BY region EXCEPT ALL TABLE m_rr_renamed)) d;
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT count(*) FROM sales;
SELECT await_commit_after_snapshot();
DROP MATERIALIZED VIEW m_rr_renamed;
COMMIT;
SELECT count(*) AS views_left FROM hummock_stream.jobs WHERE name::text LIKE 'm_rr%';
DROP FUNCTION await_commit_after_snapshot();

-- PREPARE TRANSACTION after creating or dropping a streaming view is
-- refused (0A000), as Postgres refuses it after using temporary objects:
-- prepared, it would hold the version head's lock, stopping every view of
-- the database until COMMIT PREPARED.  Other DDL of a view may be prepared.
BEGIN;
SELECT hummock_stream.create_materialized_view('m_prep', 'SELECT count(*) AS n FROM sales');
PREPARE TRANSACTION 'hs_prep';
SELECT count(*) AS prepared FROM pg_prepared_xacts;
SELECT hummock_stream.create_materialized_view('m_prep', 'SELECT count(*) AS n FROM sales');
BEGIN;
SELECT hummock_stream.drop_materialized_view('m_prep');
PREPARE TRANSACTION 'hs_prep';
BEGIN;
ALTER MATERIALIZED VIEW m_prep RENAME TO m_prep2;
PREPARE TRANSACTION 'hs_prep';
COMMIT PREPARED 'hs_prep';
INSERT INTO sales VALUES (1001, 'south', 1);
SELECT hummock_stream.wait('m_prep2');
SELECT n = (SELECT count(*) FROM sales) AS current FROM m_prep2;
DROP MATERIALIZED VIEW m_prep2;

-- inside a transaction block the creation locks its sources against
-- writers until the transaction ends: a role that may only read them may
-- not (42501, as LOCK TABLE ... IN SHARE ROW EXCLUSIVE MODE); from
-- autocommit it creates the view concurrently
CREATE ROLE reader_only;
GRANT SELECT ON sales TO reader_only;
GRANT CREATE, USAGE ON SCHEMA public TO reader_only;
SET ROLE reader_only;
BEGIN;
SELECT hummock_stream.create_materialized_view('m_reader', 'SELECT count(*) AS n FROM sales');
ROLLBACK;
SELECT hummock_stream.create_materialized_view('m_reader', 'SELECT count(*) AS n FROM sales');
SELECT n = (SELECT count(*) FROM sales) AS current FROM m_reader;
SELECT hummock_stream.drop_materialized_view('m_reader');
-- so does REFRESH of an unpopulated view, which backfills it in its
-- transaction (as a restore does), from autocommit too; a superuser
-- restoring it may, the view staying its owner's
CREATE MATERIALIZED VIEW m_reader_nd USING hummock AS SELECT count(*) AS n FROM sales WITH NO DATA;
REFRESH MATERIALIZED VIEW m_reader_nd;
RESET ROLE;
REFRESH MATERIALIZED VIEW m_reader_nd;
SELECT n = (SELECT count(*) FROM sales) AS current FROM m_reader_nd;
SELECT relowner::regrole FROM pg_class WHERE oid = 'm_reader_nd'::regclass;
DROP MATERIALIZED VIEW m_reader_nd;
SET ROLE reader_only;
RESET ROLE;
DROP OWNED BY reader_only;
DROP ROLE reader_only;

SET client_min_messages = warning;	-- the capture log's name has an OID
DROP EXTENSION hummock_stream CASCADE;
RESET client_min_messages;
DROP TABLE sales;
DROP SCHEMA reports;
DROP ROLE matview_owner;
DROP FUNCTION heap_options(regclass);
