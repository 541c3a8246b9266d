-- Whole-row references to a table: the row as a value of its row type
-- (to_jsonb(o), row_to_json, jsonb_agg(o), o itself), made at the table's
-- leaf so that an outer join's NULL row is NULL, as in Postgres.  Whole
-- rows of subqueries, WITH queries, functions and VALUES lists: ROW(their
-- columns) named as their columns, NULL where an outer join adds a row
-- without the item.
CREATE EXTENSION hummock_stream;
CREATE EXTENSION hummock_stream_test;	-- views_differ(): each view against its query
CREATE TABLE cust (id int PRIMARY KEY, name text, gone int);
CREATE TABLE ord (id int PRIMARY KEY, cust int, amount numeric, note text);
ALTER TABLE cust DROP COLUMN gone;		-- a dropped column: not in the row
INSERT INTO cust VALUES (1, 'ann'), (2, 'bob'), (3, NULL);
INSERT INTO ord SELECT i, 1 + i % 2, i * 1.5, CASE WHEN i % 3 = 0 THEN NULL ELSE 'n' || i END
  FROM generate_series(1, 8) i;

SELECT hummock_stream.create_materialized_view('wr_json',
  'SELECT o.id, to_jsonb(o) AS doc, row_to_json(o)::text AS js FROM ord o');
SELECT hummock_stream.create_materialized_view('wr_value',
  'SELECT c, c.id FROM cust c');
-- in WHERE, as a condition on the table's own rows
SELECT hummock_stream.create_materialized_view('wr_where',
  'SELECT o.id FROM ord o WHERE o IS NOT NULL');
SELECT hummock_stream.create_materialized_view('wr_where_json',
  'SELECT c.id, o.id AS oid FROM cust c JOIN ord o ON o.cust = c.id WHERE to_jsonb(o) ->> ''note'' IS NOT NULL AND c IS NOT NULL');
-- the NULL row of an outer join is NULL, not a row of NULLs
SELECT hummock_stream.create_materialized_view('wr_left',
  'SELECT c.id, to_jsonb(o) AS o, o IS NULL AS none FROM cust c LEFT JOIN ord o ON o.cust = c.id AND o.amount > 10');
SELECT hummock_stream.create_materialized_view('wr_agg',
  'SELECT o.cust, jsonb_agg(o ORDER BY o.id) AS rows, count(o) AS n FROM ord o GROUP BY o.cust');
SELECT hummock_stream.create_materialized_view('wr_join',
  'SELECT c.id, jsonb_build_object(''c'', c, ''o'', o) AS both FROM cust c JOIN ord o ON o.cust = c.id WHERE o.id < 4');
SELECT hummock_stream.create_materialized_view('wr_sub',
  'SELECT c.id, s.id AS oid, to_jsonb(s) AS doc FROM cust c JOIN (SELECT id, cust, amount * 2 AS twice FROM ord) s ON s.cust = c.id');
SELECT hummock_stream.create_materialized_view('wr_sub_agg',
  'SELECT s.cust, jsonb_agg(s ORDER BY s.id) AS rows FROM (SELECT id, cust, note FROM ord) s GROUP BY s.cust');
SELECT hummock_stream.create_materialized_view('wr_sub_left',
  'SELECT c.id, to_jsonb(s) AS s, s IS NULL AS none FROM cust c LEFT JOIN (SELECT id, cust FROM ord WHERE amount > 10) s ON s.cust = c.id');
SELECT hummock_stream.create_materialized_view('wr_cte',
  'WITH x AS (SELECT id, amount FROM ord) SELECT x.id, row_to_json(x)::text AS js FROM x');
SELECT hummock_stream.create_materialized_view('wr_func',
  'SELECT o.id, to_jsonb(r) AS r, to_jsonb(v) AS v FROM ord o, jsonb_to_record(to_jsonb(o)) AS r(id int, note text), LATERAL (VALUES (o.id * 10, o.note)) AS v(k, n)');
-- (the subquery reads the outer row inside its FROM: decorrelated over its values)
SELECT hummock_stream.create_materialized_view('wr_scalar',
  'SELECT c.id, (SELECT jsonb_agg(s ORDER BY s.id) FROM (SELECT id, amount FROM ord WHERE ord.cust = c.id) s) AS rows FROM cust c');
-- aggregated on the nullable side (CASE WHEN present THEN ROW(...) END)
SELECT hummock_stream.create_materialized_view('wr_sub_left_agg',
  'SELECT c.id, jsonb_agg(s ORDER BY s.id) AS rows FROM cust c LEFT JOIN (SELECT id, cust FROM ord) s ON s.cust = c.id GROUP BY c.id');
-- a function of a named row type with a dropped attribute, of a domain over one
CREATE TYPE wr_pair AS (a int, gone int, b text);
ALTER TYPE wr_pair DROP ATTRIBUTE gone;
CREATE FUNCTION wr_pair_of(i int, t text) RETURNS wr_pair LANGUAGE sql IMMUTABLE
  AS 'SELECT i, t';
CREATE DOMAIN wr_checked AS wr_pair CHECK ((VALUE).a IS NOT NULL);
CREATE FUNCTION wr_checked_of(i int, t text) RETURNS wr_checked LANGUAGE sql IMMUTABLE
  AS 'SELECT ROW(i, t)::public.wr_pair';
SELECT hummock_stream.create_materialized_view('wr_named',
  'SELECT o.id, p AS pair, to_jsonb(p) AS doc, to_jsonb(d) AS checked FROM ord o, wr_pair_of(o.id, o.note) p, wr_checked_of(o.id, o.note) d');
-- whole rows read by a later LATERAL item
SELECT hummock_stream.create_materialized_view('wr_lateral',
  'SELECT s.id, e.key, e.value FROM (SELECT id, note FROM ord) s, jsonb_each(to_jsonb(s)) e');
SELECT hummock_stream.create_materialized_view('wr_lateral_left',
  'SELECT c.id, e.key FROM cust c LEFT JOIN (SELECT id, cust FROM ord WHERE amount > 10) s ON s.cust = c.id, jsonb_each(to_jsonb(s)) e');
-- the whole row of a WITH query, a function, a set operation on the
-- nullable side: NULL where the join adds a row without it
SELECT hummock_stream.create_materialized_view('wr_cte_left',
  'WITH x AS (SELECT id, cust FROM ord) SELECT c.id, to_jsonb(x) AS x, x IS NULL AS none FROM cust c LEFT JOIN x ON x.cust = c.id AND x.id > 4');
SELECT hummock_stream.create_materialized_view('wr_func_left',
  'SELECT o.id, p AS pair, p IS NULL AS none FROM ord o LEFT JOIN LATERAL wr_pair_of(o.id, o.note) p ON o.id % 2 = 0');
-- (a domain over a composite type: NULL where the row is missing, not
-- a row of NULLs the domain checks)
CREATE FUNCTION wr_checked_rows(i int) RETURNS SETOF wr_checked LANGUAGE sql IMMUTABLE
  AS 'SELECT ROW(i, ''r'')::public.wr_pair::public.wr_checked WHERE i % 3 = 0';
SELECT hummock_stream.create_materialized_view('wr_domain_left',
  'SELECT o.id, to_jsonb(d) AS d, d IS NULL AS none FROM ord o LEFT JOIN LATERAL wr_checked_rows(o.id) d ON true');
SELECT hummock_stream.create_materialized_view('wr_setop_left',
  'SELECT c.id, to_jsonb(u) AS u FROM cust c LEFT JOIN (SELECT cust, id FROM ord UNION ALL SELECT id, 0 FROM cust) u ON u.cust = c.id AND u.id < 3');
SELECT * FROM hummock_stream_test.views_differ();
SELECT * FROM wr_left ORDER BY id, o::text;
SELECT * FROM wr_sub_left ORDER BY id, s::text;
SELECT * FROM wr_sub_left_agg ORDER BY id;
SELECT * FROM wr_named WHERE id < 4 ORDER BY id;
SELECT * FROM wr_cte_left ORDER BY id, x::text;
SELECT * FROM wr_func_left WHERE id < 5 ORDER BY id;
SELECT * FROM wr_setop_left ORDER BY id, u::text;
SELECT * FROM wr_scalar ORDER BY id;
SELECT * FROM wr_func WHERE id < 3 ORDER BY id;
SELECT * FROM wr_value ORDER BY id;
SELECT * FROM wr_agg ORDER BY cust;

UPDATE ord SET note = 'changed', amount = amount * 10 WHERE id % 2 = 0;
DELETE FROM ord WHERE id = 3;
INSERT INTO ord VALUES (9, 3, 99, NULL);
UPDATE cust SET name = 'cy' WHERE id = 3;
SELECT hummock_stream.wait();
SELECT * FROM hummock_stream_test.views_differ();
SELECT * FROM wr_left ORDER BY id, o::text;
SELECT * FROM wr_sub_left ORDER BY id, s::text;
SELECT * FROM wr_sub_left_agg ORDER BY id;

-- a view holding whole rows cannot follow a change of the table's columns
ALTER TABLE ord ADD COLUMN extra int;
ALTER TABLE ord DROP COLUMN note;
ALTER TABLE ord ALTER COLUMN amount TYPE float8;
ALTER TABLE ord RENAME COLUMN note TO remark;

-- refused: an anonymous row as a column
SELECT hummock_stream.create_materialized_view('bad', 'SELECT s FROM (SELECT id FROM ord) s');
-- column privileges: the whole row needs every column, as in Postgres
CREATE ROLE wr_reader;
GRANT SELECT (id, cust) ON ord TO wr_reader;
GRANT CREATE ON SCHEMA public TO wr_reader;
SET ROLE wr_reader;
SELECT hummock_stream.create_materialized_view('wr_denied', 'SELECT to_jsonb(o) FROM ord o');
SELECT hummock_stream.create_materialized_view('wr_cols', 'SELECT id, cust FROM ord');
RESET ROLE;

SELECT hummock_stream.drop_materialized_view(v)
  FROM unnest(ARRAY['wr_where', 'wr_where_json', 'wr_json', 'wr_value', 'wr_left', 'wr_agg', 'wr_join', 'wr_cols', 'wr_sub',
                     'wr_sub_agg', 'wr_sub_left', 'wr_cte', 'wr_func', 'wr_scalar',
                     'wr_sub_left_agg', 'wr_named', 'wr_lateral', 'wr_lateral_left',
                     'wr_cte_left', 'wr_func_left', 'wr_setop_left', 'wr_domain_left']) v;
DROP FUNCTION wr_pair_of(int, text), wr_checked_of(int, text), wr_checked_rows(int);
DROP DOMAIN wr_checked;
DROP TYPE wr_pair;
REVOKE CREATE ON SCHEMA public FROM wr_reader;
DROP TABLE cust, ord;
DROP ROLE wr_reader;
DROP EXTENSION hummock_stream_test;
DROP EXTENSION hummock_stream;
