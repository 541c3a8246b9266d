-- Temporal filters: WHERE conditions comparing a row with the current
-- time.  A view at epoch E is its query run with now() = E's time, so rows
-- enter and leave as time passes, without writes.  temporal_differs()
-- reads a view at its committed epoch and compares it with its query run
-- with now() replaced by that epoch's time (0: equal).
CREATE EXTENSION hummock_stream;
CREATE TABLE ev (id int PRIMARY KEY, ts timestamptz, d date, kind text);
CREATE TABLE kinds (kind text PRIMARY KEY, name text);
INSERT INTO kinds VALUES ('k0', 'zero'), ('k1', 'one'), ('k2', 'two');
INSERT INTO ev SELECT i, now() - i * interval '1 minute', current_date - i % 10, 'k' || i % 3
  FROM generate_series(1, 100) i;
INSERT INTO ev VALUES (200, NULL, NULL, 'k0');

CREATE FUNCTION temporal_differs(v regclass, query text) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
  e bigint;
  t text;
  q text;
  n bigint;
BEGIN
  SELECT committed_epoch INTO e FROM hummock_stream.committed_epochs() WHERE relation = v;
  t := quote_literal(hummock_stream.epoch_to_timestamp(e)) || '::timestamptz';
  q := replace(replace(query, 'now()', t), 'current_date', '(' || t || ')::date');
  PERFORM set_config('hummock_stream.query_epoch', e::text, true);
  EXECUTE format('SELECT count(*) FROM ((TABLE %s EXCEPT ALL (%s)) UNION ALL ((%s) EXCEPT ALL TABLE %s)) d',
                 v, q, q, v) INTO n;
  PERFORM set_config('hummock_stream.query_epoch', '0', true);
  RETURN n;
END $$;
CREATE TABLE defs (v regclass, query text);
CREATE FUNCTION make(name text, query text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM hummock_stream.create_materialized_view(name, query);
  INSERT INTO defs VALUES (name::regclass, query);
END $$;

SELECT make('t_recent', $$SELECT id, ts FROM ev WHERE ts > now() - interval '30 minutes'$$);
SELECT make('t_commuted', $$SELECT id FROM ev WHERE now() - interval '20 minutes' <= ts$$);
SELECT make('t_past', $$SELECT id FROM ev WHERE ts <= now()$$);
SELECT make('t_between', $$SELECT kind, count(*) AS n FROM ev WHERE ts BETWEEN now() - interval '1 hour' AND now() GROUP BY kind$$);
SELECT make('t_days', $$SELECT id, d FROM ev WHERE d >= current_date - 3$$);
-- a date column against a timestamptz bound: compared as timestamptz
SELECT make('t_date_ts', $$SELECT id FROM ev WHERE d > now() - interval '5 days'$$);
SELECT make('t_join', $$SELECT e.id, k.name FROM ev e JOIN kinds k ON k.kind = e.kind WHERE e.ts > now() - interval '10 minutes'$$);
-- over the join: the condition reads both sides
SELECT make('t_join_both', $$SELECT e.id FROM ev e JOIN kinds k ON k.kind = e.kind WHERE e.ts + length(k.name) * interval '1 minute' > now() - interval '15 minutes'$$);
-- in an inner join's ON: over one side, and over both (filtering the join)
SELECT make('t_join_on', $$SELECT e.id, k.name FROM ev e JOIN kinds k ON k.kind = e.kind AND e.ts > now() - interval '10 minutes'$$);
SELECT make('t_join_on_both', $$SELECT e.id, k.name FROM ev e JOIN kinds k ON k.kind = e.kind AND e.ts + length(k.name) * interval '1 minute' > now() - interval '15 minutes'$$);
-- in an outer join's ON, over its nullable side: which rows match
SELECT make('t_left_on', $$SELECT k.kind, e.id FROM kinds k LEFT JOIN ev e ON e.kind = k.kind AND e.ts > now() - interval '3 minutes'$$);
SELECT make('t_sub', $$SELECT s.kind, count(*) AS n FROM (SELECT kind FROM ev WHERE ts > now() - interval '45 minutes') s GROUP BY s.kind$$);
SELECT make('t_exists', $$SELECT k.kind FROM kinds k WHERE EXISTS (SELECT 1 FROM ev e WHERE e.kind = k.kind AND e.ts > now() - interval '2 minutes')$$);
-- an equality is two bounds: the rows of the current day
SELECT make('t_today', $$SELECT id FROM ev WHERE d = current_date$$);
-- a timestamptz column against a date bound: the day's start at the view's
-- TimeZone (the time's side cast, as the cross-type operator compares)
SELECT make('t_ts_day', $$SELECT id FROM ev WHERE ts >= current_date AND ts < current_date + 1$$);
SELECT make('t_ts_days', $$SELECT kind, count(*) AS n FROM ev WHERE ts > current_date - 7 GROUP BY kind$$);
-- in HAVING, over the groups: kinds active in the last 5 minutes
SELECT make('t_active', $$SELECT kind, count(*) AS n FROM ev GROUP BY kind HAVING max(ts) > now() - interval '5 minutes'$$);
SELECT make('t_active_total', $$SELECT count(*) AS n FROM ev HAVING max(ts) >= now() - interval '90 minutes' AND count(*) > 3$$);
-- under OR: the other arguments let rows pass whatever the time
SELECT make('t_or', $$SELECT id, kind FROM ev WHERE kind = 'k1' OR ts > now() - interval '10 minutes'$$);
SELECT make('t_or_and', $$SELECT id FROM ev WHERE id < 5 OR id > 90 OR (kind <> 'k0' AND ts BETWEEN now() - interval '25 minutes' AND now())$$);
SELECT make('t_not', $$SELECT id FROM ev WHERE NOT (ts > now() - interval '40 minutes') AND id < 60$$);
SELECT make('t_or_having', $$SELECT kind, count(*) AS n FROM ev GROUP BY kind HAVING max(ts) > now() - interval '5 minutes' OR count(*) > 33$$);
-- comparisons with the time as values (select list, FILTER, GROUP BY):
-- the rows split by them, moving between the halves as time passes
SELECT make('t_case', $$SELECT id, CASE WHEN ts > now() - interval '30 minutes' THEN 'recent' ELSE 'old' END AS age, ts > now() - interval '1 hour' AS in_hour FROM ev$$);
SELECT make('t_filter', $$SELECT kind, count(*) AS n, count(*) FILTER (WHERE ts > now() - interval '20 minutes') AS recent, sum(id) FILTER (WHERE ts <= now() - interval '50 minutes' AND id > 10) AS old_ids FROM ev GROUP BY kind$$);
SELECT make('t_group_age', $$SELECT ts > now() - interval '15 minutes' AS fresh, count(*) AS n FROM ev WHERE id < 500 GROUP BY 1$$);
SELECT make('t_today_flag', $$SELECT id, d = current_date AS today, CASE WHEN d = current_date - 1 THEN 'yesterday' END AS y FROM ev$$);
-- over the groups: the groups' values compared with the time in a level above
SELECT make('t_active_flag', $$SELECT kind, count(*) AS n, max(ts) > now() - interval '5 minutes' AS active, CASE WHEN min(ts) < now() - interval '95 minutes' THEN 'old' ELSE 'young' END AS since FROM ev GROUP BY kind$$);
-- a grouped column compared in HAVING (a temporal filter over the groups)
-- while a FILTER compares the rows: each where it is
SELECT make('t_grouped_having', $$SELECT d, count(*) FILTER (WHERE ts > now() - interval '40 minutes') AS recent FROM ev GROUP BY d HAVING d >= current_date - 5$$);
SELECT make('t_total_recent', $$SELECT count(*) FILTER (WHERE ts >= now() - interval '12 minutes') AS recent, count(*) AS n FROM ev$$);
SELECT v, temporal_differs(v, query) FROM defs ORDER BY v::text;
SELECT count(*) FROM t_recent;
SELECT count(*) AS rows, count(DISTINCT age) AS ages FROM t_case;
SELECT count(DISTINCT fresh) AS kinds, bool_or(fresh IS NULL) AS with_null FROM t_group_age;
SELECT job, ordinal, holds FROM hummock_stream.state_tables WHERE job = 't_join'::regclass ORDER BY ordinal;

-- rows a few seconds in the future enter t_past when their time comes
INSERT INTO ev SELECT 1000 + i, clock_timestamp() + interval '1 second' + i * interval '200 ms', current_date, 'kf'
  FROM generate_series(1, 5) i;
DO $$
DECLARE
  deadline timestamptz := clock_timestamp() + interval '60 seconds';
BEGIN
  WHILE (SELECT count(*) FROM t_past) < 105 LOOP
    IF clock_timestamp() > deadline THEN
      RAISE EXCEPTION 'future rows did not enter t_past';
    END IF;
    PERFORM pg_sleep(0.05);
  END LOOP;
END $$;
SELECT count(*) FROM t_past;

-- rows leave t_exists's window (2 minutes) as time passes: make one
-- that leaves in a second
UPDATE ev SET ts = clock_timestamp() - interval '2 minutes' + interval '1 second' WHERE id = 1;
UPDATE ev SET ts = ts - interval '10 minutes' WHERE id IN (2, 3);
SELECT hummock_stream.wait();
DO $$
DECLARE
  deadline timestamptz := clock_timestamp() + interval '60 seconds';
BEGIN
  WHILE EXISTS (SELECT FROM t_exists) LOOP
    IF clock_timestamp() > deadline THEN
      RAISE EXCEPTION 't_exists kept its rows';
    END IF;
    PERFORM pg_sleep(0.05);
  END LOOP;
END $$;
SELECT count(*) FROM t_exists;

-- writes while time moves
UPDATE ev SET ts = now() WHERE id BETWEEN 10 AND 20;
DELETE FROM ev WHERE id BETWEEN 30 AND 35;
UPDATE ev SET d = current_date WHERE id % 7 = 0;
INSERT INTO ev VALUES (300, now() - interval '5 minutes', current_date, 'k2');
-- rows changing whether they pass regardless of the time
UPDATE ev SET kind = 'k1' WHERE id IN (50, 200);
UPDATE ev SET kind = NULL WHERE id IN (4, 13);
UPDATE ev SET kind = 'k0', ts = now() - interval '11 minutes' WHERE id = 7;
SELECT hummock_stream.wait();
SELECT v, temporal_differs(v, query) FROM defs ORDER BY v::text;

-- refused: the current time outside a temporal filter
CREATE FUNCTION create_error(query text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  PERFORM hummock_stream.create_materialized_view('t_refused', query);
  RETURN 'created';
EXCEPTION WHEN OTHERS THEN
  RETURN format('%s: %s', SQLSTATE, SQLERRM);
END $$;
SELECT create_error($$SELECT id, now() AS at FROM ev$$);
SELECT create_error($$SELECT kind, count(*) FROM ev GROUP BY kind ORDER BY max(ts) > now() - interval '1 minute', kind LIMIT 2$$);
-- in HAVING, only temporal filters (one argument of an OR may read the time)
SELECT create_error($$SELECT kind, count(*) FROM ev GROUP BY kind HAVING max(ts) > now() - interval '1 hour' OR min(ts) < now() - interval '1 day'$$);
SELECT create_error($$SELECT kind, count(*) FROM ev GROUP BY kind HAVING coalesce(max(ts) > now() - interval '1 hour', false)$$);
-- (an equality is two bounds: accepted)
SELECT create_error($$SELECT id FROM ev WHERE ts::date = current_date$$);
-- under OR, one argument may read the time, not two
SELECT create_error($$SELECT id FROM ev WHERE ts > now() - interval '1 hour' OR d = current_date$$);
SELECT create_error($$SELECT id FROM ev WHERE id = 1 OR (ts > now() - interval '1 hour' AND now() > ts + interval '1 minute') OR ts::date < current_date$$);
-- over the preserved side of an outer join, the time would decide matches
SELECT create_error($$SELECT e.id, k.name FROM ev e LEFT JOIN kinds k ON k.kind = e.kind AND e.ts > now() - interval '1 hour'$$);
SELECT create_error($$SELECT id FROM ev WHERE ts > clock_timestamp()$$);
SELECT create_error($$SELECT id FROM ev WHERE kind > to_char(now(), 'YYYY')$$);

-- a filter whose rows do not change as time passes writes nothing: no
-- state is written at the epochs after its creation (it wrote the time of
-- its bound at every epoch, a file per epoch)
CREATE TABLE idle_ev (id int PRIMARY KEY, ts timestamptz);
INSERT INTO idle_ev SELECT g, timestamptz '2000-01-01' + g * interval '1 day' FROM generate_series(1, 50) g;
SELECT hummock_stream.create_materialized_view('t_idle',
  $$SELECT id FROM idle_ev WHERE ts > now() - interval '1 hour'$$);
SELECT committed_epoch AS idle_e0 FROM hummock_stream.jobs WHERE name = 't_idle'::regclass \gset
DO $$
DECLARE
  seen int := 0;
  last bigint;
  cur bigint;
  deadline timestamptz := clock_timestamp() + interval '60 seconds';
BEGIN
  SELECT committed_epoch INTO last FROM hummock_stream.jobs WHERE name = 't_idle'::regclass;
  WHILE seen < 3 LOOP	-- three more epochs committed
    PERFORM pg_sleep(0.01);
    SELECT committed_epoch INTO cur FROM hummock_stream.jobs WHERE name = 't_idle'::regclass;
    IF cur > last THEN seen := seen + 1; last := cur; END IF;
    IF clock_timestamp() > deadline THEN RAISE 'the view committed no epoch'; END IF;
  END LOOP;
END $$;
SELECT count(*) AS written_since FROM hummock_stream.sstables() t, hummock_stream.state_tables s
 WHERE s.job = 't_idle'::regclass AND s.table_id = ANY (t.table_ids) AND t.max_epoch > :idle_e0;
INSERT INTO idle_ev VALUES (100, now() + interval '1 minute');
SELECT hummock_stream.wait();
SELECT * FROM t_idle;

SET client_min_messages = warning;	-- the capture log's name has an OID
DROP EXTENSION hummock_stream CASCADE;
RESET client_min_messages;
DROP FUNCTION temporal_differs(regclass, text), make(text, text), create_error(text);
DROP TABLE ev, kinds, defs, idle_ev;
