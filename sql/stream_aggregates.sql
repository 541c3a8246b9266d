-- Any aggregate in a streaming view.  count, sum, avg, min, max, bool_and
-- and bool_or keep retractable accumulators; every other call (array_agg,
-- string_agg, statistics, ordered-set, bit and user-defined aggregates,
-- DISTINCT or ORDER BY inside them, min/max under a linguistic collation)
-- is computed again by Postgres from the rows each group keeps, for every
-- group an epoch touches.  FILTER works on both kinds.  Each view is
-- checked against its query after every change.
CREATE EXTENSION hummock_stream;
CREATE EXTENSION hummock_stream_test;	-- views_differ(): each view against its query
CREATE TABLE s (id int PRIMARY KEY, g int, v int, note text, flag bool, amount numeric);
INSERT INTO s SELECT i, i % 4, (i * 7) % 11 - 3, 'n' || (i % 5), i % 3 = 0, (i % 6) * 1.25
  FROM generate_series(1, 40) i;
UPDATE s SET v = NULL WHERE id % 9 = 0;
UPDATE s SET note = NULL WHERE id % 13 = 0;


SELECT hummock_stream.create_materialized_view('a_arrays',
  $$SELECT g, array_agg(v ORDER BY v NULLS FIRST, id) AS vs, array_agg(DISTINCT note ORDER BY note) AS notes,
           string_agg(note, ',' ORDER BY id) AS joined, count(*) AS n
      FROM s GROUP BY g$$);
SELECT hummock_stream.create_materialized_view('a_filters',
  $$SELECT g, count(*) FILTER (WHERE flag) AS nflag, sum(v) FILTER (WHERE v > 0) AS pos,
           min(v) FILTER (WHERE flag) AS lo, count(DISTINCT v) FILTER (WHERE amount > 2) AS nd,
           avg(amount) FILTER (WHERE NOT flag) AS a, array_agg(id ORDER BY id) FILTER (WHERE v < 0) AS neg_ids
      FROM s GROUP BY g$$);
SELECT hummock_stream.create_materialized_view('a_stats',
  $$SELECT g, stddev(v) AS sd, variance(amount) AS var, var_pop(v) AS vp, regr_count(v, amount) AS rc,
           bit_and(v) AS ba, bit_or(v) AS bo, bit_xor(v) AS bx, bool_and(flag) FILTER (WHERE v IS NOT NULL) AS all_flag
      FROM s GROUP BY g$$);
SELECT hummock_stream.create_materialized_view('a_ordered_set',
  $$SELECT g, percentile_cont(0.5) WITHIN GROUP (ORDER BY v) AS med,
           percentile_disc(ARRAY[0.25, 0.75]) WITHIN GROUP (ORDER BY amount) AS quartiles,
           mode() WITHIN GROUP (ORDER BY note) AS common, rank(2) WITHIN GROUP (ORDER BY v) AS rank_of_2
      FROM s GROUP BY g$$);
SELECT hummock_stream.create_materialized_view('a_global',
  $$SELECT array_agg(id ORDER BY id) AS ids, string_agg(DISTINCT note, '|' ORDER BY note) AS notes,
           count(*) AS n, sum(v) AS total
      FROM s WHERE g = 9$$);
SELECT hummock_stream.create_materialized_view('a_having',
  $$SELECT g, string_agg(id::text, ',' ORDER BY id) AS ids
      FROM s GROUP BY g HAVING count(*) FILTER (WHERE flag) > 2 AND array_length(array_agg(id), 1) > 5$$);
SELECT hummock_stream.create_materialized_view('a_collation',
  $$SELECT flag, min(note COLLATE "en-x-icu") AS lo, max(note COLLATE "en-x-icu") AS hi FROM s GROUP BY flag$$);
-- a user's own aggregate: recomputed with its own functions, as its owner
CREATE FUNCTION my_concat(acc text, x int) RETURNS text LANGUAGE sql IMMUTABLE
  AS $$SELECT coalesce(acc || '-', '') || x::text$$;
CREATE AGGREGATE my_agg(int) (SFUNC = my_concat, STYPE = text);
SELECT hummock_stream.create_materialized_view('a_user',
  $$SELECT g, my_agg(id ORDER BY id) AS ids FROM s WHERE id <= 12 GROUP BY g$$);
-- a view over a view of recomputed aggregates
SELECT hummock_stream.create_materialized_view('a_over',
  $$SELECT cardinality(vs) AS len, count(*) AS groups FROM a_arrays GROUP BY cardinality(vs)$$);
SELECT * FROM hummock_stream_test.views_differ();
SELECT * FROM a_arrays ORDER BY g;
SELECT * FROM a_global;
SELECT * FROM a_user ORDER BY g;

-- deletes, updates that move rows between groups, NULLs, duplicates
DELETE FROM s WHERE id IN (1, 2, 3, 17);
UPDATE s SET g = (g + 1) % 4, v = v + 1 WHERE id % 5 = 0;
UPDATE s SET note = NULL, flag = NOT flag WHERE id % 7 = 0;
INSERT INTO s VALUES (41, 9, 5, 'x', true, 1), (42, 9, 5, 'x', true, 1), (43, 9, NULL, NULL, NULL, NULL);
SELECT hummock_stream.wait();
SELECT * FROM hummock_stream_test.views_differ();
SELECT * FROM a_global;
-- a group emptied, and filled again in a later epoch
DELETE FROM s WHERE g = 1;
SELECT hummock_stream.wait();
SELECT * FROM hummock_stream_test.views_differ();
SELECT count(*) AS groups_of_1 FROM a_arrays WHERE g = 1;
INSERT INTO s VALUES (50, 1, 2, 'z', false, 3);
DELETE FROM s WHERE g = 9;
SELECT hummock_stream.wait();
SELECT * FROM hummock_stream_test.views_differ();
SELECT * FROM a_arrays WHERE g = 1;
SELECT * FROM a_global;	-- over no rows: what Postgres shows over no rows

-- what each keeps: the second state table holds the kept rows
SELECT job, ordinal, holds FROM hummock_stream.state_tables
 WHERE job::text IN ('a_arrays', 'a_filters') ORDER BY job::text, ordinal;

-- Anonymous rows inside aggregates (jsonb_agg(ROW(...)), count(DISTINCT
-- (a, b))) are kept as the columns they are made of and made again where
-- the group is computed: a row's value names its row type by a number only
-- the process that made it knows.  a_rows_1, created over an empty table,
-- makes the compute worker number its row type first; a_rows_2's creator
-- numbers another the same, which the worker must not read as a_rows_1's.
CREATE TABLE s_later (id int PRIMARY KEY, v int);
SELECT hummock_stream.create_materialized_view('a_rows_1',
  $$SELECT v % 2 AS odd, jsonb_agg(ROW(v, id) ORDER BY id) AS r FROM s_later GROUP BY v % 2$$);
INSERT INTO s_later SELECT i, i FROM generate_series(1, 5) i;
SELECT hummock_stream.wait();
SELECT hummock_stream.create_materialized_view('a_rows_2',
  $$SELECT g, jsonb_agg(ROW(note, amount, id) ORDER BY id) AS r, count(DISTINCT (note, flag)) AS nd
      FROM s GROUP BY g$$);
UPDATE s SET note = 'changed' WHERE id IN (2, 3);
SELECT hummock_stream.wait();
SELECT * FROM hummock_stream_test.views_differ();
SELECT name, state FROM hummock_stream.jobs WHERE name::text LIKE 'a_rows%' ORDER BY name::text;
SELECT g, nd, r -> 0 AS first FROM a_rows_2 ORDER BY g;
-- refused: an anonymous row kept as a value (a join side's column)
SELECT hummock_stream.create_materialized_view('bad',
  $$SELECT a.id, b.r::text FROM s a JOIN (SELECT id, ROW(v, note) AS r FROM s) b ON a.g = b.id$$);

-- keys equal as the type says: jsonb numbers as numeric ({"x": 1.0} and
-- {"x": 1} one group, one join key, one distinct value)
CREATE TABLE js (id int PRIMARY KEY, j jsonb);
CREATE TABLE js2 (id int PRIMARY KEY, j jsonb);
INSERT INTO js VALUES (1, '{"x": 1.0}'), (2, '{"x": 1}'), (3, '[1, {"y": 2.50}]');
INSERT INTO js2 VALUES (1, '{"x": 1.00}'), (2, '[1.0, {"y": 2.5}]');
SELECT hummock_stream.create_materialized_view('a_json_groups',
  $$SELECT j -> 'x' AS x, count(*) AS n FROM js GROUP BY j -> 'x'$$);
SELECT hummock_stream.create_materialized_view('a_json_join',
  $$SELECT js.id, js2.id AS id2 FROM js JOIN js2 ON js.j = js2.j$$);
SELECT hummock_stream.create_materialized_view('a_json_distinct',
  $$SELECT count(DISTINCT j) AS n FROM js$$);
INSERT INTO js VALUES (4, '{"x": 1.000}'), (5, '[1.00, {"y": 2.5000}]');
SELECT hummock_stream.wait();
SELECT * FROM hummock_stream_test.views_differ();
SELECT n FROM a_json_groups ORDER BY n;
SELECT * FROM a_json_join ORDER BY id;
-- refused: keys of a type whose equal values may differ in their bytes
-- and that has no hash function to group them by (tsvector); citext,
-- numrange and nondeterministic collations are grouped by their hash
-- (stream_hashed_keys)
CREATE TABLE rg (id int PRIMARY KEY, t tsvector);
SELECT hummock_stream.create_materialized_view('bad', $$SELECT t, count(*) FROM rg GROUP BY t$$);
SELECT hummock_stream.create_materialized_view('bad', $$SELECT DISTINCT t FROM rg$$);
-- such a type tells stored rows apart: a citext primary key, a view
-- without a key (rows by their bytes)
CREATE EXTENSION citext;
CREATE TABLE mails (email citext PRIMARY KEY, n int);
CREATE TABLE mails_nokey (email citext, n int);
INSERT INTO mails VALUES ('Ann@x', 1), ('bob@x', 2);
INSERT INTO mails_nokey VALUES ('Ann@x', 1), ('ann@X', 1);
SELECT hummock_stream.create_materialized_view('a_mails', $$SELECT email, n FROM mails$$);
SELECT hummock_stream.create_materialized_view('a_mails_nokey', $$SELECT email, n FROM mails_nokey$$);
UPDATE mails SET email = 'ANN@x' WHERE n = 1;
DELETE FROM mails_nokey WHERE email::text = 'ann@X';
SELECT hummock_stream.wait();
SELECT * FROM a_mails ORDER BY n;
SELECT * FROM a_mails_nokey ORDER BY n;

-- columns shown through a grouped primary key (functional dependency):
-- the view groups by them too; it depends on the key as Postgres's own
-- views do, and a type that cannot be a group key is refused
CREATE TABLE fd_dept (id int PRIMARY KEY, name text, region text, spot point);
CREATE TABLE fd_emp (id int PRIMARY KEY, dept int, pay int);
INSERT INTO fd_dept SELECT i, 'd' || i, CASE WHEN i % 2 = 0 THEN 'east' END, point(i, i)
  FROM generate_series(1, 6) i;
INSERT INTO fd_emp SELECT i, i % 7, i * 10 FROM generate_series(1, 40) i;
SELECT hummock_stream.create_materialized_view('a_fd',
  $$SELECT d.id, d.name, d.region, count(e.id) AS n, sum(e.pay) AS pay
      FROM fd_dept d LEFT JOIN fd_emp e ON e.dept = d.id GROUP BY d.id$$);
SELECT hummock_stream.create_materialized_view('a_fd_having',
  $$SELECT upper(x.name) AS name, count(*) AS n
      FROM (fd_dept d JOIN (SELECT dept, pay FROM fd_emp) e ON e.dept = d.id) x
     GROUP BY x.id HAVING x.name <> 'd3' AND count(*) > 1$$);
SELECT * FROM a_fd ORDER BY id;
UPDATE fd_dept SET name = name || '!', region = 'west' WHERE id IN (1, 4);
UPDATE fd_emp SET dept = 4 WHERE id % 5 = 0;
INSERT INTO fd_dept VALUES (7, 'd7', NULL, NULL);
DELETE FROM fd_emp WHERE dept = 2;
SELECT hummock_stream.wait();
SELECT * FROM hummock_stream_test.views_differ();
SELECT * FROM a_fd ORDER BY id;
SELECT * FROM a_fd_having ORDER BY name;
-- with GROUPING SETS, the key grouped in every set: the columns join every set
SELECT hummock_stream.create_materialized_view('a_fd_sets',
  $$SELECT d.name, e.pay % 3 AS m, count(*) AS n, grouping(e.pay % 3) AS g
      FROM fd_dept d JOIN fd_emp e ON e.dept = d.id GROUP BY d.id, ROLLUP (e.pay % 3)$$);
UPDATE fd_dept SET name = name || '?' WHERE id IN (3, 4);
UPDATE fd_emp SET pay = pay + 10 WHERE id % 3 = 0;
SELECT hummock_stream.wait();
SELECT * FROM hummock_stream_test.views_differ() WHERE view::text LIKE 'a\_fd%';
ALTER TABLE fd_dept DROP CONSTRAINT fd_dept_pkey;	-- refused: the views rely on it
SELECT hummock_stream.create_materialized_view('bad',
  $$SELECT d.id, d.spot, count(*) FROM fd_dept d GROUP BY d.id$$);

-- refused: direct arguments of an ordered-set aggregate that read a column
SELECT hummock_stream.create_materialized_view('bad',
  $$SELECT g, percentile_cont(g / 10.0) WITHIN GROUP (ORDER BY v) FROM s GROUP BY g$$);

-- float sums are exact: a large value added and deleted again leaves the
-- small ones' sum as it was, and a deleted value leaves no rounding residue
CREATE TABLE fl (id int PRIMARY KEY, g int, f float8, r real);
INSERT INTO fl VALUES (1, 1, 0.1, 0.1), (2, 1, 0.2, 0.2), (3, 1, 1e20, 1e10),
  (4, 2, 0.3, 0.3), (5, 2, 0.7, 0.7), (6, 3, 1e308, 1e38);
SELECT hummock_stream.create_materialized_view('a_fl',
  'SELECT g, sum(f) AS sf, avg(f) AS af, sum(r) AS sr, avg(r) AS ar, count(*) FROM fl GROUP BY g');
SELECT hummock_stream.create_materialized_view('a_fl_all',
  'SELECT sum(f) AS sf, avg(f) AS af, sum(DISTINCT f) AS sdf FROM fl WHERE g < 3');
DELETE FROM fl WHERE id IN (3, 5);
SELECT hummock_stream.wait();
SELECT * FROM a_fl ORDER BY g;
SELECT g, sum(f) AS sf, avg(f) AS af, sum(r) AS sr, avg(r) AS ar, count(*) FROM fl GROUP BY g ORDER BY g;
SELECT * FROM a_fl_all;
DELETE FROM fl WHERE id = 2;
SELECT hummock_stream.wait();
SELECT * FROM a_fl ORDER BY g;
SELECT * FROM a_fl_all;
SELECT * FROM hummock_stream_test.views_differ() WHERE view::text LIKE 'a\_fl%';
SELECT ordinal, holds FROM hummock_stream.state_tables WHERE job = 'a_fl'::regclass ORDER BY ordinal;

SET client_min_messages = warning;	-- the capture log's name has an OID
DROP EXTENSION hummock_stream CASCADE;
RESET client_min_messages;
DROP AGGREGATE my_agg(int);
DROP FUNCTION my_concat(text, int);
DROP TABLE s, s_later, js, js2, rg, mails, mails_nokey, fd_dept, fd_emp, fl;
DROP EXTENSION citext;
