-- Recursive WITH queries: a hierarchy walked with UNION ALL, a graph's
-- reachable pairs with UNION (cycles end there), over one table and over
-- two, under aggregation and joins, and a view over such a view.  An
-- epoch that changes a table the WITH query reads computes it again whole
-- (RecomputeQuery) and passes the difference on; every view equals its
-- query after each round.
CREATE EXTENSION hummock_stream;
CREATE EXTENSION hummock_stream_test;	-- views_differ(): each view against its query

CREATE TABLE emp (id int PRIMARY KEY, boss int, name text, salary int);
INSERT INTO emp VALUES (1, NULL, 'ceo', 100), (2, 1, 'a', 50), (3, 1, 'b', 40),
  (4, 2, 'c', 30), (5, 4, 'd', 20), (6, NULL, 'other', 10);
CREATE TABLE edge (src int, dst int, dropped int, w int);
ALTER TABLE edge DROP COLUMN dropped;
INSERT INTO edge VALUES (1, 2, 1), (2, 3, 1), (3, 1, 1), (3, 4, 2), (10, 11, 1);
CREATE TABLE node (id int PRIMARY KEY, label text, note text);
INSERT INTO node SELECT g, 'n' || g FROM generate_series(1, 12) g;
CREATE TABLE part_edge (src int, dst int) PARTITION BY RANGE (src);
CREATE TABLE part_edge_lo PARTITION OF part_edge FOR VALUES FROM (MINVALUE) TO (5);
CREATE TABLE part_edge_hi PARTITION OF part_edge FOR VALUES FROM (5) TO (MAXVALUE);
INSERT INTO part_edge VALUES (1, 2), (2, 6), (6, 7);

-- a hierarchy: every employee under each top boss, with the depth
SELECT hummock_stream.create_materialized_view('r_chain', $$
  WITH RECURSIVE sub(id, top, depth) AS (
    SELECT id, id, 0 FROM emp WHERE boss IS NULL
    UNION ALL
    SELECT e.id, s.top, s.depth + 1 FROM emp e JOIN sub s ON e.boss = s.id)
  SELECT top, count(*) AS n, max(depth) AS depth, sum(e.salary) AS payroll
    FROM sub JOIN emp e USING (id) GROUP BY top$$);
-- a graph's reachable pairs (the cycle 1 -> 2 -> 3 -> 1 ends under UNION)
SELECT hummock_stream.create_materialized_view('r_reach', $$
  WITH RECURSIVE r(a, b) AS (
    SELECT src, dst FROM edge
    UNION
    SELECT r.a, e.dst FROM r JOIN edge e ON r.b = e.src)
  SELECT n.label, r.b FROM r JOIN node n ON n.id = r.a$$);
-- two tables in the WITH query, one read only in a sublink; weights summed
-- along paths of at most three edges
SELECT hummock_stream.create_materialized_view('r_paths', $$
  WITH RECURSIVE p(a, b, cost, hops) AS (
    SELECT src, dst, w, 1 FROM edge WHERE src IN (SELECT id FROM node WHERE label <> 'n10')
    UNION ALL
    SELECT p.a, e.dst, p.cost + e.w, p.hops + 1 FROM p JOIN edge e ON e.src = p.b WHERE p.hops < 3)
  SELECT a, b, min(cost) AS cheapest, count(*) AS paths FROM p GROUP BY a, b$$);
-- a partitioned table, referenced twice; the WITH query read twice
SELECT hummock_stream.create_materialized_view('r_parts', $$
  WITH RECURSIVE r(a, b) AS (
    SELECT src, dst FROM part_edge WHERE src = 1
    UNION
    SELECT r.a, e.dst FROM r JOIN part_edge e ON e.src = r.b)
  SELECT x.b AS via, y.b AS reach FROM r x JOIN r y ON x.a = y.a WHERE x.b < y.b$$);
-- UNION ALL with CYCLE: walks stop where they meet a node again (the path
-- column, an array of anonymous rows, is not read, so not kept)
SELECT hummock_stream.create_materialized_view('r_walks', $$
  WITH RECURSIVE p(a, b, hops) AS (
    SELECT src, dst, 1 FROM edge
    UNION ALL
    SELECT p.a, e.dst, p.hops + 1 FROM p JOIN edge e ON e.src = p.b)
  CYCLE b SET looped USING path
  SELECT a, b, hops, looped FROM p$$);
-- values computed from the path (an array of anonymous rows, which cannot
-- be kept) and from a SEARCH clause's ordering column: computed in the
-- recomputation, kept as their values; also as group keys, in aggregates,
-- in a join condition and in a Top-N's ORDER BY
SELECT hummock_stream.create_materialized_view('r_routes', $$
  WITH RECURSIVE p(a, b) AS (
    SELECT src, dst FROM edge
    UNION ALL
    SELECT p.a, e.dst FROM p JOIN edge e ON e.src = p.b)
  CYCLE b SET looped USING path
  SELECT a, b, path::text AS route, cardinality(path) AS len FROM p WHERE NOT looped$$);
SELECT hummock_stream.create_materialized_view('r_path_groups', $$
  WITH RECURSIVE p(a, b) AS (
    SELECT src, dst FROM edge
    UNION ALL
    SELECT p.a, e.dst FROM p JOIN edge e ON e.src = p.b)
  CYCLE b SET looped USING path
  SELECT cardinality(p.path) AS len, count(*) AS n, max(p.path::text) AS last, count(n.id) AS named
    FROM p LEFT JOIN node n ON n.id = p.b AND n.id::text <> p.path::text
   GROUP BY cardinality(p.path)$$);
SELECT hummock_stream.create_materialized_view('r_search', $$
  WITH RECURSIVE t(n, d) AS (SELECT src, 0 FROM edge UNION SELECT e.dst, t.d + 1 FROM t JOIN edge e ON e.src = t.n WHERE t.d < 3)
  SEARCH DEPTH FIRST BY n SET ord
  SELECT n, d FROM t ORDER BY ord::text LIMIT 4$$);
-- a view over a recursive view
SELECT hummock_stream.create_materialized_view('r_over', $$
  SELECT b, count(*) AS reached_from FROM r_reach GROUP BY b$$);
-- recursive WITH queries that read no table are constants of the view:
-- computed when it is planned, read as the VALUES lists of their rows
-- (UNION's duplicates removed, an empty one joins nothing)
SELECT hummock_stream.create_materialized_view('r_const', $$
  WITH RECURSIVE fib(a, b) AS (SELECT 1, 1 UNION ALL SELECT b, a + b FROM fib WHERE b < 20),
       steps(n) AS (SELECT 1 UNION SELECT n % 5 + 1 FROM steps),
       none(n) AS (SELECT 1 WHERE false UNION ALL SELECT n + 1 FROM none)
  SELECT e.src, e.dst, f.a IS NOT NULL AS fib_src, s.n AS step, z.n AS z
    FROM edge e JOIN steps s ON e.w >= s.n
    LEFT JOIN fib f ON f.a = e.src LEFT JOIN none z ON z.n = e.dst$$);
SELECT unnest(operators) FROM hummock_stream.fragments
 WHERE job = 'r_const'::regclass;
SELECT count(*), count(*) FILTER (WHERE fib_src), count(z), max(step) FROM r_const;
SELECT * FROM r_chain ORDER BY top;
SELECT label, b FROM r_reach ORDER BY label, b;
SELECT * FROM hummock_stream_test.views_differ();
SELECT unnest(operators) FROM hummock_stream.fragments
 WHERE job = 'r_paths'::regclass;

-- writes: a cycle broken and joined, rows moving in the hierarchy, labels
-- changed, rows moving between partitions; a column no view reads dropped
ALTER TABLE node DROP COLUMN note;
DELETE FROM edge WHERE src = 3 AND dst = 1;
INSERT INTO edge VALUES (4, 10, 3), (11, 1, 1);
UPDATE emp SET boss = 6 WHERE id = 4;
INSERT INTO emp VALUES (7, 5, 'e', 5);
UPDATE node SET label = 'n10' WHERE id = 1;
UPDATE part_edge SET src = 7 WHERE src = 6;
INSERT INTO part_edge VALUES (7, 1);
SELECT hummock_stream.wait();
SELECT * FROM r_chain ORDER BY top;
SELECT * FROM hummock_stream_test.views_differ();
DELETE FROM emp WHERE boss IS NULL;
TRUNCATE edge;
SELECT hummock_stream.wait();
SELECT count(*) FROM r_chain;
SELECT count(*) FROM r_reach;
SELECT * FROM hummock_stream_test.views_differ();
INSERT INTO emp VALUES (1, NULL, 'ceo', 100), (6, NULL, 'other', 10);
INSERT INTO edge SELECT g, g + 1, g FROM generate_series(1, 11) g;
SELECT hummock_stream.wait();
SELECT * FROM hummock_stream_test.views_differ();

-- refused: what Postgres's run over the kept rows could not reproduce
CREATE FUNCTION create_error(def text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
  st text;
  msg text;
  detail text;
BEGIN
  PERFORM hummock_stream.create_materialized_view('bad', def);
  RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
  GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT, detail = PG_EXCEPTION_DETAIL;
  RETURN st || ': ' || msg || ' DETAIL: ' || detail;
END $$;
SELECT create_error($$WITH RECURSIVE t(n) AS (SELECT 1 FROM edge UNION ALL SELECT n + 1 FROM t WHERE n < extract(day FROM now())) SELECT n FROM t$$);
SELECT create_error($$SELECT id FROM node o WHERE EXISTS (SELECT 1 FROM edge e, LATERAL (WITH RECURSIVE t(n) AS (SELECT e.src UNION ALL SELECT n + 1 FROM t WHERE n < o.id) SELECT n FROM t) l)$$);
-- (one that reads no table and nothing else is a constant view:
-- stream_constant_inputs)
SELECT create_error($$WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < extract(day FROM now())) SELECT e.src FROM edge e JOIN t ON t.n = e.src$$);
SELECT create_error($$WITH RECURSIVE t(e) AS (SELECT edge FROM edge UNION ALL SELECT e FROM t WHERE false) SELECT e FROM t$$);
SELECT create_error($$WITH RECURSIVE t(n) AS (SELECT src FROM edge TABLESAMPLE bernoulli (50) UNION SELECT n + 1 FROM t WHERE n < 3) SELECT n FROM t$$);
SELECT create_error($$WITH RECURSIVE t(n) AS (SELECT src FROM edge UNION SELECT n + 1 FROM t WHERE n < random() * 5) SELECT n FROM t$$);
-- a SEARCH clause's ordering column is an anonymous row: it cannot be kept
-- (nor can a path, or an element of it)
SELECT create_error($$WITH RECURSIVE t(n) AS (SELECT src FROM edge UNION SELECT n + 1 FROM t WHERE n < 3) SEARCH BREADTH FIRST BY n SET ord SELECT n, ord FROM t$$);
SELECT create_error($$WITH RECURSIVE t(n) AS (SELECT src FROM edge UNION ALL SELECT n + 1 FROM t WHERE n < 3) CYCLE n SET c USING path SELECT n, path[1] AS first FROM t$$);

-- privileges: the tables a recursive WITH query reads are checked as any
-- table a view reads, at creation (42501) and at every epoch (a REVOKE
-- stops the view)
CREATE ROLE rec_reader;
GRANT SELECT ON edge TO rec_reader;
GRANT CREATE, USAGE ON SCHEMA public TO rec_reader;
SET ROLE rec_reader;
SELECT create_error($$WITH RECURSIVE r(a, b) AS (SELECT src, dst FROM edge WHERE src IN (SELECT id FROM node) UNION SELECT r.a, e.dst FROM r JOIN edge e ON e.src = r.b) SELECT a, b FROM r$$);
SELECT hummock_stream.create_materialized_view('r_mine', $$WITH RECURSIVE r(a, b) AS (SELECT src, dst FROM edge UNION SELECT r.a, e.dst FROM r JOIN edge e ON e.src = r.b) SELECT a, b FROM r$$);
RESET ROLE;
REVOKE SELECT ON edge FROM rec_reader;
INSERT INTO edge VALUES (20, 21, 1);
DO $$
BEGIN
  FOR i IN 1..1200 LOOP
    EXIT WHEN (SELECT state = 'failed' FROM hummock_stream.jobs WHERE name = 'r_mine'::regclass);
    PERFORM pg_sleep(0.05);
  END LOOP;
END $$;
SELECT state, last_error FROM hummock_stream.jobs WHERE name = 'r_mine'::regclass;
SELECT hummock_stream.drop_materialized_view('r_mine');
DROP OWNED BY rec_reader;
DROP ROLE rec_reader;

SELECT hummock_stream.drop_materialized_view('r_over');
SELECT hummock_stream.drop_materialized_view(v)
  FROM unnest(ARRAY['r_chain', 'r_reach', 'r_paths', 'r_parts', 'r_walks', 'r_routes', 'r_path_groups', 'r_search']) v;

SET client_min_messages = warning;	-- the capture log's name has an OID
DROP EXTENSION hummock_stream CASCADE;
RESET client_min_messages;
DROP TABLE emp, edge, node, part_edge;
DROP FUNCTION create_error(text);
