-- STABLE built-in functions and casts whose results depend on settings
-- (timestamptz::text, date_trunc on timestamptz, to_char, interval and
-- float output, jsonb_agg): a view records its creator's TimeZone,
-- DateStyle, IntervalStyle, extra_float_digits, lc_* and so on, and is
-- maintained with them whatever the settings of the session that writes
-- its sources or of the workers.  Functions of the current time, a user's
-- STABLE functions and volatile ones are refused.
CREATE EXTENSION hummock_stream;
CREATE EXTENSION hummock_stream_test;	-- views_differ(): each view against its query
CREATE TABLE ev (id int PRIMARY KEY, at timestamptz, iv interval, x float8, amount numeric);
INSERT INTO ev VALUES
  (1, '2026-03-01 23:30:00+00', '1 day 2 hours', 0.1, 12.5),
  (2, '2026-03-02 01:15:00+00', '-3 mons', 1.0 / 3, 7),
  (3, '2026-03-02 16:45:00+00', '90 seconds', NULL, 1234.5);


SET TimeZone = 'Asia/Manila';
SET DateStyle = 'SQL, DMY';
SET IntervalStyle = 'sql_standard';
SET extra_float_digits = 0;
SELECT hummock_stream.create_materialized_view('ev_text',
  $$SELECT id, at::text AS at_text, date_trunc('day', at) AS day,
           to_char(at, 'YYYY-MM-DD HH24:MI') AS formatted, iv::text AS iv_text, x::text AS x_text,
           make_timestamptz(2026, 1, 2, 3, 4, 5) AS made, extract(hour FROM at) AS hour,
           to_char(amount, 'FM9G999D00') AS money
      FROM ev$$);
SELECT hummock_stream.create_materialized_view('ev_days',
  $$SELECT date_trunc('day', at) AS day, count(*) AS n, jsonb_agg(id ORDER BY id) AS ids,
           string_agg(at::text, ' / ' ORDER BY id) AS ats
      FROM ev GROUP BY 1$$);
SELECT * FROM ev_text ORDER BY id;
SELECT * FROM ev_days ORDER BY day;

-- writers (and the workers) with other settings change nothing
RESET TimeZone;
RESET DateStyle;
RESET IntervalStyle;
RESET extra_float_digits;
INSERT INTO ev VALUES (4, '2026-03-02 15:59:00+00', '1 year', 2.5, 0.5);
UPDATE ev SET at = at + interval '12 hours', x = x * 3 WHERE id = 2;
DELETE FROM ev WHERE id = 3;
SELECT hummock_stream.wait();
SHOW TimeZone;
SELECT * FROM ev_text ORDER BY id;
SELECT * FROM ev_days ORDER BY day;
-- each view equals its query run with its creator's settings
SET TimeZone = 'Asia/Manila';
SET DateStyle = 'SQL, DMY';
SET IntervalStyle = 'sql_standard';
SET extra_float_digits = 0;
SELECT hummock_stream_test.view_differs('ev_text') AS ev_text, hummock_stream_test.view_differs('ev_days') AS ev_days;
RESET TimeZone;
RESET DateStyle;
RESET IntervalStyle;
RESET extra_float_digits;

-- constants computed when the view is planned (a subquery over no table)
-- are computed with the creator's settings too, also when a worker plans
-- the view again (here after ALTER TABLE of its source)
SET TimeZone = 'Asia/Manila';
SET DateStyle = 'SQL, DMY';
SELECT hummock_stream.create_materialized_view('ev_since',
  $$SELECT id, (SELECT '2026-03-02 08:00:00+00'::timestamptz::text) AS since,
           at::text > ALL (SELECT '2026-03-02 08:00:00+00'::timestamptz::text) AS later
      FROM ev$$);
RESET TimeZone;
RESET DateStyle;
ALTER TABLE ev ADD COLUMN note text;
INSERT INTO ev VALUES (5, '2026-03-03 10:00:00+00', '1 day', 1, 1);
SELECT hummock_stream.wait();
SELECT * FROM ev_since ORDER BY id;
SET TimeZone = 'Asia/Manila';
SET DateStyle = 'SQL, DMY';
SELECT hummock_stream_test.view_differs('ev_since') AS ev_since;
RESET TimeZone;
RESET DateStyle;

-- to_tsvector(text) follows the creator's default_text_search_config
CREATE TABLE docs (id int PRIMARY KEY, body text);
INSERT INTO docs VALUES (1, 'The running foxes');
SET default_text_search_config = 'pg_catalog.simple';
SELECT hummock_stream.create_materialized_view('docs_words', 'SELECT id, to_tsvector(body)::text AS words FROM docs');
RESET default_text_search_config;
INSERT INTO docs VALUES (2, 'Jumping dogs');
SELECT hummock_stream.wait();
SELECT * FROM docs_words ORDER BY id;

-- refused: functions of the session or the search_path, age() of one argument
SELECT hummock_stream.create_materialized_view('bad', 'SELECT id, pg_backend_pid() AS pid FROM ev');
SELECT hummock_stream.create_materialized_view('bad', 'SELECT id, txid_current() AS x FROM ev');
SELECT hummock_stream.create_materialized_view('bad', 'SELECT id, current_schema() AS s FROM ev');
SELECT hummock_stream.create_materialized_view('bad', 'SELECT id, to_regclass(id::text) AS r FROM ev');
SELECT hummock_stream.create_materialized_view('bad', 'SELECT id, age(at::timestamp) AS a FROM ev');
SELECT hummock_stream.create_materialized_view('bad', 'SELECT id, ''ev''::regclass::text AS r FROM ev');
SELECT hummock_stream.create_materialized_view('bad', 'SELECT id, session_user AS u FROM ev');
SELECT hummock_stream.create_materialized_view('bad', 'SELECT id, pg_catalog."session_user"() AS u FROM ev');
SELECT hummock_stream.create_materialized_view('bad', 'SELECT id, current_schema AS s FROM ev');
-- current_user is the view's owner, at creation and in every epoch
CREATE ROLE settings_owner;
GRANT SELECT ON ev TO settings_owner;
GRANT CREATE ON SCHEMA public TO settings_owner;
SET ROLE settings_owner;
SELECT hummock_stream.create_materialized_view('ev_owner', 'SELECT id, current_user AS c, current_role AS r FROM ev');
RESET ROLE;
INSERT INTO ev (id) SELECT max(id) + 1000 FROM ev;
SELECT hummock_stream.wait();
SELECT count(*), count(*) FILTER (WHERE c = 'settings_owner' AND r = 'settings_owner') FROM ev_owner;
SELECT hummock_stream.drop_materialized_view('ev_owner');
REVOKE ALL ON ev FROM settings_owner;
REVOKE CREATE ON SCHEMA public FROM settings_owner;
DROP ROLE settings_owner;

-- refused: functions of the current time, a user's STABLE function, volatile ones
CREATE FUNCTION my_stable(int) RETURNS int LANGUAGE sql STABLE AS 'SELECT $1 + 1';
SELECT hummock_stream.create_materialized_view('bad', 'SELECT id FROM ev WHERE at > now() - interval ''1 hour'' OR at < now() - interval ''2 hours''');
SELECT hummock_stream.create_materialized_view('bad', 'SELECT id, CURRENT_DATE AS d FROM ev');
SELECT hummock_stream.create_materialized_view('bad', 'SELECT id, localtimestamp AS t FROM ev');
SELECT hummock_stream.create_materialized_view('bad', 'SELECT id, my_stable(id) AS y FROM ev');
SELECT hummock_stream.create_materialized_view('bad', 'SELECT id, random() AS r FROM ev');
SELECT hummock_stream.create_materialized_view('bad', 'SELECT id, clock_timestamp() AS c FROM ev');

DROP FUNCTION my_stable(int);
SET client_min_messages = warning;	-- the capture log's name has an OID
DROP EXTENSION hummock_stream CASCADE;
RESET client_min_messages;
DROP TABLE ev, docs;
