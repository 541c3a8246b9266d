-- Inheritance parents as sources.  A table read with its inheritance
-- children (not FROM ONLY) gets the rows of every table below it: each of
-- them carries the source's row triggers, which log its rows (converted to
-- the parent's columns) as a child's, so a view over FROM ONLY the parent
-- skips them.  Tables that join or leave the tree (CREATE TABLE ...
-- INHERITS, ALTER TABLE ... [NO] INHERIT, DROP TABLE) bring or take their
-- rows, as partitions do.
CREATE EXTENSION hummock_stream;
CREATE EXTENSION hummock_stream_test;	-- views_differ(): each view against its query
CREATE TABLE ev (id int NOT NULL PRIMARY KEY, g int, v int);
-- a child with a column of its own
CREATE TABLE ev_a (note text) INHERITS (ev);
-- a child of the child
CREATE TABLE ev_a1 () INHERITS (ev_a);
-- a table whose columns lie otherwise, to join later (and a dropped column)
CREATE TABLE ev_b (junk int, v int, g int, id int NOT NULL);
ALTER TABLE ev_b DROP COLUMN junk;
CREATE TABLE dims (g int PRIMARY KEY, label text);
INSERT INTO dims VALUES (0, 'zero'), (1, 'one'), (2, 'two');
INSERT INTO ev SELECT i, i % 3, i FROM generate_series(1, 10) i;
INSERT INTO ev_a SELECT i, i % 3, i, 'a' FROM generate_series(11, 20) i;
INSERT INTO ev_a1 SELECT i, i % 3, i, 'a1' FROM generate_series(21, 25) i;
INSERT INTO ev_b SELECT i, i % 3, i FROM generate_series(31, 35) i;

SELECT hummock_stream.create_materialized_view('ev_by_g',
  'SELECT g, count(*) AS n, sum(v) AS s, min(v) AS lo, max(v) AS hi FROM ev GROUP BY g');
SELECT hummock_stream.create_materialized_view('ev_even',
  'SELECT id, v FROM ev WHERE v % 2 = 0');
SELECT hummock_stream.create_materialized_view('ev_labelled',
  'SELECT e.id, d.label FROM ev e JOIN dims d ON d.g = e.g');
SELECT hummock_stream.create_materialized_view('ev_only',
  'SELECT g, count(*) AS n FROM ONLY ev GROUP BY g');
SELECT hummock_stream.create_materialized_view('ev_a_sum',
  'SELECT count(*) AS n, sum(v) AS s FROM ev_a');
SELECT * FROM hummock_stream_test.views_differ();
SELECT * FROM ev_by_g ORDER BY g;
-- every table below the source carries its triggers
SELECT c.relname, count(*) AS capture_triggers FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
 WHERE t.tgname LIKE 'hummock_stream_capture%' GROUP BY 1 ORDER BY 1;

-- writes naming the parent, a child or a grandchild; the same id in two
-- tables of the tree (the parent's key holds in the parent alone)
INSERT INTO ev_a VALUES (1, 1, 100, 'dup');
UPDATE ev SET v = v + 1000 WHERE id % 4 = 0;
DELETE FROM ev WHERE id % 7 = 0;
UPDATE ev_a SET g = 2 WHERE id = 21;
DELETE FROM ONLY ev WHERE id = 1;
BEGIN;
INSERT INTO ev_a1 VALUES (26, 2, 26, 'tx');
UPDATE ev SET v = -v WHERE id = 26;
SAVEPOINT s;
DELETE FROM ev_a1;
ROLLBACK TO s;
COMMIT;
SELECT hummock_stream.wait();
SELECT * FROM hummock_stream_test.views_differ();
SELECT * FROM ev_by_g ORDER BY g;

-- a table joins the tree with its rows, and a new (empty) child under it
ALTER TABLE ev_b INHERIT ev;
CREATE TABLE ev_b1 () INHERITS (ev_b);
INSERT INTO ev_b1 VALUES (40, 1, 40);
SELECT hummock_stream.wait();
SELECT * FROM hummock_stream_test.views_differ();
SELECT * FROM ev_by_g ORDER BY g;

-- TRUNCATE of a child, of ONLY the parent, and in a transaction
TRUNCATE ev_a1;
TRUNCATE ONLY ev;
BEGIN;
INSERT INTO ev VALUES (50, 0, 50);
TRUNCATE ev_b;				-- and ev_b1 with it
INSERT INTO ev_b1 VALUES (51, 1, 51);
COMMIT;
SELECT hummock_stream.wait();
SELECT * FROM hummock_stream_test.views_differ();

-- a table leaves the tree with its rows (and the tables below it)
ALTER TABLE ev_b NO INHERIT ev;
SELECT hummock_stream.wait();
SELECT * FROM hummock_stream_test.views_differ();
-- its writes no longer reach the views
INSERT INTO ev_b VALUES (60, 0, 60);
SELECT hummock_stream.wait();
SELECT * FROM hummock_stream_test.views_differ();
SELECT c.relname, count(*) AS capture_triggers FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
 WHERE t.tgname LIKE 'hummock_stream_capture%' GROUP BY 1 ORDER BY 1;

-- dropped with its rows, a grandchild with it
INSERT INTO ev_a1 VALUES (70, 0, 70, 'x');
DROP TABLE ev_a CASCADE;
SELECT hummock_stream.wait();
SELECT * FROM hummock_stream_test.views_differ();
SELECT * FROM ev_by_g ORDER BY g;

-- with no child left the views still read the parent's tree
CREATE TABLE ev_c () INHERITS (ev);
INSERT INTO ev_c VALUES (2, 2, 2);
SELECT hummock_stream.wait();
SELECT * FROM hummock_stream_test.views_differ();

-- a child in a schema dropped with CASCADE: its rows go too
CREATE SCHEMA ev_old;
CREATE TABLE ev_old.ev_2020 () INHERITS (ev);
INSERT INTO ev_old.ev_2020 VALUES (90, 0, 90), (91, 1, 91);
SELECT hummock_stream.wait();
DROP SCHEMA ev_old CASCADE;
SELECT hummock_stream.wait();
SELECT * FROM hummock_stream_test.views_differ();

-- children owned by a role whose objects DROP OWNED drops: their rows go
CREATE ROLE regress_inh_owner;
CREATE TABLE ev_owned () INHERITS (ev);
INSERT INTO ev_owned VALUES (95, 2, 95);
ALTER TABLE ev_owned OWNER TO regress_inh_owner;
SELECT hummock_stream.wait();
DROP OWNED BY regress_inh_owner;
DROP ROLE regress_inh_owner;
SELECT hummock_stream.wait();
SELECT * FROM hummock_stream_test.views_differ();

-- a child of two parents, one of them a source: rows once per parent
CREATE TABLE other (id int NOT NULL, g int, v int);
CREATE TABLE both_parents () INHERITS (ev, other);
INSERT INTO both_parents VALUES (80, 1, 80);
SELECT hummock_stream.wait();
SELECT * FROM hummock_stream_test.views_differ();

-- refused: a child that is not an ordinary permanent table; a view keyed
-- by the parent's primary key (created while it had no children) gets none
CREATE TEMPORARY TABLE ev_tmp () INHERITS (ev);
CREATE UNLOGGED TABLE ev_unlogged (id int NOT NULL, g int, v int);
ALTER TABLE ev_unlogged INHERIT ev;
CREATE TABLE lone (id int PRIMARY KEY, v int);
SELECT hummock_stream.create_materialized_view('lone_sum', 'SELECT sum(v) AS s FROM lone');
CREATE TABLE lone_child () INHERITS (lone);
-- keyless (no primary key): a child may come
CREATE TABLE lone2 (id int, v int);
SELECT hummock_stream.create_materialized_view('lone2_sum', 'SELECT count(*) AS n, sum(v) AS s FROM lone2');
INSERT INTO lone2 VALUES (1, 1);
CREATE TABLE lone2_child () INHERITS (lone2);
INSERT INTO lone2_child VALUES (1, 10), (2, 20);
SELECT hummock_stream.wait();
SELECT * FROM lone2_sum;
SELECT * FROM hummock_stream_test.views_differ();
-- refused at creation: a foreign table below the parent
CREATE FOREIGN DATA WRAPPER inh_fdw;
CREATE SERVER inh_srv FOREIGN DATA WRAPPER inh_fdw;
CREATE TABLE fparent (id int, v int);
CREATE FOREIGN TABLE fchild () INHERITS (fparent) SERVER inh_srv;
SELECT hummock_stream.create_materialized_view('f_sum', 'SELECT sum(v) AS s FROM fparent');
SELECT hummock_stream.create_materialized_view('f_only', 'SELECT sum(v) AS s FROM ONLY fparent');
-- whatever statement makes such a table a member of a tree read with its
-- children, it is refused as at a view's creation: a foreign child, a
-- grandchild, a child made unlogged (also a grandchild)
CREATE FOREIGN TABLE ev_f () INHERITS (ev) SERVER inh_srv;
CREATE UNLOGGED TABLE ev_c1 () INHERITS (ev_c);
ALTER TABLE ev_c SET UNLOGGED;
CREATE TABLE ev_c2 () INHERITS (ev_c);
ALTER TABLE ev_c2 SET UNLOGGED;
SELECT c.relname, c.relpersistence, c.relkind FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
 WHERE i.inhparent IN ('ev'::regclass, 'ev_c'::regclass) ORDER BY 1;
-- under a view of FROM ONLY the parent, a child may be anything
CREATE UNLOGGED TABLE fchild2 () INHERITS (fparent);
ALTER TABLE fchild2 SET LOGGED;
ALTER TABLE fchild2 SET UNLOGGED;
DROP TABLE fchild2;

-- disabling a capture trigger of a table below a source is refused
ALTER TABLE ev_c DISABLE TRIGGER USER;
-- and so is replacing one (its function would no longer capture)
CREATE FUNCTION ev_noop() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$;
CREATE OR REPLACE TRIGGER hummock_stream_capture_insert AFTER INSERT ON ev
  REFERENCING NEW TABLE AS hs_new FOR EACH STATEMENT EXECUTE FUNCTION ev_noop();
DROP FUNCTION ev_noop();

-- when the last view of the tree goes, so do the triggers below it
SELECT hummock_stream.drop_materialized_view('ev_by_g');
SELECT hummock_stream.drop_materialized_view('ev_even');
SELECT hummock_stream.drop_materialized_view('ev_labelled');
SELECT hummock_stream.drop_materialized_view('ev_only');
SELECT c.relname, count(*) AS capture_triggers FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
 WHERE t.tgname LIKE 'hummock_stream_capture%' GROUP BY 1 ORDER BY 1;

SET client_min_messages = warning;	-- the capture logs' names have OIDs
DROP EXTENSION hummock_stream CASCADE;
DROP TABLE ev, ev_b, dims, other, lone, lone2, fparent CASCADE;
RESET client_min_messages;
DROP SERVER inh_srv;
DROP FOREIGN DATA WRAPPER inh_fdw;
