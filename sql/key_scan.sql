-- Seeks on the key of a streaming view: equality on a prefix of its key
-- columns (and a range on the next one) reads only that key range
-- (Custom Scan HummockKeyScan, "Key Cond"); every restriction is rechecked.
CREATE EXTENSION hummock_stream;
CREATE TABLE accounts (id bigint PRIMARY KEY, region text COLLATE "C", balance numeric);
INSERT INTO accounts SELECT g, 'r' || (g % 5), g * 10 FROM generate_series(1, 2000) g;
INSERT INTO accounts VALUES (5000, NULL, NULL);
SELECT hummock_stream.create_materialized_view('acc', 'SELECT id, region, balance FROM accounts');
SELECT hummock_stream.create_materialized_view('by_region',
  'SELECT region, count(*) AS n, sum(balance) AS total FROM accounts GROUP BY region');
SELECT hummock_stream.create_materialized_view('hidden_key',
  'SELECT count(*) AS n FROM accounts GROUP BY region');
SELECT key_columns FROM hummock_stream.stream_jobs ORDER BY job_id;
ANALYZE acc;

-- point lookups on the primary key of the source (kept by the view)
EXPLAIN (COSTS OFF) SELECT * FROM acc WHERE id = 42;
SELECT * FROM acc WHERE id = 42;
SELECT * FROM acc WHERE id = 42::int;		-- cross-type: integer casts to bigint
SELECT * FROM acc WHERE 43 = id;		-- commuted
SELECT * FROM acc WHERE id = 999999;		-- no such key
SELECT * FROM acc WHERE id = NULL;		-- never true

-- ranges on the key
EXPLAIN (COSTS OFF) SELECT * FROM acc WHERE id BETWEEN 10 AND 13;
SELECT * FROM acc WHERE id BETWEEN 10 AND 13 ORDER BY id;
SELECT count(*) FROM acc WHERE id > 1995;
SELECT count(*) FROM acc WHERE id < 3;
SELECT count(*) FROM acc WHERE id >= 1999 AND id > 1998 AND id <= 2000;
SELECT count(*) FROM acc WHERE id > -5 AND id < 0;

-- the other quals are rechecked
SELECT * FROM acc WHERE id = 44 AND balance > 1000;
SELECT * FROM acc WHERE id = 44 AND balance < 1000;

-- parameters (prepared statements, nested loops) seek again for each value
PREPARE one(bigint) AS SELECT balance FROM acc WHERE id = $1;
EXPLAIN (COSTS OFF) EXECUTE one(7);
EXECUTE one(7);
EXECUTE one(8);
SELECT a.id, a.balance FROM (VALUES (3::bigint), (4), (5)) v(k)
  JOIN LATERAL (SELECT * FROM acc WHERE acc.id = v.k) a ON true ORDER BY 1;

-- a group key that is a view column; text keys with a bytewise collation
EXPLAIN (COSTS OFF) SELECT * FROM by_region WHERE region = 'r3';
SELECT * FROM by_region WHERE region = 'r3';
SELECT * FROM by_region WHERE region > 'r2' ORDER BY region;
SELECT * FROM by_region WHERE region IS NULL;

-- no seek: the key is not made of view columns, or the qual is not on the key
EXPLAIN (COSTS OFF) SELECT * FROM hidden_key WHERE n = 400;
EXPLAIN (COSTS OFF) SELECT * FROM acc WHERE balance = 420;

-- a seek sees the view's changes
UPDATE accounts SET balance = -1 WHERE id = 42;
DELETE FROM accounts WHERE id = 43;
SELECT hummock_stream.wait();
SELECT * FROM acc WHERE id IN (42, 43) ORDER BY id;
SELECT * FROM acc WHERE id = 42;
SELECT * FROM acc WHERE id = 43;

-- a key whose type's equal values differ in their bytes (citext), or text
-- compared under a nondeterministic collation, is not sought by its bytes:
-- the rows equal to the value are found by a scan
CREATE EXTENSION citext;
CREATE COLLATION ks_ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
CREATE TABLE mails (email citext PRIMARY KEY, n int);
CREATE TABLE names (name text PRIMARY KEY, n int);
INSERT INTO mails VALUES ('Ann@x', 1), ('bob@x', 2);
INSERT INTO names VALUES ('Ann', 1), ('bob', 2);
SELECT hummock_stream.create_materialized_view('mails_v', $$SELECT * FROM mails$$);
SELECT hummock_stream.create_materialized_view('names_v', $$SELECT * FROM names$$);
EXPLAIN (COSTS OFF) SELECT * FROM mails_v WHERE email = 'ANN@X';
SELECT * FROM mails_v WHERE email = 'ANN@X';
EXPLAIN (COSTS OFF) SELECT * FROM names_v WHERE name = 'ANN' COLLATE ks_ci;
SELECT * FROM names_v WHERE name = 'ANN' COLLATE ks_ci;
EXPLAIN (COSTS OFF) SELECT * FROM names_v WHERE name = 'Ann';
SELECT * FROM names_v WHERE name = 'Ann';

SET client_min_messages = warning;	-- the capture log's name has an OID
DROP EXTENSION hummock_stream CASCADE;
RESET client_min_messages;
DROP TABLE accounts, mails, names;
DROP COLLATION ks_ci;
DROP EXTENSION citext;
