-- INTERSECT and EXCEPT, with and without ALL, alone, nested and mixed
-- with UNION, over tables with and without keys: each distinct row is
-- counted on both sides, and the view shows as many copies as SQL says.
CREATE EXTENSION hummock_stream;
CREATE EXTENSION hummock_stream_test;	-- views_differ(): each view against its query
CREATE TABLE sa (id int PRIMARY KEY, k int, note text);
CREATE TABLE sb (k int, note text);		-- no key: duplicate rows
INSERT INTO sa SELECT i, i % 5, CASE WHEN i % 7 = 0 THEN NULL ELSE 'n' || (i % 3) END FROM generate_series(1, 20) i;
INSERT INTO sb SELECT i % 4, CASE WHEN i % 5 = 0 THEN NULL ELSE 'n' || (i % 2) END FROM generate_series(1, 14) i;


SELECT hummock_stream.create_materialized_view('s_intersect', 'SELECT k, note FROM sa INTERSECT SELECT k, note FROM sb');
SELECT hummock_stream.create_materialized_view('s_intersect_all', 'SELECT k, note FROM sa INTERSECT ALL SELECT k, note FROM sb');
SELECT hummock_stream.create_materialized_view('s_except', 'SELECT k, note FROM sa EXCEPT SELECT k, note FROM sb');
SELECT hummock_stream.create_materialized_view('s_except_all', 'SELECT k, note FROM sb EXCEPT ALL SELECT k, note FROM sa');
SELECT hummock_stream.create_materialized_view('s_mixed',
  '(SELECT k FROM sa EXCEPT SELECT k FROM sb WHERE note IS NULL) UNION ALL (SELECT k FROM sb INTERSECT ALL SELECT k FROM sa)');
SELECT hummock_stream.create_materialized_view('s_agg_over',
  'SELECT k, count(*) AS copies FROM (SELECT k FROM sb EXCEPT ALL SELECT k FROM sa WHERE id > 15) e GROUP BY k');
SELECT * FROM hummock_stream_test.views_differ();
SELECT * FROM s_intersect_all ORDER BY k, note;
SELECT * FROM s_except_all ORDER BY k, note;
-- an input that reads no table (a sentinel row, a VALUES list, a series)
-- is computed once, when the view is planned
SELECT hummock_stream.create_materialized_view('s_sentinel', 'SELECT k, note FROM sa UNION ALL SELECT 0, ''total''');
SELECT hummock_stream.create_materialized_view('s_values',
  'SELECT k FROM sb UNION SELECT v FROM (VALUES (1), (7), (NULL)) t(v)');
SELECT hummock_stream.create_materialized_view('s_minus_series',
  'SELECT g FROM pg_catalog.generate_series(0, 6) g EXCEPT SELECT k FROM sa');
SELECT hummock_stream.create_materialized_view('s_in_series',
  'SELECT k FROM sb INTERSECT ALL SELECT g FROM pg_catalog.generate_series(1, 3) g');
SELECT * FROM hummock_stream_test.views_differ();
SELECT * FROM s_minus_series ORDER BY g;

-- changes on both sides: rows appear and disappear, copies come and go
DELETE FROM sa WHERE id IN (1, 2, 3);
INSERT INTO sb VALUES (1, 'n1'), (1, 'n1'), (4, NULL), (9, 'x');
UPDATE sa SET note = NULL WHERE id = 10;
DELETE FROM sb WHERE k = 0;
SELECT hummock_stream.wait();
SELECT * FROM hummock_stream_test.views_differ();
SELECT * FROM s_intersect_all ORDER BY k, note;
SELECT * FROM s_except_all ORDER BY k, note;
SELECT * FROM s_minus_series ORDER BY g;
SELECT * FROM s_sentinel WHERE note = 'total';

SET client_min_messages = warning;	-- the capture log's name has an OID
DROP EXTENSION hummock_stream CASCADE;
RESET client_min_messages;
DROP TABLE sa, sb;
