-- GROUPING SETS, ROLLUP and CUBE: one aggregation per grouping set, their
-- rows together; a grouping column a set does not group by is NULL in its
-- rows (outside aggregate calls), GROUPING() tells which, HAVING applies
-- per set, and the empty set is one row even over no rows.
CREATE EXTENSION hummock_stream;
CREATE EXTENSION hummock_stream_test;	-- views_differ(): each view against its query
CREATE TABLE sales (id int PRIMARY KEY, region text, product text, qty int, price numeric);
INSERT INTO sales SELECT i, CASE WHEN i % 3 = 0 THEN 'east' WHEN i % 3 = 1 THEN 'west' ELSE NULL END,
                        'p' || (i % 4), i % 7, (i % 5) * 2.5
  FROM generate_series(1, 60) i;

SELECT hummock_stream.create_materialized_view('g_rollup',
  'SELECT region, product, sum(qty) AS q, count(*) AS n FROM sales GROUP BY ROLLUP (region, product)');
SELECT hummock_stream.create_materialized_view('g_cube',
  $$SELECT region, product, GROUPING(region, product) AS g, max(price) AS top,
           string_agg(id::text, ',' ORDER BY id) FILTER (WHERE qty = 0) AS zeros
      FROM sales GROUP BY CUBE (region, product)$$);
SELECT hummock_stream.create_materialized_view('g_sets',
  $$SELECT region, product, qty % 2 AS odd, count(*) AS n FROM sales
     GROUP BY GROUPING SETS ((region), (product, qty % 2), ())
    HAVING count(*) > 2$$);
SELECT hummock_stream.create_materialized_view('g_top',
  'SELECT region, sum(qty) AS q FROM sales GROUP BY ROLLUP (region) ORDER BY sum(qty) DESC, region LIMIT 2');
SELECT hummock_stream.create_materialized_view('g_empty',
  'SELECT region, count(*) AS n FROM sales WHERE qty > 100 GROUP BY ROLLUP (region)');
-- window functions run over the rows of every grouping set (the total
-- row is ranked among the others), with GROUPING() in their keys too
SELECT hummock_stream.create_materialized_view('g_rank',
  'SELECT region, count(*) AS n, rank() OVER (ORDER BY region) AS r FROM sales GROUP BY ROLLUP (region)');
SELECT hummock_stream.create_materialized_view('g_share',
  $$SELECT region, product, count(*) AS n, sum(count(*)) OVER (PARTITION BY region) AS region_n,
           rank() OVER (PARTITION BY GROUPING(region, product) ORDER BY count(*) DESC, region, product) AS r
      FROM sales GROUP BY ROLLUP (region, product) HAVING count(*) > 1$$);
SELECT hummock_stream.create_materialized_view('g_rank_top',
  'SELECT region, sum(qty) AS q, rank() OVER (ORDER BY sum(qty) DESC) AS r FROM sales GROUP BY CUBE (region) ORDER BY r, region LIMIT 3');
-- set-returning functions over the groups of every set
SELECT hummock_stream.create_materialized_view('g_unnest',
  'SELECT region, unnest(array_agg(id ORDER BY id)) AS id FROM sales WHERE qty < 20 GROUP BY ROLLUP (region)');
-- GROUPING() at a level with a plain GROUP BY is 0
SELECT hummock_stream.create_materialized_view('g_plain_grouping',
  $$SELECT region, GROUPING(region) AS g, count(*) AS n, sum(count(*)) OVER (PARTITION BY GROUPING(region)) AS t
      FROM sales GROUP BY region HAVING GROUPING(region) = 0$$);
-- a grouping expression keeps its value in its sets even when a part of it
-- is grouped only in other sets: (abs(qty - 3)) shows abs(qty - 3), not
-- abs(NULL), where qty is rolled up
SELECT hummock_stream.create_materialized_view('g_nested',
  'SELECT abs(qty - 3) AS a, qty, count(*) AS n FROM sales GROUP BY ROLLUP (abs(qty - 3), qty)');
SELECT hummock_stream.create_materialized_view('g_nested_sets',
  $$SELECT qty % 3 AS m, qty, (qty % 3) * 10 + 1 AS m10, count(*) AS n FROM sales
     GROUP BY GROUPING SETS ((qty % 3), (qty), ())$$);
SELECT hummock_stream.create_materialized_view('g_nested_cube',
  'SELECT qty % 3 AS m, qty, sum(id) AS s FROM sales GROUP BY CUBE (qty % 3, qty)');
-- DISTINCT over the rows of every set (a level above them): equal rows of
-- different sets are one; DISTINCT ON keeps one per value, by ORDER BY
SELECT hummock_stream.create_materialized_view('g_distinct',
  'SELECT DISTINCT region, count(*) > 5 AS many FROM sales GROUP BY GROUPING SETS ((region), (region, product))');
SELECT hummock_stream.create_materialized_view('g_distinct_on',
  $$SELECT DISTINCT ON (region) region, product, sum(qty) AS q FROM sales
     GROUP BY CUBE (region, product) ORDER BY region, sum(qty) DESC, product$$);
SELECT hummock_stream.create_materialized_view('g_distinct_top',
  'SELECT DISTINCT qty % 3 AS m, GROUPING(qty % 3, product) AS g FROM sales GROUP BY CUBE (qty % 3, product) ORDER BY 1, 2 LIMIT 4');
SELECT * FROM hummock_stream_test.views_differ();
SELECT * FROM g_distinct ORDER BY region NULLS LAST, many;
SELECT * FROM g_nested ORDER BY a NULLS LAST, qty NULLS LAST;
SELECT * FROM g_rollup ORDER BY region NULLS LAST, product NULLS LAST;
SELECT * FROM g_empty;
SELECT * FROM g_rank ORDER BY r, region;

-- changes move rows between groups; a NULL region is a group of its own,
-- told apart from the rolled-up rows
UPDATE sales SET region = 'west' WHERE id % 10 = 2;
UPDATE sales SET qty = qty + 3, product = 'p9' WHERE id % 8 = 0;
DELETE FROM sales WHERE id % 11 = 0;
INSERT INTO sales VALUES (100, 'north', 'p1', 200, 1), (101, NULL, 'p2', 0, 3);
SELECT hummock_stream.wait();
SELECT * FROM hummock_stream_test.views_differ();
SELECT * FROM g_empty ORDER BY region NULLS LAST;
SELECT * FROM g_top;

SET client_min_messages = warning;	-- the capture log's name has an OID
DROP EXTENSION hummock_stream CASCADE;
RESET client_min_messages;
DROP TABLE sales;
