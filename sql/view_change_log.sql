-- A streaming view keeps a change log: its backfill as inserts, then every
-- change with its old row.  wait() between the writes puts each in its own
-- epoch, so the log lists them one by one.
CREATE EXTENSION hummock_stream;
CREATE TABLE items (id int PRIMARY KEY, grp int, price numeric);
INSERT INTO items VALUES (1, 1, 10), (2, 1, 20), (3, 2, 30);
SELECT hummock_stream.create_materialized_view('cheap', 'SELECT id, price FROM items WHERE price < 25');
SELECT hummock_stream.create_materialized_view('per_grp', 'SELECT grp, count(*) AS n, sum(price) AS total FROM items GROUP BY grp');
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
SET client_min_messages = warning;	-- the capture log's name has an OID
DROP EXTENSION hummock_stream CASCADE;
RESET client_min_messages;
DROP TABLE items;
