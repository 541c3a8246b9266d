-- The memcomparable key encoding (memcmp_key.c), checked against
-- PostgreSQL itself: for each ORDERED type, over all pairs (a, b) of a few
-- hundred values with edge cases, the sign of PostgreSQL's comparison
-- (NULLS LAST) equals the sign of the bytea (memcmp) comparison of
-- memcmp_key(a) and memcmp_key(b), and the descending keys compare the
-- other way round; for EQUALITY types, a = b exactly when the keys are
-- equal.  Text is compared under COLLATE "C".  Golden bytes of a few
-- values pin the format.
CREATE EXTENSION hummock_stream;

SET bytea_output = 'hex';
SET TimeZone = 'UTC';
SELECT setseed(0.42);

-- every pair of tbl.v: PostgreSQL's order against the keys' order
CREATE FUNCTION pg_temp.check_order(tbl regclass,
    OUT type text, OUT support text, OUT n bigint, OUT pairs bigint,
    OUT mismatches bigint, OUT desc_mismatches bigint)
LANGUAGE plpgsql AS $$
BEGIN
  SELECT format_type(a.atttypid, a.atttypmod),
         hummock_stream.memcmp_support(a.atttypid)
    INTO type, support
    FROM pg_attribute a WHERE a.attrelid = tbl AND a.attname = 'v';
  EXECUTE format($q$
    WITH k AS (
      SELECT v, num_nulls(v) = 1 AS isnull,
             hummock_stream.memcmp_key(v) AS ka,
             hummock_stream.memcmp_key(v, true) AS kd
        FROM %s),
    c AS (
      SELECT CASE WHEN a.isnull AND b.isnull THEN 0
                  WHEN a.isnull THEN 1
                  WHEN b.isnull THEN -1
                  WHEN a.v < b.v THEN -1
                  WHEN a.v = b.v THEN 0
                  ELSE 1 END AS pg,
             CASE WHEN a.ka < b.ka THEN -1 WHEN a.ka = b.ka THEN 0 ELSE 1 END AS ka,
             CASE WHEN a.kd < b.kd THEN -1 WHEN a.kd = b.kd THEN 0 ELSE 1 END AS kd
        FROM k a, k b)
    SELECT (SELECT count(*) FROM k), count(*),
           count(*) FILTER (WHERE pg <> ka),
           count(*) FILTER (WHERE pg <> -kd)
      FROM c$q$, tbl)
    INTO n, pairs, mismatches, desc_mismatches;
END $$;

-- every pair of tbl.v: a = b exactly when the keys are equal
CREATE FUNCTION pg_temp.check_equality(tbl regclass,
    OUT type text, OUT support text, OUT n bigint, OUT pairs bigint,
    OUT equal_pairs bigint, OUT mismatches bigint)
LANGUAGE plpgsql AS $$
BEGIN
  SELECT format_type(a.atttypid, a.atttypmod),
         hummock_stream.memcmp_support(a.atttypid)
    INTO type, support
    FROM pg_attribute a WHERE a.attrelid = tbl AND a.attname = 'v';
  EXECUTE format($q$
    WITH k AS (
      SELECT v, num_nulls(v) = 1 AS isnull,
             hummock_stream.memcmp_key(v) AS ka
        FROM %s),
    c AS (
      SELECT CASE WHEN a.isnull OR b.isnull THEN a.isnull AND b.isnull
                  ELSE a.v = b.v END AS pg,
             a.ka = b.ka AS ka
        FROM k a, k b)
    SELECT (SELECT count(*) FROM k), count(*),
           count(*) FILTER (WHERE pg),
           count(*) FILTER (WHERE pg <> ka)
      FROM c$q$, tbl)
    INTO n, pairs, equal_pairs, mismatches;
END $$;

-- ---------------------------------------------------------------------
-- Values
-- ---------------------------------------------------------------------

CREATE TEMP TABLE t_bool AS
  SELECT (i % 3 = 0) AS v FROM generate_series(1, 20) i
  UNION ALL SELECT NULL;

CREATE TEMP TABLE t_int2 AS
  SELECT v::int2 AS v FROM unnest(ARRAY[-32768, 32767, 0, 1, -1, 255, 256, -256, NULL]) v
  UNION ALL SELECT floor(random() * 65536 - 32768)::int2 FROM generate_series(1, 200)
  UNION ALL SELECT (i % 7 - 3)::int2 FROM generate_series(1, 40) i;

CREATE TEMP TABLE t_int4 AS
  SELECT v::int4 AS v FROM unnest(ARRAY[-2147483648, 2147483647, 0, 1, -1, 65535, 65536, -65536, NULL]) v
  UNION ALL SELECT floor((random() - 0.5) * 4294967296)::int4 FROM generate_series(1, 200)
  UNION ALL SELECT (i % 7 - 3)::int4 FROM generate_series(1, 40) i;

CREATE TEMP TABLE t_int8 AS
  SELECT v::int8 AS v FROM unnest(ARRAY[-9223372036854775808, 9223372036854775807, 0, 1, -1, 4294967295, 4294967296, -4294967296, NULL]) v
  UNION ALL SELECT floor((random() - 0.5) * 9.2e18)::int8 FROM generate_series(1, 200)
  UNION ALL SELECT (i % 7 - 3)::int8 FROM generate_series(1, 40) i;

CREATE TEMP TABLE t_oid AS
  SELECT v::oid AS v FROM unnest(ARRAY[0, 1, 2147483647, 2147483648, 4294967295, NULL]) v
  UNION ALL SELECT floor(random() * 4294967296)::int8::oid FROM generate_series(1, 200)
  UNION ALL SELECT (i % 5)::oid FROM generate_series(1, 40) i;

CREATE TEMP TABLE t_float4 AS
  SELECT v::float4 AS v FROM unnest(ARRAY['0', '-0', 'NaN', 'Infinity', '-Infinity',
      '1.4e-45', '-1.4e-45', '1.17549435e-38', '3.4028235e38', '-3.4028235e38', '1', '-1', NULL]) v
  UNION ALL SELECT ((random() - 0.5) * 10 ^ floor(random() * 70 - 35))::float4 FROM generate_series(1, 200)
  UNION ALL SELECT -'NaN'::float4
  UNION ALL SELECT (i % 5 - 2)::float4 FROM generate_series(1, 40) i;

CREATE TEMP TABLE t_float8 AS
  SELECT v::float8 AS v FROM unnest(ARRAY['0', '-0', 'NaN', 'Infinity', '-Infinity',
      '4.9e-324', '-4.9e-324', '2.2250738585072014e-308', '1.7976931348623157e308',
      '-1.7976931348623157e308', '1', '-1', NULL]) v
  UNION ALL SELECT (random() - 0.5) * 10 ^ floor(random() * 600 - 300) FROM generate_series(1, 200)
  UNION ALL SELECT -'NaN'::float8
  UNION ALL SELECT (i % 5 - 2)::float8 FROM generate_series(1, 40) i;

-- strings over a small alphabet (with chr(1) and space), so that many are
-- prefixes of others
CREATE TEMP TABLE t_text (v text COLLATE "C");
INSERT INTO t_text
  SELECT v FROM unnest(ARRAY['', 'a', 'ab', 'abc', 'b', 'a ', 'a  ', E'a\t', E'a\001', E'\001',
      ' ', 'A', 'Z', '~', repeat('x', 3000), repeat('x', 3001), NULL]) v
  UNION ALL
  SELECT coalesce((SELECT string_agg((ARRAY[chr(1), ' ', 'a', 'b'])[1 + floor(random() * 4)::int], '')
                     FROM generate_series(1, g % 6) WHERE g > 0), '')
    FROM generate_series(1, 250) g;

CREATE TEMP TABLE t_varchar (v varchar COLLATE "C");
INSERT INTO t_varchar SELECT v FROM t_text;

CREATE TEMP TABLE t_varchar_n (v varchar(8) COLLATE "C");
INSERT INTO t_varchar_n SELECT left(v, 8) FROM t_text;

-- bpchar ignores trailing spaces
CREATE TEMP TABLE t_bpchar (v bpchar COLLATE "C");
INSERT INTO t_bpchar SELECT v FROM t_text;
INSERT INTO t_bpchar SELECT v || repeat(' ', i % 3) FROM t_text, generate_series(1, 2) i WHERE v <> '' LIMIT 100;

CREATE TEMP TABLE t_char4 (v char(4) COLLATE "C");
INSERT INTO t_char4 SELECT left(v, 4) FROM t_text;

CREATE TEMP TABLE t_name AS
  SELECT v::name AS v FROM t_text WHERE length(v) < 64 OR v IS NULL
  UNION ALL SELECT repeat('n', 63)::name UNION ALL SELECT repeat('n', 62)::name;

-- bytes from {00, 01, 7f, 80, ff}: embedded and trailing zero bytes
CREATE TEMP TABLE t_bytea AS
  SELECT v::bytea AS v FROM unnest(ARRAY['\x', '\x00', '\x0000', '\x0001', '\x00ff', '\x01',
      '\xff', '\xff00', '\xffff', '\x61', '\x6100', '\x6100ff', NULL]) v
  UNION ALL
  SELECT coalesce((SELECT string_agg(substr('\x00017f80ff'::bytea, 1 + floor(random() * 5)::int, 1), ''::bytea)
                     FROM generate_series(1, g % 5) WHERE g > 0), '\x'::bytea)
    FROM generate_series(1, 250) g;

CREATE TEMP TABLE t_char AS
  SELECT (i % 256 - 128)::int4::"char" AS v FROM generate_series(0, 299) i
  UNION ALL SELECT NULL;

CREATE TEMP TABLE t_date AS
  SELECT v::date AS v FROM unnest(ARRAY['infinity', '-infinity', '4713-01-01 BC', '5874897-12-31',
      '2000-01-01', '1999-12-31', '1970-01-01', NULL]) v
  UNION ALL SELECT '2000-01-01'::date + floor((random() - 0.5) * 2000000)::int FROM generate_series(1, 200)
  UNION ALL SELECT '2000-01-01'::date + i % 5 FROM generate_series(1, 40) i;

CREATE TEMP TABLE t_time AS
  SELECT v::time AS v FROM unnest(ARRAY['00:00', '24:00', '23:59:59.999999', '12:00', NULL]) v
  UNION ALL SELECT '00:00'::time + random() * interval '24 hours' FROM generate_series(1, 200)
  UNION ALL SELECT '00:00'::time + (i % 5) * interval '1 hour' FROM generate_series(1, 40) i;

-- equal UTC times in different zones are different (timetz_cmp)
CREATE TEMP TABLE t_timetz AS
  SELECT v::timetz AS v FROM unnest(ARRAY['00:00+00', '24:00+00', '00:00-15:59', '24:00+15:59',
      '12:00+01', '11:00+00', '10:00-01', '12:00+00', NULL]) v
  UNION ALL
  SELECT format('%s%s', '00:00'::time + (i % 24) * interval '1 hour',
                (ARRAY['+00', '+01', '-01', '+05:30', '-08', '+14', '-12:45'])[1 + floor(random() * 7)::int])::timetz
    FROM generate_series(1, 200) i;

CREATE TEMP TABLE t_timestamp AS
  SELECT v::timestamp AS v FROM unnest(ARRAY['infinity', '-infinity', '4714-11-24 00:00:00 BC',
      '294276-12-31 23:59:59.999999', '2000-01-01', '1970-01-01', NULL]) v
  UNION ALL SELECT '2000-01-01'::timestamp + (random() - 0.5) * interval '200 years' FROM generate_series(1, 200)
  UNION ALL SELECT '2000-01-01'::timestamp + (i % 5) * interval '1 second' FROM generate_series(1, 40) i;

CREATE TEMP TABLE t_timestamptz AS
  SELECT v::timestamptz AS v FROM t_timestamp;

-- '1 mon' = '30 days' = '720 hours'; extremes beyond an int64 of microseconds
CREATE TEMP TABLE t_interval AS
  SELECT v::interval AS v FROM unnest(ARRAY['0', '1 mon', '30 days', '720 hours', '1 day', '24 hours',
      '-1 mon', '-30 days', '1 mon -30 days', '1 year', '360 days',
      '178000000 years 2147483647 days 2562047787 hours',
      '-178000000 years -2147483647 days -2562047787 hours',
      '178000000 years', '-178000000 years', '2147483647 days', '-2147483648 days',
      '2562047787 hours', '-2562047787 hours', '1 microsecond', '-1 microsecond', NULL]) v
  UNION ALL
  SELECT make_interval(months => floor(random() * 5 - 2)::int, days => floor(random() * 120 - 60)::int,
                       hours => floor(random() * 2000 - 1000)::int)
    FROM generate_series(1, 150)
  UNION ALL
  SELECT make_interval(months => (i % 3) - 1, days => 30 * ((i / 3) % 3) - 30)
    FROM generate_series(1, 50) i;

CREATE TEMP TABLE t_uuid AS
  SELECT v::uuid AS v FROM unnest(ARRAY['00000000-0000-0000-0000-000000000000',
      'ffffffff-ffff-ffff-ffff-ffffffffffff', '80000000-0000-0000-0000-000000000000', NULL]) v
  UNION ALL SELECT md5(random()::text)::uuid FROM generate_series(1, 200)
  UNION ALL SELECT md5((i % 5)::text)::uuid FROM generate_series(1, 40) i;

-- equal numerics of different scales; odd and even digit counts; specials
CREATE TEMP TABLE t_numeric AS
  SELECT v::numeric AS v FROM unnest(ARRAY['0', '-0', '0.000', '1', '1.0', '1.00', '-1', '-1.0', '-1.000',
      '10', '100', '100.0', '0.1', '0.10', '0.01', '0.011', '0.0110', '1e-20', '1e20', '-1e20', '-1e-20',
      '123.456', '123.4560', '-123.456', '-123.4560', '12.3456', '9.99', '10.01', '99', '101',
      '99999999999999999999999999.5', '-99999999999999999999999999.5', '1e-1000', '1e1000',
      '-1e1000', '-1e-1000', '1.5', '-1.5', '15', '0.15', '12', '120', '1.2', '-12', '-120', '-1.2',
      'NaN', 'Infinity', '-Infinity', NULL]) v
  UNION ALL
  SELECT round(((random() - 0.5) * 10 ^ floor(random() * 40 - 20))::numeric, floor(random() * 25)::int)
    FROM generate_series(1, 150)
  UNION ALL
  SELECT (floor(random() * 1e6)::numeric - 500000) / (1 + floor(random() * 30)::int)
    FROM generate_series(1, 60)
  UNION ALL
  SELECT round((i % 7 - 3)::numeric / 2, i % 4) FROM generate_series(1, 40) i;

CREATE TEMP TABLE t_money AS
  SELECT (floor((random() - 0.5) * 1e16)::int8)::money AS v FROM generate_series(1, 200)
  UNION ALL SELECT (i % 5 - 2)::int8::money FROM generate_series(1, 40) i
  UNION ALL SELECT NULL;

CREATE TEMP TABLE t_pg_lsn AS
  SELECT v::pg_lsn AS v FROM unnest(ARRAY['0/0', 'FFFFFFFF/FFFFFFFF', '80000000/0', '7FFFFFFF/FFFFFFFF', NULL]) v
  UNION ALL
  SELECT format('%s/%s', to_hex(floor(random() * 4294967296)::int8), to_hex(floor(random() * 4294967296)::int8))::pg_lsn
    FROM generate_series(1, 200)
  UNION ALL SELECT format('0/%s', i % 5)::pg_lsn FROM generate_series(1, 40) i;

CREATE TEMP TABLE t_macaddr AS
  SELECT v::macaddr AS v FROM unnest(ARRAY['00:00:00:00:00:00', 'ff:ff:ff:ff:ff:ff', '80:00:00:00:00:00', NULL]) v
  UNION ALL SELECT substr(md5(random()::text), 1, 12)::macaddr FROM generate_series(1, 200)
  UNION ALL SELECT substr(md5((i % 5)::text), 1, 12)::macaddr FROM generate_series(1, 40) i;

CREATE TEMP TABLE t_macaddr8 AS
  SELECT v::macaddr8 AS v FROM unnest(ARRAY['00:00:00:00:00:00:00:00', 'ff:ff:ff:ff:ff:ff:ff:ff', NULL]) v
  UNION ALL SELECT substr(md5(random()::text), 1, 16)::macaddr8 FROM generate_series(1, 200)
  UNION ALL SELECT substr(md5((i % 5)::text), 1, 16)::macaddr8 FROM generate_series(1, 40) i;

-- inet and cidr (EQUALITY: their sort keys in network order are apart,
-- checked by views in stream_ordering): both families, netmask lengths
-- that cut inside a byte, host bits past the mask, prefixes of one another
CREATE TEMP TABLE t_inet AS
  SELECT v::inet AS v FROM unnest(ARRAY['0.0.0.0/0', '0.0.0.0', '255.255.255.255', '10.0.0.0/8',
      '10.1.0.0/8', '10.0.0.0/16', '10.0.128.0/17', '10.0.0.1/9', '9.255.0.0/8', '::/0', '::1',
      'ffff::/16', 'ffff::1/128', '::ffff:10.0.0.1', NULL]) v
  UNION ALL SELECT format('%s.%s.%s.%s/%s', 9 + i % 3, i % 2, (i * 37) % 256, i % 3, (i * 7) % 33)::inet
    FROM generate_series(1, 200) i
  UNION ALL SELECT format('%s::%s/%s', to_hex(i % 3), to_hex((i * 7919) % 65536), (i * 13) % 129)::inet
    FROM generate_series(1, 60) i;

CREATE TEMP TABLE t_cidr AS
  SELECT set_masklen(network(v), masklen(v))::cidr AS v FROM t_inet;

-- arrays: NULL elements, lengths, dimensions and lower bounds
CREATE TEMP TABLE t_int4_array AS
  SELECT v::int4[] AS v FROM unnest(ARRAY['{}', '{1}', '{1,2}', '{1,NULL}', '{NULL}', '{NULL,1}',
      '{{1,2},{3,4}}', '{1,2,3,4}', '{{1,2,3,4}}', '{{1},{2},{3},{4}}', '[0:1]={1,2}', '[2:3]={1,2}',
      '[-5:-4]={1,2}', '{1,2,3}', '{{1},{2}}', '{-2147483648}', '{2147483647}', NULL]) v
  UNION ALL
  SELECT (SELECT array_agg(CASE WHEN random() < 0.1 THEN NULL ELSE floor(random() * 4 - 1)::int END)
            FROM generate_series(1, g % 4) WHERE g > 0)
    FROM generate_series(1, 200) g;

CREATE TEMP TABLE t_text_array (v text[] COLLATE "C");
INSERT INTO t_text_array
  SELECT v::text[] FROM unnest(ARRAY['{}', '{""}', '{"",""}', '{a}', '{a,""}', '{ab}', '{a,b}',
      '{NULL}', '{a,NULL}', '[0:0]={a}', NULL]) v
  UNION ALL
  SELECT (SELECT array_agg(t.v) FROM (SELECT v FROM t_text ORDER BY random() LIMIT g % 3) t)
    FROM generate_series(1, 200) g;

-- composites: attributes of several types, NULL attributes, a dropped one
CREATE TYPE pg_temp.pair AS (a int4, b text COLLATE "C", c numeric);
CREATE TEMP TABLE t_pair AS
  SELECT ROW(CASE WHEN random() < 0.1 THEN NULL ELSE floor(random() * 3)::int END,
             CASE WHEN random() < 0.1 THEN NULL ELSE (ARRAY['', 'a', 'ab', E'a\001', 'b'])[1 + floor(random() * 5)::int] END,
             CASE WHEN random() < 0.1 THEN NULL ELSE (ARRAY[1.0, 1.00, -1, 0.5, 'NaN'])[1 + floor(random() * 5)::int] END
         )::pg_temp.pair AS v
    FROM generate_series(1, 250)
  UNION ALL SELECT NULL UNION ALL SELECT ROW(NULL, NULL, NULL)::pg_temp.pair;

CREATE TYPE pg_temp.triple AS (a int4, x int4, b text COLLATE "C");
CREATE TEMP TABLE t_triple AS
  SELECT ROW(floor(random() * 3)::int, floor(random() * 1000)::int,
             (ARRAY['', 'a', 'b'])[1 + floor(random() * 3)::int])::pg_temp.triple AS v
    FROM generate_series(1, 200);
ALTER TYPE pg_temp.triple DROP ATTRIBUTE x;

-- nested: a composite holding an array and a composite
CREATE TYPE pg_temp.nest AS (p pg_temp.pair, arr int4[]);
CREATE TEMP TABLE t_nest AS
  SELECT ROW(p.v, a.v)::pg_temp.nest AS v
    FROM (SELECT v, row_number() OVER () AS r FROM t_pair) p
    JOIN (SELECT v, row_number() OVER () AS r FROM t_int4_array) a ON a.r = p.r
   WHERE p.r <= 200;

-- a domain encodes as its base type
CREATE DOMAIN pg_temp.posint AS int4 CHECK (VALUE > 0);
CREATE TEMP TABLE t_posint AS
  SELECT v::pg_temp.posint AS v FROM t_int4 WHERE v > 0 OR v IS NULL;

-- ---------------------------------------------------------------------
-- ORDERED types: PostgreSQL's order is the keys' order
-- ---------------------------------------------------------------------

SELECT c.* FROM unnest(ARRAY['t_bool', 't_int2', 't_int4', 't_int8', 't_oid', 't_float4', 't_float8',
    't_text', 't_varchar', 't_varchar_n', 't_bpchar', 't_char4', 't_name', 't_bytea', 't_char',
    't_date', 't_time', 't_timetz', 't_timestamp', 't_timestamptz', 't_interval', 't_uuid',
    't_numeric', 't_money', 't_pg_lsn', 't_macaddr', 't_macaddr8', 't_int4_array', 't_text_array',
    't_pair', 't_triple', 't_nest', 't_posint']::regclass[]) WITH ORDINALITY AS t(tbl, i),
  LATERAL pg_temp.check_order(t.tbl) c
  ORDER BY t.i;

-- Enough distinct values and ties to mean something: distinct values of
-- some tables, and the equal pairs written differently (interval '1 mon'
-- and '30 days', numeric 1.0 and 1.00, bpchar 'a' and 'a  ')
SELECT (SELECT count(DISTINCT v) FROM t_int4) AS int4,
       (SELECT count(DISTINCT v) FROM t_float8) AS float8,
       (SELECT count(DISTINCT v) FROM t_text) AS text,
       (SELECT count(DISTINCT v) FROM t_bytea) AS bytea,
       (SELECT count(DISTINCT v) FROM t_numeric) AS numeric,
       (SELECT count(DISTINCT v) FROM t_interval) AS interval,
       (SELECT count(DISTINCT v) FROM t_pair) AS pair;
SELECT count(*) AS equal_intervals_differently_written
  FROM t_interval a, t_interval b WHERE a.v = b.v AND a.v::text <> b.v::text;
SELECT count(*) AS equal_numerics_differently_written
  FROM t_numeric a, t_numeric b WHERE a.v = b.v AND a.v::text <> b.v::text;
SELECT count(*) AS equal_bpchars_differently_written
  FROM t_bpchar a, t_bpchar b WHERE a.v = b.v AND octet_length(a.v) <> octet_length(b.v);

-- several columns, one descending: the concatenated keys order like
-- ORDER BY a ASC, b DESC (NULLS LAST for a, NULLS FIRST for b)
CREATE TEMP TABLE t_multi AS
  SELECT t.v AS a, n.v AS b
    FROM (SELECT v, row_number() OVER () AS r FROM t_text) t
    JOIN (SELECT v, row_number() OVER () AS r FROM t_numeric) n ON n.r % 40 = t.r % 40;
WITH k AS (
  SELECT a, b, hummock_stream.memcmp_key(a) || hummock_stream.memcmp_key(b, true) AS k,
         rank() OVER (ORDER BY a COLLATE "C" ASC NULLS LAST, b DESC NULLS FIRST) AS pg_peer
    FROM t_multi)
SELECT count(*) AS rows,
       count(*) FILTER (WHERE key_peer <> pg_peer) AS mismatches
  FROM (SELECT pg_peer, rank() OVER (ORDER BY k) AS key_peer FROM k) s;

-- ---------------------------------------------------------------------
-- EQUALITY types
-- ---------------------------------------------------------------------

CREATE TYPE pg_temp.mood AS ENUM ('sad', 'ok', 'happy');
ALTER TYPE pg_temp.mood ADD VALUE 'meh' BEFORE 'ok';
CREATE TEMP TABLE t_mood AS
  SELECT (enum_range(NULL::pg_temp.mood))[1 + i % 4] AS v FROM generate_series(1, 40) i
  UNION ALL SELECT NULL;

CREATE TEMP TABLE t_int4range AS
  SELECT int4range(lo, lo + len, bounds) AS v
    FROM (SELECT floor(random() * 10)::int AS lo, floor(random() * 4)::int AS len,
                 (ARRAY['[)', '(]', '[]', '()'])[1 + floor(random() * 4)::int] AS bounds
            FROM generate_series(1, 200)) s
  UNION ALL SELECT NULL UNION ALL SELECT 'empty' UNION ALL SELECT '(,)' UNION ALL SELECT '[3,)';

CREATE TYPE pg_temp.tagged AS (m pg_temp.mood, n int4);
CREATE TEMP TABLE t_tagged AS
  SELECT ROW(v, i % 3)::pg_temp.tagged AS v FROM t_mood, generate_series(1, 3) i;

CREATE TEMP TABLE t_mood_array AS
  SELECT ARRAY[(enum_range(NULL::pg_temp.mood))[1 + i % 4],
               CASE WHEN i % 7 = 0 THEN NULL ELSE (enum_range(NULL::pg_temp.mood))[1 + (i / 4) % 4] END] AS v
    FROM generate_series(1, 200) i
  UNION ALL SELECT '{}' UNION ALL SELECT NULL;

SELECT c.* FROM unnest(ARRAY['t_mood', 't_int4range', 't_tagged', 't_mood_array', 't_inet', 't_cidr']::regclass[])
    WITH ORDINALITY AS t(tbl, i),
  LATERAL pg_temp.check_equality(t.tbl) c
  ORDER BY t.i;

-- ---------------------------------------------------------------------
-- Support of types
-- ---------------------------------------------------------------------

SELECT t AS type, hummock_stream.memcmp_support(t)
  FROM unnest(ARRAY['int4', 'float8', 'text', 'bpchar', 'name', 'numeric', 'interval', 'uuid',
      'int4[]', 'text[]', 'pg_temp.pair', 'pg_temp.nest', 'pg_temp.posint', 'pg_temp.mood',
      'pg_temp.tagged', 'pg_temp.mood[]', 'int4range', 'jsonb', 'point', 'int2vector', 'oidvector',
      'record', 'anyelement', 'aclitem', 'aclitem[]', 'numrange', 'daterange', 'tsvector',
      'jsonb[]', 'nummultirange', 'int4multirange']::regtype[]) t;
-- a type that does not exist (a regtype made from a number)
SELECT hummock_stream.memcmp_support(0);
SELECT hummock_stream.memcmp_support(12345678);
-- jsonb: equal values (numbers as numeric) encode equal, others not
SELECT hummock_stream.memcmp_key('{"x": 1.0, "y": [1, "a", null, true]}'::jsonb) =
       hummock_stream.memcmp_key('{"y": [1.00, "a", null, true], "x": 1}'::jsonb) AS equal_values,
       hummock_stream.memcmp_key('1'::jsonb) = hummock_stream.memcmp_key('[1]'::jsonb) AS scalar_vs_array,
       hummock_stream.memcmp_key('"1"'::jsonb) = hummock_stream.memcmp_key('1'::jsonb) AS string_vs_number,
       hummock_stream.memcmp_key('{"a": {"b": 1}}'::jsonb) = hummock_stream.memcmp_key('{"a": {"b": 2}}'::jsonb) AS nested_differ,
       hummock_stream.memcmp_key('[[1], 2]'::jsonb) = hummock_stream.memcmp_key('[[1, 2]]'::jsonb) AS nesting_differs;

-- ---------------------------------------------------------------------
-- Golden bytes
-- ---------------------------------------------------------------------

SELECT v AS value, hummock_stream.memcmp_key(v) AS asc, hummock_stream.memcmp_key(v, true) AS desc
  FROM unnest(ARRAY[1, -1, 0, NULL]::int4[]) v;
SELECT hummock_stream.memcmp_key(true) AS bool, hummock_stream.memcmp_key(1::int2) AS int2,
       hummock_stream.memcmp_key(-2::int8) AS int8, hummock_stream.memcmp_key(7::oid) AS oid;
SELECT v AS value, hummock_stream.memcmp_key(v) AS key
  FROM unnest(ARRAY['0', '-0', '1', '-1', 'Infinity', '-Infinity', 'NaN']::float8[]) v;
SELECT hummock_stream.memcmp_key('1.5'::float4) AS float4;
SELECT v AS value, hummock_stream.memcmp_key(v) AS key
  FROM unnest(ARRAY['', 'a', 'ab']::text[]) v;
SELECT hummock_stream.memcmp_key('ab  '::bpchar) = hummock_stream.memcmp_key('ab'::bpchar) AS bpchar_trailing,
       hummock_stream.memcmp_key('ab'::name) = hummock_stream.memcmp_key('ab'::text) AS name_as_text;
SELECT v AS value, hummock_stream.memcmp_key(v) AS key
  FROM unnest(ARRAY['\x', '\x00', '\x0061', '\xff']::bytea[]) v;
SELECT v AS value, hummock_stream.memcmp_key(v) AS key
  FROM unnest(ARRAY['0', '1', '1.00', '10', '123.45', '0.001', '-1', '-123.45', '1e20', '1e-20',
                    'Infinity', '-Infinity', 'NaN']::numeric[]) v;
SELECT v AS value, hummock_stream.memcmp_key(v) AS key
  FROM unnest(ARRAY['1 mon', '30 days', '720 hours', '-1 microsecond']::interval[]) v;
SELECT hummock_stream.memcmp_key('2000-01-01'::date) AS date,
       hummock_stream.memcmp_key('2000-01-01 00:00:01'::timestamp) AS timestamp,
       hummock_stream.memcmp_key('infinity'::timestamptz) AS timestamptz_infinity,
       hummock_stream.memcmp_key('12:00+01'::timetz) AS timetz;
SELECT hummock_stream.memcmp_key('12345678-9abc-def0-1234-56789abcdef0'::uuid) AS uuid;
SELECT hummock_stream.memcmp_key(ROW(1, 'a', NULL)::pg_temp.pair) AS pair,
       hummock_stream.memcmp_key(ROW(1, 'a', NULL)::pg_temp.pair, true) AS pair_desc,
       hummock_stream.memcmp_key(NULL::pg_temp.pair) AS null_pair;
SELECT v AS value, hummock_stream.memcmp_key(v) AS key
  FROM (VALUES (1, '{}'::int4[]), (2, '{1,NULL}'), (3, '[0:0]={1}'), (4, '{{1},{2}}')) t(i, v)
  ORDER BY i;
SELECT hummock_stream.memcmp_key(5::pg_temp.posint) = hummock_stream.memcmp_key(5) AS domain_as_base,
       hummock_stream.memcmp_key('{5}'::pg_temp.posint[]) = hummock_stream.memcmp_key('{5}'::int4[]) AS domain_array;
-- an anonymous record encodes like the named composite of the same columns
SELECT hummock_stream.memcmp_key(ROW(1, 'x'::text, 2.0)) = hummock_stream.memcmp_key(ROW(1, 'x', 2.00)::pg_temp.pair) AS record_as_composite;
SELECT hummock_stream.memcmp_key(ROW(1, 'x'::text, 2.0)) AS record;
-- an enum is its OID: equal, not ordered
SELECT hummock_stream.memcmp_key('ok'::pg_temp.mood) = hummock_stream.memcmp_key('ok'::pg_temp.mood) AS enum_equal,
       length(hummock_stream.memcmp_key('ok'::pg_temp.mood)) AS enum_length;
-- descending NULL gives NULL
SELECT hummock_stream.memcmp_key(1, NULL) IS NULL AS null_descending;

-- ---------------------------------------------------------------------
-- Errors: types that cannot be keys (SQLSTATE 0A000)
-- ---------------------------------------------------------------------

\set VERBOSITY sqlstate
SELECT hummock_stream.memcmp_key(makeaclitem(10, 10, 'SELECT', false));
SELECT hummock_stream.memcmp_key(NULL::aclitem);
SELECT hummock_stream.memcmp_key(ARRAY[makeaclitem(10, 10, 'SELECT', false)]);
SELECT hummock_stream.memcmp_key(ROW(1, makeaclitem(10, 10, 'SELECT', false)));
\set VERBOSITY default
SELECT hummock_stream.memcmp_key(makeaclitem(10, 10, 'SELECT', false));
SELECT hummock_stream.memcmp_key(ROW(1, makeaclitem(10, 10, 'SELECT', false)));

DROP EXTENSION hummock_stream;
