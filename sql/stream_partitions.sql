-- Partitioned tables and partitions as sources.  They are captured by row
-- triggers, which Postgres clones to every partition, present and future,
-- so every write is seen whether its statement names the partitioned table
-- or a partition, and an UPDATE that moves a row between partitions is a
-- delete there and an insert here.  Rows that enter or leave with a
-- partition (ATTACH, DETACH, DROP, TRUNCATE) are captured as inserts and
-- deletes.
CREATE EXTENSION hummock_stream;
CREATE EXTENSION hummock_stream_test;	-- views_differ(): each view against its query
CREATE TABLE meas (id int, region text, v int, at date) PARTITION BY RANGE (at);
CREATE TABLE meas_2025 PARTITION OF meas FOR VALUES FROM ('2025-01-01') TO ('2026-01-01');
-- a partition that is partitioned itself
CREATE TABLE meas_2026 PARTITION OF meas FOR VALUES FROM ('2026-01-01') TO ('2027-01-01')
  PARTITION BY LIST (region);
CREATE TABLE meas_2026_east PARTITION OF meas_2026 FOR VALUES IN ('east');
CREATE TABLE meas_2026_rest PARTITION OF meas_2026 DEFAULT;
-- a partition whose columns lie otherwise (a dropped column, another order)
CREATE TABLE meas_old (junk int, v int, at date, region text, id int);
ALTER TABLE meas_old DROP COLUMN junk;
ALTER TABLE meas ATTACH PARTITION meas_old FOR VALUES FROM ('2000-01-01') TO ('2025-01-01');
INSERT INTO meas SELECT i, CASE WHEN i % 3 = 0 THEN 'east' ELSE 'west' END, i % 10,
                        date '2024-12-01' + i * 5
  FROM generate_series(1, 120) i;
CREATE TABLE regions (region text PRIMARY KEY, boss text);
INSERT INTO regions VALUES ('east', 'ann'), ('west', 'bob');

SELECT hummock_stream.create_materialized_view('m_by_region',
  'SELECT region, count(*) AS n, sum(v) AS s, min(at) AS first_at FROM meas GROUP BY region');
SELECT hummock_stream.create_materialized_view('m_joined',
  'SELECT m.id, m.at, r.boss FROM meas m JOIN regions r USING (region) WHERE m.v > 7');
-- a partition is a source too, and a partitioned partition
SELECT hummock_stream.create_materialized_view('m_2025', 'SELECT id, v FROM meas_2025');
SELECT hummock_stream.create_materialized_view('m_2026', 'SELECT region, count(*) AS n FROM meas_2026 GROUP BY region');
SELECT * FROM hummock_stream_test.views_differ();
SELECT * FROM m_by_region ORDER BY region;

-- writes through the partitioned table and straight into partitions
INSERT INTO meas VALUES (500, 'east', 3, '2026-05-01'), (501, 'north', 4, '2024-06-01');
INSERT INTO meas_2025 VALUES (502, 'west', 9, '2025-03-03');
INSERT INTO meas_2026_rest VALUES (503, 'south', 8, '2026-08-08');
INSERT INTO meas_old (id, region, v, at) VALUES (504, 'east', 1, '2020-01-01');
-- UPDATEs that move rows between partitions, through the parent and not
UPDATE meas SET at = at + 365 WHERE id % 11 = 0;
UPDATE meas SET region = 'east' WHERE id IN (SELECT id FROM meas_2026_rest LIMIT 3);
UPDATE meas_2025 SET v = v + 100 WHERE id % 4 = 0;
DELETE FROM meas WHERE id % 13 = 0;
DELETE FROM meas_2026_east WHERE id % 2 = 0;
SELECT hummock_stream.wait();
SELECT * FROM hummock_stream_test.views_differ();
SELECT * FROM m_by_region ORDER BY region;

-- a partition created later gets the triggers: rows written into it count
CREATE TABLE meas_2027 PARTITION OF meas FOR VALUES FROM ('2027-01-01') TO ('2028-01-01');
INSERT INTO meas_2027 VALUES (600, 'west', 7, '2027-02-02');
INSERT INTO meas VALUES (601, 'east', 9, '2027-03-03');
SELECT hummock_stream.wait();
SELECT * FROM hummock_stream_test.views_differ();

-- rows that enter or leave with a partition are captured: ATTACH as
-- inserts; DETACH, DROP and TRUNCATE of a partition as deletes
CREATE TABLE meas_2028 (id int, region text, v int, at date);
INSERT INTO meas_2028 VALUES (700, 'east', 1, '2028-01-05'), (701, 'west', 8, '2028-02-05');
ALTER TABLE meas ATTACH PARTITION meas_2028 FOR VALUES FROM ('2028-01-01') TO ('2029-01-01');
SELECT hummock_stream.wait();
SELECT * FROM hummock_stream_test.views_differ();
SELECT * FROM m_by_region ORDER BY region;
ALTER TABLE meas DETACH PARTITION meas_2028;
SELECT hummock_stream.wait();
SELECT * FROM hummock_stream_test.views_differ();
-- attached again, truncated and written through the parent, in one transaction
BEGIN;
ALTER TABLE meas ATTACH PARTITION meas_2028 FOR VALUES FROM ('2028-01-01') TO ('2029-01-01');
TRUNCATE meas_2028;
INSERT INTO meas VALUES (702, 'east', 9, '2028-03-03');
COMMIT;
SELECT hummock_stream.wait();
SELECT * FROM hummock_stream_test.views_differ();
-- dropped with its rows
SELECT count(*) AS rows_2027 FROM meas_2027;
DROP TABLE meas_2027;
SELECT hummock_stream.wait();
SELECT * FROM hummock_stream_test.views_differ();
-- a partitioned partition dropped with its own partition named beside it:
-- their rows are captured once
CREATE TABLE meas_2029 PARTITION OF meas FOR VALUES FROM ('2029-01-01') TO ('2030-01-01')
  PARTITION BY LIST (region);
CREATE TABLE meas_2029_e PARTITION OF meas_2029 FOR VALUES IN ('east');
CREATE TABLE meas_2029_w PARTITION OF meas_2029 FOR VALUES IN ('west');
INSERT INTO meas VALUES (900, 'east', 1, '2029-01-01'), (901, 'west', 2, '2029-02-02');
DROP TABLE meas_2029_e, meas_2029;
SELECT hummock_stream.wait();
SELECT * FROM hummock_stream_test.views_differ();
-- a partition of a captured partition: both captured tables see its rows go
SELECT count(*) AS rows_2026_east FROM meas_2026_east;
TRUNCATE meas_2026_east;
SELECT hummock_stream.wait();
SELECT * FROM hummock_stream_test.views_differ();
SELECT * FROM m_2026 ORDER BY region;
-- DETACH ... CONCURRENTLY runs in two transactions: refused while it holds rows
ALTER TABLE meas DETACH PARTITION meas_2028 CONCURRENTLY;
-- a role that may not drop the partition is refused by Postgres, as always
CREATE ROLE regress_part_user;
SET ROLE regress_part_user;
DROP TABLE meas_2028;
TRUNCATE meas_2028;
RESET ROLE;
-- owning the partition is not enough to detach it: the parent is checked
-- before anything is locked or captured
ALTER TABLE meas_2028 OWNER TO regress_part_user;
SET ROLE regress_part_user;
ALTER TABLE meas DETACH PARTITION meas_2028;
RESET ROLE;
ALTER TABLE meas_2028 OWNER TO CURRENT_USER;
DROP ROLE regress_part_user;
DROP TABLE meas_2028;
SELECT hummock_stream.wait();
SELECT * FROM hummock_stream_test.views_differ();

-- a partition in a schema dropped with CASCADE: its rows go too
CREATE SCHEMA meas_archive;
CREATE TABLE meas_archive.meas_2030 PARTITION OF meas FOR VALUES FROM ('2030-01-01') TO ('2031-01-01');
INSERT INTO meas VALUES (950, 'east', 5, '2030-05-05'), (951, 'west', 6, '2030-06-06');
SELECT hummock_stream.wait();
DROP SCHEMA meas_archive CASCADE;
SELECT hummock_stream.wait();
SELECT * FROM hummock_stream_test.views_differ();

-- TRUNCATE of the partitioned source is the delete of every partition's
-- rows (a partition of it, a source too, follows by its own trigger)
SELECT count(*) > 0 AS has_rows FROM meas;
BEGIN;
INSERT INTO meas VALUES (800, 'east', 3, '2026-06-01');
-- (partitions named beside it, or twice, are not captured again)
TRUNCATE meas_2025, meas, meas_2026_east, meas_2025;
INSERT INTO meas VALUES (801, 'east', 4, '2026-06-01'), (802, 'west', 5, '2025-06-01'),
  (803, 'west', 6, '2001-06-01');
COMMIT;
SELECT hummock_stream.wait();
SELECT * FROM hummock_stream_test.views_differ();
SELECT * FROM m_by_region ORDER BY 1;

-- a DETACH ... CONCURRENTLY of an empty partition that fails after its
-- first transaction leaves the partition pending detach: queries of the
-- partitioned table no longer see it (nor route rows into it), so neither
-- do the views: rows written into it are not the tree's, and truncating
-- or dropping it, or finalizing the detach, takes none from the tree.  A
-- view over the partition itself sees them.
CREATE TABLE meas_2036 PARTITION OF meas FOR VALUES FROM ('2036-01-01') TO ('2037-01-01');
-- (and one below a partitioned partition: a detach at a time per table)
CREATE TABLE meas_2037 PARTITION OF meas FOR VALUES FROM ('2037-01-01') TO ('2038-01-01')
  PARTITION BY LIST (region);
CREATE TABLE meas_2037_e PARTITION OF meas_2037 FOR VALUES IN ('east');
SELECT hummock_stream.create_materialized_view('m_2036',
  'SELECT count(*) AS n, sum(v) AS s FROM meas_2036');
CREATE FUNCTION fail_ddl() RETURNS event_trigger LANGUAGE plpgsql
  AS $$ BEGIN RAISE EXCEPTION 'the detach failed'; END $$;
CREATE EVENT TRIGGER fail_detach ON ddl_command_end WHEN TAG IN ('ALTER TABLE')
  EXECUTE FUNCTION fail_ddl();
ALTER TABLE meas DETACH PARTITION meas_2036 CONCURRENTLY;
ALTER TABLE meas_2037 DETACH PARTITION meas_2037_e CONCURRENTLY;
DROP EVENT TRIGGER fail_detach;
SELECT inhrelid::regclass AS pending FROM pg_inherits WHERE inhdetachpending ORDER BY 1;
INSERT INTO meas VALUES (970, 'east', 1, '2036-02-02');
INSERT INTO meas_2036 VALUES (970, 'east', 1, '2036-02-02'), (971, 'west', 2, '2036-03-03');
INSERT INTO meas_2037_e VALUES (972, 'east', 3, '2037-02-02');
UPDATE meas_2036 SET v = v + 10 WHERE id = 971;
DELETE FROM meas_2036 WHERE id = 970;
SELECT hummock_stream.wait();
SELECT * FROM hummock_stream_test.views_differ();
SELECT * FROM m_2036;
-- a view created meanwhile reads the tree without them
SELECT hummock_stream.create_materialized_view('m_meas',
  'SELECT count(*) AS n, sum(v) AS s FROM meas');
SELECT * FROM hummock_stream_test.views_differ();
TRUNCATE meas_2036;
INSERT INTO meas_2036 VALUES (973, 'east', 4, '2036-04-04');
DROP TABLE meas_2037_e;
SELECT hummock_stream.wait();
SELECT * FROM hummock_stream_test.views_differ();
ALTER TABLE meas DETACH PARTITION meas_2036 FINALIZE;
INSERT INTO meas_2036 VALUES (974, 'west', 5, '2036-05-05');
SELECT hummock_stream.wait();
SELECT * FROM hummock_stream_test.views_differ();
SELECT * FROM m_2036;
SELECT hummock_stream.drop_materialized_view('m_2036');
SELECT hummock_stream.drop_materialized_view('m_meas');
DROP TABLE meas_2036, meas_2037;
DROP FUNCTION fail_ddl();

-- every table in the tree of a partitioned source is an ordinary
-- permanent table: one that is not is refused whichever statement would
-- make it a partition (created as one, attached, or brought along by a
-- partitioned table attached), as is making a partition unlogged, with the
-- error of a view's creation
CREATE UNLOGGED TABLE meas_2031 PARTITION OF meas FOR VALUES FROM ('2031-01-01') TO ('2032-01-01');
CREATE UNLOGGED TABLE meas_2032 (id int, region text, v int, at date);
ALTER TABLE meas ATTACH PARTITION meas_2032 FOR VALUES FROM ('2032-01-01') TO ('2033-01-01');
CREATE TABLE meas_2033 (id int, region text, v int, at date) PARTITION BY LIST (region);
CREATE UNLOGGED TABLE meas_2033_e PARTITION OF meas_2033 FOR VALUES IN ('east');
ALTER TABLE meas ATTACH PARTITION meas_2033 FOR VALUES FROM ('2033-01-01') TO ('2034-01-01');
ALTER TABLE meas_old SET UNLOGGED;
-- (a partition of a partitioned partition, itself a source)
ALTER TABLE meas_2026_east SET UNLOGGED;
CREATE FOREIGN DATA WRAPPER meas_fdw;
CREATE SERVER meas_srv FOREIGN DATA WRAPPER meas_fdw;
CREATE FOREIGN TABLE meas_2034 PARTITION OF meas
  FOR VALUES FROM ('2034-01-01') TO ('2035-01-01') SERVER meas_srv;
CREATE FOREIGN TABLE meas_2035 (id int, region text, v int, at date) SERVER meas_srv;
ALTER TABLE meas ATTACH PARTITION meas_2035 FOR VALUES FROM ('2035-01-01') TO ('2036-01-01');
-- refused at a view's creation too
SELECT hummock_stream.create_materialized_view('bad', 'SELECT count(*) AS n FROM meas_2033');
SELECT c.relname, c.relpersistence, c.relkind FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
 WHERE i.inhparent IN ('meas'::regclass, 'meas_2026'::regclass) ORDER BY 1;
-- an ordinary permanent one is welcome, also made so
ALTER TABLE meas_2032 SET LOGGED;
INSERT INTO meas_2032 VALUES (960, 'west', 2, '2032-02-02');
ALTER TABLE meas ATTACH PARTITION meas_2032 FOR VALUES FROM ('2032-01-01') TO ('2033-01-01');
SELECT hummock_stream.wait();
SELECT * FROM hummock_stream_test.views_differ();
DROP TABLE meas_2033;
DROP FOREIGN DATA WRAPPER meas_fdw CASCADE;

-- refused: FROM ONLY a partitioned table (it holds no rows)
SELECT hummock_stream.create_materialized_view('bad', 'SELECT id FROM ONLY meas');

-- when the last view goes, so do the triggers and their clones
SELECT count(*) > 0 AS captured FROM pg_trigger WHERE tgname LIKE 'hummock_stream_capture%';
SELECT hummock_stream.drop_materialized_view('m_by_region');
SELECT hummock_stream.drop_materialized_view('m_joined');
SELECT hummock_stream.drop_materialized_view('m_2025');
SELECT hummock_stream.drop_materialized_view('m_2026');
SELECT count(*) AS capture_triggers FROM pg_trigger
 WHERE tgname LIKE 'hummock_stream_capture%' AND tgrelid::regclass::text LIKE 'meas%';
TRUNCATE meas;

SET client_min_messages = warning;	-- the capture log's name has an OID
DROP EXTENSION hummock_stream CASCADE;
RESET client_min_messages;
DROP TABLE meas, regions;
