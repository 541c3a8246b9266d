-- The test module (test/modules/hummock_stream_test) is a separate
-- extension: its objects live in its own schema, its actor kinds are
-- registered by its library (preloaded after hummock_stream), an actor of
-- a kind no library registered fails its graph with an error naming the
-- kind, and DROP EXTENSION hummock_stream_test stops its actors.
CREATE EXTENSION hummock_stream;
CREATE EXTENSION hummock_stream_test;

SELECT pg_describe_object(classid, objid, objsubid) AS object
  FROM pg_depend
 WHERE refclassid = 'pg_extension'::regclass
   AND refobjid = (SELECT oid FROM pg_extension WHERE extname = 'hummock_stream_test')
   AND deptype = 'e'
 ORDER BY 1;
SELECT e.extname, r.extname AS requires
  FROM pg_extension e
  JOIN pg_depend d ON d.classid = 'pg_extension'::regclass AND d.objid = e.oid
  JOIN pg_extension r ON d.refclassid = 'pg_extension'::regclass AND d.refobjid = r.oid
 WHERE e.extname = 'hummock_stream_test';

-- a kind the test module does not know (its CHECK constraint dropped):
-- the graph source passes kind 0, which no library registered
ALTER TABLE hummock_stream_test.test_actors DROP CONSTRAINT test_actors_kind_check;
INSERT INTO hummock_stream_test.test_actors (graph_id, kind) VALUES (9, 'no_such_kind');
DO $$
BEGIN
  FOR i IN 1..300 LOOP
    EXIT WHEN (SELECT resets FROM hummock_stream.partial_graphs WHERE graph_id = 9) > 0;
    PERFORM pg_sleep(0.1);
  END LOOP;
END $$;
SELECT graph_id, commits, resets > 0 AS reset, last_error
  FROM hummock_stream.partial_graphs WHERE graph_id = 9;
DELETE FROM hummock_stream_test.test_actors;

-- a counter commits its table; DROP EXTENSION hummock_stream_test stops
-- it at the next barrier (its graph goes), and its table stays
INSERT INTO hummock_stream_test.test_actors (graph_id, kind, table_id)
VALUES (10, 'counter', 6001);
DO $$
BEGIN
  FOR i IN 1..300 LOOP
    EXIT WHEN (SELECT commits FROM hummock_stream.partial_graphs WHERE graph_id = 10) >= 3;
    PERFORM pg_sleep(0.1);
  END LOOP;
END $$;
SELECT graph_id, state, actors, commits >= 3 AS committing
  FROM hummock_stream.partial_graphs WHERE graph_id = 10;
DROP EXTENSION hummock_stream_test;
DO $$
BEGIN
  FOR i IN 1..300 LOOP
    EXIT WHEN (SELECT coalesce(sum(actors), 0) FROM hummock_stream.partial_graphs) = 0;
    PERFORM pg_sleep(0.1);
  END LOOP;
END $$;
SELECT coalesce(sum(actors), 0) AS actors_left FROM hummock_stream.partial_graphs;
SELECT table_id, committed_epoch > 0 AS committed FROM hummock_stream.table_epochs()
 WHERE table_id = 6001;

-- the test functions went with it; hummock_stream has none of its own
SELECT count(*) AS test_functions FROM pg_proc WHERE proname LIKE 'test\_%'
   AND pronamespace IN ('hummock_stream'::regnamespace);
SELECT count(*) AS schemas FROM pg_namespace WHERE nspname = 'hummock_stream_test';

DROP EXTENSION hummock_stream;
