-- Set-returning functions in FROM: unnest, generate_series,
-- jsonb_array_elements, regexp_split_to_table, functions returning several
-- columns (jsonb_each, jsonb_populate_recordset), ROWS FROM with several
-- functions, functions returning record with a column definition list
-- (jsonb_to_recordset, a SQL function), functions that return no set
-- (one row each: lower(), jsonb_to_record, jsonb_populate_record,
-- COALESCE), and VALUES lists, inner-joined
-- with the other FROM items (LATERAL or not), WITH ORDINALITY, and LEFT
-- JOIN LATERAL ... ON true.
-- Each view equals its query after changes.
CREATE EXTENSION hummock_stream;
CREATE TABLE docs (id int PRIMARY KEY, author int, tags text[], body jsonb, words text);
CREATE TABLE authors (id int PRIMARY KEY, name text, langs text[]);
INSERT INTO authors VALUES (1, 'ann', '{en,fr}'), (2, 'bob', '{}'), (3, 'cy', NULL);
INSERT INTO docs VALUES
  (1, 1, '{a,b}', '[1, 2, 3]', 'the quick fox'),
  (2, 2, '{b}', '[]', 'lazy dog'),
  (3, 1, NULL, '[4]', NULL),
  (4, 3, '{a,a,c}', '[5, 5]', 'a a a');

-- a view and its query: rows in one and not the other, both ways
CREATE FUNCTION differs(v regclass, q text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE n bigint;
BEGIN
  EXECUTE format('SELECT count(*) FROM ((TABLE %s EXCEPT ALL (%s)) UNION ALL ((%s) EXCEPT ALL TABLE %s)) d',
                 v, q, q, v) INTO n;
  RETURN n;
END $$;
-- a function returning record, one row per call (SQL, value per call)
CREATE FUNCTION pairs(int) RETURNS SETOF record LANGUAGE sql IMMUTABLE
  AS 'SELECT $1, $1 * 2 UNION ALL SELECT $1 + 10, NULL::int';
-- functions that return one row: SQL with OUT parameters, PL/pgSQL
-- returning a table's row type
CREATE FUNCTION split_words(w text, OUT first text, OUT rest text) LANGUAGE sql IMMUTABLE
  AS $$SELECT split_part(w, ' ', 1), nullif(substr(w, length(split_part(w, ' ', 1)) + 2), '')$$;
CREATE FUNCTION mk_author(i int, n text) RETURNS authors LANGUAGE plpgsql IMMUTABLE
  AS $$BEGIN IF i > 2 THEN RETURN NULL; END IF; RETURN ROW(i, upper(n), NULL)::public.authors; END$$;
CREATE TABLE queries (v text PRIMARY KEY, q text);
INSERT INTO queries VALUES
  ('doc_tags', 'SELECT d.id, t FROM docs d, unnest(d.tags) AS t'),
  ('tag_counts', 'SELECT t AS tag, count(*) AS n FROM docs CROSS JOIN LATERAL unnest(tags) AS t GROUP BY t'),
  ('doc_elems', 'SELECT d.id, e.value, e.n FROM docs d, jsonb_array_elements(d.body) WITH ORDINALITY AS e(value, n) WHERE e.value::int > 1'),
  ('doc_series', 'SELECT id, g FROM docs, generate_series(1, id) AS g'),
  ('doc_words', 'SELECT id, w FROM docs JOIN LATERAL regexp_split_to_table(words, '' '') AS w ON true WHERE w <> ''a'''),
  ('author_langs', 'SELECT d.id, a.name, l FROM docs d JOIN authors a ON a.id = d.author, unnest(a.langs || d.tags) AS l'),
  ('doc_tags_all', 'SELECT d.id, t, n FROM docs d LEFT JOIN LATERAL unnest(d.tags) WITH ORDINALITY AS u(t, n) ON true'),
  ('constant_series', 'SELECT d.id, k FROM docs d, generate_series(1, 2) AS k WHERE d.id < 3'),
  ('doc_kv', 'SELECT d.id, e.key, e.value FROM docs d, jsonb_each_text(jsonb_build_object(''w'', d.words, ''n'', d.id)) AS e'),
  ('doc_people', 'SELECT d.id, p.id AS aid, p.name, p.langs FROM docs d, jsonb_populate_recordset(NULL::authors, jsonb_build_array(jsonb_build_object(''id'', d.author, ''name'', d.words))) AS p'),
  ('doc_zip', 'SELECT d.id, r.t, r.g, r.o FROM docs d, ROWS FROM (unnest(d.tags), generate_series(1, 2)) WITH ORDINALITY AS r(t, g, o)'),
  ('doc_kinds', 'SELECT d.id, v.kind, v.w FROM docs d JOIN (VALUES (1, ''one'', 1.5), (2, ''two'', NULL), (5, ''five'', 5.0)) AS v(k, kind, w) ON v.k = d.id'),
  ('doc_values', 'SELECT d.id, v.x FROM docs d, LATERAL (VALUES (d.id), (d.author), (NULL::int)) AS v(x)'),
  ('doc_recs', 'SELECT d.id, r.a, r.b FROM docs d, jsonb_to_recordset(jsonb_build_array(jsonb_build_object(''a'', d.id, ''b'', d.words), jsonb_build_object(''a'', d.author))) AS r(a int, b text) WHERE r.a IS NOT NULL'),
  ('doc_rec_zip', 'SELECT d.id, r.* FROM docs d LEFT JOIN LATERAL ROWS FROM (jsonb_to_recordset(jsonb_build_array(jsonb_build_object(''x'', d.words), ''{}''::jsonb)) AS (x text), pairs(d.id) AS (p int, q int), unnest(d.tags)) WITH ORDINALITY AS r(x, p, q, t, o) ON true'),
  ('doc_pairs', 'SELECT d.id, p.x, p.y FROM docs d, pairs(d.author) AS p(x int, y int)'),
  -- functions that return no set: one row per row, NULL when they return NULL
  ('doc_lower', 'SELECT d.id, l FROM docs d, lower(d.words) AS l'),
  ('doc_word_or', 'SELECT d.id, w FROM docs d, coalesce(d.words, ''(none)'') AS w'),
  ('doc_rec', 'SELECT d.id, r.a, r.b FROM docs d, jsonb_to_record(CASE WHEN d.id <> 3 THEN jsonb_build_object(''a'', d.author, ''b'', d.words) END) AS r(a int, b text)'),
  ('doc_author_rec', 'SELECT d.id, p.id AS aid, p.name FROM docs d CROSS JOIN LATERAL jsonb_populate_record(NULL::authors, jsonb_build_object(''id'', d.author, ''name'', d.words)) AS p'),
  ('doc_first_tags', 'SELECT d.id, r.l, r.t FROM docs d, ROWS FROM (lower(d.words), unnest(d.tags)) AS r(l, t)'),
  ('rec_counts', 'SELECT r.a, count(*) AS n FROM docs d, jsonb_to_record(jsonb_build_object(''a'', d.author)) AS r(a int) GROUP BY r.a'),
  ('doc_split', 'SELECT d.id, s.first, s.rest FROM docs d, split_words(d.words) AS s'),
  ('doc_mk_author', 'SELECT d.id, a.id AS aid, a.name FROM docs d, mk_author(d.author, d.words) AS a'),
  -- LEFT JOIN to a function or VALUES list ON a condition: rows without a
  -- passing function row stay, with NULLs
  ('doc_tags_after_a', 'SELECT * FROM docs d LEFT JOIN LATERAL unnest(d.tags) AS t ON t > ''a'''),
  ('doc_kinds_left', 'SELECT d.id, v.kind FROM docs d LEFT JOIN (VALUES (1, ''one''), (2, ''two''), (2, ''deux''), (NULL, ''none'')) AS v(k, kind) ON v.k = d.author'),
  ('doc_series_left', 'SELECT d.id, g FROM docs d LEFT JOIN generate_series(1, 3) AS g ON g >= d.author AND g < d.id'),
  ('doc_elems_left', 'SELECT d.id, count(e.value) AS n FROM docs d LEFT JOIN LATERAL jsonb_array_elements(d.body) AS e ON e.value::int > d.id GROUP BY d.id'),
  -- subqueries over a function's columns: EXISTS, IN and NOT IN after the
  -- function, a lookup or a count per function row (the FROM list is one
  -- item the subquery's join keeps, its WHERE joining its items)
  ('tag_known', 'SELECT d.id, t FROM docs d, unnest(d.tags) AS t WHERE EXISTS (SELECT FROM authors a WHERE a.name = t OR t = ANY (a.langs))'),
  ('tag_in', 'SELECT d.id, t FROM docs d, unnest(d.tags) AS t WHERE t IN (SELECT l FROM authors, unnest(langs) AS l)'),
  ('lang_not_in', 'SELECT a.id, l FROM authors a, unnest(a.langs || ARRAY[NULL, ''b'']) AS l WHERE l NOT IN (SELECT t FROM docs, unnest(tags) AS t WHERE t <> ''z'')'),
  ('lang_no_doc', 'SELECT a.id, l FROM authors a, unnest(a.langs) AS l WHERE NOT EXISTS (SELECT FROM docs d WHERE l = ANY (d.tags) AND d.author = a.id)'),
  ('series_author', 'SELECT d.id, g, (SELECT name FROM authors a WHERE a.id = g) AS name FROM docs d, generate_series(1, d.id) AS g'),
  ('series_docs', 'SELECT d.id, g, (SELECT count(*) FROM docs e WHERE e.author = g AND e.author = d.author) AS n FROM docs d, generate_series(1, d.id) AS g'),
  ('pair_author', 'SELECT d.id, a.name, t, (SELECT max(e.id) FROM docs e WHERE e.words = t || '' '' || a.name AND e.author = a.id) AS n FROM docs d, authors a, unnest(d.tags) AS t WHERE a.id = d.author');
SELECT hummock_stream.create_materialized_view(v, q) FROM queries ORDER BY v;
SELECT v, differs(v::regclass, q) FROM queries ORDER BY v;
SELECT * FROM doc_tags_all ORDER BY id, n;
SELECT * FROM doc_zip ORDER BY id, o;
SELECT * FROM doc_recs ORDER BY id, a, b;
SELECT * FROM doc_rec ORDER BY id;
SELECT * FROM doc_first_tags ORDER BY id, l, t;
-- the operator a function in FROM becomes
SELECT f.job, f.operators FROM hummock_stream.fragments f
 WHERE f.job::text IN ('doc_elems', 'doc_tags_all', 'doc_kv', 'doc_zip', 'doc_kinds', 'doc_recs') ORDER BY 1;

-- changes: inserts, updates moving elements, deletes, NULLs and empty arrays
INSERT INTO docs VALUES (5, 2, '{c,d}', '[7, 8]', 'up up'), (6, 1, '{b}', '[]', 'b ann');
UPDATE docs SET tags = '{}' WHERE id = 1;
UPDATE docs SET tags = '{z,z}', body = '[9]' WHERE id = 2;
UPDATE authors SET langs = '{de}' WHERE id = 2;
DELETE FROM docs WHERE id = 4;
SELECT hummock_stream.wait();
SELECT v, differs(v::regclass, q) FROM queries ORDER BY v;
SELECT * FROM doc_tags_all ORDER BY id, n;
SELECT * FROM doc_recs ORDER BY id, a, b;
SELECT * FROM doc_rec ORDER BY id;

-- refused, with the reason
-- a column definition list that does not match the rows: Postgres's error
SELECT hummock_stream.create_materialized_view('bad', 'SELECT * FROM docs d, pairs(d.id) AS p(x int)');
SELECT hummock_stream.create_materialized_view('bad', 'SELECT * FROM docs d, pairs(d.id) AS p(x int, y date)');
-- (a query whose FROM has only such items, reading no table, is a
-- constant view: stream_constant_inputs)
-- (an outer join of two FROM items that read no table: stream_constant_inputs
-- has the outer joins of such items with tables)
SELECT hummock_stream.create_materialized_view('bad', 'SELECT d.id, v.k FROM docs d, (VALUES (1), (2)) AS v(k) FULL JOIN generate_series(1, 3) g ON g = v.k');
SELECT hummock_stream.create_materialized_view('bad', 'SELECT d.id, r FROM docs d, jsonb_to_record(d.body) AS r(a int)');
-- a function returning record without a column definition list: Postgres's error
SELECT hummock_stream.create_materialized_view('bad', 'SELECT * FROM docs d, jsonb_to_record(d.body)');
-- (correlated otherwise than by equalities, over a function's columns)
SELECT hummock_stream.create_materialized_view('bad', 'SELECT d.id, g, (SELECT count(*) FROM docs e WHERE e.author = g AND e.id <> d.id) FROM docs d, generate_series(1, d.id) AS g');
SELECT hummock_stream.create_materialized_view('bad', 'SELECT d.id, s.name FROM docs d, authors b, LATERAL (SELECT * FROM authors a WHERE a.id > d.author AND a.id < b.id) s');

SELECT hummock_stream.drop_materialized_view(v::regclass) FROM queries ORDER BY v;
DROP FUNCTION differs(regclass, text);
DROP FUNCTION pairs(int);
DROP FUNCTION split_words(text), mk_author(int, text);
DROP TABLE docs, authors, queries;
DROP EXTENSION hummock_stream;
