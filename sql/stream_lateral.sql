-- LATERAL subqueries: related to the items before them by equalities in
-- their WHERE, they become subqueries of their own joined on those
-- equalities (a plain filter, GROUP BY, ORDER BY ... LIMIT n as a Top-N
-- per outer value, and aggregation without GROUP BY, which gives one row
-- per outer row: count 0 and the other aggregates NULL where the outer
-- row has no rows).  Related otherwise, they are computed per distinct
-- value of the outer columns they read and joined back on those.  Each
-- view follows inserts, updates (of the correlating columns too) and
-- deletes on both sides and equals its query.
CREATE EXTENSION hummock_stream;
CREATE EXTENSION hummock_stream_test;	-- views_differ(): each view against its query
CREATE TABLE customer (id int PRIMARY KEY, name text, region int);
CREATE TABLE purchase (id int PRIMARY KEY, customer int, amount int, note text);
INSERT INTO customer SELECT i, 'c' || i, i % 3 FROM generate_series(1, 12) i;
INSERT INTO purchase SELECT i, nullif(i % 11, 0), (i * 37) % 100, CASE WHEN i % 4 = 0 THEN NULL ELSE 'p' || i END
  FROM generate_series(1, 80) i;

-- a plain filter: a join on the equality
SELECT hummock_stream.create_materialized_view('l_plain',
  $$SELECT c.id, p.id AS pid, p.amount
      FROM customer c, LATERAL (SELECT id, amount FROM purchase WHERE purchase.customer = c.id AND amount > 50) p$$);
-- the three largest purchases of each customer (ties broken by id)
SELECT hummock_stream.create_materialized_view('l_top',
  $$SELECT c.id, c.name, p.id AS pid, p.amount
      FROM customer c CROSS JOIN LATERAL
           (SELECT id, amount FROM purchase WHERE customer = c.id ORDER BY amount DESC, id LIMIT 3) p$$);
-- OFFSET: the second and third largest; all but the two first
SELECT hummock_stream.create_materialized_view('l_offset',
  $$SELECT c.id, p.id AS pid FROM customer c, LATERAL
           (SELECT id FROM purchase WHERE customer = c.id ORDER BY amount DESC, id LIMIT 2 OFFSET 1) p$$);
SELECT hummock_stream.create_materialized_view('l_offset_only',
  $$SELECT c.id, p.id AS pid FROM customer c, LATERAL
           (SELECT id FROM purchase WHERE customer = c.id ORDER BY id OFFSET 2) p$$);
-- the latest purchase, or NULLs: LEFT JOIN LATERAL ... ON true
SELECT hummock_stream.create_materialized_view('l_latest',
  $$SELECT c.id, p.id AS pid, p.note
      FROM customer c LEFT JOIN LATERAL
           (SELECT id, note FROM purchase WHERE customer = c.id ORDER BY id DESC LIMIT 1) p ON true$$);
-- aggregation without GROUP BY: one row per customer, count 0 where none
SELECT hummock_stream.create_materialized_view('l_agg',
  $$SELECT c.id, s.n, s.total, s.notes, coalesce(s.total, 0) + c.region AS score
      FROM customer c,
           LATERAL (SELECT count(*) AS n, sum(amount) AS total, count(note) AS notes
                      FROM purchase p WHERE p.customer = c.id) s$$);
-- the same as a LEFT JOIN ON true, over a grouping outer query
SELECT hummock_stream.create_materialized_view('l_agg_grouped',
  $$SELECT c.region, sum(s.n) AS n, max(s.top) AS top
      FROM customer c LEFT JOIN LATERAL
           (SELECT count(*) AS n, max(amount) AS top FROM purchase p WHERE p.customer = c.id) s ON true
     GROUP BY c.region$$);
-- GROUP BY inside: the notes of each customer counted
SELECT hummock_stream.create_materialized_view('l_group',
  $$SELECT c.id, g.has_note, g.n
      FROM customer c JOIN LATERAL
           (SELECT note IS NOT NULL AS has_note, count(*) AS n FROM purchase
             WHERE customer = c.id GROUP BY 1 HAVING count(*) > 1) g ON g.n < 100$$);
-- the two best-selling notes-or-not groups per customer: GROUP BY and LIMIT
SELECT hummock_stream.create_materialized_view('l_group_top',
  $$SELECT c.id, t.bucket, t.total
      FROM customer c, LATERAL
           (SELECT amount / 25 AS bucket, sum(amount) AS total FROM purchase
             WHERE customer = c.id GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 2) t$$);
-- correlated with two items, by an expression
SELECT hummock_stream.create_materialized_view('l_two',
  $$SELECT c.id, d.id AS did, x.amount
      FROM customer c JOIN customer d ON d.region = c.region AND d.id <> c.id,
           LATERAL (SELECT amount FROM purchase WHERE customer = d.id AND amount + 0 = c.id * 7) x$$);
-- window functions inside: over the outer row's rows (each window
-- partitioned by the correlating columns too)
SELECT hummock_stream.create_materialized_view('l_window',
  $$SELECT c.id, w.pid, w.r, w.share
      FROM customer c, LATERAL
           (SELECT id AS pid, rank() OVER (ORDER BY amount DESC, id) AS r,
                   amount * 100 / sum(amount) OVER () AS share
              FROM purchase WHERE customer = c.id) w$$);
-- DISTINCT inside
SELECT hummock_stream.create_materialized_view('l_distinct',
  $$SELECT c.id, d.bucket
      FROM customer c, LATERAL (SELECT DISTINCT amount / 20 AS bucket FROM purchase WHERE customer = c.id) d$$);
-- related otherwise than by equalities, or with the outer row in the
-- select list: computed per distinct value of the outer columns read (the
-- domain) and joined back on them
SELECT hummock_stream.create_materialized_view('l_cheap_later',
  $$SELECT c.id, p.amount FROM customer c,
           LATERAL (SELECT amount FROM purchase WHERE customer > c.id AND amount < 10) p$$);
SELECT hummock_stream.create_materialized_view('l_shifted',
  $$SELECT c.id, p.x FROM customer c,
           LATERAL (SELECT amount + c.region AS x FROM purchase WHERE customer = c.id) p$$);
SELECT hummock_stream.create_materialized_view('l_agg_before',
  $$SELECT c.id, s.n, s.top, s.n + c.region AS score FROM customer c,
           LATERAL (SELECT count(*) AS n, max(amount) AS top FROM purchase p
                     WHERE p.customer < c.id AND p.amount > c.region * 30) s$$);
SELECT hummock_stream.create_materialized_view('l_top_before',
  $$SELECT c.id, p.pid FROM customer c,
           LATERAL (SELECT id AS pid FROM purchase WHERE customer < c.id ORDER BY amount DESC, id LIMIT 2) p$$);
SELECT hummock_stream.create_materialized_view('l_agg_outer_value',
  $$SELECT c.id, s.m FROM customer c,
           LATERAL (SELECT coalesce(max(amount), -c.id) AS m FROM purchase
                     WHERE customer = c.id AND amount > c.id * 9) s$$);
-- an aggregation joined ON a condition: inner (a filter over its values)
-- and LEFT (NULLs where the condition fails)
SELECT hummock_stream.create_materialized_view('l_agg_on',
  $$SELECT c.id, p.n FROM customer c JOIN LATERAL
           (SELECT count(*) AS n FROM purchase WHERE customer = c.id) p ON p.n > 5$$);
SELECT hummock_stream.create_materialized_view('l_agg_left_on',
  $$SELECT c.id, p.n, p.top FROM customer c LEFT JOIN LATERAL
           (SELECT count(*) AS n, max(amount) AS top FROM purchase WHERE customer = c.id) p
           ON p.n > c.region * 3$$);
-- DISTINCT ON inside: the latest purchase of each amount bucket per customer
SELECT hummock_stream.create_materialized_view('l_distinct_on',
  $$SELECT c.id, x.bucket, x.pid FROM customer c, LATERAL
           (SELECT DISTINCT ON (amount / 25) amount / 25 AS bucket, id AS pid FROM purchase
             WHERE customer = c.id ORDER BY amount / 25, id DESC) x$$);
SELECT job::text, operators FROM hummock_stream.fragments
 WHERE job::text IN ('l_top', 'l_agg', 'l_agg_before') ORDER BY 1;
-- DISTINCT with ORDER BY ... LIMIT: the two largest distinct amounts of
-- each customer (made distinct first, then numbered)
SELECT hummock_stream.create_materialized_view('l_distinct_top',
  $$SELECT c.id, p.amount FROM customer c,
      LATERAL (SELECT DISTINCT amount FROM purchase WHERE customer = c.id ORDER BY amount DESC LIMIT 2) p$$);
SELECT hummock_stream.create_materialized_view('l_distinct_offset',
  $$SELECT c.id, p.amount, p.note FROM customer c
      LEFT JOIN LATERAL (SELECT DISTINCT amount % 10 AS amount, note FROM purchase
                          WHERE customer = c.id ORDER BY 1, 2 LIMIT 3 OFFSET 1) p ON true$$);
SELECT * FROM hummock_stream_test.views_differ();
SELECT * FROM l_agg WHERE id IN (11, 12) ORDER BY id;

-- changes on both sides, of the correlating columns too
INSERT INTO purchase VALUES (100, 11, 99, 'new'), (101, 11, 98, NULL), (102, 12, 5, 'x');
UPDATE purchase SET customer = 3 WHERE id IN (1, 2);
UPDATE purchase SET amount = 100 - amount WHERE id % 5 = 0;
DELETE FROM purchase WHERE id % 7 = 0;
INSERT INTO customer VALUES (13, 'c13', 1);
UPDATE customer SET region = 2 WHERE id = 4;
DELETE FROM customer WHERE id = 5;
SELECT hummock_stream.wait();
SELECT * FROM hummock_stream_test.views_differ();
SELECT * FROM l_agg WHERE id IN (11, 12, 13) ORDER BY id;
DELETE FROM purchase WHERE customer = 11;
SELECT hummock_stream.wait();
SELECT * FROM hummock_stream_test.views_differ();
SELECT * FROM l_agg WHERE id = 11;

-- refused, each with what is supported
CREATE FUNCTION create_error(def text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
  detail text;
BEGIN
  PERFORM hummock_stream.create_materialized_view('bad', def);
  RETURN 'created';
EXCEPTION WHEN OTHERS THEN
  GET STACKED DIAGNOSTICS detail = PG_EXCEPTION_DETAIL;
  RETURN format('%s: %s', SQLSTATE, SQLERRM) || CASE WHEN detail <> '' THEN format(' (%s)', detail) ELSE '' END;
END $$;
SELECT create_error($$SELECT c.id, p.amount FROM customer c, customer d, LATERAL (SELECT amount FROM purchase WHERE customer > c.id AND amount < d.id) p$$);
SELECT create_error($$SELECT c.id, p.amount FROM customer c LEFT JOIN customer d ON d.id = c.id + 1, LATERAL (SELECT amount FROM purchase WHERE customer > d.id) p$$);
SELECT create_error($$SELECT c.id, p.amount FROM customer c, LATERAL (SELECT DISTINCT ON (amount) amount FROM purchase WHERE customer = c.id ORDER BY amount LIMIT 2) p$$);
SELECT create_error($$SELECT c.id, p.amount FROM customer c, LATERAL (SELECT amount FROM purchase WHERE customer = c.id ORDER BY amount LIMIT -1) p$$);
SELECT create_error($$SELECT c.id, p.amount FROM customer c, LATERAL (SELECT amount FROM purchase WHERE customer = c.id LIMIT 2) p$$);
SELECT create_error($$SELECT c.id, p.n FROM customer c, LATERAL (SELECT count(*) AS n FROM purchase WHERE customer = c.id HAVING count(*) > 1) p$$);
SELECT create_error($$SELECT d.id FROM customer d LEFT JOIN (customer c JOIN LATERAL (SELECT count(*) AS n FROM purchase WHERE customer = c.id) p ON p.n > 1) ON d.id = c.id$$);
SELECT create_error($$SELECT c.id, p.r FROM customer c, LATERAL (SELECT rank() OVER (ORDER BY amount) AS r FROM purchase WHERE customer = c.id ORDER BY amount LIMIT 1) p$$);
SELECT create_error($$SELECT c.id, p.amount FROM customer c RIGHT JOIN LATERAL (SELECT amount FROM purchase WHERE customer = c.id) p ON true$$);
DROP FUNCTION create_error(text);

SET client_min_messages = warning;	-- the capture logs' names have OIDs
DROP EXTENSION hummock_stream CASCADE;
RESET client_min_messages;
DROP TABLE customer, purchase;
