-- Orderings in streaming views: DISTINCT ON (the first row of each group
-- in the ORDER BY order, a Top-1 per group), NULLS FIRST / NULLS LAST in
-- Top-N, and ORDER BY without LIMIT (accepted as Postgres's CREATE
-- MATERIALIZED VIEW accepts it: a view has no order, a read orders it).
CREATE EXTENSION hummock_stream;
CREATE EXTENSION hummock_stream_test;	-- views_differ(): each view against its query
CREATE TABLE m (id int PRIMARY KEY, g int, v int, note text COLLATE "C");
INSERT INTO m SELECT i, i % 4, nullif((i * 7) % 10, 3), 'n' || (i % 6) FROM generate_series(1, 30) i;


SELECT hummock_stream.create_materialized_view('o_first_per_g',
  'SELECT DISTINCT ON (g) g, id, v FROM m ORDER BY g, v DESC NULLS LAST, id');
SELECT hummock_stream.create_materialized_view('o_first_nulls',
  'SELECT DISTINCT ON (g) g, id, v FROM m ORDER BY g, v NULLS FIRST, id');
SELECT hummock_stream.create_materialized_view('o_first_expr',
  'SELECT DISTINCT ON (v % 3) v % 3 AS k, note, id FROM m WHERE v IS NOT NULL ORDER BY v % 3, note DESC, id');
SELECT hummock_stream.create_materialized_view('o_first_then_limit',
  'SELECT DISTINCT ON (g) g, id, v FROM m ORDER BY g, id DESC LIMIT 2');
SELECT hummock_stream.create_materialized_view('o_nulls_first',
  'SELECT id, v FROM m ORDER BY v NULLS FIRST, id LIMIT 4');
SELECT hummock_stream.create_materialized_view('o_desc_nulls_last',
  'SELECT id, v FROM m ORDER BY v DESC NULLS LAST, id LIMIT 4');
SELECT hummock_stream.create_materialized_view('o_group_nulls',
  $$SELECT g, id, v FROM (SELECT g, id, v, row_number() OVER (PARTITION BY g ORDER BY v ASC NULLS FIRST, id) AS rn FROM m) s WHERE rn <= 2$$);
SELECT hummock_stream.create_materialized_view('o_ordered', 'SELECT id, v FROM m WHERE v > 5 ORDER BY v DESC, id');
SELECT * FROM hummock_stream_test.views_differ();
SELECT * FROM o_first_per_g ORDER BY g;
SELECT * FROM o_nulls_first ORDER BY v NULLS FIRST, id;

-- the first row of a group deleted, NULLs coming and going
DELETE FROM m WHERE id IN (SELECT id FROM o_first_per_g);
UPDATE m SET v = NULL WHERE id % 5 = 0;
UPDATE m SET v = 100 WHERE id = 7;
INSERT INTO m VALUES (31, 2, NULL, 'z'), (32, 5, 1, 'y');
SELECT hummock_stream.wait();
SELECT * FROM hummock_stream_test.views_differ();
SELECT * FROM o_first_per_g ORDER BY g;
SELECT * FROM o_nulls_first ORDER BY v NULLS FIRST, id;
SELECT * FROM o_desc_nulls_last ORDER BY v DESC NULLS LAST, id;

-- DISTINCT ON without more ORDER BY keys keeps one row of each group
SELECT hummock_stream.create_materialized_view('o_any_per_g', 'SELECT DISTINCT ON (g) g FROM m');
SELECT * FROM o_any_per_g ORDER BY g;

-- Text under a linguistic collation (ICU here; libc's likewise) is ordered
-- by the collation's sort key: case, accents and punctuation as the
-- collation orders them, ties of strings it finds equal broken by their
-- bytes (a deterministic collation) or kept (a nondeterministic one).
CREATE COLLATION case_blind (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
CREATE DOMAIN label AS varchar(20);
CREATE TABLE words (id int PRIMARY KEY, g int, w text COLLATE "en-x-icu", c char(6),
                    l label, plain text);
INSERT INTO words SELECT i, i % 3, x, x, x, x
  FROM unnest(ARRAY['apple', 'Apple', 'APPLE', 'b', 'B', U&'\00e9t\00e9', U&'e\0301t\0301e', 'ete',
                    'Zebra', 'zebra', 'a-b', 'ab', 'a b', '', ' ', NULL, '10', '9', 'Ölbaum', 'oz'])
       WITH ORDINALITY AS t(x, i);
SELECT hummock_stream.create_materialized_view('c_first5', 'SELECT id, w FROM words ORDER BY w, id LIMIT 5');
SELECT hummock_stream.create_materialized_view('c_last4',
  'SELECT id, w FROM words ORDER BY w DESC NULLS LAST, id LIMIT 4');
SELECT hummock_stream.create_materialized_view('c_ties',
  'SELECT id, w FROM words ORDER BY lower(w) FETCH FIRST 3 ROWS WITH TIES');
SELECT hummock_stream.create_materialized_view('c_first_per_g',
  $$SELECT DISTINCT ON (g) g, plain, id FROM words ORDER BY g, plain COLLATE "sv-x-icu", id$$);
SELECT hummock_stream.create_materialized_view('c_top2_per_g',
  $$SELECT g, id, c FROM (SELECT g, id, c, row_number() OVER (PARTITION BY g ORDER BY c COLLATE "en-x-icu" DESC, id) AS rn FROM words) s WHERE rn <= 2$$);
SELECT hummock_stream.create_materialized_view('c_domain',
  $$SELECT id, l FROM words ORDER BY l COLLATE "de-x-icu" NULLS FIRST, id OFFSET 2 LIMIT 3$$);
SELECT hummock_stream.create_materialized_view('c_blind_ties',
  $$SELECT id, plain FROM words WHERE plain IS NOT NULL ORDER BY plain COLLATE case_blind DESC FETCH FIRST 4 ROWS WITH TIES$$);
SELECT hummock_stream.create_materialized_view('c_blind_first',
  $$SELECT id, plain FROM words WHERE plain ILIKE 'a%' ORDER BY plain COLLATE case_blind DESC FETCH FIRST 1 ROW WITH TIES$$);
SELECT hummock_stream.create_materialized_view('c_lateral',
  $$SELECT g.g, x.w FROM (VALUES (0), (1), (2)) g(g),
      LATERAL (SELECT w FROM words WHERE words.g = g.g ORDER BY w DESC, id LIMIT 1) x$$);
SELECT * FROM hummock_stream_test.views_differ();
SELECT * FROM c_first5 ORDER BY w, id;
SELECT * FROM c_blind_ties ORDER BY plain COLLATE case_blind DESC, id;
UPDATE words SET w = 'aardvark', plain = 'APPLE' WHERE id = 9;
DELETE FROM words WHERE id IN (SELECT id FROM c_first5 WHERE id <> 9 LIMIT 2);
INSERT INTO words VALUES (30, 1, 'Äpfel', 'Äpfel', 'Äpfel', 'apple'), (31, 2, 'zz', 'zz', 'zz', 'Ö');
SELECT hummock_stream.wait();
SELECT * FROM hummock_stream_test.views_differ();
SELECT * FROM c_first5 ORDER BY w, id;
SELECT * FROM c_blind_first ORDER BY id;
-- a type the collated order does not cover is refused by name
SELECT hummock_stream.create_materialized_view('c_array',
  $$SELECT id FROM words ORDER BY ARRAY[w] LIMIT 2$$);

-- ordered by an enum, in its declared order (not its labels' order):
-- Top-N, DISTINCT ON, row_number() bounds, a window's rows around a change
CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy');
CREATE DOMAIN mood_d AS mood;
CREATE TABLE moods (id int PRIMARY KEY, m mood, g int, md mood_d);
INSERT INTO moods SELECT i, (enum_range(NULL::mood))[1 + i % 3], i % 2,
    (enum_range(NULL::mood))[1 + i % 3]
  FROM generate_series(1, 12) i;
INSERT INTO moods VALUES (13, NULL, 0, NULL);
SELECT hummock_stream.create_materialized_view('m_top',
  $$SELECT id, m FROM moods ORDER BY m DESC, id LIMIT 2$$);
SELECT hummock_stream.create_materialized_view('m_top_nulls',
  $$SELECT id, m FROM moods ORDER BY m NULLS FIRST, id DESC LIMIT 3$$);
SELECT hummock_stream.create_materialized_view('m_first',
  $$SELECT DISTINCT ON (g) g, id, md FROM moods ORDER BY g, md, id$$);
SELECT hummock_stream.create_materialized_view('m_ranked',
  $$SELECT g, id, m FROM (SELECT g, id, m, row_number() OVER (PARTITION BY g ORDER BY m DESC, id) AS rn
      FROM moods) s WHERE rn <= 2$$);
SELECT hummock_stream.create_materialized_view('m_running',
  $$SELECT id, m, count(*) OVER (ORDER BY m, id ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS n
      FROM moods$$);
SELECT * FROM m_top ORDER BY id;
SELECT * FROM m_first ORDER BY g;
SELECT count(*) FILTER (WHERE differs <> 0) AS differing FROM hummock_stream_test.views_differ();
UPDATE moods SET m = 'sad', md = 'sad' WHERE m = 'happy' AND id > 3;
DELETE FROM moods WHERE id = 1;
SELECT hummock_stream.wait();
SELECT * FROM m_top ORDER BY id;
SELECT count(*) FILTER (WHERE differs <> 0) AS differing FROM hummock_stream_test.views_differ();
-- a value added between two others, and one after all: ordered where
-- they were added
ALTER TYPE mood ADD VALUE 'meh' BEFORE 'ok';
ALTER TYPE mood ADD VALUE 'ecstatic';
INSERT INTO moods VALUES (20, 'meh', 0, 'meh'), (21, 'ecstatic', 1, 'ecstatic'), (22, 'meh', 1, 'meh');
UPDATE moods SET m = 'ecstatic' WHERE id = 2;
SELECT hummock_stream.wait();
SELECT * FROM m_top ORDER BY id;
SELECT * FROM m_first ORDER BY g;
SELECT count(*) FILTER (WHERE differs <> 0) AS differing FROM hummock_stream_test.views_differ();
-- ADD VALUE BEFORE until Postgres renumbers the type's values: refused
-- then (the views keep their positions), with nothing added by it
DO $$
DECLARE
  n int := 0;
BEGIN
  LOOP
    BEGIN
      EXECUTE format('ALTER TYPE mood ADD VALUE %L BEFORE %L', 'x' || n, 'ok');
    EXCEPTION WHEN feature_not_supported THEN
      RAISE NOTICE 'added %, then: %', n, SQLERRM;
      EXIT;
    END;
    n := n + 1;
  END LOOP;
END $$;
SELECT count(*) AS labels FROM pg_enum WHERE enumtypid = 'mood'::regtype;
INSERT INTO moods VALUES (30, 'x3', 0, 'x3'), (31, 'x0', 1, 'x0');
SELECT hummock_stream.wait();
SELECT * FROM m_first ORDER BY g;
SELECT count(*) FILTER (WHERE differs <> 0) AS differing FROM hummock_stream_test.views_differ();
SELECT hummock_stream.drop_materialized_view(v)
  FROM unnest(ARRAY['m_top', 'm_top_nulls', 'm_first', 'm_ranked', 'm_running']) v;

-- ordered by inet and cidr, in network order (the common network part,
-- then the shorter mask, then the whole address; IPv4 before IPv6)
CREATE TABLE hosts (id int PRIMARY KEY, addr inet, net cidr, g int);
INSERT INTO hosts VALUES (1, '10.0.0.1', '10.0.0.0/8', 0), (2, '10.0.0.1/8', '10.1.0.0/16', 0),
  (3, '10.1.0.0/16', '10.0.0.0/16', 1), (4, '9.255.255.255', '9.0.0.0/8', 1),
  (5, '::1', '::/0', 0), (6, '192.168.1.7/24', '192.168.1.0/24', 1), (7, NULL, NULL, 0),
  (8, '10.0.0.0/9', '10.0.0.0/9', 1), (9, '0.0.0.0/0', '0.0.0.0/0', 0);
SELECT hummock_stream.create_materialized_view('h_top',
  $$SELECT id, addr FROM hosts ORDER BY addr, id LIMIT 4$$);
SELECT hummock_stream.create_materialized_view('h_last',
  $$SELECT id, net FROM hosts ORDER BY net DESC NULLS LAST, id LIMIT 3$$);
SELECT hummock_stream.create_materialized_view('h_first',
  $$SELECT DISTINCT ON (g) g, id, addr FROM hosts ORDER BY g, addr DESC, id$$);
SELECT hummock_stream.create_materialized_view('h_ranked',
  $$SELECT g, id, net FROM (SELECT g, id, net, row_number() OVER (PARTITION BY g ORDER BY net, id) AS rn
      FROM hosts) s WHERE rn <= 2$$);
SELECT * FROM h_top ORDER BY addr, id;
UPDATE hosts SET addr = '10.0.0.0/7', net = '8.0.0.0/7' WHERE id = 6;
DELETE FROM hosts WHERE id = 9;
INSERT INTO hosts VALUES (10, '10.0.0.0/8', '10.0.0.0/8', 0), (11, '2001:db8::1/32', '2001:db8::/32', 1);
SELECT hummock_stream.wait();
SELECT * FROM h_top ORDER BY addr, id;
SELECT * FROM h_last ORDER BY net DESC, id;
SELECT count(*) FILTER (WHERE differs <> 0) AS differing FROM hummock_stream_test.views_differ();
SELECT hummock_stream.drop_materialized_view(v)
  FROM unnest(ARRAY['h_top', 'h_last', 'h_first', 'h_ranked']) v;
DROP TABLE hosts;

SET client_min_messages = warning;	-- the capture log's name has an OID
DROP EXTENSION hummock_stream CASCADE;
RESET client_min_messages;
DROP TABLE m, words, moods;
DROP TYPE mood CASCADE;
DROP DOMAIN label;
DROP COLLATION case_blind;

-- A database whose default collation is ICU orders text by its ICU locale,
-- even where lc_collate is C.UTF-8 (which alone would order bytewise).
CREATE DATABASE hs_icu_default LOCALE_PROVIDER icu ICU_LOCALE 'en-US'
  LC_COLLATE 'C.UTF-8' LC_CTYPE 'C.UTF-8' TEMPLATE template0;
\c hs_icu_default
CREATE EXTENSION hummock_stream;
CREATE EXTENSION hummock_stream_test;
CREATE TABLE w (k int, s text);
INSERT INTO w VALUES (1, 'a'), (1, 'B'), (2, 'b'), (2, 'A'), (3, '_x'), (3, 'Z');
SELECT hummock_stream.create_materialized_view('w_minmax',
  'SELECT k, min(s) AS lo, max(s) AS hi FROM w GROUP BY k');
SELECT hummock_stream.create_materialized_view('w_top',
  'SELECT s FROM w ORDER BY s LIMIT 3');
SELECT * FROM w_minmax ORDER BY k;
INSERT INTO w VALUES (1, 'C'), (2, 'c'), (3, '-y');
DELETE FROM w WHERE s IN ('a', '_x');
SELECT hummock_stream.wait();
SELECT * FROM hummock_stream_test.views_differ();
SELECT * FROM w_minmax ORDER BY k;
SELECT * FROM w_top ORDER BY s;
\c contrib_regression
DROP DATABASE hs_icu_default WITH (FORCE);
