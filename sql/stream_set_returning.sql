-- Set-returning functions in a view's select list, as Postgres evaluates
-- them (ProjectSet): each input row makes as many rows as its functions
-- return, several functions run in lockstep (the shorter ones give NULLs),
-- a row whose functions return nothing makes none; expressions over their
-- results; their rows come and go with the input row.
CREATE EXTENSION hummock_stream;
CREATE EXTENSION hummock_stream_test;	-- views_differ(): each view against its query
CREATE TABLE docs (id int PRIMARY KEY, tags text[], body jsonb, n int);
INSERT INTO docs VALUES
  (1, '{a,b,c}', '[{"k": "x", "v": 1}, {"k": "y", "v": 2}]', 3),
  (2, '{}', '[]', 0),
  (3, NULL, '[{"k": "z", "v": 5}]', 2),
  (4, '{b,b}', '[{"k": "x", "v": 7}]', 1);

SELECT hummock_stream.create_materialized_view('s_tags', 'SELECT id, unnest(tags) AS tag FROM docs');
SELECT hummock_stream.create_materialized_view('s_tag_counts',
  'SELECT tag, count(*) AS n FROM (SELECT unnest(tags) AS tag FROM docs) t GROUP BY tag');
SELECT hummock_stream.create_materialized_view('s_series',
  'SELECT id, generate_series(1, n) AS i, generate_series(1, n) * 10 AS ten FROM docs');
SELECT hummock_stream.create_materialized_view('s_lockstep',
  'SELECT id, unnest(tags) AS tag, generate_series(1, n) AS i FROM docs');
SELECT hummock_stream.create_materialized_view('s_json',
  $$SELECT id, jsonb_array_elements(body)->>'k' AS k, (jsonb_array_elements(body)->>'v')::int AS v FROM docs$$);
SELECT hummock_stream.create_materialized_view('s_regexp',
  $$SELECT id, regexp_matches(array_to_string(tags, ' '), '[ab]', 'g') AS m FROM docs$$);
-- in GROUP BY expressions of an aggregating level: evaluated before the
-- grouping, per input row, in lockstep (as ROWS FROM in FROM)
SELECT hummock_stream.create_materialized_view('s_grouped_tags',
  'SELECT unnest(tags) AS tag, count(*) AS n, sum(n) AS total FROM docs GROUP BY 1');
SELECT hummock_stream.create_materialized_view('s_grouped_expr',
  $$SELECT n % 2 AS parity, upper(jsonb_array_elements(body)->>'k') AS k, count(*) AS c
      FROM docs WHERE id < 100 GROUP BY 1, 2 HAVING count(*) >= 1$$);
SELECT hummock_stream.create_materialized_view('s_grouped_lockstep',
  'SELECT unnest(tags) AS tag, generate_series(1, n) AS i, count(*) AS c FROM docs GROUP BY 1, 2');
SELECT hummock_stream.create_materialized_view('s_grouped_top',
  'SELECT unnest(tags) AS tag, count(*) AS n FROM docs GROUP BY 1 ORDER BY count(*) DESC, tag LIMIT 2');
-- outside GROUP BY expressions: evaluated over the groups, after HAVING
SELECT hummock_stream.create_materialized_view('s_after_groups',
  'SELECT n, unnest(array_agg(id ORDER BY id)) AS id, count(*) AS c FROM docs GROUP BY n');
SELECT hummock_stream.create_materialized_view('s_after_count',
  $$SELECT n % 2 AS parity, generate_series(1, count(*)::int) * 10 AS k, max(id) AS top
      FROM docs GROUP BY n % 2 HAVING count(*) > 1$$);
SELECT hummock_stream.create_materialized_view('s_after_no_groups',
  'SELECT count(*) AS c, unnest(ARRAY[1, 2]) AS x FROM docs');
-- ORDER BY ... LIMIT and DISTINCT apply to the rows the calls make
SELECT hummock_stream.create_materialized_view('s_after_top',
  'SELECT n, unnest(array_agg(id)) AS i FROM docs GROUP BY n ORDER BY 2 DESC LIMIT 3');
SELECT hummock_stream.create_materialized_view('s_after_distinct',
  'SELECT DISTINCT n % 2 AS parity, generate_series(1, count(*)::int) AS k FROM docs GROUP BY n');
SELECT * FROM hummock_stream_test.views_differ();
SELECT * FROM s_lockstep ORDER BY id, i NULLS LAST, tag;
SELECT * FROM s_after_groups ORDER BY n, id;
SELECT * FROM s_grouped_lockstep ORDER BY tag NULLS LAST, i NULLS LAST;

UPDATE docs SET tags = '{c,d}', n = 2 WHERE id = 1;
UPDATE docs SET body = '[{"k": "w", "v": 9}, {"k": "w", "v": 9}]' WHERE id = 3;
DELETE FROM docs WHERE id = 4;
INSERT INTO docs VALUES (5, '{a}', '[{"k": "q", "v": 0}]', 4);
SELECT hummock_stream.wait();
SELECT * FROM hummock_stream_test.views_differ();
SELECT * FROM s_json ORDER BY id, k, v;
SELECT * FROM s_tag_counts ORDER BY tag;
SELECT * FROM s_grouped_tags ORDER BY tag;
SELECT * FROM s_after_count ORDER BY parity, k;
SELECT * FROM s_after_top ORDER BY i;
SELECT * FROM s_after_distinct ORDER BY parity, k;

-- refused
SELECT hummock_stream.create_materialized_view('bad', 'SELECT id, unnest(ARRAY[generate_series(1, n)]) FROM docs');
-- (composites in GROUP BY)
SELECT hummock_stream.create_materialized_view('bad', 'SELECT jsonb_each(body -> 0) AS e, count(*) FROM docs GROUP BY 1');

SET client_min_messages = warning;	-- the capture log's name has an OID
DROP EXTENSION hummock_stream CASCADE;
RESET client_min_messages;
DROP TABLE docs;
