/* hummock_stream_test--0.1.sql -- install script of the test module */

\echo Use "CREATE EXTENSION hummock_stream_test" to load this file. \quit

-- Everything lives in its own schema, a member of the extension, so DROP
-- EXTENSION hummock_stream_test removes it with everything in it and
-- hummock_stream's own schema holds no test object.
CREATE SCHEMA hummock_stream_test;
COMMENT ON SCHEMA hummock_stream_test IS
  'Test scaffolding of hummock_stream: test actors and graphs, functions that drive the store directly';
-- Every object below is the superuser's (REVOKE ... FROM PUBLIC), as the
-- same objects were when they lived in hummock_stream.
GRANT USAGE ON SCHEMA hummock_stream_test TO PUBLIC;

-- ---------------------------------------------------------------------
-- Test actors of the barrier loop
-- ---------------------------------------------------------------------
-- Each row is an actor of partial graph graph_id.  Inserting or deleting
-- rows changes the graphs at the next barrier (an Add or Stop mutation;
-- a changed param is an Update).  The library, in shared_preload_libraries
-- after hummock_stream, registers the kinds with the compute workers and
-- these tables as a graph source of every barrier manager.
--   counter: adds one to a counter in its table every epoch (param < 0:
--            idle, its table commits epochs but never changes)
--   sleep:   takes param ms to pass each barrier
--   error:   fails at its param-th barrier (then its graph is reset)
CREATE TABLE hummock_stream_test.test_actors (
    actor_id serial PRIMARY KEY,
    graph_id integer NOT NULL CHECK (graph_id > 0),
    kind     text NOT NULL CHECK (kind IN ('counter', 'sleep', 'error')),
    param    integer NOT NULL DEFAULT 0,
    table_id bigint
);
COMMENT ON TABLE hummock_stream_test.test_actors IS
  'Test actors of the barrier loop; changes apply at the next barrier';

-- Graphs whose input is paused (a Pause mutation; deleting the row or
-- setting paused = false resumes them).
CREATE TABLE hummock_stream_test.test_graphs (
    graph_id integer PRIMARY KEY CHECK (graph_id > 0),
    paused   boolean NOT NULL DEFAULT false
);
COMMENT ON TABLE hummock_stream_test.test_graphs IS
  'Pause state of test graphs; changes apply at the next barrier';

-- Wakes the database's barrier manager when the transaction commits, so
-- it rereads its graphs.
CREATE FUNCTION hummock_stream_test._graphs_changed()
RETURNS trigger
AS 'MODULE_PATHNAME', 'hummock_stream_test_graphs_changed'
LANGUAGE C;
CREATE TRIGGER test_actors_changed
  AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON hummock_stream_test.test_actors
  FOR EACH STATEMENT EXECUTE FUNCTION hummock_stream_test._graphs_changed();
CREATE TRIGGER test_graphs_changed
  AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON hummock_stream_test.test_graphs
  FOR EACH STATEMENT EXECUTE FUNCTION hummock_stream_test._graphs_changed();

REVOKE ALL ON FUNCTION hummock_stream_test._graphs_changed() FROM PUBLIC;
REVOKE ALL ON hummock_stream_test.test_actors, hummock_stream_test.test_graphs FROM PUBLIC;

-- ---------------------------------------------------------------------
-- Driving the store directly (superuser only)
-- ---------------------------------------------------------------------

CREATE FUNCTION hummock_stream_test.test_write(table_id bigint, epoch bigint,
                                               keys text[], vals text[],
                                               change_log boolean DEFAULT false)
RETURNS bigint
AS 'MODULE_PATHNAME', 'hummock_stream_test_write'
LANGUAGE C CALLED ON NULL INPUT VOLATILE;
COMMENT ON FUNCTION hummock_stream_test.test_write(bigint, bigint, text[], text[], boolean) IS
  'Write keys (NULL value: delete) of a table at an epoch and commit the table at that epoch in this transaction; returns the version id';

CREATE FUNCTION hummock_stream_test.test_scan(table_id bigint, epoch bigint DEFAULT NULL,
                                              OUT key text, OUT value text)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'hummock_stream_test_scan'
LANGUAGE C CALLED ON NULL INPUT VOLATILE;
COMMENT ON FUNCTION hummock_stream_test.test_scan(bigint, bigint) IS
  'Rows of a table at an epoch (default: its committed epoch), in key order';

CREATE FUNCTION hummock_stream_test.test_get(table_id bigint, key text, epoch bigint DEFAULT NULL)
RETURNS text
AS 'MODULE_PATHNAME', 'hummock_stream_test_get'
LANGUAGE C CALLED ON NULL INPUT VOLATILE;
COMMENT ON FUNCTION hummock_stream_test.test_get(bigint, text, bigint) IS
  'Value of one key of a table at an epoch (default: its committed epoch), or NULL';

CREATE FUNCTION hummock_stream_test.test_iter_log(table_id bigint, from_epoch bigint, to_epoch bigint,
                                                  OUT op text, OUT key text, OUT value text)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'hummock_stream_test_iter_log'
LANGUAGE C STRICT VOLATILE;
COMMENT ON FUNCTION hummock_stream_test.test_iter_log(bigint, bigint, bigint) IS
  'Net change of each key of a table over epochs (from_epoch, to_epoch], from its change log';

CREATE FUNCTION hummock_stream_test.test_load(rel regclass, epoch bigint, query text,
                                              change_log boolean DEFAULT true)
RETURNS bigint
AS 'MODULE_PATHNAME', 'hummock_stream_test_load'
LANGUAGE C STRICT VOLATILE;
COMMENT ON FUNCTION hummock_stream_test.test_load(regclass, bigint, text, boolean) IS
  'Make the rows of a relation USING hummock at epoch exactly the rows of query, and commit it, keeping a change log unless told not to (tests)';

CREATE FUNCTION hummock_stream_test.sst_build_test(path text, entries integer,
                                                   table_id integer DEFAULT 42,
                                                   versions integer DEFAULT 1)
RETURNS bigint
AS 'MODULE_PATHNAME', 'hummock_stream_test_sst_build'
LANGUAGE C STRICT VOLATILE;
COMMENT ON FUNCTION hummock_stream_test.sst_build_test(text, integer, integer, integer) IS
  'Build a deterministic SST with the current hummock_stream.sst_* settings; returns its size (superuser; relative paths are relative to the data directory)';

CREATE FUNCTION hummock_stream_test.write_file_across_checkpoint(path text, bytes integer)
RETURNS void
AS 'MODULE_PATHNAME', 'hummock_stream_test_write_file_across_checkpoint'
LANGUAGE C STRICT VOLATILE;
COMMENT ON FUNCTION hummock_stream_test.write_file_across_checkpoint(text, integer) IS
  'Write path (under pg_hummock/) as the store writes an object, with a checkpoint between its two halves; byte i is 1 + i % 251 (superuser)';

REVOKE ALL ON FUNCTION hummock_stream_test.write_file_across_checkpoint(text, integer) FROM PUBLIC;
REVOKE ALL ON FUNCTION hummock_stream_test.test_write(bigint, bigint, text[], text[], boolean) FROM PUBLIC;
REVOKE ALL ON FUNCTION hummock_stream_test.test_scan(bigint, bigint) FROM PUBLIC;
REVOKE ALL ON FUNCTION hummock_stream_test.test_get(bigint, text, bigint) FROM PUBLIC;
REVOKE ALL ON FUNCTION hummock_stream_test.test_iter_log(bigint, bigint, bigint) FROM PUBLIC;
REVOKE ALL ON FUNCTION hummock_stream_test.test_load(regclass, bigint, text, boolean) FROM PUBLIC;
REVOKE ALL ON FUNCTION hummock_stream_test.sst_build_test(text, integer, integer, integer) FROM PUBLIC;

-- Injected faults (faults.c): the view's job fails at each of its next
-- epochs epochs (0 stops it); returns how many epochs it failed so far.
CREATE FUNCTION hummock_stream_test.fail_view(view regclass, epochs integer DEFAULT 1)
RETURNS bigint
AS 'MODULE_PATHNAME', 'hummock_stream_test_fail_view'
LANGUAGE C STRICT VOLATILE;
REVOKE ALL ON FUNCTION hummock_stream_test.fail_view(regclass, integer) FROM PUBLIC;

-- ---------------------------------------------------------------------
-- The streaming executors and planner in isolation (superuser only)
-- ---------------------------------------------------------------------
-- Each exec_* function builds one executor of hummock_stream over input
-- columns given as a column definition list ('k text, v int'), its state
-- tables in memory, feeds it a script of changes ('+1|a|3', '-1|a|3',
-- 'flush' ending an epoch, 'state' showing the state tables; inputs of a
-- join or union prefixed 'l:', 'r:' or '1:', '2:') and returns what came
-- out, a line per row: '+1|a|3' or '-1|a|3' (sign, then the row), or a
-- state table entry.  The README of the module documents the formats.

CREATE FUNCTION hummock_stream_test.exec_project(input text, script text[],
                                                 targets text DEFAULT NULL,
                                                 filter text DEFAULT NULL)
RETURNS TABLE (epoch integer, line text)
AS 'MODULE_PATHNAME', 'hummock_stream_test_exec_project'
LANGUAGE C CALLED ON NULL INPUT VOLATILE;
COMMENT ON FUNCTION hummock_stream_test.exec_project(text, text[], text, text) IS
  'Run a script of changes through a streaming Project (targets, filter: SQL over the input columns)';

CREATE FUNCTION hummock_stream_test.exec_hash_agg(input text, group_keys integer, aggs text,
                                                  script text[], evict boolean DEFAULT false)
RETURNS TABLE (epoch integer, line text)
AS 'MODULE_PATHNAME', 'hummock_stream_test_exec_hash_agg'
LANGUAGE C CALLED ON NULL INPUT VOLATILE;
COMMENT ON FUNCTION hummock_stream_test.exec_hash_agg(text, integer, text, text[], boolean) IS
  'Run a script of changes through a streaming HashAgg (the first group_keys input columns are the group key; aggs: aggregate calls over input columns)';

CREATE FUNCTION hummock_stream_test.exec_hash_join(kind text, left_input text, right_input text,
                                                   left_keys text, right_keys text, script text[],
                                                   filter text DEFAULT NULL,
                                                   left_ukey text DEFAULT NULL,
                                                   right_ukey text DEFAULT NULL,
                                                   evict boolean DEFAULT false)
RETURNS TABLE (epoch integer, line text)
AS 'MODULE_PATHNAME', 'hummock_stream_test_exec_hash_join'
LANGUAGE C CALLED ON NULL INPUT VOLATILE;
COMMENT ON FUNCTION hummock_stream_test.exec_hash_join(text, text, text, text, text, text[], text, text, text, boolean) IS
  'Run a script of changes (l: and r: lines) through a streaming HashJoin (inner, left, full, semi, anti)';

CREATE FUNCTION hummock_stream_test.exec_top_n(input text, order_by text, script text[],
                                               row_limit bigint DEFAULT NULL,
                                               row_offset bigint DEFAULT 0,
                                               with_ties boolean DEFAULT false,
                                               partition_by text DEFAULT NULL,
                                               ukey text DEFAULT NULL,
                                               row_number boolean DEFAULT false)
RETURNS TABLE (epoch integer, line text)
AS 'MODULE_PATHNAME', 'hummock_stream_test_exec_top_n'
LANGUAGE C CALLED ON NULL INPUT VOLATILE;
COMMENT ON FUNCTION hummock_stream_test.exec_top_n(text, text, text[], bigint, bigint, boolean, text, text, boolean) IS
  'Run a script of changes through a streaming TopN (order_by: columns with ASC or DESC)';

CREATE FUNCTION hummock_stream_test.exec_union(input text, inputs integer, script text[])
RETURNS TABLE (epoch integer, line text)
AS 'MODULE_PATHNAME', 'hummock_stream_test_exec_union'
LANGUAGE C CALLED ON NULL INPUT VOLATILE;
COMMENT ON FUNCTION hummock_stream_test.exec_union(text, integer, text[]) IS
  'Run a script of changes (1:, 2:, ... lines) through a streaming Union of inputs inputs';

CREATE FUNCTION hummock_stream_test.exec_materialize(input text, script text[],
                                                     key text DEFAULT NULL,
                                                     counted boolean DEFAULT false,
                                                     view_columns integer DEFAULT NULL)
RETURNS TABLE (epoch integer, line text)
AS 'MODULE_PATHNAME', 'hummock_stream_test_exec_materialize'
LANGUAGE C CALLED ON NULL INPUT VOLATILE;
COMMENT ON FUNCTION hummock_stream_test.exec_materialize(text, text[], text, boolean, integer) IS
  'Run a script of changes through a streaming Materialize into an in-memory view table (shown by state lines)';

CREATE FUNCTION hummock_stream_test.plan_describe(query text)
RETURNS TABLE (item text, value text)
AS 'MODULE_PATHNAME', 'hummock_stream_test_plan_describe'
LANGUAGE C STRICT VOLATILE;
COMMENT ON FUNCTION hummock_stream_test.plan_describe(text) IS
  'How the streaming planner plans a query: columns, key columns, sources, operators, state tables; or its refusal with the SQLSTATE';

CREATE FUNCTION hummock_stream_test.plan_run(query text, script text[] DEFAULT '{}',
                                             evict boolean DEFAULT false,
                                             recorded text[] DEFAULT NULL)
RETURNS TABLE (epoch integer, line text)
AS 'MODULE_PATHNAME', 'hummock_stream_test_plan_run'
LANGUAGE C CALLED ON NULL INPUT VOLATILE;
COMMENT ON FUNCTION hummock_stream_test.plan_run(text, text[], boolean, text[]) IS
  'Run a query''s streaming plan over in-memory state: backfill (epoch 0), then the script''s changes of its tables (table: +1|...), checking the view against the query after every epoch; the tables are left unchanged; recorded: the state table roles of a view made by an older plan, planned as the worker plans it';

REVOKE ALL ON FUNCTION hummock_stream_test.exec_project(text, text[], text, text) FROM PUBLIC;
REVOKE ALL ON FUNCTION hummock_stream_test.exec_hash_agg(text, integer, text, text[], boolean) FROM PUBLIC;
REVOKE ALL ON FUNCTION hummock_stream_test.exec_hash_join(text, text, text, text, text, text[], text, text, text, boolean) FROM PUBLIC;
REVOKE ALL ON FUNCTION hummock_stream_test.exec_top_n(text, text, text[], bigint, bigint, boolean, text, text, boolean) FROM PUBLIC;
REVOKE ALL ON FUNCTION hummock_stream_test.exec_union(text, integer, text[]) FROM PUBLIC;
REVOKE ALL ON FUNCTION hummock_stream_test.exec_materialize(text, text[], text, boolean, integer) FROM PUBLIC;
REVOKE ALL ON FUNCTION hummock_stream_test.plan_describe(text) FROM PUBLIC;
REVOKE ALL ON FUNCTION hummock_stream_test.plan_run(text, text[], boolean, text[]) FROM PUBLIC;

-- The differential check of regress tests: how many rows a streaming view
-- and its query (its definition, run by Postgres now) do not share, as
-- multisets; and that for every view.
CREATE FUNCTION hummock_stream_test.view_differs(view regclass) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
  def text := (SELECT definition FROM hummock_stream.jobs WHERE name = view);
  n bigint;
BEGIN
  EXECUTE format('SELECT count(*) FROM ((TABLE %s EXCEPT ALL (%s)) UNION ALL ((%s) EXCEPT ALL TABLE %s)) d',
                 view, def, def, view) INTO n;
  RETURN n;
END $$;
CREATE FUNCTION hummock_stream_test.views_differ() RETURNS TABLE (view regclass, differs bigint)
LANGUAGE sql AS
  $$SELECT name, hummock_stream_test.view_differs(name) FROM hummock_stream.jobs ORDER BY name::text$$;

-- A view's state once it is s ('failed', 'created', ...), polled every
-- 50 ms for at most 60 s; the state it has then, whatever it is.
CREATE FUNCTION hummock_stream_test.wait_for_state(v regclass, s text) RETURNS text
LANGUAGE plpgsql AS $$
BEGIN
  FOR i IN 1..1200 LOOP
    EXIT WHEN (SELECT j.state = s FROM hummock_stream.jobs j WHERE j.name = v);
    PERFORM pg_sleep(0.05);
  END LOOP;
  RETURN (SELECT j.state FROM hummock_stream.jobs j WHERE j.name = v);
END $$;
