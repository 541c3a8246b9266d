-- Views over views: chains, diamonds, self-joins, views over a view and
-- a table; each view equals its query after every change (wait()), DROP
-- of an upstream stops at its downstreams, jobs shows the graph.
CREATE EXTENSION hummock_stream;
CREATE TABLE orders (id int PRIMARY KEY, customer_id int, amount numeric);
CREATE TABLE customers (customer_id int PRIMARY KEY, name text, region int);
INSERT INTO orders SELECT g, g % 7, (g % 13) * 100 FROM generate_series(1, 200) g;
INSERT INTO customers SELECT g, 'c' || g, g % 3 FROM generate_series(0, 6) g;

-- every view equals its query: the rows of (view EXCEPT ALL query) and of
-- (query EXCEPT ALL view)
CREATE FUNCTION differs(v regclass) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  q text := (SELECT definition FROM hummock_stream.jobs WHERE name = v);
  n bigint;
BEGIN
  EXECUTE format('SELECT count(*) FROM ((TABLE %s EXCEPT ALL (%s)) UNION ALL ((%s) EXCEPT ALL TABLE %s)) d',
                 v, q, q, v) INTO n;
  RETURN n;
END $$;
CREATE FUNCTION all_differ() RETURNS TABLE (view regclass, differs bigint) LANGUAGE sql AS $$
  SELECT name, differs(name) FROM hummock_stream.jobs ORDER BY name::text
$$;

-- a chain of three: an aggregate, a join of it with a table, a Top-N
SELECT hummock_stream.create_materialized_view('per_customer',
  $$SELECT customer_id, count(*) AS n, sum(amount) AS s FROM orders GROUP BY customer_id$$);
SELECT hummock_stream.create_materialized_view('big_customers',
  $$SELECT c.name, p.s FROM per_customer p JOIN customers c USING (customer_id) WHERE p.s > 1000$$);
SELECT hummock_stream.create_materialized_view('top3',
  $$SELECT * FROM big_customers ORDER BY s DESC, name LIMIT 3$$);
-- a diamond: two views over per_customer, a third over both
SELECT hummock_stream.create_materialized_view('many_orders',
  $$SELECT customer_id, n FROM per_customer WHERE n >= 29$$);
SELECT hummock_stream.create_materialized_view('rich',
  $$SELECT customer_id, s FROM per_customer WHERE s >= 1500$$);
SELECT hummock_stream.create_materialized_view('many_and_rich',
  $$SELECT m.customer_id, m.n, r.s FROM many_orders m JOIN rich r USING (customer_id)$$);
-- a self-join of a view, and a DISTINCT over a view
SELECT hummock_stream.create_materialized_view('pairs',
  $$SELECT a.customer_id AS a, b.customer_id AS b FROM per_customer a JOIN per_customer b ON a.n = b.n AND a.customer_id < b.customer_id$$);
SELECT hummock_stream.create_materialized_view('counts',
  $$SELECT DISTINCT n FROM per_customer$$);

SELECT * FROM top3;
SELECT * FROM all_differ();

-- the graph of views
SELECT name, upstreams, downstreams FROM hummock_stream.jobs ORDER BY name::text;

-- changes flow down every level: inserts, updates that move rows between
-- groups, deletes that empty a group, and an upstream row deleted and
-- inserted again
INSERT INTO orders SELECT g, g % 9, 777 FROM generate_series(201, 260) g;
UPDATE orders SET customer_id = 8 WHERE id % 10 = 0;
DELETE FROM orders WHERE customer_id = 3;
UPDATE customers SET name = 'renamed' WHERE customer_id = 1;
SELECT hummock_stream.wait();
SELECT * FROM all_differ();
SELECT * FROM top3;
INSERT INTO orders SELECT g, 3, 5000 FROM generate_series(1001, 1003) g;
DELETE FROM orders WHERE customer_id = 8;
SELECT hummock_stream.wait();
SELECT * FROM all_differ();

-- in one transaction (a dump restored with --single-transaction): a
-- diamond of views created there, each upstream read at its one epoch
BEGIN;
SELECT hummock_stream.create_materialized_view('tx_sums',
  $$SELECT customer_id, sum(amount) AS s FROM orders GROUP BY customer_id$$);
SELECT hummock_stream.create_materialized_view('tx_counts',
  $$SELECT customer_id, count(*) AS n FROM orders GROUP BY customer_id$$);
SELECT hummock_stream.create_materialized_view('tx_both',
  $$SELECT customer_id, s, n FROM tx_sums JOIN tx_counts USING (customer_id)$$);
SELECT differs('tx_both');
COMMIT;
UPDATE orders SET customer_id = 5 WHERE id % 9 = 0;
SELECT hummock_stream.wait();
SELECT differs('tx_both');
-- with a view kept from before: it starts the change log the new view
-- reads meanwhile (a creation in a transaction block commits its data
-- when the transaction commits, so it stops no other view)
BEGIN;
SELECT hummock_stream.create_materialized_view('tx_new',
  $$SELECT customer_id, max(amount) AS hi FROM orders GROUP BY customer_id$$);
SELECT hummock_stream.create_materialized_view('tx_mixed',
  $$SELECT t.name, n.hi FROM top3 t JOIN customers c USING (name) JOIN tx_new n USING (customer_id)$$);
SELECT differs('tx_mixed');
ROLLBACK;
-- also after a drop in the transaction (which removes its view's data
-- at commit, so it stops no other view either)
BEGIN;
DROP MATERIALIZED VIEW tx_both;
SELECT hummock_stream.create_materialized_view('tx_mixed',
  $$SELECT t.name, n.s FROM top3 t JOIN customers c USING (name) JOIN tx_sums n USING (customer_id)$$);
SELECT differs('tx_mixed');
ROLLBACK;
DROP MATERIALIZED VIEW tx_both, tx_sums, tx_counts;

-- an upstream cannot be dropped while views read it
SELECT hummock_stream.drop_materialized_view('per_customer');
DROP MATERIALIZED VIEW big_customers;
-- a downstream goes on its own; CASCADE takes the rest
SELECT hummock_stream.drop_materialized_view('top3');
SET client_min_messages = warning;
DROP MATERIALIZED VIEW per_customer CASCADE;
RESET client_min_messages;
SELECT name FROM hummock_stream.jobs ORDER BY name::text;

-- only streaming views and ordinary tables are sources
CREATE TABLE loaded (id int) USING hummock;
SELECT hummock_stream.create_materialized_view('over_loaded', 'SELECT id FROM loaded');

SET client_min_messages = warning;
DROP EXTENSION hummock_stream CASCADE;
RESET client_min_messages;
DROP TABLE orders, customers;	-- (loaded went with the access method)
DROP FUNCTION differs(regclass), all_differ();
