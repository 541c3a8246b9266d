-- scripts/demo.sql -- what scripts/demo.sh shows in psql
CREATE EXTENSION hummock_stream;
SELECT hummock_stream.version();
SELECT name, setting, unit FROM hummock_stream.settings;

-- A streaming materialized view over "orders", which a writer keeps
-- inserting into (200 rows/s for 8 s) while the demo runs.  The view is
-- created, backfilled and committed in this call; background workers keep
-- it up to date at every checkpoint.
SELECT hummock_stream.create_materialized_view('sales',
  $$SELECT customer_id, count(*) AS n, sum(amount) AS total, max(amount) AS biggest
      FROM orders WHERE status <> 'cancelled'
     GROUP BY customer_id HAVING count(*) > 1$$);

-- A deliberately slow view over "readings", which a second writer trickles
-- into (3 rows/s from the 2nd second on): calibrate() takes 0.7 s per row,
-- so this view needs 2.1 s for every second of input and falls behind.
CREATE FUNCTION calibrate(v numeric) RETURNS numeric
IMMUTABLE LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_sleep(0.7);
  RETURN round(v * 1.01, 2);
END $$;
SELECT hummock_stream.create_materialized_view('calibrated',
  $$SELECT sensor, count(*) AS n, sum(calibrate(value)) AS total
      FROM readings GROUP BY sensor$$);
-- Each view is one actor, run by compute worker (its OID % compute_workers);
-- a worker runs its actors' epochs one after another, so the two views go
-- to different workers (created again until they do).
DO $$
BEGIN
  FOR i IN 1..10 LOOP
    EXIT WHEN (SELECT count(DISTINCT compute_worker) FROM hummock_stream.actors) = 2;
    PERFORM hummock_stream.drop_materialized_view('calibrated');
    PERFORM hummock_stream.create_materialized_view('calibrated',
      $q$SELECT sensor, count(*) AS n, sum(calibrate(value)) AS total
           FROM readings GROUP BY sensor$q$);
  END LOOP;
END $$;
SELECT job, compute_worker FROM hummock_stream.actors ORDER BY job::text;

SELECT pg_sleep(2);
SELECT * FROM sales ORDER BY customer_id LIMIT 5;
SELECT pg_sleep(2);
-- two seconds later: the same groups have grown
SELECT * FROM sales ORDER BY customer_id LIMIT 5;
-- remember the epoch sales is committed at now, to read it there later
SELECT committed_epoch AS sales_then, committed_at AS sales_then_at
  FROM hummock_stream.committed_epochs() WHERE relation = 'sales'::regclass \gset
SELECT pg_sleep(3);

-- Partial checkpoints: each view is its own partial graph, injected,
-- collected and committed on its own.  sales commits at the barrier rate
-- (every 100 ms here); calibrated has barriers in flight (up to
-- max_inflight_barriers, then it skips epochs), commits less often and
-- its committed epoch lags by seconds; neither waits for the other.
SELECT graph_id::oid::regclass AS view, state, commits, inflight, last_commit_at
  FROM hummock_stream.partial_graphs ORDER BY 1;
SELECT name, state, lag FROM hummock_stream.jobs ORDER BY name;
SELECT relation, committed_epoch, committed_at FROM hummock_stream.committed_epochs()
 ORDER BY relation;
-- Latency of each view's barriers, inject -> commit (ms).
SELECT graph_id::oid::regclass AS view, count(*) AS checkpoints,
       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY commit_ms)::numeric, 1) AS p50_ms,
       round(max(commit_ms)::numeric, 1) AS max_ms
  FROM hummock_stream.barriers WHERE graph_id > 0 AND kind = 'checkpoint'
 GROUP BY graph_id ORDER BY 1;
SELECT * FROM hummock_stream.workers;

-- Reading: with query_consistency = per_table each view is read at its own
-- committed epoch (the default, global, reads every relation of a
-- statement at one epoch: here the slow view's).  And a table read at an
-- older epoch (time travel): sales as it was when we looked above.
SET hummock_stream.query_consistency = per_table;
SELECT sum(n) AS orders_now FROM sales;
SET hummock_stream.query_epoch = :sales_then;
SELECT :'sales_then_at' AS as_of, sum(n) AS orders_then FROM sales;
RESET hummock_stream.query_epoch;
RESET hummock_stream.query_consistency;

-- Once the writers are done, read your writes: wait() returns when
-- everything committed before the call is visible, the slow view
-- included; each view then equals its query run by Postgres.
SELECT pg_sleep(4);
SELECT hummock_stream.wait();
SELECT count(*) AS sales_rows_differing FROM (
  (TABLE sales EXCEPT ALL
   SELECT customer_id, count(*), sum(amount), max(amount) FROM orders
    WHERE status <> 'cancelled' GROUP BY customer_id HAVING count(*) > 1)
  UNION ALL
  (SELECT customer_id, count(*), sum(amount), max(amount) FROM orders
    WHERE status <> 'cancelled' GROUP BY customer_id HAVING count(*) > 1
   EXCEPT ALL TABLE sales)) d;
SELECT (SELECT sum(n) FROM calibrated) AS readings_in_view,
       (SELECT count(*) FROM readings) AS readings,
       (SELECT sum(total) FROM calibrated) = (SELECT sum(round(value * 1.01, 2)) FROM readings)
         AS totals_match;

-- The store underneath: levels, SSTs.
SELECT * FROM hummock_stream.versions;
SELECT count(*) AS sstables, sum(size_bytes) AS bytes FROM hummock_stream.sstables;
