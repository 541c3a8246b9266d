-- Schema changes of source tables while views read them.  The capture log
-- does not depend on a source's row type, so ADD COLUMN (with a default
-- too), DROP and ALTER TYPE of columns no view uses, and RENAME of any
-- column or of the table work, with rows captured before the change in
-- the same transaction; changes to what a view depends on (a column it
-- uses, the primary key its state is keyed by) are refused in Postgres's
-- words for views.
CREATE EXTENSION hummock_stream;
CREATE EXTENSION hummock_stream_test;	-- views_differ(): each view against its query
CREATE TABLE items (id int PRIMARY KEY, grp int, v int, note text, price numeric, spare int);
INSERT INTO items SELECT i, i % 5, i, 'n' || i, i * 1.5, i FROM generate_series(1, 200) i;
CREATE TABLE grps (grp int PRIMARY KEY, label text);
INSERT INTO grps SELECT g, 'g' || g FROM generate_series(0, 4) g;
CREATE TABLE keyless (a int, b text);	-- no primary key
INSERT INTO keyless SELECT i, 'b' || i FROM generate_series(1, 50) i;
CREATE MATERIALIZED VIEW by_grp USING hummock AS
  SELECT grp, count(*) AS n, sum(v) AS s FROM items GROUP BY grp;
CREATE MATERIALIZED VIEW some_items USING hummock AS
  SELECT id, v, note FROM items WHERE v % 3 = 0;
CREATE MATERIALIZED VIEW labelled USING hummock AS
  SELECT i.id, g.label FROM items i JOIN grps g ON g.grp = i.grp WHERE i.v > 150;
SELECT hummock_stream.create_materialized_view('keyless_a', 'SELECT a FROM keyless WHERE a > 10');
SELECT * FROM hummock_stream_test.views_differ();

-- ADD COLUMN with a constant default (no rewrite) and a volatile one (a rewrite)
ALTER TABLE items ADD COLUMN added int DEFAULT 7;
ALTER TABLE items ADD COLUMN added_at timestamptz DEFAULT clock_timestamp();
INSERT INTO items (id, grp, v, note) SELECT i, i % 5, i, 'm' || i FROM generate_series(201, 260) i;
SELECT hummock_stream.wait(NULL, NULL);
SELECT * FROM hummock_stream_test.views_differ();

-- ALTER TYPE of columns no view uses, with captured rows before and after
-- in the same transaction (the rows captured before are reshaped)
BEGIN;
INSERT INTO items (id, grp, v, note, price, spare) SELECT i, i % 5, i, 'p' || i, i, i
  FROM generate_series(261, 300) i;
UPDATE items SET v = v + 1, price = price + 1 WHERE id % 4 = 0;
ALTER TABLE items ALTER COLUMN price TYPE text, ALTER COLUMN spare TYPE bigint;
INSERT INTO items (id, grp, v, note, price, spare) SELECT i, i % 5, i, 'q' || i, 'p' || i, i
  FROM generate_series(301, 340) i;
DELETE FROM items WHERE id % 9 = 0;
COMMIT;
SELECT hummock_stream.wait(NULL, NULL);
SELECT * FROM hummock_stream_test.views_differ();
-- a type change without a rewrite (the same storage)
ALTER TABLE items ALTER COLUMN added TYPE integer;
ALTER TABLE keyless ALTER COLUMN b TYPE varchar(40);
UPDATE keyless SET a = a + 100 WHERE a % 2 = 0;
SELECT hummock_stream.wait(NULL, NULL);
SELECT * FROM hummock_stream_test.views_differ();

-- DROP COLUMN of columns no view uses
BEGIN;
UPDATE items SET v = v * 2 WHERE id % 5 = 1;
ALTER TABLE items DROP COLUMN spare, DROP COLUMN added_at;
UPDATE items SET v = v + 3 WHERE id % 5 = 2;
COMMIT;
SELECT hummock_stream.wait(NULL, NULL);
SELECT * FROM hummock_stream_test.views_differ();

-- RENAME a column views use, and the table: the definitions follow
ALTER TABLE items RENAME COLUMN v TO val;
ALTER TABLE items RENAME TO things;
CREATE SCHEMA elsewhere;
ALTER TABLE grps SET SCHEMA elsewhere;
INSERT INTO things (id, grp, val, note) VALUES (1000, 2, 999, 'late');
UPDATE elsewhere.grps SET label = label || '!' WHERE grp = 2;
SELECT hummock_stream.wait(NULL, NULL);
SELECT name, definition FROM hummock_stream.jobs ORDER BY name::text;
SELECT * FROM hummock_stream_test.views_differ();
SELECT * FROM labelled WHERE id = 1000;
-- and so they do when the schema is renamed
ALTER SCHEMA elsewhere RENAME TO yonder;
SELECT name, definition FROM hummock_stream.jobs WHERE definition LIKE '%grps%' ORDER BY name::text;
ALTER SCHEMA yonder RENAME TO elsewhere;

\set VERBOSITY terse
-- refused: what a view uses, the primary key the views key rows of things by
ALTER TABLE things ALTER COLUMN val TYPE bigint;
ALTER TABLE things ALTER COLUMN note TYPE varchar(20);
ALTER TABLE things ALTER COLUMN id TYPE bigint;
ALTER TABLE things DROP COLUMN val;
ALTER TABLE things DROP COLUMN id;
ALTER TABLE things DROP CONSTRAINT items_pkey;
ALTER TABLE keyless ADD PRIMARY KEY (a);
ALTER TABLE keyless ADD COLUMN k serial PRIMARY KEY;
ALTER TABLE keyless ALTER COLUMN a TYPE bigint;
\set VERBOSITY default
-- allowed on a table no view reads any more
DROP MATERIALIZED VIEW keyless_a;
ALTER TABLE keyless ADD PRIMARY KEY (a);
ALTER TABLE keyless ALTER COLUMN a TYPE bigint;

-- a partitioned source: the ALTER reaches every partition
CREATE TABLE parts (id int, region text, v int, memo text) PARTITION BY LIST (region);
CREATE TABLE parts_e PARTITION OF parts FOR VALUES IN ('e');
CREATE TABLE parts_w PARTITION OF parts FOR VALUES IN ('w');
INSERT INTO parts SELECT i, CASE WHEN i % 2 = 0 THEN 'e' ELSE 'w' END, i, 'm' FROM generate_series(1, 40) i;
CREATE MATERIALIZED VIEW by_region USING hummock AS
  SELECT region, count(*) AS n, sum(v) AS s FROM parts GROUP BY region;
BEGIN;
INSERT INTO parts VALUES (41, 'e', 41, 'x'), (42, 'w', 42, 'y');
ALTER TABLE parts ALTER COLUMN memo TYPE varchar(10);
ALTER TABLE parts ADD COLUMN extra int DEFAULT 1;
UPDATE parts SET region = 'w' WHERE id = 2;
COMMIT;
SELECT hummock_stream.wait(NULL, NULL);
SELECT * FROM hummock_stream_test.views_differ();
\set VERBOSITY terse
ALTER TABLE parts ALTER COLUMN v TYPE bigint;
\set VERBOSITY default

-- a table read with its inheritance children that had none when the view
-- was created gets none: the view keys its rows by its primary key, which
-- a child's rows need not keep; read FROM ONLY, it may
CREATE TABLE solo (id int PRIMARY KEY, v int);
CREATE TABLE stray (id int NOT NULL, v int);
INSERT INTO solo VALUES (1, 10);
SELECT hummock_stream.create_materialized_view('solo_sum', 'SELECT sum(v) AS s FROM solo');
SELECT hummock_stream.create_materialized_view('solo_only', 'SELECT count(*) AS n FROM ONLY solo');
SELECT hummock_stream.create_materialized_view('stray_sum', 'SELECT count(*) AS n, sum(v) AS s FROM stray');
CREATE TABLE solo_child () INHERITS (solo);
ALTER TABLE stray INHERIT solo;
-- an unlogged source would lose its rows at a crash without a change
ALTER TABLE solo SET UNLOGGED;
SELECT hummock_stream.drop_materialized_view('solo_sum');
CREATE TABLE solo_child () INHERITS (solo);
ALTER TABLE stray INHERIT solo;
INSERT INTO solo_child VALUES (2, 20);
INSERT INTO solo VALUES (3, 30);
SELECT hummock_stream.wait(NULL, NULL);
SELECT * FROM hummock_stream_test.views_differ();
-- writes naming the parent reach its children's rows: the view over ONLY
-- the parent gets none of them, a view over a child sees each (both tables
-- are captured row by row since they joined the tree)
SELECT c.relname, regexp_replace(t.tgname, '_[0-9]+$', '_<oid>') AS trigger, t.tgenabled
  FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
 WHERE c.relname IN ('solo', 'stray') AND t.tgname LIKE 'hummock_stream_capture%'
 ORDER BY 1, 2;
INSERT INTO stray VALUES (5, 50);
SELECT hummock_stream.create_materialized_view('solo_child_sum',
  'SELECT count(*) AS n, sum(v) AS s FROM solo_child');
UPDATE solo SET v = v + 1;
DELETE FROM solo WHERE id = 2;
INSERT INTO solo_child VALUES (4, 40);
UPDATE solo SET v = v * 2 WHERE id IN (4, 5);
SELECT hummock_stream.wait(NULL, NULL);
SELECT * FROM solo_only;
SELECT * FROM solo_child_sum;
SELECT * FROM stray_sum;
SELECT * FROM hummock_stream_test.views_differ();
TRUNCATE solo;
SELECT hummock_stream.wait(NULL, NULL);
SELECT * FROM hummock_stream_test.views_differ();

-- NOT NULL of a column a view uses is part of its plan (NOT IN leaves out
-- its NULL counts over NOT NULL columns): changing it is refused; of a
-- column no view uses, it works
CREATE TABLE nn_o (id int PRIMARY KEY, x int NOT NULL, note text, w int);
CREATE TABLE nn_i (x int NOT NULL, y int);
INSERT INTO nn_o VALUES (1, 1, 'a'), (2, 2, 'b');
INSERT INTO nn_i VALUES (1, 1);
SELECT hummock_stream.create_materialized_view('nn_not_in',
  'SELECT id FROM nn_o WHERE x NOT IN (SELECT x FROM nn_i)');
ALTER TABLE nn_i ALTER COLUMN x DROP NOT NULL;
ALTER TABLE nn_o ALTER COLUMN x DROP NOT NULL;
SELECT hummock_stream.create_materialized_view('nn_w',
  'SELECT id FROM nn_o WHERE w IN (SELECT y FROM nn_i) IS NOT TRUE');
ALTER TABLE nn_o ALTER COLUMN w SET NOT NULL;
ALTER TABLE nn_i ALTER COLUMN y SET NOT NULL;
SELECT hummock_stream.drop_materialized_view('nn_w');
ALTER TABLE nn_i ALTER COLUMN y SET NOT NULL;
ALTER TABLE nn_o ALTER COLUMN note SET NOT NULL;
ALTER TABLE nn_o ALTER COLUMN note DROP NOT NULL;
INSERT INTO nn_o VALUES (3, 3, NULL);
SELECT hummock_stream.wait(NULL, NULL);
SELECT * FROM nn_not_in ORDER BY id;
SELECT * FROM hummock_stream_test.views_differ();
DROP TABLE nn_o, nn_i CASCADE;
-- so is DROP NOT NULL of that column in a table below a source that a view
-- reads with its children (the view reads that table's rows as the
-- source's; Postgres refuses it in a partition, not in an inheritance
-- child); of another column, or under a view of FROM ONLY the parent, it
-- works
CREATE TABLE nn_p (x int NOT NULL, y int);
CREATE TABLE nn_c (note text) INHERITS (nn_p);
CREATE TABLE nn_c1 () INHERITS (nn_c);
CREATE TABLE nn_q (id int PRIMARY KEY, x int);
INSERT INTO nn_p VALUES (1, 1);
INSERT INTO nn_c VALUES (2, 2, 'c');
INSERT INTO nn_q VALUES (1, 1), (2, 2), (3, 3), (4, NULL);
SELECT hummock_stream.create_materialized_view('nn_tree',
  'SELECT id FROM nn_q WHERE x NOT IN (SELECT x FROM nn_p)');
ALTER TABLE nn_c ALTER COLUMN x DROP NOT NULL;
ALTER TABLE ONLY nn_c1 ALTER COLUMN x DROP NOT NULL;
ALTER TABLE nn_c ALTER COLUMN y SET NOT NULL;
ALTER TABLE nn_c ALTER COLUMN y DROP NOT NULL;
INSERT INTO nn_c1 VALUES (NULL, 3, 'c1');
SELECT hummock_stream.wait(NULL, NULL);
SELECT * FROM nn_tree ORDER BY id;
SELECT * FROM hummock_stream_test.views_differ();
SELECT hummock_stream.drop_materialized_view('nn_tree');
SELECT hummock_stream.create_materialized_view('nn_only',
  'SELECT id FROM nn_q WHERE x NOT IN (SELECT x FROM ONLY nn_p)');
ALTER TABLE nn_c ALTER COLUMN x DROP NOT NULL;
INSERT INTO nn_c1 VALUES (NULL, 3, 'c1');
SELECT hummock_stream.wait(NULL, NULL);
SELECT * FROM nn_only ORDER BY id;
SELECT * FROM hummock_stream_test.views_differ();
CREATE TABLE nn_pt (x int NOT NULL, k int) PARTITION BY RANGE (k);
CREATE TABLE nn_pt1 PARTITION OF nn_pt FOR VALUES FROM (0) TO (10);
SELECT hummock_stream.create_materialized_view('nn_part',
  'SELECT id FROM nn_q WHERE x NOT IN (SELECT x FROM nn_pt)');
ALTER TABLE nn_pt1 ALTER COLUMN x DROP NOT NULL;
SELECT hummock_stream.drop_materialized_view('nn_only');
SELECT hummock_stream.drop_materialized_view('nn_part');
DROP TABLE nn_p, nn_q, nn_pt CASCADE;

-- a scalar subquery looking one row up by a unique index's key relies on
-- the index (without it Postgres raises "more than one row returned by a
-- subquery"): the view depends on the index, or on the constraint that
-- owns it, as a view grouping by a primary key depends on the key
CREATE TABLE uq_dim (code int NOT NULL, label text, alt int, UNIQUE (alt));
CREATE UNIQUE INDEX uq_dim_code ON uq_dim (code);
CREATE TABLE uq_fact (id int PRIMARY KEY, code int);
INSERT INTO uq_dim SELECT i, 'l' || i, i FROM generate_series(1, 5) i;
INSERT INTO uq_fact SELECT i, i % 7 FROM generate_series(1, 30) i;
SELECT hummock_stream.create_materialized_view('uq_by_code',
  'SELECT id, (SELECT label FROM uq_dim d WHERE d.code = f.code) AS label FROM uq_fact f');
SELECT hummock_stream.create_materialized_view('uq_by_alt',
  'SELECT id, (SELECT label FROM uq_dim d WHERE d.alt = f.code) AS label FROM uq_fact f');
DROP INDEX uq_dim_code;
ALTER TABLE uq_dim DROP CONSTRAINT uq_dim_alt_key;
REINDEX INDEX CONCURRENTLY uq_dim_code;	-- the new index inherits the dependency
DROP INDEX uq_dim_code;
UPDATE uq_dim SET label = label || '!' WHERE code % 2 = 0;
SELECT hummock_stream.wait(NULL, NULL);
SELECT * FROM hummock_stream_test.views_differ();
DROP INDEX uq_dim_code CASCADE;
ALTER TABLE uq_dim DROP CONSTRAINT uq_dim_alt_key CASCADE;
SELECT count(*) FROM hummock_stream.jobs WHERE name::text LIKE 'uq%';
DROP TABLE uq_dim, uq_fact;

DROP MATERIALIZED VIEW by_grp, some_items, labelled, by_region, solo_only, stray_sum,
  solo_child_sum;
DROP TABLE things, elsewhere.grps, keyless, parts, solo, solo_child, stray;
DROP SCHEMA elsewhere;
DROP EXTENSION hummock_stream_test;
DROP EXTENSION hummock_stream;
