-- Orderings in streaming views: DISTINCT ON (the first row of each group
-- in the ORDER BY order, a Top-1 per group), NULLS FIRST / NULLS LAST in
-- Top-N, and ORDER BY without LIMIT (accepted as Postgres's CREATE
-- MATERIALIZED VIEW accepts it: a view has no order, a read orders it).
CREATE EXTENSION hummock_stream;
CREATE EXTENSION hummock_stream_test;	-- views_differ(): each view against its query
CREATE TABLE m (id int PRIMARY KEY, g int, v int, note text COLLATE "C");
INSERT INTO m SELECT i, i % 4, nullif((i * 7) % 10, 3), 'n' || (i % 6) FROM generate_series(1, 30) i;


SELECT hummock_stream.create_materialized_view('o_first_per_g',
  'SELECT DISTINCT ON (g) g, id, v FROM m ORDER BY g, v DESC NULLS LAST, id');
SELECT hummock_stream.create_materialized_view('o_first_nulls',
  'SELECT DISTINCT ON (g) g, id, v FROM m ORDER BY g, v NULLS FIRST, id');
SELECT hummock_stream.create_materialized_view('o_first_expr',
  'SELECT DISTINCT ON (v % 3) v % 3 AS k, note, id FROM m WHERE v IS NOT NULL ORDER BY v % 3, note DESC, id');
SELECT hummock_stream.create_materialized_view('o_first_then_limit',
  'SELECT DISTINCT ON (g) g, id, v FROM m ORDER BY g, id DESC LIMIT 2');
SELECT hummock_stream.create_materialized_view('o_nulls_first',
  'SELECT id, v FROM m ORDER BY v NULLS FIRST, id LIMIT 4');
SELECT hummock_stream.create_materialized_view('o_desc_nulls_last',
  'SELECT id, v FROM m ORDER BY v DESC NULLS LAST, id LIMIT 4');
SELECT hummock_stream.create_materialized_view('o_group_nulls',
  $$SELECT g, id, v FROM (SELECT g, id, v, row_number() OVER (PARTITION BY g ORDER BY v ASC NULLS FIRST, id) AS rn FROM m) s WHERE rn <= 2$$);
SELECT hummock_stream.create_materialized_view('o_ordered', 'SELECT id, v FROM m WHERE v > 5 ORDER BY v DESC, id');
SELECT * FROM hummock_stream_test.views_differ();
SELECT * FROM o_first_per_g ORDER BY g;
SELECT * FROM o_nulls_first ORDER BY v NULLS FIRST, id;

-- the first row of a group deleted, NULLs coming and going
DELETE FROM m WHERE id IN (SELECT id FROM o_first_per_g);
UPDATE m SET v = NULL WHERE id % 5 = 0;
UPDATE m SET v = 100 WHERE id = 7;
INSERT INTO m VALUES (31, 2, NULL, 'z'), (32, 5, 1, 'y');
SELECT hummock_stream.wait();
SELECT * FROM hummock_stream_test.views_differ();
SELECT * FROM o_first_per_g ORDER BY g;
SELECT * FROM o_nulls_first ORDER BY v NULLS FIRST, id;
SELECT * FROM o_desc_nulls_last ORDER BY v DESC NULLS LAST, id;

-- DISTINCT ON without more ORDER BY keys keeps one row of each group
SELECT hummock_stream.create_materialized_view('o_any_per_g', 'SELECT DISTINCT ON (g) g FROM m');
SELECT * FROM o_any_per_g ORDER BY g;

SET client_min_messages = warning;	-- the capture log's name has an OID
DROP EXTENSION hummock_stream CASCADE;
RESET client_min_messages;
DROP TABLE m;
