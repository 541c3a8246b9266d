-- The value counts behind min/max and DISTINCT calls are changed once per
-- key and epoch: a row's +1/-1 waits with the epoch's other changes, which
-- are applied sorted at the flush, or within the epoch once they fill
-- maintenance_work_mem (1MB on the test servers: about 16,000 changes).
-- Each case below happens inside one transaction, so inside one epoch.
CREATE EXTENSION hummock_stream;
CREATE EXTENSION hummock_stream_test;	-- views_differ(): each view against its query
CREATE TABLE vc (id int PRIMARY KEY, g int, v int, n numeric, t text);
INSERT INTO vc SELECT i, i % 3, i, i % 4 + 0.5, 't' || i % 7 FROM generate_series(1, 30) i;
SELECT hummock_stream.create_materialized_view('vc_minmax',
  $$SELECT g, count(*) AS rows, min(v) AS lo, max(v) AS hi, min(t) AS tlo, max(n) AS nhi FROM vc GROUP BY g$$);
SELECT hummock_stream.create_materialized_view('vc_distinct',
  $$SELECT g, count(DISTINCT v) AS dv, sum(DISTINCT n) AS dn, avg(DISTINCT v % 5) AS da,
           count(DISTINCT t) AS dt FROM vc GROUP BY g$$);
SELECT hummock_stream.create_materialized_view('vc_global',
  $$SELECT min(v) AS lo, max(v) AS hi, count(DISTINCT t) AS dt, sum(DISTINCT n) AS dn FROM vc$$);
SELECT * FROM hummock_stream_test.views_differ();

-- the extreme goes and comes back; a new extreme comes and goes again
BEGIN;
DELETE FROM vc WHERE id = 3;			-- min of group 0
INSERT INTO vc VALUES (3, 0, 3, 3.5, 't3');
DELETE FROM vc WHERE id = 30;			-- max of group 0
INSERT INTO vc VALUES (100, 1, -5, 9.5, 'a');	-- new min of group 1 ...
DELETE FROM vc WHERE id = 100;			-- ... gone in the same epoch
INSERT INTO vc VALUES (101, 2, 1000, 0.5, 'z');	-- new max of group 2, stays
COMMIT;
SELECT hummock_stream.wait();
SELECT * FROM hummock_stream_test.views_differ();
SELECT * FROM vc_minmax ORDER BY g;

-- a value counted twice, then once, then again; a group's last value goes
BEGIN;
INSERT INTO vc VALUES (200, 5, 7, 1.0, 'x'), (201, 5, 7, 1.0, 'x');
DELETE FROM vc WHERE id = 200;
UPDATE vc SET v = 8 WHERE id = 201;
UPDATE vc SET v = 7 WHERE id = 201;
INSERT INTO vc VALUES (202, 6, 1, 1, 'y');
DELETE FROM vc WHERE id = 202;
COMMIT;
SELECT hummock_stream.wait();
SELECT * FROM hummock_stream_test.views_differ();
SELECT * FROM vc_distinct WHERE g >= 5 ORDER BY g;

-- equal numerics of different scales share a value count
BEGIN;
INSERT INTO vc VALUES (300, 7, 1, 2.50, 'q'), (301, 7, 1, 2.5, 'q');
COMMIT;
SELECT hummock_stream.wait();
SELECT * FROM vc_distinct WHERE g = 7;
DELETE FROM vc WHERE id = 300;
SELECT hummock_stream.wait();
SELECT * FROM hummock_stream_test.views_differ();
DELETE FROM vc WHERE id = 301;
SELECT hummock_stream.wait();
SELECT * FROM hummock_stream_test.views_differ();
SELECT count(*) FROM vc_distinct WHERE g = 7;

-- one transaction larger than the memory for pending changes: they are
-- applied several times within the epoch (moves between groups included)
BEGIN;
INSERT INTO vc SELECT i, i % 50, (i * 7919) % 100003, (i % 13) / 4.0, 't' || i % 101
  FROM generate_series(1000, 60999) i;
UPDATE vc SET g = g + 1, v = v - 1 WHERE id % 7 = 0 AND id >= 1000;
DELETE FROM vc WHERE id % 11 = 0 AND id >= 1000;
COMMIT;
SELECT hummock_stream.wait();
SELECT * FROM hummock_stream_test.views_differ();
BEGIN;
DELETE FROM vc WHERE id % 3 = 0 AND id >= 1000;
UPDATE vc SET v = -v WHERE id % 5 = 0;
INSERT INTO vc SELECT i, i % 50, i % 977, 1.25, 'u' FROM generate_series(70000, 99999) i;
COMMIT;
SELECT hummock_stream.wait();
SELECT * FROM hummock_stream_test.views_differ();
SELECT count(*), sum(rows) FROM vc_minmax;
SELECT * FROM vc_global;

-- everything goes
DELETE FROM vc;
SELECT hummock_stream.wait();
SELECT * FROM hummock_stream_test.views_differ();
SELECT count(*) FROM vc_minmax;
SELECT * FROM vc_global;

-- values equal but printed differently (numeric 1.0 and 1.00, float -0
-- and 0): min/max count each form apart, and a group key shown in the view
-- is the min of the group's forms, so once the rows of one form go, the
-- view shows a form some row has, as Postgres does (compared by text)
CREATE TABLE forms (id int PRIMARY KEY, k numeric, f float8, g int);
INSERT INTO forms VALUES (1, 1.0, '-0', 1), (2, 1.00, 0, 1), (3, 2.50, 5, 1), (4, 2.5, 5, 2);
SELECT hummock_stream.create_materialized_view('forms_by_k',
  $$SELECT k, count(*) AS n, max(f) AS fhi FROM forms GROUP BY k$$);
SELECT hummock_stream.create_materialized_view('forms_by_g',
  $$SELECT g, min(k) AS klo, max(k) AS khi, min(f) AS flo, max(f) AS fhi FROM forms GROUP BY g$$);
SELECT hummock_stream.create_materialized_view('forms_text',
  $$SELECT k::text AS kt, count(*) AS n FROM forms GROUP BY k$$);
-- the same for DISTINCT and UNION's duplicate removal (and an interval:
-- 1 mon = 30 days)
ALTER TABLE forms ADD COLUMN iv interval;
UPDATE forms SET iv = CASE WHEN id = 1 THEN interval '1 mon' ELSE interval '30 days' END;
SELECT hummock_stream.create_materialized_view('forms_distinct',
  $$SELECT DISTINCT k, f, iv FROM forms$$);
SELECT hummock_stream.create_materialized_view('forms_union',
  $$SELECT k FROM forms UNION SELECT k FROM forms WHERE false$$);
SELECT operators FROM hummock_stream.fragments WHERE job = 'forms_distinct'::regclass;
BEGIN;
DELETE FROM forms WHERE id = 1;
UPDATE forms SET f = '-0' WHERE id = 2;
DELETE FROM forms WHERE id = 4;
COMMIT;
SELECT hummock_stream.wait();
SELECT k::text, n, fhi::text FROM forms_by_k ORDER BY k;
SELECT g, klo::text, khi::text, flo::text, fhi::text FROM forms_by_g ORDER BY g;
SELECT * FROM forms_text ORDER BY kt;
SELECT k::text, count(*) AS n, max(f)::text AS fhi FROM forms GROUP BY k ORDER BY k;
SELECT k::text, f::text, iv::text FROM forms_distinct ORDER BY k, f;
SELECT DISTINCT k::text, f::text, iv::text FROM forms ORDER BY 1, 2;
SELECT k::text FROM forms_union ORDER BY k;
SELECT * FROM hummock_stream_test.views_differ();
SELECT hummock_stream.drop_materialized_view(v)
  FROM unnest(ARRAY['forms_by_k', 'forms_by_g', 'forms_text', 'forms_distinct',
                    'forms_union']) v;
DROP TABLE forms;

-- Epochs of thousands of changes: the pending value counts are sorted by
-- a radix sort on their first 16 key bytes, then by comparisons within
-- runs of equal prefixes (text values alike on their first bytes), with
-- values below zero, NULLs, max's descending encoding, rows kept by row
-- (a primary key) and counted (none), and changes that cancel in the epoch
CREATE TABLE bulk (id int PRIMARY KEY, g int, v int, t text);
CREATE TABLE bulk_np (g int, v int, t text);
SELECT hummock_stream.create_materialized_view('bulk_minmax',
  $$SELECT g, min(v) AS vlo, max(v) AS vhi, min(t COLLATE "C") AS tlo,
           max(t COLLATE "C") AS thi, count(DISTINCT t) AS dt FROM bulk GROUP BY g$$);
SELECT hummock_stream.create_materialized_view('bulk_np_minmax',
  $$SELECT g, min(v) AS vlo, max(t COLLATE "C") AS thi, count(DISTINCT v) AS dv
      FROM bulk_np GROUP BY g$$);
INSERT INTO bulk SELECT i, i % 7, nullif((hashint4(i) % 5000), 17),
  'a long common prefix of text ' || (hashint4(i * 3) % 300)
  FROM generate_series(1, 20000) i;
INSERT INTO bulk_np SELECT i % 5, (hashint4(i) % 1000), 'same prefix, then ' || i % 40
  FROM generate_series(1, 20000) i;
SELECT hummock_stream.wait();
BEGIN;
UPDATE bulk SET g = (g + 1) % 7, v = -v WHERE id % 3 = 0;
DELETE FROM bulk WHERE id % 11 = 0;
INSERT INTO bulk SELECT i, i % 7, -i, 'a long common prefix of text ' || i FROM generate_series(20001, 21000) i;
DELETE FROM bulk WHERE id BETWEEN 20001 AND 20500;
DELETE FROM bulk_np WHERE v % 4 = 0;
UPDATE bulk_np SET v = v + 1 WHERE g = 2;
COMMIT;
SELECT hummock_stream.wait();
SELECT * FROM hummock_stream_test.views_differ();
SELECT hummock_stream.drop_materialized_view(v)
  FROM unnest(ARRAY['bulk_minmax', 'bulk_np_minmax']) v;
DROP TABLE bulk, bulk_np;

SET client_min_messages = warning;	-- the capture log's name has an OID
DROP EXTENSION hummock_stream CASCADE;
RESET client_min_messages;
DROP TABLE vc;
