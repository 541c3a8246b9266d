-- TRUNCATE of a source is captured as the delete of every row it holds:
-- the views follow it as they follow DELETE, inside transactions, with
-- writes before and after it, through CASCADE, in replica mode and under
-- views over views.
CREATE EXTENSION hummock_stream;
CREATE EXTENSION hummock_stream_test;	-- views_differ(): each view against its query
CREATE TABLE tr_dim (g int PRIMARY KEY, name text);
CREATE TABLE tr_fact (id int PRIMARY KEY, g int REFERENCES tr_dim, v int, t text);
INSERT INTO tr_dim SELECT i, 'g' || i FROM generate_series(0, 9) i;
INSERT INTO tr_fact SELECT i, i % 10, i, repeat('x', i % 3000) FROM generate_series(1, 2000) i;
SELECT hummock_stream.create_materialized_view('tr_agg',
  $$SELECT g, count(*) AS n, sum(v) AS s, min(v) AS lo, max(length(t)) AS tl FROM tr_fact GROUP BY g$$);
SELECT hummock_stream.create_materialized_view('tr_join',
  $$SELECT f.id, d.name FROM tr_fact f JOIN tr_dim d USING (g) WHERE f.v % 50 = 0$$);
SELECT hummock_stream.create_materialized_view('tr_top',
  $$SELECT id, v FROM tr_fact ORDER BY v DESC LIMIT 3$$);
SELECT hummock_stream.create_materialized_view('tr_total',
  $$SELECT sum(n) AS n, sum(s) AS s FROM tr_agg$$);
SELECT * FROM hummock_stream_test.views_differ();

-- alone: every view empties (the aggregate over the view too)
TRUNCATE tr_fact;
SELECT hummock_stream.wait();
SELECT (SELECT count(*) FROM tr_agg) AS agg, (SELECT count(*) FROM tr_join) AS joined,
       (SELECT count(*) FROM tr_top) AS top, (SELECT n FROM tr_total) AS total;
SELECT * FROM hummock_stream_test.views_differ();

-- with writes before and after it in one transaction, and in a savepoint
-- that is rolled back
INSERT INTO tr_fact SELECT i, i % 10, i, 'a' FROM generate_series(1, 500) i;
BEGIN;
UPDATE tr_fact SET v = v + 1000 WHERE id <= 10;
DELETE FROM tr_fact WHERE id > 400;
TRUNCATE tr_fact;
INSERT INTO tr_fact SELECT i, i % 10, i * 2, 'b' FROM generate_series(1, 300) i;
SAVEPOINT s;
TRUNCATE tr_fact;
INSERT INTO tr_fact VALUES (9999, 1, 1, 'lost');
ROLLBACK TO SAVEPOINT s;
UPDATE tr_fact SET g = 0 WHERE id % 7 = 0;
COMMIT;
SELECT hummock_stream.wait();
SELECT count(*) AS rows, sum(v) AS total FROM tr_fact;
SELECT * FROM tr_top ORDER BY v DESC;
SELECT * FROM hummock_stream_test.views_differ();

-- rolled back: nothing changes
BEGIN;
TRUNCATE tr_fact;
ROLLBACK;
SELECT hummock_stream.wait();
SELECT n FROM tr_total;
SELECT * FROM hummock_stream_test.views_differ();

-- CASCADE truncates the referencing table too: both are captured
TRUNCATE tr_dim CASCADE;
INSERT INTO tr_dim VALUES (1, 'one');
INSERT INTO tr_fact VALUES (50, 1, 50, 'c'), (100, 1, 100, 'd');
SELECT hummock_stream.wait();
SELECT * FROM tr_join ORDER BY id;
SELECT * FROM hummock_stream_test.views_differ();

-- in replica mode (as a logical replication apply worker runs) too
SET session_replication_role = replica;
TRUNCATE tr_fact;
INSERT INTO tr_fact VALUES (150, 1, 150, 'e');
RESET session_replication_role;
SELECT hummock_stream.wait();
SELECT * FROM tr_join ORDER BY id;
SELECT * FROM hummock_stream_test.views_differ();

-- an inheritance parent read FROM ONLY: TRUNCATE of the parent alone or
-- with its children, the view sees the parent's rows go
CREATE TABLE tr_parent (id int, v int);
CREATE TABLE tr_child () INHERITS (tr_parent);
INSERT INTO tr_parent VALUES (1, 10), (2, 20);
INSERT INTO tr_child VALUES (3, 30);
SELECT hummock_stream.create_materialized_view('tr_only',
  $$SELECT count(*) AS n, sum(v) AS s FROM ONLY tr_parent$$);
TRUNCATE tr_parent;
INSERT INTO tr_parent VALUES (4, 40);
SELECT hummock_stream.wait();
SELECT * FROM tr_only;
SELECT * FROM hummock_stream_test.views_differ();

-- a table that is no longer a source truncates as any table
SELECT hummock_stream.drop_materialized_view('tr_only');
TRUNCATE tr_parent;
SELECT count(*) AS capture_triggers FROM pg_trigger WHERE tgrelid = 'tr_parent'::regclass;

-- the trigger function is a BEFORE TRUNCATE trigger, and nothing else
CREATE TABLE tr_misuse (id int);
CREATE TRIGGER misuse AFTER INSERT ON tr_misuse
  FOR EACH STATEMENT EXECUTE FUNCTION hummock_stream._capture_truncate();
INSERT INTO tr_misuse VALUES (1);
SELECT hummock_stream._capture_truncate();

SET client_min_messages = warning;	-- the capture logs' names have OIDs
DROP EXTENSION hummock_stream CASCADE;
RESET client_min_messages;
DROP TABLE tr_fact, tr_dim, tr_parent CASCADE;
DROP TABLE tr_misuse;
