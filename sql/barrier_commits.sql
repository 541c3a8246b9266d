-- The barrier loop commits tables: a mutation adds a counter actor whose
-- table starts committing; each checkpoint commits exactly the graph's
-- tables; with checkpoint_frequency = 3 every third barrier commits, and
-- its commit holds the data of the barriers in between.
CREATE EXTENSION hummock_stream;
CREATE EXTENSION hummock_stream_test;

-- the Add mutation rides on the next barrier of graph 1
INSERT INTO hummock_stream_test.test_actors (graph_id, kind, param, table_id)
VALUES (1, 'counter', 0, 5001);
DO $$
BEGIN
  FOR i IN 1..300 LOOP
    EXIT WHEN (SELECT commits FROM hummock_stream.partial_graphs WHERE graph_id = 1) >= 5;
    PERFORM pg_sleep(0.1);
  END LOOP;
END $$;
SELECT graph_id, state, actors, commits >= 5 AS committing, resets
  FROM hummock_stream.partial_graphs;
SELECT table_id, committed_epoch > 0 AS committed FROM hummock_stream.table_epochs();

-- the graph's first barrier was Initial; then every barrier is a checkpoint
SELECT kind FROM hummock_stream.barriers WHERE graph_id = 1
 ORDER BY curr_epoch LIMIT 2;

-- the counter adds one per epoch: its value at each committed epoch grows
-- by one from one checkpoint to the next
WITH c AS (
  SELECT prev_epoch, hummock_stream_test.test_get(5001, 'count', prev_epoch)::int AS n
    FROM hummock_stream.barriers
   WHERE graph_id = 1 AND kind = 'checkpoint'
     AND prev_epoch <= (SELECT committed_epoch FROM hummock_stream.table_epochs()
                         WHERE table_id = 5001))
SELECT bool_and(n - lag_n = 1) AS one_per_checkpoint
  FROM (SELECT n, lag(n) OVER (ORDER BY prev_epoch) AS lag_n FROM c) s
 WHERE lag_n IS NOT NULL;

-- a second graph commits its own table at its own epochs
INSERT INTO hummock_stream_test.test_actors (graph_id, kind, param, table_id)
VALUES (2, 'counter', 0, 5002);
DO $$
BEGIN
  FOR i IN 1..300 LOOP
    EXIT WHEN (SELECT commits FROM hummock_stream.partial_graphs WHERE graph_id = 2) >= 3;
    PERFORM pg_sleep(0.1);
  END LOOP;
END $$;
SELECT count(*) AS tables FROM hummock_stream.table_epochs() WHERE table_id IN (5001, 5002);

-- Pause: graph 1 consumes no input (its counter stops) while its table
-- keeps committing epochs; Resume: it counts again.
INSERT INTO hummock_stream_test.test_graphs VALUES (1, true);
DO $$
BEGIN
  FOR i IN 1..300 LOOP
    EXIT WHEN (SELECT paused FROM hummock_stream.partial_graphs WHERE graph_id = 1);
    PERFORM pg_sleep(0.1);
  END LOOP;
END $$;
CREATE TEMP TABLE paused_at AS
  SELECT (SELECT commits FROM hummock_stream.partial_graphs WHERE graph_id = 1) AS commits,
         hummock_stream_test.test_get(5001, 'count')::int AS n;
DO $$
BEGIN
  FOR i IN 1..300 LOOP
    EXIT WHEN (SELECT commits FROM hummock_stream.partial_graphs WHERE graph_id = 1)
              >= (SELECT commits FROM paused_at) + 3;
    PERFORM pg_sleep(0.1);
  END LOOP;
END $$;
SELECT hummock_stream_test.test_get(5001, 'count')::int - (SELECT n FROM paused_at) AS counted_while_paused,
       (SELECT commits FROM hummock_stream.partial_graphs WHERE graph_id = 1)
         >= (SELECT commits FROM paused_at) + 3 AS still_committing;
UPDATE hummock_stream_test.test_graphs SET paused = false WHERE graph_id = 1;
DO $$
BEGIN
  FOR i IN 1..300 LOOP
    EXIT WHEN hummock_stream_test.test_get(5001, 'count')::int > (SELECT n FROM paused_at) + 2;
    PERFORM pg_sleep(0.1);
  END LOOP;
END $$;
SELECT paused, hummock_stream_test.test_get(5001, 'count')::int > (SELECT n FROM paused_at) + 2 AS counting_again
  FROM hummock_stream.partial_graphs WHERE graph_id = 1;

-- Update: a changed actor parameter rides on the next barrier (param -1
-- makes the counter of graph 2 idle)
UPDATE hummock_stream_test.test_actors SET param = -1 WHERE graph_id = 2;
CREATE TEMP TABLE updated_at AS
  SELECT (SELECT commits FROM hummock_stream.partial_graphs WHERE graph_id = 2) AS commits;
DO $$
BEGIN
  FOR i IN 1..300 LOOP
    EXIT WHEN (SELECT commits FROM hummock_stream.partial_graphs WHERE graph_id = 2)
              >= (SELECT commits FROM updated_at) + 3;
    PERFORM pg_sleep(0.1);
  END LOOP;
END $$;
CREATE TEMP TABLE idle_at AS
  SELECT (SELECT commits FROM hummock_stream.partial_graphs WHERE graph_id = 2) AS commits,
         hummock_stream_test.test_get(5002, 'count')::int AS n;
DO $$
BEGIN
  FOR i IN 1..300 LOOP
    EXIT WHEN (SELECT commits FROM hummock_stream.partial_graphs WHERE graph_id = 2)
              >= (SELECT commits FROM idle_at) + 3;
    PERFORM pg_sleep(0.1);
  END LOOP;
END $$;
SELECT hummock_stream_test.test_get(5002, 'count')::int = (SELECT n FROM idle_at) AS idle_after_update,
       resets AS graph_2_resets
  FROM hummock_stream.partial_graphs WHERE graph_id = 2;

-- checkpoint_frequency = 3
ALTER SYSTEM SET hummock_stream.checkpoint_frequency = 3;
SELECT pg_reload_conf();
CREATE TEMP TABLE mark AS
  SELECT max(curr_epoch) AS before_change FROM hummock_stream.barriers WHERE graph_id = 1;
DO $$
BEGIN
  FOR i IN 1..300 LOOP
    EXIT WHEN (SELECT count(*) FROM hummock_stream.barriers
                WHERE graph_id = 1 AND curr_epoch > (SELECT before_change FROM mark)
                  AND kind = 'checkpoint') >= 5;
    PERFORM pg_sleep(0.1);
  END LOOP;
END $$;
-- after the first checkpoint under the new setting: two plain barriers
-- between checkpoints, and only checkpoints commit
WITH r AS (
  SELECT kind, committed_at, prev_epoch,
         row_number() OVER (ORDER BY curr_epoch) AS pos
    FROM hummock_stream.barriers
   WHERE graph_id = 1 AND curr_epoch > (SELECT before_change FROM mark)),
first_ckpt AS (
  SELECT min(pos) AS p FROM r
   WHERE kind = 'checkpoint' AND pos > (SELECT min(pos) FROM r WHERE kind = 'barrier')),
steady AS (SELECT r.* FROM r, first_ckpt WHERE pos >= first_ckpt.p)
SELECT bool_and((kind = 'checkpoint') = ((pos - (SELECT p FROM first_ckpt)) % 3 = 0)) AS every_third,
       bool_and((kind = 'checkpoint') = (committed_at IS NOT NULL)) AS only_checkpoints_commit
  FROM steady;
-- each commit now holds three epochs of the counter
WITH c AS (
  SELECT prev_epoch, hummock_stream_test.test_get(5001, 'count', prev_epoch)::int AS n
    FROM hummock_stream.barriers
   WHERE graph_id = 1 AND kind = 'checkpoint' AND curr_epoch > (SELECT before_change FROM mark)
     AND prev_epoch <= (SELECT committed_epoch FROM hummock_stream.table_epochs()
                         WHERE table_id = 5001))
SELECT count(*) >= 2 AS several, bool_and(n - lag_n = 3) AS three_per_checkpoint
  FROM (SELECT prev_epoch, n, lag(n) OVER (ORDER BY prev_epoch) AS lag_n FROM c) s
 WHERE lag_n IS NOT NULL
   -- the first one may still span the switch from one to three
   AND prev_epoch > (SELECT min(prev_epoch) FROM c WHERE prev_epoch > (SELECT min(prev_epoch) FROM c));
ALTER SYSTEM RESET hummock_stream.checkpoint_frequency;
SELECT pg_reload_conf();
-- wait until the manager runs with the default again (so does the
-- postmaster, whose next children inherit it)
DO $$
BEGIN
  FOR i IN 1..300 LOOP
    EXIT WHEN (SELECT bool_and(kind = 'checkpoint')
                 FROM (SELECT kind FROM hummock_stream.barriers WHERE graph_id = 0
                        ORDER BY curr_epoch DESC LIMIT 4) b);
    PERFORM pg_sleep(0.1);
  END LOOP;
END $$;

-- a Stop mutation removes the actors; the graph goes away, its table stays
DELETE FROM hummock_stream_test.test_actors;
DO $$
BEGIN
  FOR i IN 1..300 LOOP
    EXIT WHEN (SELECT coalesce(sum(actors), 0) FROM hummock_stream.partial_graphs) = 0;
    PERFORM pg_sleep(0.1);
  END LOOP;
END $$;
SELECT coalesce(sum(actors), 0) AS actors_left FROM hummock_stream.partial_graphs;
SELECT hummock_stream_test.test_get(5001, 'count')::int > 5 AS table_kept;

DROP EXTENSION hummock_stream_test;
DROP EXTENSION hummock_stream;
