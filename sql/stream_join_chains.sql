-- Deep plans: chains of 100 joins.  A view has as many internal state
-- tables as its plan needs (a join keeps two: here about 200), and a
-- chain of outer joins stays linear in the rows one change makes (the
-- rows between the joins are consolidated: an UPDATE that keeps the join
-- key would otherwise double at each level, 2^100 rows).  After every
-- step each view equals its query run by Postgres.
CREATE EXTENSION hummock_stream;

CREATE FUNCTION chain_diff(v regclass) RETURNS bigint
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

-- the query of a chain of n joins of kind over chain_a and chain_b in
-- turn (t1 .. tn), each level joined to the one before it on k: chain_b
-- lacks the odd keys, so outer joins NULL-extend rows at every level
CREATE FUNCTION chain_query(kind text, n int) RETURNS text
LANGUAGE sql AS $$
  SELECT 'SELECT t1.k AS k1, t' || n || '.k AS kn, '
         || (SELECT string_agg(format('coalesce(t%s.v, 0)', i), ' + ') FROM generate_series(1, n) i)
         || ' AS total FROM chain_a t1'
         || (SELECT string_agg(format(' %s JOIN chain_%s t%s ON t%s.k = t%s.k', kind,
                                      CASE WHEN i % 2 = 0 THEN 'b' ELSE 'a' END, i, i, i - 1), '')
               FROM generate_series(2, n) i)
$$;

CREATE TABLE chain_a (k int PRIMARY KEY, v int);
CREATE TABLE chain_b (k int PRIMARY KEY, v int);
INSERT INTO chain_a SELECT g, g * 10 FROM generate_series(1, 20) g;
INSERT INTO chain_b SELECT g, g FROM generate_series(2, 20, 2) g;

SELECT hummock_stream.create_materialized_view('chain_inner', chain_query('', 100));
SELECT hummock_stream.create_materialized_view('chain_full', chain_query('FULL', 100));
SELECT hummock_stream.create_materialized_view('chain_left', chain_query('LEFT', 100));

-- about two state tables per join, and no fixed limit
SELECT f.job::text, count(*) > 190 AS many_state_tables
  FROM hummock_stream.state_tables f
 WHERE f.job::text LIKE 'chain_%' GROUP BY 1 ORDER BY 1;

SELECT (SELECT count(*) FROM chain_inner) AS inner_rows,
       (SELECT count(*) FROM chain_full) AS full_rows,
       (SELECT count(*) FROM chain_left) AS left_rows;
SELECT chain_diff('chain_inner') AS inner_diff, chain_diff('chain_full') AS full_diff,
       chain_diff('chain_left') AS left_diff;

-- an update that keeps the join key (the case that doubled per level)
UPDATE chain_a SET v = v + 1 WHERE k IN (3, 4);
UPDATE chain_b SET v = v + 1 WHERE k = 4;
SELECT hummock_stream.wait();
SELECT chain_diff('chain_inner') AS inner_diff, chain_diff('chain_full') AS full_diff,
       chain_diff('chain_left') AS left_diff;
SELECT k1, kn, total FROM chain_full WHERE k1 IN (3, 4) ORDER BY k1, kn;

-- deletes, inserts and a key moving, in one transaction and one by one
BEGIN;
DELETE FROM chain_a WHERE k = 5;
DELETE FROM chain_b WHERE k = 6;
INSERT INTO chain_a VALUES (21, 210), (22, NULL);
INSERT INTO chain_b VALUES (21, 21), (7, 7);
UPDATE chain_a SET k = 30 WHERE k = 8;
COMMIT;
DELETE FROM chain_a WHERE k = 1;
UPDATE chain_b SET v = NULL WHERE k = 2;
UPDATE chain_b SET k = 9 WHERE k = 10;
SELECT hummock_stream.wait();
SELECT chain_diff('chain_inner') AS inner_diff, chain_diff('chain_full') AS full_diff,
       chain_diff('chain_left') AS left_diff;
SELECT (SELECT count(*) FROM chain_inner) AS inner_rows,
       (SELECT count(*) FROM chain_full) AS full_rows,
       (SELECT count(*) FROM chain_left) AS left_rows;

-- the views survive a rebuild of their graphs (a restart of the actor
-- sends its ~200 state tables again)
SET client_min_messages = warning;
CALL hummock_stream.rebuild('chain_full');
RESET client_min_messages;
UPDATE chain_a SET v = v * 2 WHERE k BETWEEN 10 AND 12;
SELECT hummock_stream.wait();
SELECT chain_diff('chain_full') AS full_diff;

SELECT hummock_stream.drop_materialized_view('chain_inner');
SELECT hummock_stream.drop_materialized_view('chain_full');
SELECT hummock_stream.drop_materialized_view('chain_left');
DROP FUNCTION chain_diff(regclass);
DROP FUNCTION chain_query(text, int);
DROP TABLE chain_a, chain_b;
SELECT count(*) AS jobs_left FROM hummock_stream.jobs;
DROP EXTENSION hummock_stream;
