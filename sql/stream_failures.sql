-- A view whose epochs fail is shown as failed with its last error, makes
-- wait() fail at once (55000) instead of timing out, and heals by itself
-- when its cause goes away (its graph retries with a growing delay).
-- wait() returns at once when nothing streams into what it waits for.
CREATE EXTENSION hummock_stream;
CREATE EXTENSION hummock_stream_test;

CREATE FUNCTION error_of(stmt text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
  st text;
  msg text;
  detail text;
BEGIN
  EXECUTE stmt;
  RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
  GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT, detail = PG_EXCEPTION_DETAIL;
  RETURN st || ': ' || msg || CASE WHEN detail <> '' THEN ' DETAIL: ' || detail ELSE '' END;
END $$;

-- no view: nothing to wait for, even without time to wait
SELECT hummock_stream.wait(NULL, '0 s');
-- nor for a relation USING hummock that no view writes
CREATE TABLE loaded (id int) USING hummock;
SELECT hummock_stream_test.test_load('loaded', hummock_stream.epoch_at(now()), 'SELECT 1') > 0 AS loaded;
SELECT hummock_stream.wait('loaded', '0 s');
SELECT hummock_stream.wait(NULL, '0 s');
DROP TABLE loaded;

-- a view whose query calls a function that fails while a switch is on
CREATE TABLE switch (broken bool NOT NULL);
INSERT INTO switch VALUES (false);
CREATE FUNCTION checked(v int) RETURNS int IMMUTABLE LANGUAGE plpgsql AS $$
BEGIN
  IF (SELECT broken FROM public.switch) THEN
    RAISE EXCEPTION 'broken on purpose at value %', v;
  END IF;
  RETURN v;
END $$;
CREATE TABLE src (id int PRIMARY KEY, v int);
INSERT INTO src VALUES (1, 10);
SELECT hummock_stream.create_materialized_view('v_fragile',
  'SELECT id, public.checked(v) AS v FROM src');
SELECT hummock_stream.create_materialized_view('v_sturdy', 'SELECT count(*) AS n FROM src');
SELECT name, state, last_error FROM hummock_stream.jobs ORDER BY name::text COLLATE "C";

-- its next epoch fails, and every retry fails the same way
UPDATE switch SET broken = true;
INSERT INTO src VALUES (2, 20);
SELECT hummock_stream_test.wait_for_state('v_fragile', 'failed');
SELECT name, state, last_error FROM hummock_stream.jobs ORDER BY name::text COLLATE "C";
-- the graph was reset and keeps the error until it commits again
SELECT resets >= 1 AS was_reset, last_error
  FROM hummock_stream.partial_graphs WHERE graph_id = 'v_fragile'::regclass::oid;

-- wait() fails at once, naming the view and its last error
SELECT error_of($$SELECT hummock_stream.wait()$$);
SELECT error_of($$SELECT hummock_stream.wait('v_fragile')$$);
-- the other view goes on, and a failing view does not hold the global
-- read epoch back (it is read at its own committed epoch)
SELECT hummock_stream.wait('v_sturdy');
SELECT * FROM v_sturdy;
SELECT * FROM v_fragile ORDER BY id;

-- what another role sees: no job of others, no error of others' views
-- (the error of a view only with its owner's privileges or pg_monitor's);
-- wait() waits only for the views it may read
CREATE ROLE hs_reader;
SET ROLE hs_reader;
SELECT count(*) AS jobs_seen FROM hummock_stream.jobs;
SELECT graph_id = 'v_fragile'::regclass::oid AS fragile, last_error
  FROM hummock_stream._graph_failures();
SELECT hummock_stream.wait(NULL, '0 s');
RESET ROLE;
GRANT SELECT ON v_sturdy TO hs_reader;
SET ROLE hs_reader;
SELECT hummock_stream.wait();
RESET ROLE;
GRANT SELECT ON v_fragile TO hs_reader;
GRANT pg_monitor TO hs_reader;
SET ROLE hs_reader;
SELECT name, state, last_error FROM hummock_stream.jobs ORDER BY name::text COLLATE "C";
SELECT error_of($$SELECT hummock_stream.wait()$$);
RESET ROLE;

-- once the switch is off, a retry succeeds: the view catches up by itself
UPDATE switch SET broken = false;
SELECT hummock_stream_test.wait_for_state('v_fragile', 'created');
SELECT hummock_stream.wait();
SELECT * FROM v_fragile ORDER BY id;
SELECT name, state, last_error FROM hummock_stream.jobs ORDER BY name::text COLLATE "C";
SELECT state, last_error, retry_at
  FROM hummock_stream.partial_graphs WHERE graph_id = 'v_fragile'::regclass::oid;

-- a row its expressions fail on (22012) fails the view; once the row is
-- fixed or gone, the retry's replay (the net change since the view's last
-- commit: the row's insert and its fix cancel) no longer evaluates it, and
-- the view heals by itself, as a query over the rows as they are now
CREATE TABLE ratios (id int PRIMARY KEY, a int, b int);
INSERT INTO ratios VALUES (1, 10, 2);
SELECT hummock_stream.create_materialized_view('v_ratio', 'SELECT id, a / b AS q FROM ratios');
INSERT INTO ratios VALUES (2, 5, 0);
SELECT hummock_stream_test.wait_for_state('v_ratio', 'failed');
SELECT last_error FROM hummock_stream.jobs WHERE name = 'v_ratio'::regclass;
UPDATE ratios SET b = 5 WHERE id = 2;
SELECT hummock_stream_test.wait_for_state('v_ratio', 'created');
SELECT hummock_stream.wait('v_ratio');
SELECT * FROM v_ratio ORDER BY id;
-- two bad rows in one transaction, one deleted and one fixed in another
BEGIN;
INSERT INTO ratios VALUES (3, 1, 0), (4, 8, 0);
UPDATE ratios SET a = a + 1 WHERE id = 1;
COMMIT;
SELECT hummock_stream_test.wait_for_state('v_ratio', 'failed');
BEGIN;
DELETE FROM ratios WHERE id = 3;
UPDATE ratios SET b = 4 WHERE id = 4;
COMMIT;
SELECT hummock_stream_test.wait_for_state('v_ratio', 'created');
SELECT hummock_stream.wait('v_ratio');
SELECT * FROM v_ratio ORDER BY id;
SELECT * FROM hummock_stream_test.views_differ() WHERE view = 'v_ratio'::regclass;
-- a dropped view's partial graph is forgotten once its actor stopped
CREATE TEMP TABLE ratio_graph AS SELECT 'v_ratio'::regclass::oid AS g;
SELECT hummock_stream.drop_materialized_view('v_ratio');
DO $$
BEGIN
  FOR i IN 1..1200 LOOP
    EXIT WHEN NOT EXISTS (SELECT FROM hummock_stream.partial_graphs p, ratio_graph r WHERE p.graph_id = r.g);
    PERFORM pg_sleep(0.05);
  END LOOP;
END $$;
SELECT count(*) AS ratio_graphs FROM hummock_stream.partial_graphs p, ratio_graph r WHERE p.graph_id = r.g;
SELECT count(*) AS graphs_without_actors FROM hummock_stream.partial_graphs WHERE actors = 0;
DROP TABLE ratios, ratio_graph;

SET client_min_messages = warning;	-- the capture log's name has an OID
REVOKE pg_monitor FROM hs_reader;
DROP OWNED BY hs_reader;
DROP ROLE hs_reader;
DROP FUNCTION error_of(text);
DROP EXTENSION hummock_stream_test;
DROP EXTENSION hummock_stream CASCADE;
DROP TABLE src, switch;
DROP FUNCTION checked(int);
