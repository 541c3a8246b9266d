-- Changes of definitions a streaming view computes with.
--
-- CREATE OR REPLACE FUNCTION and ALTER FUNCTION of a function a streaming
-- view calls: a change of what it computes is refused (the view would
-- retract values the changed function never produced, and an inlined SQL
-- function would keep its old body in the running job); the same
-- definition, its cost, owner, privileges and parameter names may change.
CREATE EXTENSION hummock_stream;
CREATE EXTENSION hummock_stream_test;	-- views_differ(): each view against its query
CREATE TABLE fc (k int PRIMARY KEY, v int);
INSERT INTO fc SELECT i, i FROM generate_series(1, 10) i;
CREATE FUNCTION fc_double(int) RETURNS int LANGUAGE sql IMMUTABLE AS 'SELECT $1 * 2';
CREATE FUNCTION fc_triple(int) RETURNS int LANGUAGE plpgsql IMMUTABLE AS 'BEGIN RETURN $1 * 3; END';
CREATE FUNCTION fc_atomic(x int) RETURNS int LANGUAGE sql IMMUTABLE BEGIN ATOMIC SELECT x + 1; END;
CREATE FUNCTION fc_unused(int) RETURNS int LANGUAGE sql IMMUTABLE AS 'SELECT $1';
SELECT hummock_stream.create_materialized_view('fc_sums',
  'SELECT k % 2 AS odd, sum(fc_double(v)) AS d, sum(fc_triple(v)) AS t, sum(fc_atomic(v)) AS a FROM fc GROUP BY 1');

-- refused: the body, strictness, volatility, settings
\set VERBOSITY default
CREATE OR REPLACE FUNCTION fc_double(int) RETURNS int LANGUAGE sql IMMUTABLE AS 'SELECT $1 * 4';
\set VERBOSITY terse
CREATE OR REPLACE FUNCTION fc_triple(int) RETURNS int LANGUAGE plpgsql IMMUTABLE AS 'BEGIN RETURN $1 * 5; END';
CREATE OR REPLACE FUNCTION fc_atomic(x int) RETURNS int LANGUAGE sql IMMUTABLE BEGIN ATOMIC SELECT x + 2; END;
ALTER FUNCTION fc_double(int) STRICT;
ALTER FUNCTION fc_triple(int) VOLATILE;
ALTER FUNCTION fc_double(int) SET search_path = pg_catalog;
-- the error carries its SQLSTATE
DO $$
BEGIN
  ALTER FUNCTION fc_double(int) CALLED ON NULL INPUT SET datestyle = 'ISO, DMY';
EXCEPTION WHEN feature_not_supported THEN RAISE NOTICE 'refused: %', SQLERRM;
END $$;
\set VERBOSITY default

-- accepted: the same definition, cost, parameter names, owner, privileges,
-- functions no view calls, and another function of the same name
CREATE OR REPLACE FUNCTION fc_double(int) RETURNS int LANGUAGE sql IMMUTABLE AS 'SELECT $1 * 2';
CREATE OR REPLACE FUNCTION fc_double(n int) RETURNS int LANGUAGE sql IMMUTABLE AS 'SELECT $1 * 2';
ALTER FUNCTION fc_triple(int) COST 50;
CREATE ROLE fc_role;
ALTER FUNCTION fc_triple(int) OWNER TO fc_role;
REVOKE EXECUTE ON FUNCTION fc_triple(int) FROM PUBLIC;
CREATE OR REPLACE FUNCTION fc_unused(int) RETURNS int LANGUAGE sql IMMUTABLE AS 'SELECT $1 + 100';
CREATE OR REPLACE FUNCTION fc_double(bigint) RETURNS int LANGUAGE sql IMMUTABLE AS 'SELECT 7';
GRANT EXECUTE ON FUNCTION fc_triple(int) TO PUBLIC;

-- the same BEGIN ATOMIC body (its stored tokens' locations differ), and
-- where the planner may run a function, are no change of what it computes
CREATE OR REPLACE FUNCTION fc_atomic(x int) RETURNS int LANGUAGE sql IMMUTABLE BEGIN ATOMIC SELECT x + 1; END;
ALTER FUNCTION fc_triple(int) PARALLEL SAFE;
-- the support functions of an aggregate and the function of an operator a
-- view uses are guarded as the functions it calls
CREATE FUNCTION fc_step(int, int) RETURNS int LANGUAGE sql IMMUTABLE AS 'SELECT coalesce($1, 0) + $2';
CREATE AGGREGATE fc_total(int) (SFUNC = fc_step, STYPE = int);
CREATE FUNCTION fc_is(int, int) RETURNS bool LANGUAGE sql IMMUTABLE AS 'SELECT $1 = $2';
CREATE OPERATOR === (LEFTARG = int, RIGHTARG = int, FUNCTION = fc_is);
-- and so is a function that a BEGIN ATOMIC body the view calls calls
CREATE FUNCTION fc_inner(int) RETURNS int LANGUAGE sql IMMUTABLE AS 'SELECT $1 + 5';
CREATE FUNCTION fc_outer(x int) RETURNS int LANGUAGE sql IMMUTABLE BEGIN ATOMIC SELECT fc_inner(x) * 2; END;
SELECT hummock_stream.create_materialized_view('fc_agg_op',
  'SELECT k % 2 AS odd, fc_total(v) AS t, count(*) FILTER (WHERE v % 3 === 1) AS n, sum(fc_outer(v)) AS o FROM fc GROUP BY 1');
\set VERBOSITY terse
CREATE OR REPLACE FUNCTION fc_inner(int) RETURNS int LANGUAGE sql IMMUTABLE AS 'SELECT $1 + 6';
CREATE OR REPLACE FUNCTION fc_step(int, int) RETURNS int LANGUAGE sql IMMUTABLE AS 'SELECT coalesce($1, 0) + $2 * 10';
CREATE OR REPLACE FUNCTION fc_is(int, int) RETURNS bool LANGUAGE sql IMMUTABLE AS 'SELECT $1 = $2 + 1';
\set VERBOSITY default
-- the view still computes what its query does
INSERT INTO fc VALUES (11, 11), (12, 12);
DELETE FROM fc WHERE k < 4;
SELECT hummock_stream.wait();
SELECT * FROM hummock_stream_test.views_differ();
SELECT * FROM fc_sums ORDER BY odd;

-- once the view is gone, the function may change
SELECT hummock_stream.drop_materialized_view('fc_sums');
SELECT hummock_stream.drop_materialized_view('fc_agg_op');
DROP AGGREGATE fc_total(int);
DROP OPERATOR === (int, int);
DROP FUNCTION fc_step(int, int), fc_is(int, int), fc_outer(int), fc_inner(int);
CREATE OR REPLACE FUNCTION fc_double(int) RETURNS int LANGUAGE sql IMMUTABLE AS 'SELECT $1 * 4';
SELECT fc_double(2);

-- ALTER TYPE of a composite type whose values a view keeps (a group key
-- built in the query, which no table column holds, so Postgres lets it
-- through), or of a type built on it, is refused: values computed after it
-- would not match those kept (a group split in two)
CREATE TYPE fc_pair AS (a int, b int);
CREATE TYPE fc_wrap AS (p fc_pair, z int);
CREATE DOMAIN fc_dpair AS fc_pair;
SELECT hummock_stream.create_materialized_view('fc_pairs',
  'SELECT count(*) AS n FROM fc GROUP BY ROW((k % 2, v % 3)::fc_pair, 1)::fc_wrap');
SELECT hummock_stream.create_materialized_view('fc_dom',
  'SELECT count(*) AS n FROM fc GROUP BY ARRAY[(k % 2, 0)::fc_pair::fc_dpair]');
ALTER TYPE fc_pair ADD ATTRIBUTE c int;
\set VERBOSITY terse
ALTER TYPE fc_pair DROP ATTRIBUTE b;
ALTER TYPE fc_pair ALTER ATTRIBUTE b TYPE bigint;
ALTER TYPE fc_pair RENAME ATTRIBUTE a TO aa;
ALTER TYPE fc_wrap ADD ATTRIBUTE y int;
SELECT hummock_stream.drop_materialized_view('fc_pairs');
ALTER TYPE fc_wrap ADD ATTRIBUTE y int;		-- no view uses fc_wrap now
ALTER TYPE fc_pair ADD ATTRIBUTE c int;		-- fc_dom does, through a domain
\set VERBOSITY default
INSERT INTO fc VALUES (13, 13);
SELECT hummock_stream.wait();
SELECT * FROM hummock_stream_test.views_differ();
SELECT hummock_stream.drop_materialized_view('fc_dom');
ALTER TYPE fc_pair ADD ATTRIBUTE c int;
DROP TYPE fc_wrap, fc_pair CASCADE;

-- the same for a table's row type (which Postgres lets ADD COLUMN and
-- RENAME COLUMN change although another table's column holds it), read
-- through such a column or named in the query; and for RENAME VALUE of an
-- enum a view keeps (its label as text would change)
CREATE TABLE fc_shape (a int, b text);
CREATE TABLE fc_holder (id int PRIMARY KEY, r fc_shape, m text);
CREATE TYPE fc_mood AS ENUM ('sad', 'happy');
CREATE TABLE fc_moods (id int PRIMARY KEY, m fc_mood);
INSERT INTO fc_holder VALUES (1, ROW(1, 'x'), '{"a": 2, "b": "y"}');
INSERT INTO fc_moods VALUES (1, 'happy');
SELECT hummock_stream.create_materialized_view('fc_held',
  'SELECT r, count(*) AS n FROM fc_holder GROUP BY r');
SELECT hummock_stream.create_materialized_view('fc_moody',
  'SELECT id, m::text AS label FROM fc_moods');
\set VERBOSITY terse
ALTER TABLE fc_shape ADD COLUMN c int;
ALTER TABLE fc_shape DROP COLUMN b;
ALTER TABLE fc_shape RENAME COLUMN a TO aa;
ALTER TYPE fc_mood RENAME VALUE 'happy' TO 'glad';
\set VERBOSITY default
ALTER TYPE fc_mood ADD VALUE 'calm';		-- the labels the view keeps stay
SELECT hummock_stream.drop_materialized_view('fc_held');
SELECT hummock_stream.create_materialized_view('fc_populated',
  'SELECT id, (jsonb_populate_record(NULL::fc_shape, m::jsonb)).b FROM fc_holder');
\set VERBOSITY terse
ALTER TABLE fc_shape ADD COLUMN c int;
\set VERBOSITY default
SELECT hummock_stream.drop_materialized_view('fc_populated');
ALTER TABLE fc_shape ADD COLUMN c int;		-- no view uses it now
ALTER TABLE fc_holder ADD COLUMN extra int;		-- a view's source: allowed
DELETE FROM fc_moods;
SELECT hummock_stream.wait();
SELECT * FROM fc_moody;
SELECT hummock_stream.drop_materialized_view('fc_moody');
ALTER TYPE fc_mood RENAME VALUE 'happy' TO 'glad';
DROP TABLE fc_holder, fc_shape, fc_moods;
DROP TYPE fc_mood;

SET client_min_messages = warning;	-- the capture log's name has an OID
DROP EXTENSION hummock_stream CASCADE;
RESET client_min_messages;
DROP TABLE fc;
DROP FUNCTION fc_double(int), fc_double(bigint), fc_triple(int), fc_atomic(int), fc_unused(int);
DROP ROLE fc_role;
