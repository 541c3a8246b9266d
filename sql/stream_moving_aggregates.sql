-- Aggregates with moving-aggregate support (CREATE AGGREGATE ... MSFUNC,
-- MINVFUNC): each group keeps the call's moving state, rows going in are
-- added by the transition function and rows going out are taken out by
-- the inverse one, instead of aggregating the group's rows again.  An
-- inverse that returns NULL (it cannot take that row out) has the state
-- rebuilt from the group's kept rows.  Each view is checked against its
-- query after every change.
CREATE EXTENSION hummock_stream;
CREATE EXTENSION hummock_stream_test;	-- views_differ(): each view against its query
CREATE TABLE ma (id int PRIMARY KEY, g int, v int, w numeric, flag bool);
INSERT INTO ma SELECT i, i % 4, (i * 7) % 11 - 3, (i % 6) * 1.5, i % 3 = 0
  FROM generate_series(1, 40) i;
UPDATE ma SET v = NULL WHERE id % 9 = 0;

-- a sum with a final function, whose inverse gives up on 5; each call of
-- its functions is counted
CREATE SEQUENCE forward_calls;
CREATE SEQUENCE inverse_calls;
SELECT setval('forward_calls', 1), setval('inverse_calls', 1);	-- (counted from here)
CREATE FUNCTION msum_add(s int8, x int) RETURNS int8 LANGUAGE plpgsql IMMUTABLE STRICT
  AS $$BEGIN PERFORM nextval('public.forward_calls'); RETURN s + x; END$$;
CREATE FUNCTION msum_inv(s int8, x int) RETURNS int8 LANGUAGE plpgsql IMMUTABLE STRICT
  AS $$BEGIN PERFORM nextval('public.inverse_calls');
        RETURN CASE WHEN x = 5 THEN NULL ELSE s - x END; END$$;
CREATE FUNCTION msum_final(s int8) RETURNS text LANGUAGE sql IMMUTABLE AS $$SELECT 'sum=' || s$$;
CREATE AGGREGATE msum(int) (SFUNC = msum_add, STYPE = int8, INITCOND = 0, FINALFUNC = msum_final,
  MSFUNC = msum_add, MINVFUNC = msum_inv, MSTYPE = int8, MINITCOND = 0, MFINALFUNC = msum_final);
-- strict without an initial state: the first input is the state
CREATE FUNCTION nsum_add(s numeric, x numeric) RETURNS numeric LANGUAGE sql IMMUTABLE STRICT AS $$SELECT s + x$$;
CREATE FUNCTION nsum_inv(s numeric, x numeric) RETURNS numeric LANGUAGE sql IMMUTABLE STRICT
  AS $$SELECT CASE WHEN scale(x) < scale(s) THEN s - x END$$;
CREATE AGGREGATE nsum(numeric) (SFUNC = nsum_add, STYPE = numeric,
  MSFUNC = nsum_add, MINVFUNC = nsum_inv, MSTYPE = numeric);
-- polymorphic, not strict, with extra final arguments
CREATE FUNCTION cnt_add(s int8[], x anyelement) RETURNS int8[] LANGUAGE sql IMMUTABLE
  AS $$SELECT ARRAY[s[1] + 1, s[2] + CASE WHEN x IS NULL THEN 1 ELSE 0 END]$$;
CREATE FUNCTION cnt_inv(s int8[], x anyelement) RETURNS int8[] LANGUAGE sql IMMUTABLE
  AS $$SELECT ARRAY[s[1] - 1, s[2] - CASE WHEN x IS NULL THEN 1 ELSE 0 END]$$;
CREATE FUNCTION cnt_final(s int8[], x anyelement) RETURNS text LANGUAGE sql IMMUTABLE
  AS $$SELECT s[1] || ' rows, ' || s[2] || ' NULL'$$;
CREATE AGGREGATE cnt(anyelement) (SFUNC = cnt_add, STYPE = int8[], INITCOND = '{0,0}',
  FINALFUNC = cnt_final, FINALFUNC_EXTRA,
  MSFUNC = cnt_add, MINVFUNC = cnt_inv, MSTYPE = int8[], MINITCOND = '{0,0}',
  MFINALFUNC = cnt_final, MFINALFUNC_EXTRA);

SELECT hummock_stream.create_materialized_view('ma_groups',
  $$SELECT g, msum(v) AS s, nsum(w) AS ns, cnt(v) AS c, msum(v) FILTER (WHERE flag) AS fs,
           count(*) AS n FROM ma GROUP BY g$$);
SELECT hummock_stream.create_materialized_view('ma_global',
  $$SELECT msum(v) AS s, nsum(w) AS ns, cnt(w) AS c FROM ma WHERE id > 30$$);
-- with ORDER BY the rows are kept and aggregated again (order matters)
SELECT hummock_stream.create_materialized_view('ma_ordered',
  $$SELECT g, msum(v ORDER BY id) AS s FROM ma GROUP BY g$$);
SELECT job, holds FROM hummock_stream.state_tables
 WHERE job::text LIKE 'ma\_%' ORDER BY job::text, ordinal;
SELECT job, operators[2] AS aggregation FROM hummock_stream.fragments
 WHERE job::text LIKE 'ma\_%' ORDER BY job::text;
SELECT * FROM hummock_stream_test.views_differ();
DROP MATERIALIZED VIEW ma_ordered;
SELECT * FROM ma_groups ORDER BY g;
SELECT * FROM ma_global;

-- deletes take rows out with the inverse: the groups are not aggregated
-- again (no forward call; an inverse call per deleted row with a value,
-- and one more for the row the FILTER call counts)
SELECT last_value AS fwd FROM forward_calls \gset
SELECT last_value AS inv FROM inverse_calls \gset
DELETE FROM ma WHERE id IN (1, 2, 3, 18);
SELECT hummock_stream.wait();
SELECT (SELECT last_value FROM forward_calls) - :fwd AS forward_calls,
       (SELECT last_value FROM inverse_calls) - :inv AS inverse_calls;
SELECT * FROM hummock_stream_test.views_differ();
-- updates that move rows between groups
UPDATE ma SET g = (g + 1) % 4, v = v + 1 WHERE id % 5 = 0 AND v <> 4;
SELECT hummock_stream.wait();
SELECT * FROM hummock_stream_test.views_differ();
-- the inverse gives up on 5: that call's state in that group is rebuilt
-- from the group's rows (one forward call per row; the FILTER call did not
-- count the row and is left as it is)
UPDATE ma SET v = 5 WHERE id = 8;
SELECT hummock_stream.wait();
SELECT last_value AS fwd FROM forward_calls \gset
DELETE FROM ma WHERE id = 8;
SELECT hummock_stream.wait();
SELECT (SELECT last_value FROM forward_calls) - :fwd AS forward_calls_of_the_rebuild,
       (SELECT count(v) FROM ma WHERE g = 0) AS rows_of_the_group;
SELECT * FROM hummock_stream_test.views_differ();
-- groups emptied and filled again, the global group emptied
DELETE FROM ma WHERE g = 1 OR id > 30;
SELECT hummock_stream.wait();
SELECT * FROM ma_global;
INSERT INTO ma SELECT i, i % 5, i % 7, i / 4.0, true FROM generate_series(41, 60) i;
SELECT hummock_stream.wait();
SELECT * FROM hummock_stream_test.views_differ();
SELECT * FROM ma_groups ORDER BY g;
SELECT * FROM ma_global;
-- the forward function must not return NULL, as in a window (22004): at
-- creation the caller gets the error; a view that meets such a row fails,
-- and heals once the row is gone, planned again over its stored states
CREATE FUNCTION bad_add(s int8, x int) RETURNS int8 LANGUAGE sql IMMUTABLE
  AS $$SELECT CASE WHEN x IS DISTINCT FROM 99 THEN coalesce(s, 0) + coalesce(x, 0) END$$;
CREATE FUNCTION bad_inv(s int8, x int) RETURNS int8 LANGUAGE sql IMMUTABLE
  AS $$SELECT s - coalesce(x, 0)$$;
CREATE AGGREGATE bad_sum(int) (SFUNC = bad_add, STYPE = int8,
  MSFUNC = bad_add, MINVFUNC = bad_inv, MSTYPE = int8, MINITCOND = 0);
INSERT INTO ma VALUES (99, 1, 99, 0, false);
SELECT hummock_stream.create_materialized_view('ma_bad', $$SELECT g, bad_sum(v) AS s FROM ma GROUP BY g$$);
SELECT to_regclass('ma_bad') IS NULL AS dropped;
DELETE FROM ma WHERE id = 99;
SELECT hummock_stream.create_materialized_view('ma_bad',
  $$SELECT g, bad_sum(v) AS s, msum(v) AS m, cnt(id) AS c FROM ma GROUP BY g$$);
INSERT INTO ma VALUES (99, 1, 99, 0, false);
SELECT hummock_stream_test.wait_for_state('ma_bad', 'failed');
SELECT last_error FROM hummock_stream.jobs WHERE name = 'ma_bad'::regclass;
DELETE FROM ma WHERE id = 99;
SELECT hummock_stream_test.wait_for_state('ma_bad', 'created');
SELECT hummock_stream.wait('ma_bad');
UPDATE ma SET v = v - 1 WHERE id % 3 = 0;
DELETE FROM ma WHERE id % 7 = 0;
SELECT hummock_stream.wait();
SELECT * FROM hummock_stream_test.views_differ();
DROP MATERIALIZED VIEW ma_bad;

-- a composite moving state: its type cannot be altered while a view
-- keeps states of it (the view's query names only the aggregate)
CREATE TYPE ma_pair AS (s int8, n int8);
CREATE FUNCTION pair_add(p ma_pair, x int) RETURNS ma_pair LANGUAGE sql IMMUTABLE STRICT
  AS $$SELECT ROW(p.s + x, p.n + 1)::public.ma_pair$$;
CREATE FUNCTION pair_inv(p ma_pair, x int) RETURNS ma_pair LANGUAGE sql IMMUTABLE STRICT
  AS $$SELECT ROW(p.s - x, p.n - 1)::public.ma_pair$$;
CREATE FUNCTION pair_avg(p ma_pair) RETURNS numeric LANGUAGE sql IMMUTABLE
  AS $$SELECT CASE WHEN p.n > 0 THEN round(p.s::numeric / p.n, 2) END$$;
CREATE AGGREGATE pavg(int) (SFUNC = pair_add, STYPE = ma_pair, INITCOND = '(0,0)',
  FINALFUNC = pair_avg, MSFUNC = pair_add, MINVFUNC = pair_inv, MSTYPE = ma_pair,
  MINITCOND = '(0,0)', MFINALFUNC = pair_avg);
SELECT hummock_stream.create_materialized_view('ma_pairs', $$SELECT g, pavg(v) AS a FROM ma GROUP BY g$$);
ALTER TYPE ma_pair ALTER ATTRIBUTE s TYPE numeric;
DELETE FROM ma WHERE id % 4 = 1;
SELECT hummock_stream.wait();
SELECT * FROM hummock_stream_test.views_differ() WHERE view = 'ma_pairs'::regclass;
DROP MATERIALIZED VIEW ma_pairs;
ALTER TYPE ma_pair ADD ATTRIBUTE note text;
DROP AGGREGATE pavg(int);
DROP TYPE ma_pair CASCADE;

-- the view's owner needs EXECUTE on the aggregate, as Postgres's Agg node
CREATE ROLE ma_user;
GRANT SELECT ON ma TO ma_user;
GRANT CREATE ON SCHEMA public TO ma_user;
GRANT USAGE ON SEQUENCE forward_calls, inverse_calls TO ma_user;
REVOKE EXECUTE ON FUNCTION msum(int) FROM PUBLIC;
SET ROLE ma_user;
SELECT hummock_stream.create_materialized_view('ma_denied', $$SELECT g, msum(v) AS s FROM ma GROUP BY g$$);
RESET ROLE;
GRANT EXECUTE ON FUNCTION msum(int) TO ma_user;
SET ROLE ma_user;
SELECT hummock_stream.create_materialized_view('ma_allowed', $$SELECT g, msum(v) AS s FROM ma GROUP BY g$$);
RESET ROLE;
SELECT * FROM hummock_stream_test.views_differ();
DROP MATERIALIZED VIEW ma_allowed;
REVOKE CREATE ON SCHEMA public FROM ma_user;
DROP OWNED BY ma_user;
DROP ROLE ma_user;

-- an aggregate a view computes with cannot be replaced by another
-- definition (the states were built with it); the same definition can
CREATE OR REPLACE AGGREGATE nsum(numeric) (SFUNC = nsum_add, STYPE = numeric,
  MSFUNC = nsum_add, MINVFUNC = nsum_inv, MSTYPE = numeric, MINITCOND = 0);
CREATE OR REPLACE AGGREGATE nsum(numeric) (SFUNC = nsum_add, STYPE = numeric);
CREATE OR REPLACE AGGREGATE nsum(numeric) (SFUNC = nsum_add, STYPE = numeric,
  MSFUNC = nsum_add, MINVFUNC = nsum_inv, MSTYPE = numeric);

DROP MATERIALIZED VIEW ma_groups, ma_global;
CREATE OR REPLACE AGGREGATE nsum(numeric) (SFUNC = nsum_add, STYPE = numeric);
DROP AGGREGATE msum(int), nsum(numeric), cnt(anyelement), bad_sum(int);
DROP TABLE ma;
DROP EXTENSION hummock_stream CASCADE;
