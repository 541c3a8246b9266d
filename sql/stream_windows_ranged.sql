-- Window functions that read a bounded number of rows around the current
-- one (lag/lead by a constant, aggregates, first_value, last_value and
-- nth_value over a ROWS frame with constant offsets): a change computes
-- again only the rows whose functions can read it, widened to whole peer
-- groups, reading their frames' rows around them; a partition with many
-- changes in an epoch is computed again from its first change to its
-- last.  Functions of the partition's rows up to the current one
-- (row_number, rank, dense_rank, running count/sum/min/max) compute again
-- from the change to the partition's end, adding their results over the
-- rows before, taken from what the peer group before showed.  Every view
-- is compared with its query after each round (ORDER BY keys are unique
-- here, or tie only between identical rows, but for functions whose
-- results peers share).  RANGE frames with offsets reach the rows
-- whose ORDER BY values in_range() puts in them.
CREATE EXTENSION hummock_stream;
CREATE EXTENSION hummock_stream_test;	-- views_differ(): each view against its query
CREATE TABLE wr (id int PRIMARY KEY, g int, v int, name text);
INSERT INTO wr SELECT i, i % 3, CASE WHEN i % 10 = 0 THEN NULL ELSE (i * 37) % 101 END,
    'n' || ((i * 7) % 50)
  FROM generate_series(1, 200) i;

SELECT hummock_stream.create_materialized_view('wr_lag',
  $$SELECT id, g, v, lag(v) OVER w AS prev, lead(v, 2) OVER w AS next2,
           lag(v, -1, 0) OVER w AS back_lead, v - lag(v, 3, -1) OVER w AS d3
      FROM wr WINDOW w AS (PARTITION BY g ORDER BY id)$$);
SELECT hummock_stream.create_materialized_view('wr_moving',
  $$SELECT id, g,
           avg(v) OVER (PARTITION BY g ORDER BY id ROWS BETWEEN 2 PRECEDING AND 1 FOLLOWING) AS moving,
           sum(v) OVER (PARTITION BY g ORDER BY id ROWS BETWEEN 1 FOLLOWING AND 3 FOLLOWING) AS ahead,
           count(v) OVER (PARTITION BY g ORDER BY id ROWS BETWEEN 2 PRECEDING AND 2 FOLLOWING EXCLUDE CURRENT ROW) AS around,
           sum(v) FILTER (WHERE v > 50) OVER (PARTITION BY g ORDER BY id ROWS BETWEEN 3 PRECEDING AND 1 PRECEDING) AS big_before
      FROM wr$$);
-- no PARTITION BY: one partition
SELECT hummock_stream.create_materialized_view('wr_global',
  $$SELECT id, first_value(v) OVER (ORDER BY id ROWS BETWEEN 3 PRECEDING AND CURRENT ROW) AS f,
           last_value(v) OVER (ORDER BY id ROWS BETWEEN CURRENT ROW AND 2 FOLLOWING) AS l,
           nth_value(v, 2) OVER (ORDER BY id ROWS BETWEEN 2 PRECEDING AND 2 FOLLOWING) AS n2
      FROM wr$$);
-- descending with NULLs first, a text key under the database's collation
SELECT hummock_stream.create_materialized_view('wr_desc',
  $$SELECT id, v, lag(id) OVER (ORDER BY v DESC NULLS FIRST, id) AS before_me
      FROM wr$$);
SELECT hummock_stream.create_materialized_view('wr_text',
  $$SELECT id, name, lead(id) OVER (PARTITION BY g ORDER BY name, id) AS next_by_name
      FROM wr$$);
-- over groups
SELECT hummock_stream.create_materialized_view('wr_groups',
  $$SELECT v % 7 AS k, count(*) AS n, count(*) - lag(count(*)) OVER (ORDER BY v % 7) AS growth
      FROM wr GROUP BY v % 7 HAVING count(*) > 1$$);
-- identical rows tie: their results are the same whichever comes first
CREATE TABLE wd (v int);
INSERT INTO wd SELECT i % 5 FROM generate_series(1, 20) i;
SELECT hummock_stream.create_materialized_view('wr_dups',
  'SELECT v, lag(v) OVER (ORDER BY v) AS p, sum(v) OVER (ORDER BY v ROWS 1 PRECEDING) AS s2 FROM wd');
-- from a change to the partition's end: a row number, running
-- aggregates (a RANGE frame, the default), with a bounded function
SELECT hummock_stream.create_materialized_view('wr_prefix',
  $$SELECT id, g, row_number() OVER w AS rn, sum(v) OVER w AS running,
           count(v) OVER w AS n, max(v) OVER w AS top, lead(v) OVER w AS next
      FROM wr WINDOW w AS (PARTITION BY g ORDER BY id)$$);
-- peers (tied v) share rank(), dense_rank() and RANGE frames' results;
-- a ROWS frame's row_number-like numbering ties by id
SELECT hummock_stream.create_materialized_view('wr_rank',
  $$SELECT id, g, v, rank() OVER w AS r, dense_rank() OVER w AS dr,
           min(name) OVER w AS first_name, sum(v) OVER w AS running,
           count(*) OVER w AS n
      FROM wr WINDOW w AS (PARTITION BY g ORDER BY v DESC NULLS LAST)$$);
SELECT hummock_stream.create_materialized_view('wr_rows',
  $$SELECT id, sum(v::numeric / 3) OVER w AS s, bool_or(v > 90) OVER w AS any_big,
           rank() OVER (ORDER BY v, id) AS r, lag(id) OVER w AS p
      FROM wr WINDOW w AS (ORDER BY v, id ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)$$);
-- a ROWS frame's running sum over identical tied rows
SELECT hummock_stream.create_materialized_view('wr_dups_running',
  'SELECT v, sum(v) OVER (ORDER BY v ROWS UNBOUNDED PRECEDING) AS s, count(*) OVER (ORDER BY v ROWS UNBOUNDED PRECEDING) AS c FROM wd');
-- RANGE frames with offsets reach rows by their ORDER BY value: a time
-- window, a numeric one descending with NULLs, peers only
CREATE TABLE wt (ts timestamptz PRIMARY KEY, v int, x numeric);
INSERT INTO wt SELECT timestamptz '2026-01-01 00:00:00+00' + i * interval '7 minutes', i % 13,
    CASE WHEN i % 11 = 0 THEN NULL ELSE (i * 31) % 40 / 4.0 END
  FROM generate_series(1, 300) i;
SELECT hummock_stream.create_materialized_view('wr_time',
  $$SELECT ts, v, sum(v) OVER (ORDER BY ts RANGE BETWEEN interval '1 hour' PRECEDING AND CURRENT ROW) AS last_hour,
           count(*) OVER (ORDER BY ts RANGE BETWEEN interval '15 minutes' PRECEDING AND interval '20 minutes' FOLLOWING) AS around,
           lag(v) OVER (ORDER BY ts) AS prev
      FROM wt$$);
SELECT hummock_stream.create_materialized_view('wr_values',
  $$SELECT ts, x, sum(v) OVER w AS s, max(ts) OVER w AS latest,
           count(*) OVER (ORDER BY x DESC NULLS FIRST RANGE BETWEEN 1.5 FOLLOWING AND 3 FOLLOWING) AS below,
           count(*) OVER (ORDER BY x DESC NULLS FIRST RANGE BETWEEN CURRENT ROW AND CURRENT ROW) AS ties,
           rank() OVER (ORDER BY x DESC NULLS FIRST) AS r
      FROM wt WINDOW w AS (ORDER BY x DESC NULLS FIRST RANGE BETWEEN 2 PRECEDING AND 0.5 PRECEDING)$$);
-- one RANGE window read by functions that share peers and by some that
-- do not
SELECT hummock_stream.create_materialized_view('wr_shared',
  $$SELECT id, g, sum(v) OVER w AS s, lag(v) OVER w AS p, row_number() OVER w AS rn
      FROM wr WINDOW w AS (PARTITION BY g ORDER BY id RANGE BETWEEN 5 PRECEDING AND 2 FOLLOWING)$$);
-- computed whole per partition: functions of the partition's size, a
-- frame to its end, an offset that is not a constant
SELECT hummock_stream.create_materialized_view('wr_whole',
  $$SELECT id, ntile(4) OVER (PARTITION BY g ORDER BY id) AS quarter,
           sum(v) OVER (PARTITION BY g ORDER BY id ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) AS rest
      FROM wr$$);
SELECT hummock_stream.create_materialized_view('wr_whole_offset',
  'SELECT id, lag(v, g) OVER (ORDER BY id) AS p FROM wr');
SELECT job, operators FROM hummock_stream.fragments
 WHERE job::text LIKE 'wr%' ORDER BY job::text;
SELECT job, ordinal, holds FROM hummock_stream.state_tables
 WHERE job = 'wr_lag'::regclass ORDER BY ordinal;
SELECT * FROM hummock_stream_test.views_differ();

-- rows added in the middle and at both ends, the first and last of a
-- partition deleted, values and partitions changed
INSERT INTO wr VALUES (0, 0, 5, 'a'), (1000, 1, 6, 'zz'), (-5, 2, NULL, 'n55');
DELETE FROM wr WHERE id IN (3, 4, 198, 200, 150);
UPDATE wr SET v = v + 1 WHERE id IN (10, 11, 12);
UPDATE wr SET g = (g + 1) % 3 WHERE id IN (20, 21);
UPDATE wr SET name = 'a' || name WHERE id = 30;
INSERT INTO wd VALUES (2), (2), (9);
DELETE FROM wd WHERE ctid = (SELECT min(ctid) FROM wd WHERE v = 0);
INSERT INTO wt VALUES (timestamptz '2026-01-01 05:02:30+00', 100, 3.5),
    (timestamptz '2026-01-05 00:00:00+00', 7, NULL);
DELETE FROM wt WHERE ts = timestamptz '2026-01-01 00:07:00+00' + interval '70 minutes';
UPDATE wt SET x = x + 1.25, v = v + 1 WHERE extract(minute FROM ts)::int % 9 = 2;
SELECT hummock_stream.wait();
SELECT * FROM hummock_stream_test.views_differ();
SELECT * FROM wr_lag WHERE g = 0 ORDER BY id LIMIT 5;

-- many changes in one epoch: a bulk append, scattered updates
INSERT INTO wr SELECT i, i % 3, i % 17, 'b' || i FROM generate_series(1001, 1400) i;
UPDATE wr SET v = coalesce(v, 0) + 3 WHERE id % 9 = 4;
SELECT hummock_stream.wait();
SELECT * FROM hummock_stream_test.views_differ();

-- a whole partition goes, then every row
DELETE FROM wr WHERE g = 1;
SELECT hummock_stream.wait();
SELECT * FROM hummock_stream_test.views_differ();
DELETE FROM wr;
DELETE FROM wd;
DELETE FROM wt;
SELECT hummock_stream.wait();
SELECT * FROM hummock_stream_test.views_differ();
SELECT count(*) FROM wr_lag;
INSERT INTO wr VALUES (1, 0, 1, 'x'), (2, 0, 2, 'y');
SELECT hummock_stream.wait();
SELECT * FROM wr_lag ORDER BY id;
SELECT * FROM hummock_stream_test.views_differ();

SET client_min_messages = warning;	-- the capture log's name has an OID
DROP EXTENSION hummock_stream CASCADE;
RESET client_min_messages;
DROP TABLE wr, wd, wt;
