-- Streaming materialized views: create_materialized_view, wait,
-- drop_materialized_view and the jobs view; what a view may be defined by,
-- and that each kind of view follows INSERT, UPDATE and DELETE of its
-- source.  Every view is checked against Postgres itself: (TABLE v EXCEPT
-- ALL definition) UNION ALL (definition EXCEPT ALL TABLE v) is empty.
CREATE EXTENSION hummock_stream;

-- rows of a view that its definition, run by Postgres, does not give, and
-- the other way round (0: the view is right).  Rows are compared as text,
-- so that a value printed differently (numeric 2.0 and 2) counts too.
CREATE FUNCTION view_diff(v regclass) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
  def text;
  n bigint;
BEGIN
  SELECT j.definition INTO STRICT def FROM hummock_stream.jobs j WHERE j.name = v;
  EXECUTE format('SELECT count(*) FROM ((SELECT v::text FROM %s v EXCEPT ALL SELECT d::text FROM (%s) d)'
                 ' UNION ALL (SELECT d::text FROM (%s) d EXCEPT ALL SELECT v::text FROM %s v)) x',
                 v, def, def, v) INTO n;
  RETURN n;
END $$;

-- the SQLSTATE, message and hint of a statement's error
CREATE FUNCTION error_of(stmt text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
  st text;
  msg text;
  hint text;
BEGIN
  EXECUTE stmt;
  RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
  GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT, hint = PG_EXCEPTION_HINT;
  RETURN st || ': ' || msg || CASE WHEN hint <> '' THEN ' HINT: ' || hint ELSE '' END;
END $$;

-- the error of creating a view 'bad' defined by def
CREATE FUNCTION create_error(def text) RETURNS text
LANGUAGE sql AS $$
  SELECT error_of(format('SELECT hummock_stream.create_materialized_view(%L, %L)', 'bad', def))
$$;

-- ---------------------------------------------------------------------
-- Sources
-- ---------------------------------------------------------------------
CREATE TABLE orders (
    id       int PRIMARY KEY,
    customer text COLLATE "C",
    region   text COLLATE "C",
    amount   numeric,
    qty      int,
    paid     bool
);
INSERT INTO orders VALUES
  (1, 'alice', 'north', 10.50, 1, true),
  (2, 'bob',   'north', 20,    2, false),
  (3, 'alice', 'south', 20,    3, true),
  (4, 'carol', 'south', 5.25,  4, true),
  (5, 'dave',  NULL,    7,     5, NULL),
  (6, 'bob',   'east',  NULL,  NULL, false),
  (7, 'erin',  'north', 20,    1, true);

-- no primary key: a multiset, with duplicate rows
CREATE TABLE events (kind text COLLATE "C", n int);
INSERT INTO events VALUES
  ('click', 1), ('click', 1), ('click', 2), ('view', NULL), ('view', NULL),
  (NULL, 3), ('buy', 0);

CREATE TABLE empty_t (g int, x int);
CREATE TABLE shrinking (x int);
INSERT INTO shrinking VALUES (1), (2), (3);

-- ---------------------------------------------------------------------
-- Views of each kind
-- ---------------------------------------------------------------------
-- projection and filter over a table with a primary key
SELECT hummock_stream.create_materialized_view('v_paid',
  $$SELECT id, customer, amount * qty AS total FROM orders WHERE paid$$);
-- a filter on a column that updates move in and out of the view
SELECT hummock_stream.create_materialized_view('v_big',
  $$SELECT id, upper(customer) AS cust, amount FROM orders WHERE amount >= 10 AND id <> 99$$);
-- a projection without the key: one row per source row, so duplicates
SELECT hummock_stream.create_materialized_view('v_customers',
  $$SELECT customer, region FROM orders$$);
SELECT hummock_stream.create_materialized_view('v_star', $$SELECT * FROM orders$$);
-- every supported aggregate, grouped (a NULL group key is a group)
SELECT hummock_stream.create_materialized_view('v_by_region',
  $$SELECT region, count(*) AS n, count(amount) AS n_amount, sum(qty) AS qty,
           sum(amount) AS amount, avg(qty) AS avg_qty, min(amount) AS min_amount,
           max(amount) AS max_amount, bool_and(paid) AS all_paid,
           bool_or(paid) AS any_paid, every(paid) AS every_paid
      FROM orders GROUP BY region$$);
-- min and max of text (C collation), a group key expression, HAVING
SELECT hummock_stream.create_materialized_view('v_names',
  $$SELECT region, min(customer) AS first, max(customer) AS last
      FROM orders GROUP BY region$$);
SELECT hummock_stream.create_materialized_view('v_parity',
  $$SELECT qty % 2 AS parity, count(*) AS n, sum(amount) / count(*) AS mean,
           max(id) - min(id) AS spread
      FROM orders WHERE customer <> 'zed' GROUP BY qty % 2$$);
SELECT hummock_stream.create_materialized_view('v_repeat',
  $$SELECT customer, count(*) AS orders, sum(qty) AS qty
      FROM orders GROUP BY customer HAVING count(*) > 1$$);
-- aggregates without GROUP BY: always exactly one row
SELECT hummock_stream.create_materialized_view('v_total',
  $$SELECT count(*) AS n, sum(amount) AS amount, min(qty) AS min_qty,
           max(qty) AS max_qty, bool_or(paid) AS any_paid
      FROM orders$$);
-- DISTINCT
SELECT hummock_stream.create_materialized_view('v_regions',
  $$SELECT DISTINCT region, paid FROM orders$$);
-- a table without a primary key, with and without aggregation
SELECT hummock_stream.create_materialized_view('v_events',
  $$SELECT kind, n FROM events WHERE n IS DISTINCT FROM 0$$);
SELECT hummock_stream.create_materialized_view('v_event_kinds',
  $$SELECT kind, count(*) AS n, count(n) AS n_values, sum(n) AS total, max(n) AS max
      FROM events GROUP BY kind$$);
SELECT hummock_stream.create_materialized_view('v_event_distinct',
  $$SELECT DISTINCT kind FROM events$$);
-- aggregates over an empty table
SELECT hummock_stream.create_materialized_view('v_empty_total',
  $$SELECT count(*) AS n, count(x) AS n_x, sum(x) AS sum, avg(x) AS avg, min(x) AS min,
           bool_and(x > 0) AS all_positive
      FROM empty_t$$);
SELECT hummock_stream.create_materialized_view('v_empty_groups',
  $$SELECT g, count(*) AS n, sum(x) AS sum FROM empty_t GROUP BY g$$);
-- a no-GROUP-BY aggregate whose table will become empty
SELECT hummock_stream.create_materialized_view('v_shrinking',
  $$SELECT count(*) AS n, sum(x) AS sum, max(x) AS max, avg(x) AS avg FROM shrinking$$);
-- schema-qualified and quoted names
CREATE SCHEMA sales;
SELECT hummock_stream.create_materialized_view('sales.by_customer',
  $$SELECT customer, sum(amount) AS amount FROM public.orders GROUP BY customer$$);
SELECT hummock_stream.create_materialized_view('sales."Big Orders"',
  $$SELECT id, amount::numeric(10,1) AS amount FROM orders WHERE amount > 15$$);

-- each view is a relation USING hummock, owned by its creator, in the
-- schema named or the first of the search path
SELECT c.oid::regclass AS view, n.nspname, a.amname, pg_get_userbyid(c.relowner) = current_user AS mine
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace JOIN pg_am a ON a.oid = c.relam
 WHERE c.oid IN (SELECT name FROM hummock_stream.jobs)
 ORDER BY c.oid::regclass::text COLLATE "C";
-- with the definition's column names and types
SELECT attrelid::regclass AS view, attname, format_type(atttypid, atttypmod) AS type
  FROM pg_attribute
 WHERE attrelid IN ('v_by_region'::regclass, 'sales."Big Orders"'::regclass, 'v_parity'::regclass)
   AND attnum > 0
 ORDER BY attrelid::regclass::text COLLATE "C", attnum;

-- readable as soon as create_materialized_view returns
SELECT * FROM v_paid ORDER BY id;
SELECT * FROM v_big ORDER BY id;
SELECT * FROM v_customers ORDER BY customer, region;
SELECT * FROM v_star ORDER BY id;
SELECT * FROM v_by_region ORDER BY region;
SELECT * FROM v_names ORDER BY region;
SELECT * FROM v_parity ORDER BY parity;
SELECT * FROM v_repeat ORDER BY customer;
SELECT * FROM v_total;
SELECT * FROM v_regions ORDER BY region, paid;
SELECT * FROM v_events ORDER BY kind, n;
SELECT * FROM v_event_kinds ORDER BY kind;
SELECT * FROM v_event_distinct ORDER BY kind;
SELECT * FROM v_empty_total;
SELECT * FROM v_empty_groups ORDER BY g;
SELECT * FROM v_shrinking;
SELECT * FROM sales.by_customer ORDER BY customer;
SELECT * FROM sales."Big Orders" ORDER BY id;
SELECT name, view_diff(name) FROM hummock_stream.jobs ORDER BY name::text COLLATE "C";
-- and at each view's own committed epoch
SET hummock_stream.query_consistency = per_table;
SELECT * FROM v_by_region ORDER BY region;
RESET hummock_stream.query_consistency;

-- the jobs view
SELECT name, state, sources, definition FROM hummock_stream.jobs ORDER BY name::text COLLATE "C";
SELECT count(*) AS jobs, count(committed_epoch) AS committed, count(created_at) AS created
  FROM hummock_stream.jobs;

-- ---------------------------------------------------------------------
-- Changes
-- ---------------------------------------------------------------------
-- inserts, one into a new group and one with a NULL group key
INSERT INTO orders VALUES
  (8, 'frank', 'west', 30, 2, true),
  (9, 'alice', NULL, 1.5, 2, false);
-- a row moves from north to south; a filter column moves rows in and out
UPDATE orders SET region = 'south' WHERE id = 2;
UPDATE orders SET amount = 9 WHERE id = 7;          -- leaves v_big
UPDATE orders SET amount = 12 WHERE id = 4;         -- enters v_big
UPDATE orders SET paid = true WHERE id = 6;         -- enters v_paid
-- delete the max of south (20 twice: one copy stays) and the min of north (9);
-- north's max (20) left with the moves above
DELETE FROM orders WHERE id = 3;
DELETE FROM orders WHERE id = 7;
-- the only row of east goes: the group goes
DELETE FROM orders WHERE region = 'east';
-- a key update, and an update that changes nothing
UPDATE orders SET id = 10 WHERE id = 1;
UPDATE orders SET qty = qty WHERE id = 2;
-- several statements in one transaction, one undoing another
BEGIN;
INSERT INTO orders VALUES (11, 'gina', 'north', 100, 1, true);
UPDATE orders SET amount = amount + 1 WHERE id = 11;
DELETE FROM orders WHERE id = 11;
INSERT INTO orders VALUES (12, 'gina', 'north', 15, 1, true);
COMMIT;
-- a rolled back transaction leaves no trace
BEGIN;
DELETE FROM orders;
ROLLBACK;

-- duplicates: delete both copies of one row, insert a third copy of another
DELETE FROM events WHERE kind = 'view';
INSERT INTO events VALUES ('click', 1);
UPDATE events SET n = 5 WHERE kind = 'click' AND n = 2;
UPDATE events SET kind = 'buy' WHERE kind IS NULL;
INSERT INTO events VALUES (NULL, NULL);

-- the table that became empty, and the empty one gets rows
DELETE FROM shrinking;
INSERT INTO empty_t VALUES (1, 5), (1, NULL), (NULL, -1);

SELECT hummock_stream.wait();

SELECT * FROM v_paid ORDER BY id;
SELECT * FROM v_big ORDER BY id;
SELECT * FROM v_customers ORDER BY customer, region;
SELECT * FROM v_star ORDER BY id;
SELECT * FROM v_by_region ORDER BY region;
SELECT * FROM v_names ORDER BY region;
SELECT * FROM v_parity ORDER BY parity;
SELECT * FROM v_repeat ORDER BY customer;
SELECT * FROM v_total;
SELECT * FROM v_regions ORDER BY region, paid;
SELECT * FROM v_events ORDER BY kind, n;
SELECT * FROM v_event_kinds ORDER BY kind;
SELECT * FROM v_event_distinct ORDER BY kind;
SELECT * FROM v_empty_total;
SELECT * FROM v_empty_groups ORDER BY g;
SELECT * FROM v_shrinking;
SELECT * FROM sales.by_customer ORDER BY customer;
SELECT * FROM sales."Big Orders" ORDER BY id;

-- the differential check, written out once
(TABLE v_by_region EXCEPT ALL
 SELECT region, count(*), count(amount), sum(qty), sum(amount), avg(qty), min(amount),
        max(amount), bool_and(paid), bool_or(paid), every(paid)
   FROM orders GROUP BY region)
UNION ALL
(SELECT region, count(*), count(amount), sum(qty), sum(amount), avg(qty), min(amount),
        max(amount), bool_and(paid), bool_or(paid), every(paid)
   FROM orders GROUP BY region
 EXCEPT ALL TABLE v_by_region);
-- and for every view
SELECT name, view_diff(name) FROM hummock_stream.jobs ORDER BY name::text COLLATE "C";

-- more rounds: groups emptied and refilled, the empty table emptied again
UPDATE orders SET region = NULL WHERE region = 'south';
DELETE FROM orders WHERE customer = 'alice';
INSERT INTO shrinking VALUES (7), (7);
DELETE FROM empty_t;
INSERT INTO events SELECT 'bulk', g % 3 FROM generate_series(1, 1000) g;
DELETE FROM events WHERE kind = 'bulk' AND n = 0;
-- wait for one view, then with a timeout
SELECT hummock_stream.wait('v_by_region'::regclass);
SELECT hummock_stream.wait(NULL, '30s');
SELECT * FROM v_by_region ORDER BY region;
SELECT * FROM v_shrinking;
SELECT * FROM v_empty_total;
SELECT * FROM v_empty_groups ORDER BY g;
SELECT * FROM v_event_kinds ORDER BY kind;
SELECT name, view_diff(name) FROM hummock_stream.jobs ORDER BY name::text COLLATE "C";

-- a read at an epoch a view has not committed yet waits for the view
SELECT hummock_stream.epoch_at(now() + interval '300 ms')::text AS soon \gset
SET hummock_stream.query_epoch = :'soon';
SELECT count(*) > 0 AS read_after_waiting FROM v_by_region;
RESET hummock_stream.query_epoch;
-- wait on a relation that is not USING hummock, a negative timeout
SELECT error_of($$SELECT hummock_stream.wait('orders'::regclass)$$);
SELECT error_of($$SELECT hummock_stream.wait(NULL, '-1s')$$);

-- ---------------------------------------------------------------------
-- What a view cannot be defined by
-- ---------------------------------------------------------------------
CREATE VIEW plain_view AS SELECT * FROM orders;
CREATE MATERIALIZED VIEW plain_matview AS SELECT * FROM orders;
CREATE TABLE hummock_table (id int) USING hummock;
CREATE TEMPORARY TABLE temp_t (id int);
CREATE UNLOGGED TABLE unlogged_t (id int);
CREATE TABLE rls_t (id int);
ALTER TABLE rls_t ENABLE ROW LEVEL SECURITY;
CREATE TABLE parted (id int) PARTITION BY RANGE (id);
CREATE TABLE parted_low PARTITION OF parted FOR VALUES FROM (0) TO (10);
CREATE TABLE parent_t (id int);
CREATE TABLE child_t () INHERITS (parent_t);

SELECT create_error($$SELECT id FROM orders o WHERE (id, qty) NOT IN (SELECT n, n FROM events e WHERE e.n > o.qty)$$);
SELECT create_error($$SELECT o.id FROM orders o, orders o2, LATERAL (SELECT n FROM events e WHERE e.n = o.qty OR e.n = o2.qty) l$$);
SELECT create_error($$SELECT o.id FROM orders o, (VALUES (1)) v(x) FULL JOIN generate_series(1, 3) g ON g = v.x$$);
SELECT create_error($$SELECT id, (SELECT n FROM events LIMIT 1) FROM orders$$);
SELECT create_error($$SELECT id FROM orders LIMIT 3$$);
SELECT create_error($$SELECT id FROM orders OFFSET 1$$);
SELECT create_error($$SELECT id, random() FROM orders$$);
SELECT create_error($$SELECT id FROM orders WHERE random() < 0.5$$);
SELECT create_error($$SELECT ctid, id FROM orders$$);
SELECT create_error($$SELECT id FROM orders WHERE xmin <> '0'$$);
-- (a query that reads no table, a VALUES list or generate_series alone, is
-- a constant view: stream_constant_inputs)
SELECT create_error($$SELECT id FROM orders LIMIT 3$$);
SELECT create_error($$SELECT id FROM orders ORDER BY id LIMIT -1$$);
SELECT create_error($$SELECT id FROM orders ORDER BY ARRAY[customer COLLATE "en-x-icu"] LIMIT 3$$);
SELECT create_error($$SELECT region, id FROM orders GROUP BY region$$);
SELECT create_error($$SELECT * FROM plain_matview$$);
SELECT create_error($$SELECT * FROM hummock_table$$);
SELECT create_error($$SELECT * FROM temp_t$$);
SELECT create_error($$SELECT * FROM unlogged_t$$);
-- nor may a source become a partition later
CREATE TABLE parted_high (id int);
SELECT hummock_stream.create_materialized_view('v_parted_high', 'SELECT id FROM parted_high');
SELECT error_of($$ALTER TABLE parted ATTACH PARTITION parted_high FOR VALUES FROM (10) TO (20)$$);
SELECT hummock_stream.drop_materialized_view('v_parted_high');
ALTER TABLE parted ATTACH PARTITION parted_high FOR VALUES FROM (10) TO (20);
-- the extension's own tables (its catalogs and the capture logs) and views
SELECT create_error($$SELECT * FROM hummock_stream.stream_jobs$$);
SELECT create_error($$SELECT relid FROM hummock_stream.capture_logs$$);
SELECT create_error($$SELECT name, state FROM hummock_stream.jobs$$);
SELECT regexp_replace(create_error(format('SELECT * FROM %s', log_relid::regclass)), 'capture_\d+', 'capture_N')
  FROM hummock_stream.capture_logs WHERE relid = 'orders'::regclass;
SELECT create_error($$SELECT * FROM orders TABLESAMPLE SYSTEM (50)$$);
SELECT create_error($$SELECT * FROM orders FOR UPDATE$$);
SELECT create_error($$SELECT relname FROM pg_class$$);
SELECT create_error($$SELECT now() AS t$$);
SELECT create_error($$SELECT FROM orders$$);
-- not a single SELECT, or not valid
SELECT create_error($$INSERT INTO orders VALUES (100)$$);
SELECT create_error($$DELETE FROM orders$$);
SELECT create_error($$CREATE TABLE t (id int)$$);
SELECT create_error($$SELECT 1; SELECT 2$$);
SELECT create_error($$SELEC id FROM orders$$);
SELECT create_error($$SELECT id FROM no_such_table$$);
SELECT create_error($$SELECT no_such_column FROM orders$$);
-- NULL, empty and malformed names; a NULL query
SELECT error_of($$SELECT hummock_stream.create_materialized_view(NULL, 'SELECT id FROM orders')$$);
SELECT error_of($$SELECT hummock_stream.create_materialized_view('bad', NULL)$$);
SELECT error_of($$SELECT hummock_stream.create_materialized_view(NULL, NULL)$$);
SELECT error_of($$SELECT hummock_stream.create_materialized_view('', 'SELECT id FROM orders')$$);
SELECT error_of($$SELECT hummock_stream.create_materialized_view('  ', 'SELECT id FROM orders')$$);
SELECT error_of($$SELECT hummock_stream.create_materialized_view('public.', 'SELECT id FROM orders')$$);
SELECT error_of($$SELECT hummock_stream.create_materialized_view('.bad', 'SELECT id FROM orders')$$);
SELECT error_of($$SELECT hummock_stream.create_materialized_view('a..b', 'SELECT id FROM orders')$$);
SELECT error_of($$SELECT hummock_stream.create_materialized_view('two words', 'SELECT id FROM orders')$$);
SELECT error_of($$SELECT hummock_stream.create_materialized_view('"unclosed', 'SELECT id FROM orders')$$);
SELECT error_of($$SELECT hummock_stream.create_materialized_view('"a"b', 'SELECT id FROM orders')$$);
SELECT error_of($$SELECT hummock_stream.create_materialized_view('a.b.c.d', 'SELECT id FROM orders')$$);
SELECT error_of($$SELECT hummock_stream.create_materialized_view('other_db.public.bad', 'SELECT id FROM orders')$$);
-- a name longer than NAMEDATALEN - 1 bytes is truncated with Postgres's
-- NOTICE (42622), as CREATE TABLE truncates it
\set VERBOSITY sqlstate
SELECT hummock_stream.create_materialized_view(repeat('long_name_', 7), 'SELECT id FROM orders');
\set VERBOSITY default
SELECT hummock_stream.drop_materialized_view(repeat('long_name_', 7));
CREATE TABLE long_name_long_name_long_name_long_name_long_name_long_name_long_name_ (id int);
DROP TABLE long_name_long_name_long_name_long_name_long_name_long_name_long_name_;
SELECT hummock_stream.create_materialized_view('public."' || repeat('Long Name ', 7) || '"', 'SELECT id FROM orders');
SELECT hummock_stream.drop_materialized_view(format('public.%I', left(repeat('Long Name ', 7), 63)));
-- a quoted name keeps its case, an unquoted one is folded
SELECT hummock_stream.create_materialized_view(' public . "Mixed.Case" ', 'SELECT id FROM orders');
SELECT hummock_stream.create_materialized_view('Folded_Name', 'SELECT id FROM orders');
SELECT relname FROM pg_class WHERE relname IN ('Mixed.Case', 'folded_name') ORDER BY 1;
SELECT hummock_stream.drop_materialized_view('public."Mixed.Case"');
SELECT hummock_stream.drop_materialized_view('folded_name');
-- a name that is taken
SELECT error_of($$SELECT hummock_stream.create_materialized_view('orders', 'SELECT id FROM orders')$$);
SELECT error_of($$SELECT hummock_stream.create_materialized_view('v_paid', 'SELECT id FROM orders')$$);
SELECT error_of($$SELECT hummock_stream.create_materialized_view('no_such_schema.v', 'SELECT id FROM orders')$$);
-- nothing was left behind
SELECT to_regclass('bad') AS bad;
SELECT count(*) AS jobs FROM hummock_stream.jobs;

-- ---------------------------------------------------------------------
-- Writes to views and to their sources
-- ---------------------------------------------------------------------
SELECT error_of($$INSERT INTO v_paid VALUES (1, 'x', 1)$$);
SELECT error_of($$UPDATE v_paid SET total = 0$$);
SELECT error_of($$DELETE FROM v_paid$$);
SELECT error_of($$TRUNCATE v_paid$$);

-- ---------------------------------------------------------------------
-- Privileges
-- ---------------------------------------------------------------------
CREATE ROLE regress_stream_user;
CREATE SCHEMA stream_user AUTHORIZATION regress_stream_user;
GRANT SELECT ON events, rls_t TO regress_stream_user;
SET ROLE regress_stream_user;
-- no SELECT on the source
SELECT create_error($$SELECT id FROM public.orders$$);
SELECT error_of($$SELECT hummock_stream.create_materialized_view('stream_user.mine', 'SELECT id FROM public.orders')$$);
-- row-level security would apply to this role
SELECT create_error($$SELECT id FROM public.rls_t$$);
-- another's view: not the owner, and no SELECT on it
SELECT error_of($$SELECT hummock_stream.drop_materialized_view('public.v_events')$$);
SELECT error_of($$SELECT hummock_stream.wait('public.v_events')$$);
RESET ROLE;
DROP SCHEMA stream_user;
REVOKE SELECT ON events, rls_t FROM regress_stream_user;
DROP ROLE regress_stream_user;

-- ---------------------------------------------------------------------
-- Dropping
-- ---------------------------------------------------------------------
SELECT error_of($$SELECT hummock_stream.drop_materialized_view('orders')$$);
SELECT error_of($$SELECT hummock_stream.drop_materialized_view('hummock_table')$$);
SELECT error_of($$SELECT hummock_stream.drop_materialized_view('no_such_view')$$);

-- the capture triggers stay while a view reads the table, and go with its
-- last view: then it can be truncated again
SELECT count(*) AS capture_triggers FROM pg_trigger WHERE tgrelid = 'shrinking'::regclass;
SELECT hummock_stream.drop_materialized_view('v_shrinking');
SELECT to_regclass('v_shrinking') AS v_shrinking;
SELECT count(*) AS capture_triggers FROM pg_trigger WHERE tgrelid = 'shrinking'::regclass;
TRUNCATE shrinking;

SELECT hummock_stream.drop_materialized_view('sales."Big Orders"');
SELECT hummock_stream.drop_materialized_view('v_customers');
-- a view is a materialized view: DROP MATERIALIZED VIEW drops it too
DROP MATERIALIZED VIEW v_star;
-- ... which stops capturing a source no other view reads, as
-- drop_materialized_view does (when the dropping transaction commits)
CREATE TABLE cap_t (id int PRIMARY KEY, v int);
SELECT hummock_stream.create_materialized_view('cap_a', 'SELECT id, v FROM cap_t');
SELECT hummock_stream.create_materialized_view('cap_b', 'SELECT count(*) AS n FROM cap_t');
-- (statement triggers; row triggers, named after the source's OID, for
-- sessions in replica mode such as logical replication's apply workers)
SELECT regexp_replace(tgname, '_[0-9]+$', '_<oid>') AS tgname, tgenabled, tgnargs
  FROM pg_trigger WHERE tgrelid = 'cap_t'::regclass ORDER BY tgname;
-- the capture log is the extension's, named by no trigger
SELECT count(*) AS member FROM pg_depend d JOIN hummock_stream.capture_logs l ON d.objid = l.log_relid
 WHERE l.relid = 'cap_t'::regclass AND d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e';
DROP MATERIALIZED VIEW cap_a;
SELECT count(*) AS capture_triggers FROM pg_trigger WHERE tgrelid = 'cap_t'::regclass;
INSERT INTO cap_t VALUES (1, 10), (2, 20);
SELECT hummock_stream.wait('cap_b');
SELECT * FROM cap_b;
-- a drop that rolls back changes nothing
BEGIN;
DROP MATERIALIZED VIEW cap_b;
ROLLBACK;
SELECT count(*) AS capture_triggers FROM pg_trigger WHERE tgrelid = 'cap_t'::regclass;
SELECT log_relid AS cap_t_log FROM hummock_stream.capture_logs WHERE relid = 'cap_t'::regclass \gset
DROP MATERIALIZED VIEW cap_b;
SELECT count(*) AS capture_triggers FROM pg_trigger WHERE tgrelid = 'cap_t'::regclass;
SELECT count(*) AS captured FROM hummock_stream.capture_logs WHERE relid = 'cap_t'::regclass;
SELECT count(*) AS log_left FROM pg_class WHERE oid = :cap_t_log;
-- writes to the former source work, TRUNCATE too
INSERT INTO cap_t VALUES (3, 30);
UPDATE cap_t SET v = v + 1;
DELETE FROM cap_t WHERE id = 1;
TRUNCATE cap_t;
-- a view dropped in the same statement as its source, or in the same
-- transaction before it
SELECT hummock_stream.create_materialized_view('cap_c', 'SELECT id FROM cap_t');
DROP TABLE cap_t CASCADE;
SELECT count(*) AS captured FROM hummock_stream.capture_logs l
 WHERE NOT EXISTS (SELECT FROM pg_class c WHERE c.oid = l.relid);
CREATE TABLE cap_t (id int PRIMARY KEY, v int);
SELECT hummock_stream.create_materialized_view('cap_c', 'SELECT id FROM cap_t');
BEGIN;
DROP MATERIALIZED VIEW cap_c;
INSERT INTO cap_t VALUES (1, 1);
DROP TABLE cap_t;
COMMIT;
SELECT count(*) AS captured FROM hummock_stream.capture_logs l
 WHERE NOT EXISTS (SELECT FROM pg_class c WHERE c.oid = l.relid);
SELECT count(*) AS logs_left FROM pg_class
 WHERE relnamespace = 'hummock_stream'::regnamespace AND relname ~ '^capture_\d+$'
   AND oid NOT IN (SELECT log_relid FROM hummock_stream.capture_logs);
SELECT name, state, sources FROM hummock_stream.jobs ORDER BY name::text COLLATE "C";

-- a source with views cannot be dropped, except with CASCADE
SELECT error_of($$DROP TABLE orders$$);
SELECT error_of($$DROP TABLE events$$);
DROP TABLE events CASCADE;
SELECT name, sources FROM hummock_stream.jobs ORDER BY name::text COLLATE "C";
-- the other views still follow their sources
INSERT INTO orders VALUES (13, 'hank', 'west', 3, 3, true);
SELECT hummock_stream.wait();
SELECT * FROM v_by_region ORDER BY region;
SELECT name, view_diff(name) FROM hummock_stream.jobs ORDER BY name::text COLLATE "C";
DROP TABLE orders CASCADE;
SELECT name, sources FROM hummock_stream.jobs ORDER BY name::text COLLATE "C";

DROP TABLE empty_t CASCADE;
SELECT count(*) AS jobs FROM hummock_stream.jobs;
DROP TABLE shrinking, hummock_table, temp_t, unlogged_t, rls_t, parted, parent_t, child_t;

-- ---------------------------------------------------------------------
-- An ordinary role may create views over tables it may read
-- ---------------------------------------------------------------------
CREATE TABLE shared_t (id int PRIMARY KEY, v int);
INSERT INTO shared_t SELECT g, g % 3 FROM generate_series(1, 30) g;
CREATE ROLE hs_viewer;
GRANT SELECT ON shared_t TO hs_viewer;
CREATE SCHEMA viewer AUTHORIZATION hs_viewer;
SET ROLE hs_viewer;
SELECT hummock_stream.create_materialized_view('viewer.totals',
  'SELECT v, count(*) AS n FROM public.shared_t GROUP BY v');
SELECT * FROM viewer.totals ORDER BY v;
RESET ROLE;
SELECT relowner::regrole FROM pg_class WHERE oid = 'viewer.totals'::regclass;
INSERT INTO shared_t VALUES (31, 0);
SELECT hummock_stream.wait();
SET ROLE hs_viewer;
SELECT * FROM viewer.totals ORDER BY v;
SELECT hummock_stream.drop_materialized_view('viewer.totals');
RESET ROLE;
DROP SCHEMA viewer;
REVOKE SELECT ON shared_t FROM hs_viewer;
DROP ROLE hs_viewer;

-- ---------------------------------------------------------------------
-- The creating transaction's own writes
-- ---------------------------------------------------------------------
-- writes after the creation, in the same transaction, reach the view
BEGIN;
SELECT hummock_stream.create_materialized_view('own_after', 'SELECT count(*) AS n, sum(v) AS s FROM shared_t');
INSERT INTO shared_t VALUES (32, 2);
COMMIT;
SELECT hummock_stream.wait();
SELECT * FROM own_after;
SELECT view_diff('own_after');
-- a table created and filled in the creating transaction is backfilled
BEGIN;
CREATE TABLE fresh_t (id int PRIMARY KEY, v int);
INSERT INTO fresh_t VALUES (1, 10), (2, 20);
SELECT hummock_stream.create_materialized_view('fresh_v', 'SELECT sum(v) AS s FROM fresh_t');
INSERT INTO fresh_t VALUES (3, 30);
COMMIT;
SELECT hummock_stream.wait();
SELECT * FROM fresh_v;
-- writes to an already captured table before the creation are refused
BEGIN;
INSERT INTO shared_t VALUES (33, 1);
SELECT error_of($$SELECT hummock_stream.create_materialized_view('own_before', 'SELECT count(*) AS n FROM shared_t')$$);
ROLLBACK;

-- functions that are not immutable, and duplicate column names
SELECT create_error($$SELECT id FROM shared_t WHERE current_setting('my.flag', true) = 'on'$$);
SELECT create_error($$SELECT id, now() AS t FROM shared_t$$);
SELECT create_error($$SELECT id, v AS id FROM shared_t$$);
SELECT hummock_stream.drop_materialized_view('own_after');
SELECT hummock_stream.drop_materialized_view('fresh_v');
DROP TABLE shared_t, fresh_t;

-- ---------------------------------------------------------------------
-- NaN, infinities and -0 in sums, averages and extremes: every change is
-- taken back exactly (the view is what Postgres returns, printed alike)
-- ---------------------------------------------------------------------
CREATE TABLE special_t (id int PRIMARY KEY, g int, f8 float8, f4 float4, n numeric);
INSERT INTO special_t VALUES (1, 1, 1.5, 1.5, 1.5), (2, 1, 2.25, 2.25, 2.25),
  (3, 2, '-0', '-0', 0), (4, 3, 4, 4, 4.000);
SELECT hummock_stream.create_materialized_view('v_special',
  $$SELECT g, count(f8) AS n, sum(f8) AS s8, avg(f8) AS a8, sum(f4) AS s4, avg(f4) AS a4,
           min(f8) AS lo8, max(f8) AS hi8, max(f4) AS hi4, sum(n) AS sn, avg(n) AS an,
           min(n) AS lon, max(n) AS hin, sum(DISTINCT f8) AS sd8, avg(DISTINCT n) AS adn
      FROM special_t GROUP BY g$$);
SELECT hummock_stream.create_materialized_view('v_special_all',
  $$SELECT count(*) AS n, sum(f8) AS s8, avg(f4) AS a4, sum(n) AS sn, max(f8) AS hi8 FROM special_t$$);
CREATE FUNCTION special_step() RETURNS TABLE (g int, n bigint, s8 text, a8 text, s4 text,
  a4 text, lo8 text, hi8 text, hi4 text, sn text, an text, lon text, hin text, sd8 text,
  adn text) LANGUAGE sql AS $$
  SELECT g, n, s8::text, a8::text, s4::text, a4::text, lo8::text, hi8::text, hi4::text,
         sn::text, an::text, lon::text, hin::text, sd8::text, adn::text
    FROM v_special ORDER BY g
$$;
SELECT * FROM special_step();
-- NaN, then both infinities, in one group
INSERT INTO special_t VALUES (5, 1, 'NaN', 'NaN', 'NaN');
INSERT INTO special_t VALUES (6, 1, 'Infinity', 'Infinity', 'Infinity'),
  (7, 1, '-Infinity', '-Infinity', '-Infinity');
SELECT hummock_stream.wait();
SELECT * FROM special_step();
SELECT view_diff('v_special') AS v_special, view_diff('v_special_all') AS v_special_all;
-- the NaN goes: both infinities are left (NaN)
DELETE FROM special_t WHERE id = 5;
SELECT hummock_stream.wait();
SELECT * FROM special_step();
SELECT view_diff('v_special') AS v_special, view_diff('v_special_all') AS v_special_all;
-- then +Infinity: -Infinity is left
DELETE FROM special_t WHERE id = 6;
SELECT hummock_stream.wait();
SELECT * FROM special_step();
SELECT view_diff('v_special') AS v_special, view_diff('v_special_all') AS v_special_all;
-- an update turns -Infinity into +Infinity, another finite value into NaN
UPDATE special_t SET f8 = 'Infinity', f4 = 'Infinity', n = 'Infinity' WHERE id = 7;
UPDATE special_t SET f8 = 'NaN', f4 = 'NaN', n = 'NaN' WHERE id = 4;
SELECT hummock_stream.wait();
SELECT * FROM special_step();
SELECT view_diff('v_special') AS v_special, view_diff('v_special_all') AS v_special_all;
-- the specials go: the finite sums are back, exactly
DELETE FROM special_t WHERE id IN (4, 7);
SELECT hummock_stream.wait();
SELECT * FROM special_step();
SELECT view_diff('v_special') AS v_special, view_diff('v_special_all') AS v_special_all;
-- a sum of nothing but -0 is -0 (an average is 0)
INSERT INTO special_t VALUES (8, 2, '-0', '-0', 0);
SELECT hummock_stream.wait();
SELECT * FROM special_step();
SELECT view_diff('v_special') AS v_special, view_diff('v_special_all') AS v_special_all;
-- a group of only a NaN, emptied and refilled with finite values
INSERT INTO special_t VALUES (10, 4, 'NaN', 'NaN', 'NaN');
SELECT hummock_stream.wait();
DELETE FROM special_t WHERE id = 10;
INSERT INTO special_t VALUES (11, 4, 0.5, 0.5, 0.5), (12, 4, NULL, NULL, NULL);
SELECT hummock_stream.wait();
SELECT * FROM special_step();
SELECT view_diff('v_special') AS v_special, view_diff('v_special_all') AS v_special_all;
-- every row goes: NULLs, and count 0, without GROUP BY
DELETE FROM special_t;
SELECT hummock_stream.wait();
SELECT * FROM special_step();
SELECT * FROM v_special_all;
SELECT view_diff('v_special') AS v_special, view_diff('v_special_all') AS v_special_all;
SELECT hummock_stream.drop_materialized_view('v_special');
SELECT hummock_stream.drop_materialized_view('v_special_all');
DROP FUNCTION special_step();
DROP TABLE special_t;
-- -0 among other values (sums only: which of -0 and 0 min, max and
-- DISTINCT show depends on the order Postgres reads the rows in)
CREATE TABLE zero_t (id int PRIMARY KEY, f8 float8, f4 float4);
INSERT INTO zero_t VALUES (1, '-0', '-0'), (2, '-0', '-0');
SELECT hummock_stream.create_materialized_view('v_zero',
  'SELECT sum(f8) AS s8, sum(f4) AS s4, avg(f8) AS a8 FROM zero_t');
SELECT s8::text, s4::text, a8::text FROM v_zero;
-- another zero, or values that cancel out, make it 0
INSERT INTO zero_t VALUES (3, 0, 0);
SELECT hummock_stream.wait();
SELECT s8::text, s4::text, a8::text, view_diff('v_zero') FROM v_zero;
DELETE FROM zero_t WHERE id = 3;
INSERT INTO zero_t VALUES (4, 1, 1), (5, -1, -1);
SELECT hummock_stream.wait();
SELECT s8::text, s4::text, a8::text, view_diff('v_zero') FROM v_zero;
-- and back to nothing but -0
DELETE FROM zero_t WHERE id IN (4, 5);
SELECT hummock_stream.wait();
SELECT s8::text, s4::text, a8::text, view_diff('v_zero') FROM v_zero;
SELECT hummock_stream.drop_materialized_view('v_zero');
DROP TABLE zero_t;

-- ---------------------------------------------------------------------
-- What a dump restores: a former source with the capture triggers but no
-- capture log, and a view's relation that nothing maintains
-- ---------------------------------------------------------------------
CREATE TABLE restored_t (id int PRIMARY KEY, v int);
CREATE TRIGGER hummock_stream_capture_insert AFTER INSERT ON restored_t
  REFERENCING NEW TABLE AS hs_new FOR EACH STATEMENT EXECUTE FUNCTION hummock_stream._capture();
CREATE TRIGGER hummock_stream_capture_truncate BEFORE TRUNCATE ON restored_t
  FOR EACH STATEMENT EXECUTE FUNCTION hummock_stream._capture_truncate();
-- the triggers do nothing: writes and TRUNCATE work
INSERT INTO restored_t VALUES (1, 1), (2, 2);
TRUNCATE restored_t;
INSERT INTO restored_t VALUES (3, 3);
-- a view over it takes the triggers over, and goes with them
SELECT hummock_stream.create_materialized_view('restored_sum', 'SELECT sum(v) AS s FROM restored_t');
SELECT count(*) AS capture_triggers FROM pg_trigger WHERE tgrelid = 'restored_t'::regclass;
INSERT INTO restored_t VALUES (4, 4);
SELECT hummock_stream.wait('restored_sum');
SELECT * FROM restored_sum;
-- TRUNCATE is captured as the delete of every row
TRUNCATE restored_t;
SELECT hummock_stream.wait('restored_sum');
SELECT * FROM restored_sum;
SELECT hummock_stream.drop_materialized_view('restored_sum');
SELECT count(*) AS capture_triggers FROM pg_trigger WHERE tgrelid = 'restored_t'::regclass;
DROP TABLE restored_t;
-- COPY FROM STDIN into a relation USING hummock that nothing has written
-- (a view's relation as a dump restores it) reads the rows and discards
-- them; malformed rows are still errors
CREATE TABLE restored_view (id int, note text) USING hummock;
COPY restored_view FROM STDIN;
1	one
2	\N
\.
SELECT count(*) FROM restored_view;
COPY restored_view (id) FROM STDIN (FORMAT csv);
3
\.
COPY restored_view FROM STDIN;
x	bad
\.
DROP TABLE restored_view;

-- DDL around a view: its relation keeps the shape of the view's query, and
-- the source columns it uses stay as they are while it exists
CREATE TABLE ddl_t (id int PRIMARY KEY, v text, w int, u int);
INSERT INTO ddl_t VALUES (1, 'a', 1, 1), (2, 'b', 2, 2);
SELECT hummock_stream.create_materialized_view('ddl_v', 'SELECT id, upper(v) AS up, w FROM ddl_t');
SELECT error_of('ALTER TABLE ddl_v ADD COLUMN z int');
SELECT error_of('ALTER TABLE ddl_v DROP COLUMN w');
SELECT error_of('ALTER TABLE ddl_v ALTER COLUMN up TYPE varchar(10)');
SELECT error_of('ALTER TABLE ddl_v SET ACCESS METHOD heap');
-- nor does a table become one (its rows would go where only the engine writes)
SELECT error_of('ALTER TABLE ddl_t SET ACCESS METHOD hummock');
ALTER TABLE ddl_v RENAME COLUMN w TO ww;
ALTER TABLE ddl_v RENAME COLUMN ww TO w;
SELECT error_of('ALTER TABLE ddl_t DROP COLUMN v');
SELECT error_of('ALTER TABLE ddl_t ALTER COLUMN v TYPE varchar(20)');
-- a column the view does not use can go; the view goes on
ALTER TABLE ddl_t DROP COLUMN u;
INSERT INTO ddl_t VALUES (3, 'c', 3);
UPDATE ddl_t SET v = 'bb' WHERE id = 2;
SELECT hummock_stream.wait('ddl_v');
SET hummock_stream.query_consistency = per_table;
SELECT * FROM ddl_v ORDER BY id;
RESET hummock_stream.query_consistency;
SELECT view_diff('ddl_v');
-- dropping a used column with CASCADE drops the view (and its job)
ALTER TABLE ddl_t DROP COLUMN w CASCADE;
SELECT count(*) FROM pg_class WHERE relname = 'ddl_v';
SELECT count(*) FROM hummock_stream.jobs WHERE name::text = 'ddl_v';
DROP TABLE ddl_t;

-- Rows whose image the capture log keeps out of line (TOAST), compressed
-- (a long repetitive text) or not (storage EXTERNAL): their images are
-- read back from the log's TOAST table.  Such a row crashed the compute
-- worker, over and over after each restart.
CREATE TABLE big_t (id int PRIMARY KEY, k int, doc text, raw text);
ALTER TABLE big_t ALTER COLUMN raw SET STORAGE EXTERNAL;
SELECT hummock_stream.create_materialized_view('big_counts',
  'SELECT k, count(*) AS n FROM big_t GROUP BY k');
SELECT hummock_stream.create_materialized_view('big_docs',
  'SELECT id, length(doc) AS len, md5(doc) AS doc_md5, length(raw) AS raw_len FROM big_t');
INSERT INTO big_t SELECT 1, 1, string_agg(md5((i % 40)::text), ''), NULL FROM generate_series(1, 2000) i;
INSERT INTO big_t SELECT 2, 1, NULL, string_agg(md5(i::text), '') FROM generate_series(1, 200) i;
INSERT INTO big_t SELECT 3, 2, 'short', 'short';
SELECT hummock_stream.wait();
UPDATE big_t SET k = 2 WHERE id = 1;
UPDATE big_t SET doc = repeat('x', 100000) WHERE id = 2;
DELETE FROM big_t WHERE id = 3;
SELECT hummock_stream.wait();
SELECT * FROM big_counts ORDER BY k;
SELECT id, len, raw_len FROM big_docs ORDER BY id;
SELECT view_diff('big_counts'), view_diff('big_docs');
SELECT hummock_stream.drop_materialized_view('big_counts');
SELECT hummock_stream.drop_materialized_view('big_docs');
DROP TABLE big_t;

DROP FUNCTION view_diff(regclass);
DROP FUNCTION create_error(text);
DROP FUNCTION error_of(text);
DROP SCHEMA sales;
DROP EXTENSION hummock_stream CASCADE;
