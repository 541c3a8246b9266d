-- Streaming views over several tables: inner, left, right, full, semi and
-- anti joins, UNION, subqueries in FROM, WITH, DISTINCT aggregates and
-- Top-N.  Each view follows inserts, updates (of join keys too) and
-- deletes on every side, and is checked against Postgres itself after
-- every step: view_diff() is the number of rows in which the view and its
-- definition run by Postgres differ (0: right); given ref, the rows in
-- which it differs from query ref (for a query Postgres cannot run).
CREATE EXTENSION hummock_stream;

CREATE FUNCTION view_diff(v regclass, ref text DEFAULT NULL) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
  def text := ref;
  n bigint;
BEGIN
  IF def IS NULL THEN
    SELECT j.definition INTO STRICT def FROM hummock_stream.jobs j WHERE j.name = v;
  END IF;
  EXECUTE format('SELECT count(*) FROM ((SELECT v::text FROM %s v EXCEPT ALL SELECT d::text FROM (%s) d)'
                 ' UNION ALL (SELECT d::text FROM (%s) d EXCEPT ALL SELECT v::text FROM %s v)) x',
                 v, def, def, v) INTO n;
  RETURN n;
END $$;

-- every view of this test with its difference to its query
CREATE VIEW diffs AS
  SELECT j.name::text AS view, view_diff(j.name) AS diff
    FROM hummock_stream.jobs j ORDER BY j.name::text COLLATE "C";

CREATE TABLE customers (id int PRIMARY KEY, name text COLLATE "C", region int);
CREATE TABLE regions (id int PRIMARY KEY, label text);
CREATE TABLE orders (id int PRIMARY KEY, customer int, amount numeric, tag text);
CREATE TABLE notes (customer int, txt text);          -- no primary key
INSERT INTO regions VALUES (1, 'north'), (2, 'south'), (3, 'empty');
INSERT INTO customers VALUES (1, 'ann', 1), (2, 'bob', 1), (3, 'cy', 2), (4, 'dee', NULL), (5, 'eve', 2);
INSERT INTO orders VALUES (10, 1, 5.00, 'a'), (11, 1, 7.50, 'b'), (12, 2, 1.25, 'a'),
                          (13, 3, 100, NULL), (14, NULL, 3, 'x'), (15, 9, 4, 'y');
INSERT INTO notes VALUES (1, 'hi'), (1, 'hi'), (3, 'vip'), (NULL, 'orphan');

SELECT hummock_stream.create_materialized_view('j_inner',
  $$SELECT o.id, c.name, o.amount FROM orders o JOIN customers c ON c.id = o.customer$$);
SELECT hummock_stream.create_materialized_view('j_left',
  $$SELECT o.id, c.name FROM orders o LEFT JOIN customers c ON c.id = o.customer$$);
SELECT hummock_stream.create_materialized_view('j_right',
  $$SELECT c.id, o.id AS order_id FROM orders o RIGHT JOIN customers c ON c.id = o.customer$$);
SELECT hummock_stream.create_materialized_view('j_full',
  $$SELECT c.id AS cid, o.id AS oid FROM orders o FULL JOIN customers c ON c.id = o.customer$$);
SELECT hummock_stream.create_materialized_view('j_3way',
  $$SELECT r.label, count(*) AS n, sum(o.amount) AS total
      FROM orders o JOIN customers c ON c.id = o.customer JOIN regions r ON r.id = c.region
     GROUP BY r.label$$);
SELECT hummock_stream.create_materialized_view('j_region_left',
  $$SELECT r.label, count(c.id) AS customers FROM regions r LEFT JOIN customers c ON c.region = r.id GROUP BY r.label$$);
SELECT hummock_stream.create_materialized_view('j_using',
  $$SELECT id, c.name, r.label FROM customers c JOIN regions r USING (id)$$);
SELECT hummock_stream.create_materialized_view('j_filter',
  $$SELECT c.name, o.id FROM customers c LEFT JOIN orders o ON o.customer = c.id AND o.amount > 4$$);
SELECT hummock_stream.create_materialized_view('j_nopk',
  $$SELECT c.name, n.txt FROM customers c JOIN notes n ON n.customer = c.id$$);
SELECT hummock_stream.create_materialized_view('j_semi',
  $$SELECT id, name FROM customers c WHERE EXISTS (SELECT 1 FROM orders o WHERE o.customer = c.id)$$);
SELECT hummock_stream.create_materialized_view('j_anti',
  $$SELECT id, name FROM customers c WHERE NOT EXISTS (SELECT 1 FROM orders o WHERE o.customer = c.id)$$);
SELECT hummock_stream.create_materialized_view('j_in',
  $$SELECT id, amount FROM orders WHERE customer IN (SELECT id FROM customers WHERE region = 1)$$);
SELECT hummock_stream.create_materialized_view('u_all',
  $$SELECT customer AS who FROM orders UNION ALL SELECT customer FROM notes$$);
SELECT hummock_stream.create_materialized_view('u_distinct',
  $$SELECT customer AS who FROM orders UNION SELECT customer FROM notes$$);
SELECT hummock_stream.create_materialized_view('q_cte',
  $$WITH spend AS (SELECT customer, sum(amount) AS s FROM orders GROUP BY customer)
    SELECT c.name, s.s FROM customers c LEFT JOIN spend s ON s.customer = c.id$$);
SELECT hummock_stream.create_materialized_view('q_sub',
  $$SELECT t.region, max(t.n) AS most FROM
      (SELECT c.region, c.id, count(o.id) AS n FROM customers c LEFT JOIN orders o ON o.customer = c.id
        GROUP BY c.region, c.id) t GROUP BY t.region$$);
SELECT hummock_stream.create_materialized_view('a_distinct',
  $$SELECT tag, count(DISTINCT customer) AS customers, sum(DISTINCT amount) AS amounts, count(*) AS n
      FROM orders GROUP BY tag$$);
SELECT hummock_stream.create_materialized_view('t_top',
  $$SELECT id, amount FROM orders ORDER BY amount DESC, id LIMIT 3$$);
SELECT hummock_stream.create_materialized_view('t_ties',
  $$SELECT id, tag FROM orders ORDER BY tag COLLATE "C" FETCH FIRST 2 ROWS WITH TIES$$);
SELECT hummock_stream.create_materialized_view('t_per_customer',
  $$SELECT customer, id, rn FROM (SELECT customer, id, row_number() OVER (PARTITION BY customer ORDER BY amount DESC, id) AS rn
      FROM orders) s WHERE rn <= 1$$);

SELECT name, sources FROM hummock_stream.jobs ORDER BY name::text COLLATE "C";
-- each job is a fragment run by an actor; its state tables say what they hold
SELECT job, n_operators, operators, n_state_tables, sources
  FROM hummock_stream.fragments WHERE job::text IN ('j_3way', 'q_cte', 't_per_customer', 'j_nopk')
 ORDER BY job::text COLLATE "C";
SELECT job, ordinal, holds, committed_epoch IS NOT NULL AS committed
  FROM hummock_stream.state_tables WHERE job::text IN ('j_left', 'a_distinct', 't_top')
 ORDER BY job::text COLLATE "C", ordinal;
SELECT count(*) AS actors, count(DISTINCT compute_worker) <= 2 AS placed
  FROM hummock_stream.actors;
SELECT * FROM diffs;
SELECT * FROM j_full ORDER BY cid, oid;
SELECT * FROM j_3way ORDER BY label;
SELECT * FROM t_per_customer ORDER BY customer, id;

-- changes on every side: new matches, key moves, a dimension row deleted
-- and re-inserted, NULL keys, rows that stop and start matching
INSERT INTO orders VALUES (16, 4, 2, 'a'), (17, 5, 9, 'b');
UPDATE orders SET customer = 2 WHERE id = 11;
UPDATE orders SET customer = NULL WHERE id = 12;
UPDATE customers SET region = 2 WHERE id = 1;
DELETE FROM customers WHERE id = 3;
INSERT INTO customers VALUES (3, 'cy again', 1), (9, 'ivy', 3);
UPDATE customers SET id = 6 WHERE id = 5;
DELETE FROM notes WHERE txt = 'vip';
INSERT INTO notes VALUES (2, 'new'), (9, 'ivy note');
UPDATE orders SET amount = 200 WHERE id = 10;
DELETE FROM orders WHERE id = 13;
SELECT hummock_stream.wait();
SELECT * FROM diffs;
SELECT * FROM j_full ORDER BY cid, oid;
SELECT * FROM j_3way ORDER BY label;
SELECT * FROM t_top ORDER BY amount DESC, id;
SELECT * FROM t_per_customer ORDER BY customer, id;

-- everything goes, then comes back
DELETE FROM orders;
DELETE FROM notes;
SELECT hummock_stream.wait();
SELECT * FROM diffs;
SELECT * FROM j_anti ORDER BY id;
INSERT INTO orders SELECT g, 1 + g % 9, g % 13, CASE WHEN g % 3 = 0 THEN NULL ELSE 't' || g % 4 END
  FROM generate_series(100, 400) g;
INSERT INTO notes SELECT g % 7, 'n' || g % 3 FROM generate_series(1, 50) g;
SELECT hummock_stream.wait();
SELECT * FROM diffs;

-- a source whose row count is a whole number of backfill chunks (100,000
-- rows each): the last chunk's epoch is the one the view commits at
CREATE TABLE chunky (id int PRIMARY KEY, g int);
INSERT INTO chunky SELECT i, i % 10 FROM generate_series(1, 100000) i;
SELECT hummock_stream.create_materialized_view('v_chunky',
  $$SELECT g, count(*) AS n FROM chunky GROUP BY g$$);
SELECT count(*) AS groups, sum(n) AS rows FROM v_chunky;
SELECT hummock_stream.drop_materialized_view('v_chunky');
DROP TABLE chunky;

-- IS NOT DISTINCT FROM as a join key: NULL matches NULL (a hash key, not
-- a filter meeting every row of the other side)
SELECT hummock_stream.create_materialized_view('j_nd_inner',
  $$SELECT o.id, n.txt FROM orders o JOIN notes n ON n.customer IS NOT DISTINCT FROM o.customer$$);
SELECT hummock_stream.create_materialized_view('j_nd_full',
  $$SELECT o.id, n.txt FROM orders o FULL JOIN notes n ON n.customer IS NOT DISTINCT FROM o.customer$$);
SELECT hummock_stream.create_materialized_view('j_nd_two',
  $$SELECT o.id, c.name FROM orders o LEFT JOIN customers c
      ON c.id IS NOT DISTINCT FROM o.customer AND c.region = o.customer % 3$$);
-- (Postgres runs a FULL JOIN only on hashable or mergeable conditions: the
-- reference for j_nd_full spells out its matched and unmatched rows)
\set nd_full 'SELECT o.id, n.txt FROM orders o JOIN notes n ON n.customer IS NOT DISTINCT FROM o.customer UNION ALL SELECT o.id, NULL FROM orders o WHERE NOT EXISTS (SELECT FROM notes n WHERE n.customer IS NOT DISTINCT FROM o.customer) UNION ALL SELECT NULL, n.txt FROM notes n WHERE NOT EXISTS (SELECT FROM orders o WHERE n.customer IS NOT DISTINCT FROM o.customer)'
SELECT job, operators FROM hummock_stream.fragments
 WHERE job::text LIKE 'j_nd_%' ORDER BY job::text COLLATE "C";
INSERT INTO orders VALUES (500, NULL, 1, 'n1'), (501, NULL, 2, 'n2');
INSERT INTO notes VALUES (NULL, 'orphan 2'), (NULL, 'orphan 3');
SELECT hummock_stream.wait();
SELECT view_diff('j_nd_inner') AS j_nd_inner, view_diff('j_nd_full', :'nd_full') AS j_nd_full,
       view_diff('j_nd_two') AS j_nd_two;
SELECT count(*) FILTER (WHERE txt LIKE 'orphan%') AS null_matches FROM j_nd_inner;
UPDATE notes SET customer = 1 WHERE txt = 'orphan 2';
UPDATE orders SET customer = 2 WHERE id = 500;
DELETE FROM notes WHERE txt = 'orphan 3';
INSERT INTO customers VALUES (40, 'nullish', NULL);
SELECT hummock_stream.wait();
SELECT view_diff('j_nd_inner') AS j_nd_inner, view_diff('j_nd_full', :'nd_full') AS j_nd_full,
       view_diff('j_nd_two') AS j_nd_two;
SELECT hummock_stream.drop_materialized_view('j_nd_inner');
SELECT hummock_stream.drop_materialized_view('j_nd_full');
SELECT hummock_stream.drop_materialized_view('j_nd_two');
DELETE FROM orders WHERE id IN (500, 501);
DELETE FROM notes WHERE txt LIKE 'orphan %';
DELETE FROM customers WHERE id = 40;

-- still rejected
CREATE FUNCTION create_error(def text) RETURNS text
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM hummock_stream.create_materialized_view('bad', def);
  RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
  RETURN sqlstate || ': ' || sqlerrm;
END $$;
SELECT create_error($$SELECT o.id FROM orders o WHERE o.customer NOT IN (SELECT id FROM customers c WHERE c.id > o.id GROUP BY id)$$);
-- (not refused: over several rows for a customer it fails as Postgres's query does)
SELECT create_error($$SELECT c.id, (SELECT o.id FROM orders o WHERE o.customer > c.id) AS oid FROM customers c$$);
SELECT create_error($$SELECT c.id FROM customers c, customers d, LATERAL (SELECT o.id FROM orders o WHERE o.customer < c.id AND o.id > d.id) l$$);

DROP VIEW diffs;
DROP FUNCTION view_diff(regclass, text);
DROP FUNCTION create_error(text);
SET client_min_messages = warning;
DROP TABLE customers, regions, orders, notes CASCADE;
RESET client_min_messages;
SELECT count(*) AS jobs_left FROM hummock_stream.jobs;
DROP EXTENSION hummock_stream;
