-- scripts/demo.sql -- what scripts/demo.sh shows in psql
CREATE EXTENSION hummock_stream;
SELECT hummock_stream.version();
SELECT name, setting, unit FROM hummock_stream.settings;

-- A streaming materialized view over "orders", which a writer keeps
-- inserting into (200 rows/s) while the demo runs.  The view is created,
-- backfilled and committed in this call; background workers keep it up to
-- date at every checkpoint.
SELECT hummock_stream.create_materialized_view('sales',
  $$SELECT customer_id, count(*) AS n, sum(amount) AS total, max(amount) AS biggest
      FROM orders WHERE status <> 'cancelled'
     GROUP BY customer_id HAVING count(*) > 1$$);
SELECT * FROM sales ORDER BY customer_id LIMIT 5;
SELECT pg_sleep(2);
-- two seconds later: the same groups have grown
SELECT * FROM sales ORDER BY customer_id LIMIT 5;
SELECT name, state, sources, lag FROM hummock_stream.jobs;
-- once the writer is done, read your writes: wait() returns when
-- everything committed before the call is visible; the view then equals
-- its query run by Postgres
SELECT pg_sleep(9);
SELECT hummock_stream.wait();
SELECT count(*) AS rows_differing FROM (
  (TABLE sales EXCEPT ALL
   SELECT customer_id, count(*), sum(amount), max(amount) FROM orders
    WHERE status <> 'cancelled' GROUP BY customer_id HAVING count(*) > 1)
  UNION ALL
  (SELECT customer_id, count(*), sum(amount), max(amount) FROM orders
    WHERE status <> 'cancelled' GROUP BY customer_id HAVING count(*) > 1
   EXCEPT ALL TABLE sales)) d;

-- Two partial graphs, each with a counter actor that commits its own table
-- (ids 1001 and 1002); graph 2 also has an actor that takes 700 ms to pass
-- each barrier.  Partial checkpoints: graph 1 keeps committing at the
-- barrier rate, graph 2 at its own pace, neither waits for the other.
INSERT INTO hummock_stream.test_actors (graph_id, kind, param, table_id)
VALUES (1, 'counter', 0, 1001), (2, 'counter', 0, 1002), (2, 'sleep', 700, NULL);
SELECT pg_sleep(5);
SELECT graph_id, state, actors, commits, inflight, resets
  FROM hummock_stream.partial_graphs ORDER BY graph_id;
SELECT table_id, committed_epoch, committed_at FROM hummock_stream.table_epochs()
 ORDER BY table_id;
SELECT * FROM hummock_stream.workers;

-- Each table is read at its own committed epoch, or at any older retained one.
SELECT hummock_stream.test_get(1001, 'count') AS graph_1_count,
       hummock_stream.test_get(1002, 'count') AS graph_2_count;
SELECT hummock_stream.test_get(1001, 'count',
         (SELECT min(prev_epoch) FROM hummock_stream.barriers
           WHERE graph_id = 1 AND kind = 'checkpoint')) AS graph_1_count_at_its_first_checkpoint;

-- Latency of each graph's barriers, inject -> commit (ms).
SELECT graph_id, count(*) AS checkpoints,
       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY commit_ms)::numeric, 1) AS p50_ms,
       round(percentile_cont(0.99) WITHIN GROUP (ORDER BY commit_ms)::numeric, 1) AS p99_ms
  FROM hummock_stream.barriers WHERE graph_id > 0 AND kind = 'checkpoint'
 GROUP BY graph_id ORDER BY graph_id;

-- An actor that fails resets only its own graph.
INSERT INTO hummock_stream.test_actors (graph_id, kind, param) VALUES (3, 'error', 10);
SELECT pg_sleep(3);
SELECT graph_id, state, commits, resets, last_error
  FROM hummock_stream.partial_graphs ORDER BY graph_id;

-- The store underneath: levels, SSTs, and one SST's layout.
SELECT * FROM hummock_stream.versions;
SELECT count(*) AS sstables, sum(size_bytes) AS bytes FROM hummock_stream.sstables;
