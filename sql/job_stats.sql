-- hummock_stream.job_stats: what each view's maintenance did since the
-- server started (epochs, rows read and written, rows per executor, time
-- per epoch, bytes of the view and its state tables).
CREATE EXTENSION hummock_stream;
CREATE TABLE orders (id int PRIMARY KEY, customer int, amount int);
CREATE TABLE customers (id int PRIMARY KEY, name text);
INSERT INTO customers SELECT i, 'c' || i FROM generate_series(1, 10) i;
INSERT INTO orders SELECT i, i % 10 + 1, i FROM generate_series(1, 100) i;
SELECT hummock_stream.create_materialized_view('per_customer',
  'SELECT customer, count(*) AS n, sum(amount) AS total FROM orders GROUP BY customer');
SELECT hummock_stream.create_materialized_view('named_orders',
  'SELECT o.id, c.name FROM orders o JOIN customers c ON c.id = o.customer WHERE o.amount > 50');

-- the backfill is the creation's; maintenance starts after it (one
-- transaction: one epoch)
BEGIN;
INSERT INTO orders SELECT i, i % 10 + 1, i FROM generate_series(101, 1100) i;
UPDATE orders SET amount = amount + 1 WHERE id <= 10;
COMMIT;
SELECT hummock_stream.wait();
-- 1,000 inserted and 10 updated rows (each update is a delete and an
-- insert) are read; per_customer rewrites each of its 10 groups once (a
-- delete and an insert)
SELECT name, rows_in, rows_out, epochs > 0 AS has_epochs,
       last_epoch_ms >= 0 AND avg_epoch_ms <= max_epoch_ms AS times_ok,
       view_bytes > 0 AS view_has_bytes, state_bytes >= 0 AS state_counted
  FROM hummock_stream.job_stats ORDER BY name::text;
-- rows in and out of each executor, leaves first
SELECT name, jsonb_pretty(executors) FROM hummock_stream.job_stats ORDER BY name::text;
-- the join's state tables hold both sides
SELECT state_bytes > 0 AS join_state_has_bytes FROM hummock_stream.job_stats
 WHERE name = 'named_orders'::regclass;

-- a role sees the statistics of the views it owns (pg_monitor: all)
CREATE ROLE stats_reader;
GRANT SELECT ON orders TO stats_reader;
CREATE SCHEMA stats_s AUTHORIZATION stats_reader;
SET ROLE stats_reader;
SELECT count(*) FROM hummock_stream.job_stats;
SELECT count(*) FROM hummock_stream._job_stats();
SELECT hummock_stream.create_materialized_view('stats_s.mine', 'SELECT count(*) AS n FROM public.orders');
RESET ROLE;
INSERT INTO orders VALUES (5000, 1, 1);
SET ROLE stats_reader;
SELECT hummock_stream.wait('stats_s.mine');
SELECT name, rows_in FROM hummock_stream.job_stats;
RESET ROLE;
GRANT pg_monitor TO stats_reader;
SET ROLE stats_reader;
SELECT count(*) FROM hummock_stream.job_stats;
RESET ROLE;
DROP SCHEMA stats_s CASCADE;
REVOKE ALL ON orders FROM stats_reader;
DROP ROLE stats_reader;

-- a dropped view's statistics go with it
SELECT hummock_stream.drop_materialized_view('named_orders');
SELECT count(*) FROM hummock_stream._job_stats() s WHERE NOT EXISTS
  (SELECT FROM hummock_stream.stream_jobs j WHERE j.job_id = s.job_id);
SELECT name FROM hummock_stream.job_stats;
-- the slow-epoch log line's setting
SHOW hummock_stream.log_min_epoch_duration;
DROP MATERIALIZED VIEW per_customer;
DROP EXTENSION hummock_stream;
DROP TABLE orders, customers;
