-- The barrier manager of a database: started by CREATE EXTENSION, stopped
-- by DROP EXTENSION; epochs strictly increase.
CREATE EXTENSION hummock_stream;
CREATE EXTENSION hummock_stream_test;

-- wait (bounded) until the manager runs and has injected 5 barriers
DO $$
BEGIN
  FOR i IN 1..300 LOOP
    EXIT WHEN hummock_stream.manager_pid() IS NOT NULL
          AND (SELECT count(*) FROM hummock_stream.barriers WHERE graph_id = 0) >= 5;
    PERFORM pg_sleep(0.1);
  END LOOP;
END $$;
SELECT hummock_stream.manager_pid() IS NOT NULL AS manager_running;
SELECT count(*) >= 5 AS barriers_advance FROM hummock_stream.barriers WHERE graph_id = 0;

-- each barrier's prev is the previous barrier's curr; epochs increase
-- (graph 0: the barriers the manager injects for the database)
SELECT bool_and(prev_epoch < curr_epoch) AS increasing,
       bool_and(prev_epoch = lag_curr) AS chained
  FROM (SELECT prev_epoch, curr_epoch,
               lag(curr_epoch) OVER (ORDER BY curr_epoch) AS lag_curr
          FROM hummock_stream.barriers WHERE graph_id = 0) b
 WHERE lag_curr IS NOT NULL;

-- with checkpoint_frequency = 1 every barrier is a checkpoint
SELECT DISTINCT kind FROM hummock_stream.barriers WHERE graph_id = 0;

-- the epoch's high bits are the wall clock
SELECT abs(extract(epoch FROM now()) * 1000
           - ((max(curr_epoch) >> 16) + 1735689600000)) < 60000 AS epoch_is_wall_clock
  FROM hummock_stream.barriers WHERE graph_id = 0;

-- the manager appears in pg_stat_activity
SELECT backend_type FROM pg_stat_activity
 WHERE pid = hummock_stream.manager_pid();

-- an ordinary role sees the database's own barriers (graph 0), not the
-- graphs of views it does not own (here: a test graph, pg_monitor's only)
INSERT INTO hummock_stream_test.test_actors (graph_id, kind, param) VALUES (7, 'counter', -1);
DO $$
BEGIN
  FOR i IN 1..300 LOOP
    EXIT WHEN (SELECT commits FROM hummock_stream.partial_graphs WHERE graph_id = 7) > 0;
    PERFORM pg_sleep(0.1);
  END LOOP;
END $$;
CREATE ROLE hs_nobody;
SET ROLE hs_nobody;
SELECT count(*) > 0 AS sees_barriers, bool_and(graph_id = 0) AS only_graph_0
  FROM hummock_stream.barriers();
SELECT count(*) AS graphs_seen FROM hummock_stream.partial_graphs;
SELECT manager_pid FROM hummock_stream.manager_pid();
RESET ROLE;
GRANT pg_monitor TO hs_nobody;
SET ROLE hs_nobody;
SELECT count(*) AS pg_monitor_sees_graphs FROM hummock_stream.partial_graphs;
RESET ROLE;
DELETE FROM hummock_stream_test.test_actors;
DROP ROLE hs_nobody;

-- DROP EXTENSION stops the manager: wait until it has left
DROP EXTENSION hummock_stream_test;
DROP EXTENSION hummock_stream;
DO $$
BEGIN
  FOR i IN 1..300 LOOP
    EXIT WHEN NOT EXISTS (SELECT 1 FROM pg_stat_activity
                           WHERE backend_type = 'hummock_stream barrier manager'
                             AND datname = current_database());
    PERFORM pg_sleep(0.1);
  END LOOP;
END $$;
SELECT count(*) AS managers_left FROM pg_stat_activity
 WHERE backend_type = 'hummock_stream barrier manager' AND datname = current_database();
