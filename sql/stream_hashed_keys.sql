-- Keys of types whose equal values can differ in their bytes: citext
-- ('Ann' = 'ANN'), numrange ('[1.0,2)' = '[1.00,2)'), text under a
-- nondeterministic collation, and arrays of them.  Group keys, DISTINCT,
-- UNION, INTERSECT, EXCEPT, join keys, PARTITION BY and DISTINCT ON keys
-- are found by the type's hash (plan_hashed_keys.c); a shown key is the
-- form of one of its group's rows.  Each view is checked against its
-- query (by equality) after every change.
CREATE EXTENSION hummock_stream;
CREATE EXTENSION hummock_stream_test;	-- views_differ(): each view against its query
CREATE EXTENSION citext;
CREATE COLLATION h_ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
CREATE TABLE hu (id int PRIMARY KEY, c citext, n text COLLATE h_ci, r numrange, a citext[], v int);
CREATE TABLE hw (id int PRIMARY KEY, c citext, n text COLLATE h_ci, r numrange, x int);
INSERT INTO hu SELECT g, (ARRAY['Ab', 'aB', 'AB', 'x', NULL])[g % 5 + 1],
    (ARRAY['Foo', 'FOO', 'bar'])[g % 3 + 1],
    numrange(CASE WHEN g % 2 = 0 THEN (g % 3)::numeric(10, 1) ELSE (g % 3)::numeric END, 10),
    ARRAY[(ARRAY['Q', 'q'])[g % 2 + 1]]::citext[], g
  FROM generate_series(1, 60) g;
INSERT INTO hw SELECT g, (ARRAY['ab', 'AB', 'X', 'zz', NULL])[g % 5 + 1],
    (ARRAY['foo', 'BAR', 'baz'])[g % 3 + 1], numrange((g % 3)::numeric(10, 2), 10), g
  FROM generate_series(1, 30) g;

-- grouping
SELECT hummock_stream.create_materialized_view('k_group',
  $$SELECT c, count(*) AS n, max(v) AS top FROM hu GROUP BY c HAVING c <> 'X'$$);
SELECT hummock_stream.create_materialized_view('k_group_hidden',
  $$SELECT count(*) AS n, sum(v) AS s FROM hu GROUP BY c$$);
SELECT hummock_stream.create_materialized_view('k_group_coll',
  $$SELECT n, upper(n) AS up, count(*) AS k FROM hu GROUP BY n$$);
SELECT hummock_stream.create_materialized_view('k_group_range',
  $$SELECT r, c, count(*) AS k FROM hu GROUP BY r, c$$);
SELECT hummock_stream.create_materialized_view('k_group_array',
  $$SELECT a, count(*) AS k FROM hu GROUP BY a$$);
SELECT hummock_stream.create_materialized_view('k_rollup',
  $$SELECT c, r, count(*) AS k FROM hu GROUP BY ROLLUP (c, r)$$);
-- DISTINCT and set operations
SELECT hummock_stream.create_materialized_view('k_distinct',
  $$SELECT DISTINCT c, r FROM hu$$);
SELECT hummock_stream.create_materialized_view('k_distinct_coll',
  $$SELECT DISTINCT n FROM hu$$);
SELECT hummock_stream.create_materialized_view('k_union',
  $$SELECT c FROM hu UNION SELECT n::citext FROM hw$$);
SELECT hummock_stream.create_materialized_view('k_intersect',
  $$SELECT c FROM hu INTERSECT SELECT c FROM hw$$);
SELECT hummock_stream.create_materialized_view('k_except',
  $$SELECT c, n FROM hu EXCEPT SELECT c, n FROM hw$$);
SELECT hummock_stream.create_materialized_view('k_except_all',
  $$SELECT c, r FROM hu EXCEPT ALL SELECT c, r FROM hw$$);
SELECT hummock_stream.create_materialized_view('k_intersect_all',
  $$SELECT n FROM hu INTERSECT ALL SELECT n FROM hw$$);
-- joins (the equality is checked again on the rows whose hashes match)
SELECT hummock_stream.create_materialized_view('k_join',
  $$SELECT hu.id, hw.id AS wid, hu.c, hw.c AS wc FROM hu JOIN hw ON hu.c = hw.c$$);
SELECT hummock_stream.create_materialized_view('k_left_join',
  $$SELECT hu.id, hw.id AS wid FROM hu LEFT JOIN hw ON hu.n = hw.n AND hw.x > 5$$);
SELECT hummock_stream.create_materialized_view('k_full_join',
  $$SELECT hu.id, hw.id AS wid FROM hu FULL JOIN hw ON hu.r = hw.r$$);
SELECT hummock_stream.create_materialized_view('k_null_safe',
  $$SELECT hu.c, count(*) AS k FROM hu JOIN hw ON hu.c IS NOT DISTINCT FROM hw.c GROUP BY hu.c$$);
SELECT hummock_stream.create_materialized_view('k_semi',
  $$SELECT * FROM hu WHERE c IN (SELECT c FROM hw)$$);
SELECT hummock_stream.create_materialized_view('k_anti',
  $$SELECT * FROM hu WHERE NOT EXISTS (SELECT FROM hw WHERE hw.n = hu.n)$$);
-- partitions
SELECT hummock_stream.create_materialized_view('k_window',
  $$SELECT id, c, row_number() OVER (PARTITION BY c ORDER BY id) AS rn,
           count(*) OVER (PARTITION BY n) AS cn FROM hu$$);
SELECT hummock_stream.create_materialized_view('k_rank',
  $$SELECT * FROM (SELECT id, r, rank() OVER (PARTITION BY r ORDER BY v DESC) AS rk FROM hu) s
     WHERE rk <= 2$$);
SELECT hummock_stream.create_materialized_view('k_distinct_on',
  $$SELECT DISTINCT ON (c) c, id, v FROM hu ORDER BY c, v DESC, id$$);
SELECT hummock_stream.create_materialized_view('k_top_per_group',
  $$SELECT id, n, rn FROM (SELECT id, n, row_number() OVER (PARTITION BY n ORDER BY v, id) AS rn FROM hu) s
     WHERE rn <= 2$$);
SELECT * FROM hummock_stream_test.views_differ() ORDER BY 1::text;

-- each spelling of a group; the view shows one of them
SELECT c, n, top FROM k_group;
SELECT count(*) FROM k_group_coll;
SELECT operators FROM hummock_stream.fragments
 WHERE job IN ('k_distinct'::regclass, 'k_join'::regclass, 'k_except'::regclass) ORDER BY job::text;

-- changes: spellings come and go, the shown form changes with them
DELETE FROM hu WHERE c::text = 'AB';
UPDATE hu SET c = upper(c), n = lower(n) WHERE id % 7 = 0;
UPDATE hu SET r = numrange(lower(r)::numeric(10, 2), 10) WHERE id % 4 = 0;
DELETE FROM hu WHERE id % 11 = 0;
UPDATE hw SET c = 'aB', n = 'Foo', r = numrange(1.000, 10) WHERE id % 3 = 0;
INSERT INTO hu VALUES (100, 'NEW', 'New', numrange(7, 8), ARRAY['z']::citext[], 1),
  (101, 'new', 'nEW', numrange(7.0, 8.0), ARRAY['Z']::citext[], 2);
SELECT hummock_stream.wait();
SELECT * FROM hummock_stream_test.views_differ() WHERE differs <> 0;
SELECT c, n FROM k_group WHERE c = 'new';
DELETE FROM hu WHERE id = 100;
SELECT hummock_stream.wait();
SELECT c, n FROM k_group WHERE c = 'NEW';
SELECT * FROM hummock_stream_test.views_differ() WHERE differs <> 0;

-- a lookup of a view's key by equality reads the rows equal to the value,
-- not only those of its bytes (a citext key is not searched by its bytes)
EXPLAIN (COSTS OFF) SELECT * FROM k_group WHERE c = 'nEw';
SELECT c, n FROM k_group WHERE c = 'nEw';

-- refused: a type with no hash function to group it by
CREATE TABLE ht (id int PRIMARY KEY, t tsvector);
SELECT hummock_stream.create_materialized_view('bad', $$SELECT t, count(*) FROM ht GROUP BY t$$);
SELECT hummock_stream.create_materialized_view('bad', $$SELECT DISTINCT ON (t) t, id FROM ht ORDER BY t, id$$);
SELECT hummock_stream.create_materialized_view('bad', $$SELECT t FROM ht INTERSECT SELECT t FROM ht$$);
SELECT hummock_stream.create_materialized_view('bad',
  $$SELECT id, row_number() OVER (PARTITION BY t ORDER BY id) FROM ht$$);

-- an array's key holds its dimensions: equal elements, other shapes
CREATE TABLE ha (id int PRIMARY KEY, arr citext[]);
INSERT INTO ha VALUES (1, '{ann,bob}'), (2, '{{ANN},{BOB}}'), (3, '[0:1]={ann,bob}'),
  (4, '{}'), (5, NULL), (6, '{Ann,BOB}');
SELECT hummock_stream.create_materialized_view('k_array_shapes',
  $$SELECT arr, count(*) AS k FROM ha GROUP BY arr$$);
SELECT * FROM k_array_shapes ORDER BY arr::text COLLATE "C";
DELETE FROM ha WHERE id = 1;
SELECT hummock_stream.wait();
SELECT * FROM k_array_shapes ORDER BY arr::text COLLATE "C";
-- set operations compare under the collations Postgres resolves for them
CREATE TABLE hs1 (n text COLLATE h_ci);
CREATE TABLE hs2 (m text);
INSERT INTO hs1 VALUES ('x'), ('y');
INSERT INTO hs2 VALUES ('X'), ('z');
SELECT hummock_stream.create_materialized_view('k_union_coll',
  $$SELECT m FROM hs2 UNION SELECT n FROM hs1$$);
SELECT hummock_stream.create_materialized_view('k_intersect_coll',
  $$SELECT m FROM hs2 INTERSECT SELECT n FROM hs1$$);
SELECT hummock_stream.create_materialized_view('k_except_coll',
  $$SELECT m FROM hs2 EXCEPT SELECT n FROM hs1$$);
SELECT hummock_stream.create_materialized_view('k_chained_coll',
  $$SELECT n FROM hs1 UNION SELECT n FROM hs1 UNION SELECT m FROM hs2$$);
SELECT hummock_stream.create_materialized_view('k_explicit_coll',
  $$SELECT n FROM hs1 INTERSECT SELECT m COLLATE "C" FROM hs2$$);
SELECT * FROM k_union_coll ORDER BY m COLLATE "C";
SELECT * FROM k_intersect_coll;
SELECT * FROM k_except_coll;
SELECT * FROM k_chained_coll ORDER BY n COLLATE "C";
SELECT * FROM k_explicit_coll;
-- chained: the inner set operation under another collation than the outer
SELECT hummock_stream.create_materialized_view('k_chain_c',
  $$SELECT m FROM hs2 UNION SELECT m FROM hs2 UNION SELECT m COLLATE "C" FROM hs2$$);
SELECT hummock_stream.create_materialized_view('k_chain_ci',
  $$SELECT m FROM hs2 INTERSECT SELECT m FROM hs2 UNION SELECT n FROM hs1$$);
SELECT hummock_stream.create_materialized_view('k_chain_ci2',
  $$SELECT n, 1 AS one FROM hs1 EXCEPT SELECT n, 1 FROM hs1 UNION SELECT m COLLATE "C", 1 FROM hs2$$);
SELECT * FROM k_chain_ci ORDER BY m COLLATE "C";
-- refused as Postgres refuses them (42P22): keys and view columns of
-- inputs under conflicting implicit collations, so under none
SELECT hummock_stream.create_materialized_view('bad',
  $$SELECT x1, count(*) FROM ((SELECT m COLLATE "C" AS x1 FROM hs2 EXCEPT SELECT m FROM hs2)
     UNION ALL SELECT n FROM hs1) s GROUP BY x1$$);
SELECT hummock_stream.create_materialized_view('bad',
  $$(SELECT m COLLATE "C" AS x1 FROM hs2 EXCEPT SELECT m FROM hs2) UNION ALL SELECT n FROM hs1$$);
SELECT hummock_stream.create_materialized_view('bad',
  $$SELECT x1 FROM ((SELECT m COLLATE "C" AS x1 FROM hs2 EXCEPT SELECT m FROM hs2)
     UNION SELECT n FROM hs1) s$$);

-- a row type with an attribute under a nondeterministic collation
CREATE TYPE h_pt AS (y text COLLATE h_ci);
CREATE TABLE hp (id int PRIMARY KEY, a h_pt);
INSERT INTO hp VALUES (1, '(ann)'), (2, '(ANN)');
SELECT hummock_stream.create_materialized_view('k_row_coll',
  $$SELECT a, count(*) AS k FROM hp GROUP BY a$$);
SELECT hummock_stream.create_materialized_view('k_row_coll_join',
  $$SELECT x.id, y.id AS yid FROM hp x JOIN hp y ON x.a = y.a$$);
SELECT * FROM k_row_coll;
SELECT count(*) FROM k_row_coll_join;
SELECT * FROM hummock_stream_test.views_differ() WHERE differs <> 0;
-- refused: a type holding an array below another type (its hash would
-- not tell the array's shapes apart)
CREATE TYPE h_arr AS (v citext[]);
SELECT hummock_stream.create_materialized_view('bad',
  $$SELECT ROW(arr)::h_arr AS r, count(*) FROM ha GROUP BY 1$$);
-- a hidden group key keeps no value counts
SELECT operators FROM hummock_stream.fragments WHERE job = 'k_group_hidden'::regclass;

-- columns shown through a grouped primary key are grouped by their hash
CREATE TABLE hd (id int PRIMARY KEY, name citext, r numrange);
INSERT INTO hd VALUES (1, 'Sales', '[1.0,2)'), (2, 'sales', '[1.00,2)');
SELECT hummock_stream.create_materialized_view('k_fd',
  $$SELECT d.id, d.name, d.r, count(*) AS k FROM hd d JOIN hu ON hu.id % 2 + 1 = d.id GROUP BY d.id$$);
UPDATE hd SET name = 'SALES' WHERE id = 1;
SELECT hummock_stream.wait();
SELECT * FROM k_fd ORDER BY id;

-- window functions over groups of such keys (ordered by the type's order)
CREATE TABLE tie (id int PRIMARY KEY, c citext);
INSERT INTO tie VALUES (1, 'b'), (2, 'A'), (3, 'c'), (4, 'B'), (5, 'a'), (6, 'C');
SELECT hummock_stream.create_materialized_view('k_group_window',
  $$SELECT c, count(*) AS k, rank() OVER (ORDER BY count(*) DESC, c) AS rk,
           row_number() OVER (ORDER BY c DESC) AS rn FROM tie GROUP BY c$$);
SELECT hummock_stream.create_materialized_view('k_group_window2',
  $$SELECT r, n, sum(v) AS s, row_number() OVER (PARTITION BY n ORDER BY sum(v), r) AS rn
      FROM hu GROUP BY r, n$$);
SELECT * FROM k_group_window ORDER BY rk;
INSERT INTO tie VALUES (7, 'c');
DELETE FROM tie WHERE id = 2;
UPDATE hu SET v = v + 1 WHERE id % 3 = 0;
SELECT hummock_stream.wait();
SELECT * FROM k_group_window ORDER BY rk;
SELECT * FROM hummock_stream_test.views_differ() WHERE differs <> 0;

SET client_min_messages = warning;	-- the capture log's name has an OID
DROP EXTENSION hummock_stream CASCADE;
RESET client_min_messages;
DROP TABLE hu, hw, ht, tie, hd, ha, hs1, hs2, hp;
DROP TYPE h_pt, h_arr;
DROP COLLATION h_ci;
DROP EXTENSION citext;
