-- Outer joins of tables with FROM items that read no table: a calendar (a
-- VALUES list, generate_series, a recursive WITH query or a subquery that
-- reads no table) LEFT JOIN the facts keeps its days without facts; the
-- facts LEFT JOIN a VALUES list of labels; FULL and RIGHT joins; a join
-- on inequalities (buckets).  Such an item is a constant input of the
-- view: its rows are computed when the view is planned, pushed once by the
-- backfill, and hash-joined as a table's.  Every view equals its query
-- after each round of changes.
CREATE EXTENSION hummock_stream;
CREATE EXTENSION hummock_stream_test;	-- views_differ(): each view against its query

CREATE TABLE sales (id int PRIMARY KEY, day date, region text, qty int);
INSERT INTO sales SELECT g, date '2026-01-01' + (g % 7), CASE g % 3 WHEN 0 THEN 'east' WHEN 1 THEN 'west' END, g
  FROM generate_series(1, 30) g;

-- every day of a week, with its sales (0 on a day without)
SELECT hummock_stream.create_materialized_view('c_days', $$
  SELECT d::date AS day, count(s.id) AS n, coalesce(sum(s.qty), 0) AS qty
    FROM generate_series(date '2026-01-01', date '2026-01-10', interval '1 day') d
    LEFT JOIN sales s ON s.day = d::date GROUP BY 1$$);
-- the same calendar as a recursive WITH query, joined from the right
SELECT hummock_stream.create_materialized_view('c_days_rec', $$
  WITH RECURSIVE days(day) AS (SELECT date '2026-01-03' UNION ALL SELECT day + 1 FROM days WHERE day < '2026-01-12')
  SELECT days.day, s.id FROM sales s RIGHT JOIN days ON s.day = days.day AND s.qty > 10$$);
-- labels of a code list (duplicates and NULL keys included) on the facts
SELECT hummock_stream.create_materialized_view('c_labels', $$
  SELECT s.id, l.label FROM sales s
    LEFT JOIN (VALUES ('east', 'E'), ('west', 'W'), ('west', 'W2'), (NULL, 'none')) l(region, label)
      ON l.region = s.region$$);
-- a FULL JOIN with a subquery that reads no table
SELECT hummock_stream.create_materialized_view('c_full', $$
  SELECT r.region AS listed, s.region, count(s.id) AS n
    FROM (SELECT unnest(ARRAY['east', 'north']) AS region) r
    FULL JOIN sales s ON s.region = r.region GROUP BY 1, 2$$);
-- buckets: a join on inequalities
SELECT hummock_stream.create_materialized_view('c_buckets', $$
  SELECT b.lo, b.hi, count(s.id) AS n, max(s.qty) AS top
    FROM (VALUES (0, 10), (10, 20), (20, 1000), (1000, 2000)) b(lo, hi)
    LEFT JOIN sales s ON s.qty >= b.lo AND s.qty < b.hi GROUP BY b.lo, b.hi$$);
-- an inner join to a large constant (64 rows or more) on an equality: a
-- hash join with the constant as an input; a small one runs over each row
SELECT hummock_stream.create_materialized_view('c_inner_big', $$
  SELECT s.id, g FROM sales s JOIN generate_series(1, 1000) g ON g = s.qty * 2 AND g % 3 > 0$$);
SELECT hummock_stream.create_materialized_view('c_inner_small', $$
  SELECT s.id, g FROM sales s, generate_series(1, 10) g WHERE g = s.qty$$);
-- constants without rows: an empty recursive WITH query on either side
SELECT hummock_stream.create_materialized_view('c_empty', $$
  WITH RECURSIVE none(n) AS (SELECT 1 WHERE false UNION ALL SELECT n + 1 FROM none WHERE n < 3)
  SELECT s.id, z.n FROM sales s FULL JOIN none z ON z.n = s.qty
   WHERE s.id IN (SELECT n FROM none) OR s.id < 5 OR s.id IS NULL$$);
-- inner joins with a subquery that reads no table (parameters of the
-- query, a short list): constant inputs too, in a FROM list, a WITH query
-- or a JOIN, also nested in a join whose columns the query reads by alias
SELECT hummock_stream.create_materialized_view('c_params', $$
  SELECT s.id, s.qty * p.rate AS cost, p.tag FROM sales s CROSS JOIN (SELECT 0.5 AS rate, 'x' AS tag) p$$);
SELECT hummock_stream.create_materialized_view('c_params_with', $$
  WITH p AS (SELECT 10 AS lim) SELECT s.id FROM sales s, p WHERE s.qty > p.lim$$);
SELECT hummock_stream.create_materialized_view('c_params_alias', $$
  SELECT j.region, j.k, count(*) AS n
    FROM (sales s JOIN (SELECT 1 AS k UNION ALL SELECT 2) c ON c.k <= s.qty % 3) j
   GROUP BY j.region, j.k$$);
SELECT * FROM hummock_stream_test.views_differ();
SELECT * FROM c_days ORDER BY day;
SELECT * FROM c_buckets ORDER BY lo;
-- the constant is an operator of the view's fragment
SELECT job, operators FROM hummock_stream.fragments
 WHERE job::text IN ('c_days', 'c_labels', 'c_inner_big', 'c_inner_small') ORDER BY 1;

-- rounds of changes: days gaining and losing their only sale, NULL keys
INSERT INTO sales VALUES (100, '2026-01-09', 'west', 5), (101, '2026-01-11', NULL, 15),
  (102, '2026-01-10', 'north', 1500);
DELETE FROM sales WHERE day = '2026-01-02';
UPDATE sales SET region = NULL WHERE id = 3;
UPDATE sales SET qty = qty * 100 WHERE id % 4 = 0;
SELECT hummock_stream.wait();
SELECT * FROM hummock_stream_test.views_differ();
SELECT * FROM c_days ORDER BY day;

-- more rounds (test/t/006_stream_crash.pl kills the workers under such a view)
DELETE FROM sales WHERE id >= 100;
INSERT INTO sales VALUES (200, '2026-01-02', 'east', 7);
SELECT hummock_stream.wait();
SELECT * FROM hummock_stream_test.views_differ();
SELECT * FROM c_days ORDER BY day;

-- a view over such a view
SELECT hummock_stream.create_materialized_view('c_days_busy', $$
  SELECT count(*) AS days, sum(n) AS sales FROM c_days WHERE n > 0$$);
DELETE FROM sales WHERE day = '2026-01-05';
SELECT hummock_stream.wait();
SELECT * FROM hummock_stream_test.views_differ();

-- views that read no table at all: computed once when created, never
-- changed; a view over one, joined with a table, follows the table
SELECT hummock_stream.create_materialized_view('k_one', $$SELECT 1 AS x, text 'a' AS y$$);
SELECT hummock_stream.create_materialized_view('k_values', $$
  SELECT * FROM (VALUES (1, 'east'), (2, 'west'), (2, 'west'), (3, NULL)) v(n, region)$$);
SELECT hummock_stream.create_materialized_view('k_series', $$
  SELECT count(*) AS n, sum(g) AS total FROM generate_series(1, 100) g$$);
SELECT hummock_stream.create_materialized_view('k_rec', $$
  WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n * 2 FROM t WHERE n < 500)
  SELECT n FROM t ORDER BY n DESC LIMIT 3$$);
SELECT hummock_stream.create_materialized_view('k_none', 'SELECT 1 AS x WHERE false');
SELECT hummock_stream.create_materialized_view('k_bg', 'SELECT 2 AS x', wait => false);
SELECT hummock_stream.wait('k_bg');
SELECT hummock_stream.create_materialized_view('k_regions', $$
  SELECT v.region, count(s.id) AS n FROM k_values v LEFT JOIN sales s ON s.region = v.region
   GROUP BY 1$$);
SELECT * FROM k_one;
SELECT * FROM k_values ORDER BY 1, 2;
SELECT * FROM k_series;
SELECT * FROM k_rec ORDER BY 1;
SELECT count(*) FROM k_none;
SELECT name, state, sources FROM hummock_stream.jobs WHERE name::text LIKE 'k\_%' ORDER BY 1;
SELECT job, operators FROM hummock_stream.fragments WHERE job::text IN ('k_one', 'k_values') ORDER BY 1;
INSERT INTO sales VALUES (300, '2026-01-03', 'west', 4);
SELECT hummock_stream.wait();
SELECT * FROM hummock_stream_test.views_differ();
SELECT * FROM k_regions ORDER BY 1;
-- alone, the current time and volatile functions are refused as elsewhere;
-- so is a constant of more rows than a constant may have (54000)
SELECT hummock_stream.create_materialized_view('bad', 'SELECT now() AS t');
SELECT hummock_stream.create_materialized_view('bad', 'SELECT random() AS r');
SELECT hummock_stream.create_materialized_view('bad', 'SELECT g FROM generate_series(1, 2000000) g');
SELECT hummock_stream.drop_materialized_view(v) FROM unnest(ARRAY['k_regions', 'k_one', 'k_values', 'k_series', 'k_rec', 'k_none', 'k_bg']) v;

-- refused, with the reason
-- a volatile function or the current time in the constant
SELECT hummock_stream.create_materialized_view('bad', $$
  SELECT v.x, s.id FROM (VALUES (random())) v(x) LEFT JOIN sales s ON s.qty < v.x$$);
SELECT hummock_stream.create_materialized_view('bad', $$
  SELECT d, s.id FROM generate_series(now(), now() + interval '1 day', interval '1 hour') d
    LEFT JOIN sales s ON s.day = d::date$$);
-- more rows than a constant may have (54000)
SELECT hummock_stream.create_materialized_view('bad', $$
  SELECT g, s.id FROM generate_series(1, 2000000) g LEFT JOIN sales s ON s.qty = g$$);

SELECT hummock_stream.drop_materialized_view('c_days_busy');
SELECT hummock_stream.drop_materialized_view(v) FROM unnest(ARRAY['c_days', 'c_days_rec', 'c_labels', 'c_full', 'c_buckets', 'c_empty', 'c_inner_big', 'c_inner_small', 'c_params', 'c_params_with', 'c_params_alias']) v;
DROP TABLE sales;
DROP EXTENSION hummock_stream_test;
DROP EXTENSION hummock_stream;
