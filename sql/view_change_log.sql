-- A streaming view created with change_log => true keeps a change log: its
-- backfill as inserts, then every change with its old row.  wait() between
-- the writes puts each in its own epoch, so the log lists them one by one.
CREATE EXTENSION hummock_stream;
CREATE TABLE items (id int PRIMARY KEY, grp int, price numeric);
INSERT INTO items VALUES (1, 1, 10), (2, 1, 20), (3, 2, 30);
SELECT hummock_stream.create_materialized_view('cheap', 'SELECT id, price FROM items WHERE price < 25',
                                               change_log => true);
SELECT hummock_stream.create_materialized_view('per_grp', 'SELECT grp, count(*) AS n, sum(price) AS total FROM items GROUP BY grp',
                                               true, true);
DO $$	-- checkpoints without changes keep the log: wait for a few
BEGIN
  FOR i IN 1..1200 LOOP
    EXIT WHEN (SELECT count(*) = 2 AND min(commits) >= 3 FROM hummock_stream.partial_graphs);
    PERFORM pg_sleep(0.05);
  END LOOP;
END $$;
INSERT INTO items VALUES (4, 2, 5);
SELECT hummock_stream.wait();
UPDATE items SET price = 50 WHERE id = 1;	-- leaves cheap, changes group 1
SELECT hummock_stream.wait();
UPDATE items SET grp = 2 WHERE id = 2;		-- moves between groups
SELECT hummock_stream.wait();
DELETE FROM items WHERE grp = 2;		-- empties group 2
SELECT hummock_stream.wait();

-- the changes since the view's creation (epoch 0: from the start)
CREATE FUNCTION log_of(rel regclass) RETURNS TABLE (n bigint, op text, r text)
LANGUAGE plpgsql AS $$
BEGIN
  RETURN QUERY EXECUTE format(
    'SELECT dense_rank() OVER (ORDER BY epoch), op, "row"::text FROM hummock_stream.change_log(NULL::%s, 0,
       (SELECT committed_epoch FROM hummock_stream.table_epochs() WHERE relation = %L::regclass))
     ORDER BY epoch, op, "row"::text', rel, rel);
END $$;
SELECT * FROM log_of('cheap');
SELECT * FROM log_of('per_grp');
SELECT * FROM cheap ORDER BY id;
SELECT * FROM per_grp ORDER BY grp;

DROP FUNCTION log_of(regclass);

-- Without change_log => true and without views over it, a view keeps no
-- change log: it writes no old values.
CREATE FUNCTION has_log(rel regclass) RETURNS boolean LANGUAGE sql AS
  $$SELECT change_log_from IS NOT NULL FROM hummock_stream.committed_epochs() WHERE relation = rel$$;
CREATE PROCEDURE wait_log(rel regclass, wanted boolean) LANGUAGE plpgsql AS $$
BEGIN
  FOR i IN 1..1200 LOOP
    EXIT WHEN has_log(rel) = wanted;
    PERFORM pg_sleep(0.05);
  END LOOP;
END $$;
SELECT hummock_stream.create_materialized_view('no_log', 'SELECT grp, max(price) AS top FROM items GROUP BY grp');
SELECT name, change_log FROM hummock_stream.jobs ORDER BY name::text;
SELECT has_log('no_log'), has_log('cheap');
SELECT op FROM hummock_stream.change_log(NULL::no_log, 0,
  (SELECT committed_epoch FROM hummock_stream.committed_epochs() WHERE relation = 'no_log'::regclass));
-- NULL epochs are an error, not 0
SELECT op FROM hummock_stream.change_log(NULL::no_log, NULL, NULL);

-- asked for, it starts within two checkpoints and shows what follows
SELECT hummock_stream.set_change_log('no_log', true);
SELECT name, change_log FROM hummock_stream.jobs WHERE name = 'no_log'::regclass;
CALL wait_log('no_log', true);
SELECT has_log('no_log');
SELECT change_log_from AS log_from FROM hummock_stream.committed_epochs()
 WHERE relation = 'no_log'::regclass \gset
INSERT INTO items VALUES (5, 7, 70);
SELECT hummock_stream.wait();
UPDATE items SET price = 75 WHERE id = 5;
SELECT hummock_stream.wait();
SELECT op, "row"::text FROM hummock_stream.change_log(NULL::no_log, :log_from,
  (SELECT committed_epoch FROM hummock_stream.committed_epochs() WHERE relation = 'no_log'::regclass))
 ORDER BY epoch, op;
\set VERBOSITY sqlstate
SELECT op FROM hummock_stream.change_log(NULL::no_log, :log_from - 1, :log_from + 1);	-- before it
\set VERBOSITY default

-- no longer asked for, it ends at the next checkpoint
SELECT hummock_stream.set_change_log('no_log', false);
CALL wait_log('no_log', false);
SELECT has_log('no_log');

-- a view over it makes it keep one for as long as it exists
SELECT hummock_stream.create_materialized_view('over_no_log', 'SELECT count(*) AS groups, sum(top) AS tops FROM no_log');
SELECT name, change_log FROM hummock_stream.jobs WHERE name = 'no_log'::regclass;
SELECT has_log('no_log');
INSERT INTO items VALUES (6, 8, 80);
SELECT hummock_stream.wait();
SELECT * FROM over_no_log;
SELECT count(*) AS groups, sum(top) AS tops FROM (SELECT grp, max(price) AS top FROM items GROUP BY grp) q;
SELECT hummock_stream.drop_materialized_view('over_no_log');
SELECT name, change_log FROM hummock_stream.jobs WHERE name = 'no_log'::regclass;
CALL wait_log('no_log', false);
SELECT has_log('no_log');

-- errors
SELECT hummock_stream.set_change_log('items', true);
SELECT hummock_stream.set_change_log(NULL, true);
SELECT hummock_stream.set_change_log('no_log', NULL);
SELECT hummock_stream.create_materialized_view('bad', 'SELECT id FROM items', true, NULL);
CREATE ROLE hs_change_log_other;
GRANT USAGE ON SCHEMA hummock_stream TO hs_change_log_other;
SET ROLE hs_change_log_other;
SELECT hummock_stream.set_change_log('no_log', true);
RESET ROLE;
DROP OWNED BY hs_change_log_other;
DROP ROLE hs_change_log_other;
DROP PROCEDURE wait_log(regclass, boolean);
DROP FUNCTION has_log(regclass);
SET client_min_messages = warning;	-- the capture log's name has an OID
DROP EXTENSION hummock_stream CASCADE;
RESET client_min_messages;
DROP TABLE items;
