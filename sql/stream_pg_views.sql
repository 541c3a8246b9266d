-- Postgres views among a streaming view's sources are expanded into the
-- subqueries they are when the view is created: their base tables are
-- captured, privileges are checked as a query through the view checks
-- them (the base tables as the view's owner, unless security_invoker),
-- and the streaming view depends on the view.
CREATE EXTENSION hummock_stream;
CREATE EXTENSION hummock_stream_test;	-- views_differ(): each view against its query
CREATE TABLE base_orders (id int PRIMARY KEY, customer text, amount numeric, paid bool);
CREATE TABLE base_customers (name text PRIMARY KEY, region text);
INSERT INTO base_orders SELECT i, 'c' || (i % 4), i * 2.5, i % 3 <> 0 FROM generate_series(1, 12) i;
INSERT INTO base_customers SELECT 'c' || i, CASE WHEN i < 2 THEN 'east' ELSE 'west' END FROM generate_series(0, 3) i;
CREATE VIEW paid_orders AS SELECT id, customer, amount FROM base_orders WHERE paid;
CREATE VIEW paid_by_region AS
  SELECT c.region, o.id, o.amount FROM paid_orders o JOIN base_customers c ON c.name = o.customer;


SELECT hummock_stream.create_materialized_view('region_totals',
  'SELECT region, count(*) AS n, sum(amount) AS total FROM paid_by_region GROUP BY region');
SELECT hummock_stream.create_materialized_view('big_paid', 'SELECT * FROM paid_orders WHERE amount > 20');
-- the base tables are the sources, and they are captured
SELECT name, sources FROM hummock_stream.jobs ORDER BY name::text;
SELECT * FROM region_totals ORDER BY region;
INSERT INTO base_orders VALUES (13, 'c1', 100, true), (14, 'c2', 1, false);
UPDATE base_orders SET paid = true WHERE id = 3;
UPDATE base_customers SET region = 'north' WHERE name = 'c0';
DELETE FROM base_orders WHERE id = 4;
SELECT hummock_stream.wait();
SELECT * FROM region_totals ORDER BY region;
SELECT hummock_stream_test.view_differs('region_totals') AS region_totals, hummock_stream_test.view_differs('big_paid') AS big_paid;

-- the streaming view depends on the views it read
DROP VIEW paid_by_region;
DROP VIEW paid_orders;
-- and keeps their expansion from its creation: replacing one it reads
-- (directly, or nested in another) is refused
CREATE OR REPLACE VIEW paid_orders AS SELECT id, customer, amount FROM base_orders WHERE paid AND amount > 0;
CREATE OR REPLACE VIEW paid_by_region AS
  SELECT c.region, o.id, o.amount FROM paid_orders o JOIN base_customers c ON c.name = o.customer;
-- a view no streaming view reads is replaced as usual
CREATE VIEW unread AS SELECT 1 AS one;
CREATE OR REPLACE VIEW unread AS SELECT 2 AS one;
DROP VIEW unread;

-- privileges: through a view, the base tables are checked as the view's
-- owner; the view itself as the caller
CREATE ROLE pv_owner;
CREATE ROLE pv_reader;
GRANT SELECT ON base_orders TO pv_owner;
GRANT CREATE, USAGE ON SCHEMA public TO pv_owner, pv_reader;
SET ROLE pv_owner;
CREATE VIEW owner_view AS SELECT id, amount FROM base_orders;
CREATE VIEW invoker_view WITH (security_invoker) AS SELECT id, amount FROM base_orders;
GRANT SELECT ON owner_view, invoker_view TO pv_reader;
RESET ROLE;
SET ROLE pv_reader;
-- base_orders is not pv_reader's to read, but owner_view reads it as pv_owner
SELECT hummock_stream.create_materialized_view('through_owner', 'SELECT count(*) AS n FROM owner_view');
SELECT * FROM through_owner;
-- a security_invoker view reads it as pv_reader, who may not
SELECT hummock_stream.create_materialized_view('through_invoker', 'SELECT count(*) AS n FROM invoker_view');
RESET ROLE;
-- the view's owner and security_invoker decide whose rights read the
-- tables under it, and the streaming view keeps its creation's: changing
-- them under it is refused (0A000), by ALTER and by REASSIGN OWNED
CREATE ROLE pv_other;
ALTER VIEW owner_view OWNER TO pv_other;
ALTER TABLE owner_view OWNER TO pv_other;
ALTER VIEW owner_view SET (security_invoker = true);
ALTER VIEW owner_view RESET (security_invoker);
REASSIGN OWNED BY pv_owner TO pv_other;
-- other options, and views no streaming view reads, are altered as usual
ALTER VIEW owner_view SET (security_barrier = true);
ALTER VIEW invoker_view OWNER TO pv_other;
ALTER VIEW invoker_view SET (security_invoker = false);
ALTER VIEW invoker_view OWNER TO pv_owner;
DROP ROLE pv_other;
-- once pv_reader may no longer read owner_view, its streaming view stops
REVOKE SELECT ON owner_view FROM pv_reader;
INSERT INTO base_orders VALUES (20, 'c0', 5, true);
DO $$
BEGIN
  FOR i IN 1..1200 LOOP
    EXIT WHEN (SELECT state = 'failed' FROM hummock_stream.jobs WHERE name = 'through_owner'::regclass);
    PERFORM pg_sleep(0.05);
  END LOOP;
END $$;
SELECT state, last_error FROM hummock_stream.jobs WHERE name = 'through_owner'::regclass;
SELECT hummock_stream.drop_materialized_view('through_owner');
-- when the owner of the view in between may no longer read the table
-- under it, the error names that owner
GRANT SELECT ON owner_view TO pv_reader;
SET ROLE pv_reader;
SELECT hummock_stream.create_materialized_view('through_owner2', 'SELECT count(*) AS n FROM owner_view');
RESET ROLE;
REVOKE SELECT ON base_orders FROM pv_owner;
INSERT INTO base_orders VALUES (21, 'c0', 5, true);
SELECT hummock_stream_test.wait_for_state('through_owner2', 'failed');
SELECT state, last_error FROM hummock_stream.jobs WHERE name = 'through_owner2'::regclass;
SELECT hummock_stream.drop_materialized_view('through_owner2');

SET client_min_messages = warning;	-- the capture log's name has an OID
DROP EXTENSION hummock_stream CASCADE;
RESET client_min_messages;
DROP VIEW paid_by_region, paid_orders;
DROP OWNED BY pv_owner, pv_reader;
DROP ROLE pv_owner, pv_reader;
DROP TABLE base_orders, base_customers;
