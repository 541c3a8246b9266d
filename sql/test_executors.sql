-- The streaming executors and planner in isolation, inside a backend but
-- without views, jobs or the barrier loop: the test module's exec_*
-- functions build one executor over in-memory state tables and return
-- what it emits epoch by epoch (and, at 'state' lines, its state tables,
-- each key checked against its value); plan_describe shows what the
-- planner makes of a query; plan_run runs a query's whole plan over the
-- same store and, after every epoch, compares the view with the query run
-- by Postgres over the tables as the script changed them.  Formats:
-- test/modules/hummock_stream_test/README.md.
CREATE EXTENSION hummock_stream;
CREATE EXTENSION hummock_stream_test;
SET search_path = hummock_stream_test, public;

-- =====================================================================
-- The harness
-- =====================================================================

-- a script's epochs: lines before a flush are its epoch; a missing last
-- flush is implied; an empty epoch is still one (the second flush)
SELECT * FROM exec_project('v int', ARRAY['+1|1', '+2|2', 'flush', 'flush', '-1|2']);
-- comments and blank lines; NULL and the empty string are different
SELECT * FROM exec_project('k text', ARRAY['# a comment', '', '+1|NULL', '+1|', '+1| x ']);
-- script errors
SELECT * FROM exec_project('v int', ARRAY['+1|1|2']);
SELECT * FROM exec_project('v int', ARRAY['insert 1']);
SELECT * FROM exec_project('v int', ARRAY['+1|one']);
SELECT * FROM exec_union('v int', 2, ARRAY['+1|1']);
SELECT * FROM exec_union('v int', 2, ARRAY['3:+1|1']);
SELECT * FROM exec_union('v int', 2, ARRAY['1:flush', '1:+1|1']);
SELECT * FROM exec_union('v int', 2, ARRAY['1:flush', '1:flush']);
SELECT * FROM exec_project('v int', ARRAY['state']);
SELECT * FROM exec_project('v int', NULL);
SELECT * FROM exec_project('v int', ARRAY['+1|1'], targets => 'count(*)');
SELECT * FROM exec_project('v int', ARRAY['+1|1'], filter => 'v IN (SELECT 1)');
SELECT * FROM exec_project('v int, int', ARRAY['+1|1']);
-- only the superuser may call them
CREATE ROLE hst_nobody;
SET ROLE hst_nobody;
SELECT * FROM hummock_stream_test.exec_project('v int', ARRAY['+1|1']);
SELECT * FROM hummock_stream_test.plan_describe('SELECT 1');
RESET ROLE;
DROP ROLE hst_nobody;

-- =====================================================================
-- Project: filter and projection (exec_project.c)
-- =====================================================================

-- rows that fail the filter (false or NULL) are dropped, and so are their
-- deletes; the sign is kept
SELECT * FROM exec_project('k text, v int',
  ARRAY['+1|a|3', '+1|b|1', '+1|c|NULL', 'flush',
        '-1|a|3', '+1|a|4', '-1|b|1', '-1|c|NULL'],
  targets => 'upper(k) AS k, v * 2 AS w, v IS NULL AS missing', filter => 'v > 1 OR k = ''c''');
-- the expressions are Postgres's own (collations, casts, NULL semantics)
SELECT * FROM exec_project('k text COLLATE "C", n numeric(6,2)',
  ARRAY['+1|B|1.5', '+1|a|NULL'],
  targets => 'k < ''a'' AS before_a, n, coalesce(n, -1)::int AS i, n::text || ''!'' AS t');

-- =====================================================================
-- HashAgg: groups, retractable accumulators (exec_hash_agg.c,
-- agg_accumulators.c, agg_ordered_state.c)
-- =====================================================================

-- a group's row: its old row is deleted and its new one inserted at the
-- flush; a group whose rows all go emits its delete only, and its state
-- rows go too (the second state shows nothing); a NULL key is a group;
-- a change that leaves the output as it was emits nothing (epoch 3)
SELECT * FROM exec_hash_agg('k text, v int', 1, 'count(*), count(v), sum(v)',
  ARRAY['+1|a|3', '+1|a|5', '+1|NULL|1', '+1|NULL|NULL', 'flush', 'state',
        '-1|a|3', '-1|a|5', '-1|NULL|NULL', 'flush', 'state',
        '-1|NULL|1', '+1|NULL|1', 'flush',
        '-1|NULL|1', 'flush', 'state']);
-- ... which is what Postgres computes after each epoch
SELECT k, count(*), count(v), sum(v) FROM (VALUES ('a', 3), ('a', 5), (NULL, 1), (NULL, NULL)) t(k, v)
 GROUP BY k ORDER BY k;

-- without group keys there is always exactly one row, from the first
-- flush on, even without input (count 0, sum NULL, as Postgres returns
-- over no rows); its state row stays, at zero rows
SELECT * FROM exec_hash_agg('v int, b bool', 0, 'count(*), sum(v), min(v), bool_or(b)',
  ARRAY['flush', '+1|3|true', '+1|1|false', 'flush', '-1|3|true', '-1|1|false', 'flush', 'state']);
SELECT count(*), sum(v), min(v), bool_or(b) FROM (SELECT 1, true WHERE false) t(v, b);

-- min and max: deleting the extreme brings the next one in (from the
-- ordered state, max encoded descending, so its first entry is the
-- largest); an extreme held by two rows stays until both went; NULLs are
-- not values
SELECT * FROM exec_hash_agg('g int, v int', 1, 'min(v), max(v)',
  ARRAY['+1|1|5', '+2|1|9', '+1|1|2', '+1|1|NULL', 'flush', 'state',
        '-1|1|9', 'flush',
        '-1|1|9', '-1|1|2', 'flush', 'state',
        '-1|1|5', 'flush', 'state',
        '-1|1|NULL', 'flush', 'state']);
-- the extreme deleted and a new one inserted in one epoch; the same
-- value deleted and inserted again (its count goes 1 -> 0 -> 1)
SELECT * FROM exec_hash_agg('g int, v int', 1, 'min(v), max(v)',
  ARRAY['+1|1|5', '+1|1|7', 'flush',
        '-1|1|5', '+1|1|6', '-1|1|7', '+1|1|8', 'flush',
        '-1|1|6', '+1|1|6', 'flush', 'state']);
-- min and max of text compare bytes (the planner asks for COLLATE "C");
-- of floats, NaN is above every number, as in Postgres
SELECT * FROM exec_hash_agg('g int, s text COLLATE "C", f float8', 1, 'min(s), max(s), min(f), max(f)',
  ARRAY['+1|1|b|1', '+1|1|B|NaN', '+1|1|ab|-Infinity', 'flush',
        '-1|1|B|NaN', '-1|1|ab|-Infinity', 'flush']);
SELECT min(s), max(s), min(f), max(f)
  FROM (VALUES ('b' COLLATE "C", 1::float8), ('B', 'NaN'), ('ab', '-Infinity')) t(s, f);

-- DISTINCT calls see a value when its count goes 0 -> 1 and lose it at
-- 1 -> 0; the value counts are in the second table
SELECT * FROM exec_hash_agg('g int, v int', 1, 'count(DISTINCT v), sum(DISTINCT v), avg(DISTINCT v), count(v)',
  ARRAY['+1|1|3', '+1|1|3', '+1|1|4', '+1|1|NULL', 'flush', 'state',
        '-1|1|3', 'flush',
        '-1|1|3', 'flush', 'state']);
SELECT count(DISTINCT v), sum(DISTINCT v), avg(DISTINCT v), count(v) FROM (VALUES (3), (3), (4), (NULL)) t(v);
SELECT count(DISTINCT v), sum(DISTINCT v), avg(DISTINCT v), count(v) FROM (VALUES (4), (NULL)) t(v);

-- FILTER: rows whose filter column is not true (false or NULL) are left
-- out of that call; count(*) FILTER is a count of the filter column
SELECT * FROM exec_hash_agg('g int, v int, f bool', 1, 'count(v) FILTER (WHERE f), sum(v) FILTER (WHERE f), min(v) FILTER (WHERE f), count(v)',
  ARRAY['+1|1|3|true', '+1|1|5|false', '+1|1|7|NULL', '+1|1|1|true', 'flush',
        '-1|1|1|true', '+1|1|9|true', 'flush', 'state']);
SELECT count(v) FILTER (WHERE f), sum(v) FILTER (WHERE f), min(v) FILTER (WHERE f), count(v)
  FROM (VALUES (3, true), (5, false), (7, NULL), (9, true)) t(v, f);

-- RECOMPUTE calls (array_agg, string_agg, statistics, ...): each group
-- keeps its rows as a multiset (kept rows: the row's bytes after the group
-- key and 0xFF, its count as the value), and every group an epoch touches
-- is aggregated again by Postgres; a group whose rows all go is deleted
-- with its kept rows; equal rows share one entry
SELECT * FROM exec_hash_agg('g int, v int, s text', 1, $$array_agg(v ORDER BY v), string_agg(s, ',' ORDER BY s DESC), stddev_samp(v), count(*)$$,
  ARRAY['+1|1|3|a', '+1|1|5|b', '+2|1|5|b', '+1|2|7|c', 'flush', 'state',
        '-1|1|5|b', '+1|1|4|z', 'flush', 'state',
        '-1|2|7|c', 'flush', 'state']);
SELECT g, array_agg(v ORDER BY v), string_agg(s, ',' ORDER BY s DESC), stddev_samp(v), count(*)
  FROM (VALUES (1, 3, 'a'), (1, 5, 'b'), (1, 5, 'b'), (1, 4, 'z')) t(g, v, s) GROUP BY g;
-- without group keys the one row is recomputed too, and over no rows it
-- shows what Postgres shows over no rows
SELECT * FROM exec_hash_agg('v int', 0, $$array_agg(v ORDER BY v), bit_xor(v), count(*)$$,
  ARRAY['flush', '+1|6', '+1|3', 'flush', '-1|6', '-1|3', 'flush']);
SELECT array_agg(v ORDER BY v), bit_xor(v), count(*) FROM (SELECT 1 WHERE false) t(v);

-- float sums: NaN, +Infinity and -Infinity are counted apart from the
-- running sum (the special counts: -1 NaN, -2 +Inf, -3 -Inf, -4 -0), so
-- deleting them is exact; a float sum of nothing but -0 is -0, avg of -0
-- is 0
SELECT * FROM exec_hash_agg('g int, x float8', 1, 'sum(x), avg(x)',
  ARRAY['+1|1|Infinity', '+1|1|-Infinity', '+1|1|2.5', 'flush', 'state',
        '-1|1|-Infinity', 'flush',
        '-1|1|Infinity', 'flush',
        '+1|1|NaN', 'flush',
        '-1|1|NaN', '-1|1|2.5', '+1|1|-0', 'flush', 'state',
        '+1|1|-0', '+1|1|0', 'flush',
        '-1|1|0', 'flush']);
SELECT sum(x), avg(x) FROM (VALUES ('Infinity'::float8), ('-Infinity'), (2.5)) t(x);
SELECT sum(x), avg(x) FROM (VALUES ('Infinity'::float8), (2.5)) t(x);
SELECT sum(x), avg(x) FROM (VALUES ('NaN'::float8), (2.5)) t(x);
SELECT sum(x), avg(x) FROM (VALUES ('-0'::float8)) t(x);
SELECT sum(x), avg(x) FROM (VALUES ('-0'::float8), ('-0'), (0)) t(x);
-- float4 sums are float4 (avg float8)
SELECT * FROM exec_hash_agg('x float4', 0, 'sum(x), avg(x)',
  ARRAY['+1|1.5', '+1|Infinity', 'flush', '-1|Infinity', 'flush']);
-- numeric: the display scale is the largest of the inputs there are now
-- (counted per scale), the specials as for floats
SELECT * FROM exec_hash_agg('g int, x numeric', 1, 'sum(x), avg(x)',
  ARRAY['+1|1|1.5', '+1|1|2.25', 'flush',
        '-1|1|2.25', 'flush',
        '+1|1|Infinity', 'flush', 'state',
        '+1|1|-Infinity', 'flush',
        '-1|1|Infinity', '-1|1|-Infinity', '+1|1|NaN', 'flush',
        '-1|1|NaN', 'flush', 'state']);
SELECT sum(x), avg(x) FROM (VALUES (1.5), (2.25)) t(x);
SELECT sum(x), avg(x) FROM (VALUES (1.5)) t(x);
SELECT sum(x), avg(x) FROM (VALUES (1.5), ('Infinity')) t(x);
SELECT sum(x), avg(x) FROM (VALUES (1.5), ('Infinity'), ('-Infinity')) t(x);
-- the result types of Postgres's sum and avg
SET lc_monetary TO 'C';
SELECT * FROM exec_hash_agg('a int2, b int4, c int8, i interval, m money', 0,
  'sum(a), avg(a), sum(b), avg(b), sum(c), avg(c), sum(i), avg(i), sum(m)',
  ARRAY['+1|1|2|3|1 day|1.50', '+1|2|4|5|2 hours|2.25']);
SELECT sum(a), avg(a), sum(b), avg(b), sum(c), avg(c), sum(i), avg(i), sum(m)
  FROM (VALUES (1::int2, 2, 3::int8, '1 day'::interval, 1.50::money),
               (2, 4, 5, '2 hours', 2.25::money)) t(a, b, c, i, m);
RESET lc_monetary;
-- bool_and, every, bool_or: counts of true and of non-NULL inputs
SELECT * FROM exec_hash_agg('g int, b bool', 1, 'bool_and(b), every(b), bool_or(b)',
  ARRAY['+1|1|true', '+1|1|NULL', 'flush', '+1|1|false', 'flush', 'state',
        '-1|1|true', 'flush', '-1|1|false', 'flush']);
SELECT bool_and(b), every(b), bool_or(b) FROM (VALUES (true), (NULL), (false)) t(b);
SELECT bool_and(b), every(b), bool_or(b) FROM (VALUES (NULL::bool)) t(b);

-- groups are cached: with evict every group is emptied from the cache
-- after each epoch and read back from its state row when it changes
-- again, which must give the same changes in each epoch
SELECT (SELECT array_agg(epoch || ' ' || line ORDER BY epoch, line) FROM exec_hash_agg(
          'g int, x numeric', 1, 'count(*), sum(x), avg(x), min(x), max(x), count(DISTINCT x)', s.script)
          ) =
       (SELECT array_agg(epoch || ' ' || line ORDER BY epoch, line) FROM exec_hash_agg(
          'g int, x numeric', 1, 'count(*), sum(x), avg(x), min(x), max(x), count(DISTINCT x)', s.script, evict => true)
          ) AS same_with_evict
  FROM (SELECT ARRAY['+1|1|1.5', '+1|1|2.25', '+1|2|NaN', 'flush', '-1|1|2.25', '+1|2|-1', 'flush',
                     '-1|1|1.5', '+1|1|Infinity', 'flush', '-1|2|NaN', '+1|1|3', 'flush'] AS script) s;

-- DISTINCT over rows is a HashAgg with every column a group key and no
-- calls: a row appears with its first copy and goes with its last
SELECT * FROM exec_hash_agg('k text, v int', 2, NULL,
  ARRAY['+2|a|1', '+1|b|NULL', 'flush', '-1|a|1', 'flush', 'state', '-1|a|1', 'flush', 'state']);

-- Values equal but printed differently (numeric 1.0 and 1.00, float -0
-- and 0): min/max count each printed form apart (the value counts' keys end
-- with an identity tail), so once only 1.00 remains the minimum is 1.00, as
-- Postgres computes it.  The executor's group key stays the first form
-- seen while the group lives (the group below still stores 1.0): the
-- planner shows a folding key through a min of it instead (plan_agg.c);
-- a DISTINCT call's value stays the first form (a known divergence).
SELECT * FROM exec_hash_agg('x numeric', 1, 'count(*), min(x)',
  ARRAY['+1|1.0', '+1|1.00', 'flush', '-1|1.0', 'flush', 'state']);
SELECT * FROM exec_hash_agg('g int, f float8', 1, 'max(f), min(f)',
  ARRAY['+1|1|-0', '+1|1|0', '+1|1|-5', 'flush', '-1|1|0', 'flush', '-1|1|-5', 'flush', 'state']);
SELECT x, count(*), min(x) FROM (VALUES (1.00)) t(x) GROUP BY x;

-- =====================================================================
-- HashJoin: inner, left, full, semi, anti (exec_hash_join.c)
-- =====================================================================

-- inner: each change meets the other side as it is now; without a unique
-- key a side keeps a count per distinct row (2 x ...)
SELECT * FROM exec_hash_join('inner', 'k int, v text', 'k int, w text', 'k', 'k',
  ARRAY['l:+2|1|a', 'r:+1|1|x', 'l:+1|2|b', 'flush', 'state',
        'l:-1|1|a', 'r:+1|1|y', 'flush',
        'r:-1|1|x', 'r:-1|1|y', 'l:-1|1|a', 'flush', 'state']);
-- the order of an epoch: left changes join the right side before the
-- epoch, right changes the left side after it (delta(L) join R_old +
-- L_new join delta(R)); the join flushes its downstream once both inputs
-- are flushed, whichever comes first (checked by the harness)
SELECT * FROM exec_hash_join('inner', 'k int, v text', 'k int, w text', 'k', 'k',
  ARRAY['r:+1|1|x', 'flush',
        'l:+1|1|a', 'l:flush', 'r:-1|1|x', 'r:+1|1|z', 'r:flush',
        'r:+1|1|w', 'r:flush', 'l:-1|1|a', 'l:flush']);
-- left: an unmatched left row is NULL-padded; its first match retracts
-- the padded row before the joined one comes (0 -> 1), a second match
-- only adds (1 -> 2), and the last match to go brings it back (1 -> 0);
-- a left row with a NULL key is padded at once and never stored
SELECT * FROM exec_hash_join('left', 'id int, k int', 'id int, k int', 'k', 'k',
  ARRAY['l:+1|1|10', 'l:+1|2|NULL', 'flush',
        'r:+1|7|10', 'flush',
        'r:+1|8|10', 'flush',
        'r:-1|7|10', 'flush',
        'r:-1|8|10', 'flush', 'state',
        'l:-1|1|10', 'l:-1|2|NULL', 'flush', 'state'],
  left_ukey => 'id', right_ukey => 'id');
-- left with a join filter: only right rows that pass it count as matches
SELECT * FROM exec_hash_join('left', 'id int, k int, lo int', 'k int, v int', 'k', 'k',
  ARRAY['l:+1|1|10|5', 'r:+1|10|3', 'flush',
        'r:+1|10|7', 'flush',
        'r:-1|10|7', 'r:+1|10|9', 'r:+1|10|8', 'flush',
        'l:-1|1|10|5', 'l:+1|1|10|8', 'flush'],
  filter => 'r.v > l.lo', left_ukey => 'id');
-- full: both sides padded, each from its own matches; a right row with a
-- NULL key is padded at once
SELECT * FROM exec_hash_join('full', 'id int, k int', 'id int, k int', 'k', 'k',
  ARRAY['l:+1|1|10', 'r:+1|5|20', 'r:+1|6|NULL', 'flush',
        'r:+1|7|10', 'flush',
        'l:-1|1|10', 'flush',
        'l:+1|2|20', 'r:-1|7|10', 'flush', 'state'],
  left_ukey => 'id', right_ukey => 'id');
-- ... as Postgres joins the rows of each epoch
SELECT l.id, l.k, r.id, r.k FROM (VALUES (1, 10)) l(id, k)
  FULL JOIN (VALUES (5, 20), (6, NULL), (7, 10)) r(id, k) ON l.k = r.k ORDER BY 1, 3;
SELECT l.id, l.k, r.id, r.k FROM (VALUES (2, 20)) l(id, k)
  FULL JOIN (VALUES (5, 20), (6, NULL)) r(id, k) ON l.k = r.k ORDER BY 1, 3;
-- semi: a left row appears once when its first match comes and goes
-- with its last (two copies of a left row without a key: both); right
-- changes that move the degree between 1 and 2 emit nothing
SELECT * FROM exec_hash_join('semi', 'id int, k int', 'k int', 'k', 'k',
  ARRAY['l:+1|1|10', 'l:+2|2|20', 'flush',
        'r:+1|10', 'r:+1|10', 'r:+1|20', 'flush',
        'r:-1|10', 'flush',
        'r:-1|10', 'r:-1|20', 'flush',
        'r:+1|20', 'l:+1|2|20', 'flush', 'state']);
-- anti: the opposite; a left row with a NULL key always appears (NOT
-- EXISTS of an equality with NULL), a right row with a NULL key matches
-- nothing
SELECT * FROM exec_hash_join('anti', 'id int, k int', 'k int', 'k', 'k',
  ARRAY['l:+1|1|10', 'l:+1|2|NULL', 'flush',
        'r:+1|10', 'r:+1|NULL', 'flush',
        'r:+1|10', 'flush',
        'r:-1|10', 'flush',
        'r:-1|10', 'flush', 'state']);
SELECT l.id FROM (VALUES (1, 10), (2, NULL)) l(id, k)
 WHERE NOT EXISTS (SELECT 1 FROM (VALUES (NULL::int)) r(k) WHERE r.k = l.k) ORDER BY 1;
-- keys of several columns and expressions; keys must have one type (the
-- planner casts integers to bigint)
SELECT * FROM exec_hash_join('inner', 'a int, b text', 'x int8, y text', 'a::int8, lower(b)', 'x, y',
  ARRAY['l:+1|1|AB', 'r:+1|1|ab', 'r:+1|1|AB', 'r:+1|2|ab', 'flush', 'state']);
SELECT * FROM exec_hash_join('inner', 'a int', 'x int8', 'a', 'x', ARRAY['l:+1|1']);
-- the join caches rows per key; evicted after every epoch, every probe
-- reads its key back from the state table: the same changes in each epoch
-- (in another order: a cached key lists its rows as they came, the state
-- table in key order)
SELECT (SELECT array_agg(epoch || ' ' || line ORDER BY epoch, line) FROM exec_hash_join(
          k.kind, 'id int, k int', 'k int, v int', 'k', 'k', s.script, filter => 'r.v <> l.id')
          ) =
       (SELECT array_agg(epoch || ' ' || line ORDER BY epoch, line) FROM exec_hash_join(
          k.kind, 'id int, k int', 'k int, v int', 'k', 'k', s.script, filter => 'r.v <> l.id', evict => true)
          ) AS same_with_evict, k.kind
  FROM (VALUES ('inner'), ('left'), ('full'), ('semi'), ('anti')) k(kind),
       (SELECT ARRAY['l:+1|1|10', 'l:+1|2|10', 'r:+1|10|1', 'flush', 'r:+1|10|2', 'l:+1|3|20', 'flush',
                     'l:-1|1|10', 'r:+2|10|3', 'flush', 'r:-1|10|1', 'r:-1|10|2', 'flush',
                     'l:+1|1|10', 'r:-2|10|3', 'flush'] AS script) s;

-- =====================================================================
-- TopN (exec_top_n.c)
-- =====================================================================

-- the N-th row deleted: the next one comes in (read from the rows table);
-- rows past the limit are kept, shown rows are the emitted ones
SELECT * FROM exec_top_n('id int, v int', 'v DESC', ARRAY[
  '+1|1|5', '+1|2|7', '+1|3|6', '+1|4|1', 'flush', 'state',
  '-1|3|6', 'flush',
  '-1|2|7', '-1|1|5', 'flush', 'state',
  '+1|5|8', 'flush'], row_limit => 2, ukey => 'id');
-- ORDER BY v DESC LIMIT 2 over the rows after each epoch
SELECT id, v FROM (VALUES (1, 5), (2, 7), (4, 1)) t(id, v) ORDER BY v DESC LIMIT 2;
SELECT id, v FROM (VALUES (4, 1), (5, 8)) t(id, v) ORDER BY v DESC LIMIT 2;
-- ties without WITH TIES are broken by the unique key (here id), or the
-- row's bytes
SELECT * FROM exec_top_n('id int, v int', 'v', ARRAY['+1|2|5', '+1|1|5', '+1|3|5'], row_limit => 2, ukey => 'id');
-- WITH TIES: every row tying with the last one is shown; a new tie comes
-- in, a row below the last one pushes all ties out
SELECT * FROM exec_top_n('id int, v int', 'v', ARRAY[
  '+1|1|5', '+1|2|5', '+1|3|6', 'flush',
  '+1|4|5', 'flush',
  '+1|5|4', 'flush',
  '-1|5|4', '-1|1|5', 'flush'], row_limit => 1, with_ties => true, ukey => 'id');
SELECT id, v FROM (VALUES (1, 5), (2, 5), (3, 6), (4, 5)) t(id, v) ORDER BY v FETCH FIRST 1 ROW WITH TIES;
-- OFFSET: rows before it are skipped; copies of a row without a key are
-- shown one by one (#n)
SELECT * FROM exec_top_n('v int', 'v', ARRAY[
  '+1|1', '+2|2', '+1|3', '+1|4', 'flush', 'state',
  '-1|2', 'flush',
  '-1|1', 'flush'], row_limit => 2, row_offset => 1);
SELECT v FROM (VALUES (1), (2), (2), (3), (4)) t(v) ORDER BY v LIMIT 2 OFFSET 1;
-- OFFSET with ties: ties are of the last row shown, after the offset
SELECT * FROM exec_top_n('v int', 'v', ARRAY['+1|1', '+3|2', '+1|3'], row_limit => 1, row_offset => 1, with_ties => true);
SELECT v FROM (VALUES (1), (2), (2), (2), (3)) t(v) ORDER BY v OFFSET 1 FETCH FIRST 1 ROW WITH TIES;
-- NULLs sort last ascending and first descending, as Postgres's defaults;
-- LIMIT 0 shows nothing
SELECT * FROM exec_top_n('v int', 'v DESC', ARRAY['+1|1', '+1|NULL', '+1|3'], row_limit => 2);
SELECT * FROM exec_top_n('v int', 'v', ARRAY['+1|1', '+1|NULL', '+1|3'], row_limit => 2);
SELECT * FROM exec_top_n('v int', 'v', ARRAY['+1|1', '+1|NULL'], row_limit => 0);
-- per group with row numbers (row_number() <= 2 per partition): rows
-- whose number changes are updated
SELECT * FROM exec_top_n('g text, id int, v int', 'v DESC, id', ARRAY[
  '+1|a|1|5', '+1|a|2|7', '+1|a|3|6', '+1|b|4|1', 'flush',
  '+1|a|5|9', 'flush',
  '-1|a|2|7', 'flush', 'state'],
  row_limit => 2, partition_by => 'g', ukey => 'id', row_number => true);
SELECT * FROM (SELECT g, id, v, row_number() OVER (PARTITION BY g ORDER BY v DESC, id) AS rn
                 FROM (VALUES ('a', 1, 5), ('a', 3, 6), ('b', 4, 1), ('a', 5, 9)) t(g, id, v)) s
 WHERE rn <= 2 ORDER BY g, rn;
-- a row that moves to another group in one epoch: every delete is emitted
-- before any insert, so a downstream keyed by id never sees it twice
SELECT * FROM exec_top_n('id int, g text, v int', 'v', ARRAY[
  '+1|1|b|1', '+1|2|a|2', 'flush',
  '-1|1|b|1', '+1|1|a|0', 'flush'], row_limit => 1, partition_by => 'g', ukey => 'id');

-- the cache of each group's first rows (top_n_cache.c): LIMIT 2 keeps 4
-- copies; deletes drain it below 2 (the next flush rescans rows), a row
-- written above the cached prefix reaches the top later, a complete
-- prefix takes every new row
SELECT * FROM exec_top_n('id int, v int', 'v', ARRAY[
  '+1|1|1', '+1|2|2', '+1|3|3', '+1|4|4', '+1|5|5', '+1|6|6', 'flush',
  '-1|1|1', 'flush',
  '-1|2|2', '-1|3|3', 'flush',
  '+1|7|0', '-1|4|4', '-1|7|0', 'flush',
  '-1|5|5', '+1|8|9', 'flush'], row_limit => 2, ukey => 'id');
-- copies of a keyless row count in the cached prefix
SELECT * FROM exec_top_n('v int', 'v', ARRAY[
  '+1|5', '+3|2', 'flush', '-2|2', 'flush', '+1|1', '-1|2', 'flush', '-1|5', 'flush'],
  row_limit => 2);

-- =====================================================================
-- Union (exec_union.c)
-- =====================================================================

-- rows pass through with their sign; the union flushes once every input
-- is (the harness checks it)
SELECT * FROM exec_union('k text, v int', 3, ARRAY[
  '1:+1|a|1', '2:+1|a|1', '2:flush', '3:-1|a|1', '1:flush', '3:flush',
  '2:+1|b|2', 'flush']);

-- =====================================================================
-- Materialize (exec_materialize.c)
-- =====================================================================

-- keyed: a row per key; an update is the delete of the old row and the
-- insert of the new one
SELECT * FROM exec_materialize('k text, v int', ARRAY[
  '+1|a|1', '+1|b|2', 'flush', 'state',
  '-1|a|1', '+1|a|3', '-1|b|2', 'flush', 'state'], key => 'k');
-- a key column the view does not show (a hidden unique key)
SELECT * FROM exec_materialize('v int, id int', ARRAY['+1|7|1', '+1|7|2', 'flush', 'state'],
  key => 'id', view_columns => 1);
-- a multiset: the input is (row, count); copy i of a row is stored under
-- memcmp(row) | BE64(i), so a count going from 2 to 3 adds copy #2 and
-- from 3 to 1 deletes #1 and #2
SELECT * FROM exec_materialize('k text, v int, n int8', ARRAY[
  '+1|a|1|2', '+1|b|NULL|1', 'flush', 'state',
  '-1|a|1|2', '+1|a|1|3', 'flush', 'state',
  '-1|a|1|3', '+1|a|1|1', '-1|b|NULL|1', 'flush', 'state'], counted => true);

-- =====================================================================
-- The planner (stream_plan.c and plan_*.c): what each query becomes
-- =====================================================================

CREATE TABLE t (id int PRIMARY KEY, k text, v int);
CREATE TABLE u (id int PRIMARY KEY, k text, w int);
CREATE TABLE m (k text, v int);

SELECT * FROM plan_describe('SELECT id, v FROM t WHERE v > 1');
SELECT * FROM plan_describe('SELECT k, v FROM m');
SELECT * FROM plan_describe('SELECT k, count(*) AS c, min(v) AS lo, count(DISTINCT v) AS d FROM t GROUP BY k HAVING sum(v) > 1');
SELECT * FROM plan_describe('SELECT count(*) AS c FROM t');
SELECT * FROM plan_describe('SELECT t.id, u.w FROM t LEFT JOIN u ON t.k = u.k AND t.v < u.w');
SELECT * FROM plan_describe('SELECT u.id, t.id AS tid FROM t RIGHT JOIN u USING (k)');
SELECT * FROM plan_describe('SELECT id FROM t WHERE k IN (SELECT k FROM m) AND NOT EXISTS (SELECT 1 FROM u WHERE u.id = t.id)');
-- scalar subqueries and NOT IN become joins (plan_sublinks.c)
SELECT * FROM plan_describe('SELECT id FROM t WHERE k NOT IN (SELECT k FROM m)');
SELECT * FROM plan_describe('SELECT id, v FROM t WHERE v > (SELECT avg(w) FROM u)');
SELECT * FROM plan_describe('SELECT t.id, (SELECT count(*) FROM m WHERE m.k = t.k) AS n FROM t');
SELECT * FROM plan_describe('SELECT m.v, (SELECT u.w FROM u WHERE u.id = m.v) AS w FROM m');
-- a conjunct common to every arm of an OR is pulled out: a join key
SELECT * FROM plan_describe('SELECT t.id FROM t, u WHERE (t.id = u.id AND t.v > 1) OR (t.id = u.id AND u.w < 5)');
SELECT * FROM plan_describe('SELECT DISTINCT k FROM m');
SELECT * FROM plan_describe('SELECT k FROM t UNION SELECT k FROM u UNION ALL SELECT k FROM m');
SELECT * FROM plan_describe('SELECT id, v FROM t ORDER BY v DESC, id LIMIT 3 OFFSET 1');
-- DISTINCT ON is a Top-1 per group; ORDER BY without LIMIT orders nothing
SELECT * FROM plan_describe('SELECT DISTINCT ON (k) k, id, v FROM t ORDER BY k, v DESC NULLS LAST, id');
SELECT * FROM plan_describe('SELECT id, v FROM t ORDER BY v');
-- window functions: rank() computed again from a change to its partition's end
SELECT * FROM plan_describe('SELECT id, rank() OVER (PARTITION BY k ORDER BY v) AS r FROM t');
-- ROLLUP: an aggregation per grouping set over its own input, unioned
SELECT * FROM plan_describe('SELECT k, count(*) AS c FROM t GROUP BY ROLLUP (k)');
-- EXCEPT ALL: the copies of each row on each side, then l - r copies
SELECT * FROM plan_describe('SELECT k FROM t EXCEPT ALL SELECT k FROM u');
SELECT * FROM plan_describe($$SELECT k, id, rn FROM (SELECT k, id, row_number() OVER (PARTITION BY k ORDER BY v) AS rn FROM t) s WHERE rn <= 2$$);
SELECT * FROM plan_describe('WITH c AS (SELECT k, sum(v) AS s FROM t GROUP BY k) SELECT a.k, b.s FROM c a JOIN c b ON a.s = b.s');
-- calls the accumulators cannot take back are recomputed from kept rows
-- (their own state table), FILTER is an input column of the aggregation
SELECT * FROM plan_describe($$SELECT k, string_agg(k, ',' ORDER BY id) AS s, count(*) FILTER (WHERE v > 1) AS c FROM t GROUP BY k$$);
-- what is refused, with its SQLSTATE
SELECT q, value FROM (VALUES
  ('SELECT id FROM t WHERE (k, v) NOT IN (SELECT m.k, m.v FROM m WHERE m.v > t.v)'),
  ('SELECT id, (SELECT w FROM u LIMIT 1) AS mw FROM t'),
  ('SELECT id FROM t LIMIT 1'),
  ('SELECT now() AS n, id FROM t'),
  ('SELECT random() AS r FROM t'),
  ('SELECT x FROM generate_series(1, 2000000) x'),
  ('SELECT ctid FROM t'),
  ('SELECT a.k, s.r::text AS r FROM t a JOIN (SELECT id, ROW(k, v) AS r FROM t) s ON s.id = a.id'),
  ('SELECT id, id FROM t'),
  ('SELECT id FROM t FOR UPDATE'),
  ('SELECT now() AS t'),
  ('SELECT * FROM no_such_table'),
  ('SELECT no_such_column FROM t'),
  ('SELECT relname FROM pg_class'),
  ('INSERT INTO t VALUES (1)'),
  ('SELECT 1; SELECT 2')
) q(q), LATERAL plan_describe(q) d WHERE d.item = 'refused';
-- the planner refuses the tables it cannot capture (a temporary one); a
-- partitioned table is a source like any table
CREATE TEMP TABLE tmp (id int);
CREATE TABLE parted (id int) PARTITION BY RANGE (id);
SELECT * FROM plan_describe('SELECT id FROM tmp');
SELECT * FROM plan_describe('SELECT id FROM parted');
DROP TABLE tmp, parted;

-- =====================================================================
-- Whole plans (plan_run): the view after every epoch against Postgres
-- =====================================================================

-- epoch 0 is the backfill (the rows the tables have now), then the
-- script's epochs, fed input by input at each flush; 'view' shows the
-- view's rows, 'state' how many entries each table has; the tables are
-- left as they were
INSERT INTO t VALUES (1, 'a', 3), (2, 'b', NULL);
SELECT * FROM plan_run('SELECT k, count(*) AS c, sum(v) AS s, min(v) AS lo FROM t GROUP BY k', ARRAY[
  't: +1|3|a|1', 't: +1|4|c|5', 'flush', 'view', 'state',
  't: -1|1|a|3', 't: -1|3|a|1', 't: -1|2|b|NULL', 'flush', 'view', 'state']);
-- min/max values are kept by row over rows with a unique key (an entry
-- per row and call: two rows of one value are two entries; deleting one
-- finds the extreme again); a view recorded with its values counted (made
-- by an earlier build) is planned so again, and the counts work as before
SELECT * FROM plan_run('SELECT k, count(*) AS c, min(v) AS lo, max(v) AS hi FROM t GROUP BY k', ARRAY[
  't: +1|3|a|1', 't: +1|4|a|1', 't: +1|5|c|5', 'flush', 'view', 'state',
  't: -1|3|a|1', 't: -1|1|a|3', 't: -1|5|c|5', 't: +1|5|c|4', 'flush', 'view', 'state',
  't: -1|4|a|1', 'flush', 'view']);
SELECT * FROM plan_run('SELECT k, count(*) AS c, min(v) AS lo, max(v) AS hi FROM t GROUP BY k', ARRAY[
  't: +1|3|a|1', 't: +1|4|a|1', 't: +1|5|c|5', 'flush', 'view', 'state',
  't: -1|3|a|1', 't: -1|1|a|3', 't: -1|5|c|5', 't: +1|5|c|4', 'flush', 'view', 'state',
  't: -1|4|a|1', 'flush', 'view'],
  recorded => ARRAY['HashAgg groups', 'HashAgg min/max and DISTINCT values']);
-- an aggregate with moving-aggregate support keeps its moving state in
-- the groups' state row (reloaded after each epoch with evict), taken out
-- of by the inverse, and rebuilt from the kept rows where the inverse
-- gives up (on 1); a view recorded before such calls existed recomputes
CREATE FUNCTION public.tx_add(s int8, x int) RETURNS int8 LANGUAGE sql IMMUTABLE STRICT
  AS 'SELECT s + x';
CREATE FUNCTION public.tx_inv(s int8, x int) RETURNS int8 LANGUAGE sql IMMUTABLE STRICT
  AS 'SELECT CASE WHEN x <> 1 THEN s - x END';
CREATE AGGREGATE public.tx_sum(int) (SFUNC = tx_add, STYPE = int8, INITCOND = 0,
  MSFUNC = tx_add, MINVFUNC = tx_inv, MSTYPE = int8, MINITCOND = 0);
SELECT * FROM plan_run('SELECT k, tx_sum(v) AS s, tx_sum(v) FILTER (WHERE id > 2) AS f FROM t GROUP BY k', ARRAY[
  't: +1|3|a|1', 't: +1|4|a|7', 't: +1|5|c|5', 'flush', 'view', 'state',
  't: -1|3|a|1', 't: -1|1|a|3', 'flush', 'view', 'state',
  't: -1|4|a|7', 't: -1|5|c|5', 't: +1|5|c|2', 'flush', 'view'], evict => true);
SELECT * FROM plan_run('SELECT k, tx_sum(v) AS s FROM t GROUP BY k', ARRAY[
  't: +1|3|a|1', 'flush', 'view', 'state', 't: -1|3|a|1', 'flush', 'view'],
  recorded => ARRAY['HashAgg groups', 'HashAgg kept rows']);
DROP AGGREGATE tx_sum(int);
DROP FUNCTION tx_add(int8, int), tx_inv(int8, int);
SELECT * FROM t ORDER BY id;
-- a self-join: a change of t reaches both of its inputs
SELECT * FROM plan_run('SELECT a.id, b.id AS bid FROM t a JOIN t b ON a.k = b.k AND a.id < b.id', ARRAY[
  't: +1|3|a|0', 'flush', 'view', 't: -1|1|a|3', 't: +1|1|b|3', 'flush', 'view']);
DELETE FROM t;
-- an outer join into an aggregation: NULL-padded rows are a NULL group
SELECT * FROM plan_run('SELECT u.k, count(*) AS c, count(u.id) AS matched FROM t LEFT JOIN u ON t.k = u.k GROUP BY u.k', ARRAY[
  't: +1|1|a|1', 't: +1|2|b|1', 'u: +1|1|a|1', 'flush', 'view',
  'u: -1|1|a|1', 'u: +1|2|NULL|1', 'u: +1|3|NULL|1', 'flush', 'view', 'state']);
-- semi and anti joins from IN and NOT EXISTS, over a multiset
SELECT * FROM plan_run($$SELECT id FROM t WHERE k IN (SELECT k FROM m) AND NOT EXISTS (SELECT 1 FROM u WHERE u.k = t.k AND u.w > t.v)$$, ARRAY[
  't: +1|1|a|1', 't: +1|2|b|1', 't: +1|3|NULL|1', 'm: +2|a|0', 'm: +1|b|0', 'flush', 'view',
  'm: -1|a|0', 'u: +1|1|b|5', 'flush', 'view',
  'm: -1|a|0', 'u: -1|1|b|5', 'u: +1|1|b|0', 'flush', 'view']);
-- UNION, UNION ALL and DISTINCT: a row goes with its last copy
SELECT * FROM plan_run('SELECT k FROM t UNION SELECT k FROM m', ARRAY[
  't: +1|1|a|1', 'm: +2|a|0', 'm: +1|NULL|0', 'flush', 'view',
  't: -1|1|a|1', 'm: -1|a|0', 'flush', 'view', 'm: -1|a|0', 'flush', 'view', 'state']);
-- Top-N over an aggregation, and Top-N per group
SELECT * FROM plan_run($$SELECT k, s FROM (SELECT k, sum(v) AS s FROM t GROUP BY k) x ORDER BY s DESC, k COLLATE "C" LIMIT 2$$, ARRAY[
  't: +1|1|a|1', 't: +1|2|b|2', 't: +1|3|c|3', 'flush', 'view',
  't: +1|4|a|5', 'flush', 'view', 't: -1|4|a|5', 't: -1|3|c|3', 'flush', 'view']);
SELECT * FROM plan_run($$SELECT k, id, rn FROM (SELECT k, id, row_number() OVER (PARTITION BY k ORDER BY v DESC, id) AS rn FROM t) s WHERE rn <= 2$$, ARRAY[
  't: +1|1|a|1', 't: +1|2|a|2', 't: +1|3|a|3', 't: +1|4|b|3', 'flush', 'view',
  't: -1|3|a|3', 'flush', 'view']);
-- a constant input (a VALUES list on the preserved side of a LEFT JOIN):
-- pushed by the backfill only, its rows without a match stay
SELECT * FROM plan_run($$SELECT c.k, count(t.id) AS n FROM (VALUES ('a'), ('b'), ('z')) c(k) LEFT JOIN t ON t.k = c.k GROUP BY c.k$$, ARRAY[
  't: +1|1|a|1', 't: +1|2|b|1', 'flush', 'view', 't: -1|2|b|1', 't: +1|3|z|1', 'flush', 'view'], evict => true);
-- a LEFT JOIN to a VALUES list whose condition reads the preserved side:
-- a constant input in a new view; one recorded with the decorrelated plan
-- (an earlier build: its domain's DISTINCT, then the join) keeps that plan
SELECT * FROM plan_describe($$SELECT t.id, l.label FROM t LEFT JOIN (VALUES ('a', 'A'), ('b', 'B'), ('b', 'B2')) l(k, label) ON l.k = t.k$$);
SELECT * FROM plan_run($$SELECT t.id, l.label FROM t LEFT JOIN (VALUES ('a', 'A'), ('b', 'B'), ('b', 'B2')) l(k, label) ON l.k = t.k$$, ARRAY[
  't: +1|1|a|1', 't: +1|2|c|1', 'flush', 'view', 't: -1|2|c|1', 't: +1|2|b|1', 'flush', 'view'],
  recorded => ARRAY['DISTINCT rows', 'HashJoin left rows', 'HashJoin right rows']);
-- an order-dependent aggregate over one function, without ORDER BY, reads
-- the function's rows in its order (its ordinality), as Postgres does; a
-- view recorded before that (kept rows without the suffix) keeps its plan
SELECT * FROM plan_describe($$SELECT t.id, (SELECT string_agg(c, '') FROM regexp_split_to_table(t.k, '') c) AS back FROM t$$);
SELECT * FROM plan_run($$SELECT t.id, (SELECT string_agg(c, '') FROM regexp_split_to_table(t.k, '') c) AS back FROM t$$, ARRAY[
  't: +1|1|cba|1', 't: +1|2|ab|1', 'flush', 'view', 't: -1|1|cba|1', 't: +1|1|zaz|1', 'flush', 'view']);
SELECT * FROM plan_run($$SELECT t.id, (SELECT string_agg(c, '') FROM regexp_split_to_table(t.k, '') c) AS back FROM t$$, ARRAY[
  't: +1|1|abc|1', 'flush', 'view'],
  recorded => ARRAY['DISTINCT rows', 'HashAgg groups', 'HashAgg kept rows', 'HashJoin left rows', 'HashJoin right rows']);
-- three or more inner-joined items are joined smallest first (by the
-- tables' estimates), the order recorded in the first join's role; a view
-- recorded before (no order in its roles) joins them in FROM order
CREATE TABLE facts (id int PRIMARY KEY, k int);
CREATE TABLE dims (k int PRIMARY KEY, r int);
CREATE TABLE regions (r int PRIMARY KEY, name text);
INSERT INTO facts SELECT g, g % 20 FROM generate_series(1, 2000) g;
INSERT INTO dims SELECT g, g % 3 FROM generate_series(0, 19) g;
INSERT INTO regions VALUES (0, 'zero'), (1, 'one'), (2, 'two');
ANALYZE facts, dims, regions;
SELECT * FROM plan_describe($$SELECT f.id, r.name FROM facts f JOIN dims d ON d.k = f.k JOIN regions r ON r.r = d.r$$)
 WHERE item LIKE 'state table%' OR item LIKE 'operator%';
SELECT * FROM plan_describe($$SELECT f.id, r.name FROM facts f, regions r, dims d WHERE d.k = f.k AND r.r = d.r$$)
 WHERE item LIKE 'state table 1';
SELECT * FROM plan_run($$SELECT f.id, r.name FROM facts f JOIN dims d ON d.k = f.k JOIN regions r ON r.r = d.r WHERE f.id <= 3$$, ARRAY[
  'facts: +1|3000|1', 'regions: -1|1|one', 'regions: +1|1|uno', 'flush', 'view', 'dims: -1|1|1', 'dims: +1|1|2', 'flush', 'view']);
SELECT * FROM plan_run($$SELECT f.id, r.name FROM facts f JOIN dims d ON d.k = f.k JOIN regions r ON r.r = d.r WHERE f.id <= 3$$, ARRAY[
  'regions: -1|1|one', 'regions: +1|1|uno', 'flush', 'view'],
  recorded => ARRAY['HashJoin left rows', 'HashJoin right rows', 'HashJoin left rows', 'HashJoin right rows']);
DROP TABLE facts, dims, regions;
-- a WITH query referenced twice is planned at each reference
SELECT * FROM plan_run('WITH c AS (SELECT k, sum(v) AS s FROM t GROUP BY k) SELECT a.k, b.k AS k2 FROM c a JOIN c b ON a.s = b.s', ARRAY[
  't: +1|1|a|1', 't: +1|2|b|1', 'flush', 'view', 't: +1|3|b|1', 'flush', 'view']);
-- evict: every cache emptied after each epoch, the same view
SELECT * FROM plan_run('SELECT t.k, count(*) AS c, max(u.w) AS mw FROM t JOIN u ON t.k = u.k GROUP BY t.k', ARRAY[
  't: +1|1|a|1', 'u: +1|1|a|1', 'u: +1|2|a|7', 'flush', 't: +1|2|a|2', 'u: -1|2|a|7', 'flush',
  't: -1|1|a|1', 'flush', 'view'], evict => true);
-- the script's errors: a table the query does not read, a row the table
-- does not have, a duplicate primary key
SELECT * FROM plan_run('SELECT id FROM t', ARRAY['u: +1|1|a|1']);
SELECT * FROM plan_run('SELECT id FROM t', ARRAY['t: -1|1|a|1']);
SELECT * FROM plan_run('SELECT id FROM t', ARRAY['t: +1|1|a|1', 't: +1|1|b|2']);
SELECT count(*) AS rows_left FROM t;

-- a multiset view keeps rows that are equal but print differently apart
-- (identity tails, memcmp_key.c): both rows, each as it was written, and
-- a delete takes the copy that prints as the deleted row
CREATE TABLE n (x numeric, f float8);
SELECT * FROM plan_run('SELECT x, f FROM n', ARRAY['n: +1|1.0|-0', 'n: +1|1.00|0']);
SELECT * FROM plan_run('SELECT x, f FROM n', ARRAY['n: +1|1.0|-0', 'n: +1|1.00|0', 'n: +1|1.0|0',
  'flush', 'n: -1|1.0|-0', 'flush', 'view']);
DROP TABLE n;

-- A deterministic pseudo-random sweep: for each query, scripts of random
-- inserts and deletes of t, u and m (primary keys kept unique, deletes of
-- rows that are there, NULLs among the values), half of them with evict;
-- every check of every epoch must be ok
CREATE FUNCTION random_script(tabs text[], epochs int) RETURNS text[]
LANGUAGE plpgsql AS $$
DECLARE
  script text[] := '{}';
  live text[] := '{}';			-- 'table|row' of the rows there are
  ks text[] := ARRAY['a', 'b', 'c', 'NULL'];
  vs text[] := ARRAY['1', '2', '3', '4', '5', 'NULL'];
  tab text;
  r text;
  pos int;
  mine int[];
BEGIN
  FOR e IN 1..epochs LOOP
    FOR c IN 1..(2 + floor(random() * 12))::int LOOP
      tab := tabs[1 + floor(random() * array_length(tabs, 1))::int];
      SELECT coalesce(array_agg(o), '{}') INTO mine
        FROM unnest(live) WITH ORDINALITY AS x(row, o) WHERE row LIKE tab || '|%';
      IF random() < 0.6 OR cardinality(mine) = 0 THEN
        r := ks[1 + floor(random() * 4)::int] || '|' || vs[1 + floor(random() * 6)::int];
        IF tab <> 'm' THEN
          r := (1 + floor(random() * 8)::int) || '|' || r;
          CONTINUE WHEN EXISTS (SELECT FROM unnest(live) x
                                 WHERE x LIKE tab || '|' || split_part(r, '|', 1) || '|%');
        END IF;
        live := live || (tab || '|' || r);
        script := script || (tab || ': +1|' || r);
      ELSE
        pos := mine[1 + floor(random() * cardinality(mine))::int];
        r := substr(live[pos], length(tab) + 2);
        live := live[1:pos - 1] || live[pos + 1:];
        script := script || (tab || ': -1|' || r);
      END IF;
    END LOOP;
    script := script || 'flush'::text;
  END LOOP;
  RETURN script;
END $$;
CREATE TABLE sweep (n int, query text, tabs text[], rep int, script text[]);
SELECT setseed(0.25);
INSERT INTO sweep
SELECT n, query, tabs, rep, random_script(tabs, 6)
  FROM (VALUES
    (1, 'SELECT k, count(*) AS c, sum(v) AS s, min(v) AS lo, max(v) AS hi, avg(v) AS a FROM t GROUP BY k', '{t}'::text[]),
    (2, 'SELECT k, count(DISTINCT v) AS c, sum(DISTINCT v) AS s FROM m GROUP BY k', '{m}'),
    (3, 'SELECT count(*) AS c, max(v) AS mv, bool_and(v > 2) AS ba, bool_or(v > 4) AS bo FROM t', '{t}'),
    (4, 'SELECT k, count(*) AS c FROM m GROUP BY k HAVING sum(v) > 3', '{m}'),
    (5, 'SELECT t.id, t.k, u.w FROM t JOIN u ON t.k = u.k', '{t,u}'),
    (6, 'SELECT t.id, u.id AS uid FROM t LEFT JOIN u ON t.k = u.k', '{t,u}'),
    (7, 'SELECT t.id, u.id AS uid FROM t RIGHT JOIN u ON t.k = u.k AND t.v < u.w', '{t,u}'),
    (8, 'SELECT t.id, u.id AS uid, t.v, u.w FROM t FULL JOIN u ON t.k = u.k', '{t,u}'),
    (9, 'SELECT t.id, u.id AS uid FROM t FULL JOIN u ON t.k = u.k AND t.v <= u.w', '{t,u}'),
    (10, 'SELECT id FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.k = t.k AND u.w <> t.v)', '{t,u}'),
    (11, 'SELECT id FROM t WHERE k IN (SELECT k FROM m)', '{t,m}'),
    (12, 'SELECT id FROM t WHERE NOT EXISTS (SELECT 1 FROM m WHERE m.k = t.k)', '{t,m}'),
    (13, 'SELECT k, v FROM m', '{m}'),
    (14, 'SELECT DISTINCT k FROM m', '{m}'),
    (15, 'SELECT k, v FROM m UNION ALL SELECT k, w FROM u', '{m,u}'),
    (16, 'SELECT k FROM t UNION SELECT k FROM m', '{t,m}'),
    (17, 'SELECT id, v FROM t ORDER BY v DESC, id LIMIT 3', '{t}'),
    (18, 'SELECT id, v FROM t ORDER BY v, id LIMIT 2 OFFSET 1', '{t}'),
    (19, 'SELECT v FROM t ORDER BY v FETCH FIRST 2 ROWS WITH TIES', '{t}'),
    (20, 'SELECT k, v FROM m ORDER BY v, k COLLATE "C" LIMIT 3', '{m}'),
    (21, 'SELECT k, id, rn FROM (SELECT k, id, row_number() OVER (PARTITION BY k ORDER BY v DESC, id) AS rn FROM t) s WHERE rn <= 2', '{t}'),
    (22, 'SELECT k, s FROM (SELECT k, sum(v) AS s FROM t GROUP BY k) x ORDER BY s DESC, k COLLATE "C" LIMIT 2', '{t}'),
    (23, 'SELECT m.k, count(*) AS c FROM m JOIN t ON m.k = t.k GROUP BY m.k', '{m,t}'),
    (24, 'SELECT a.id, b.id AS bid FROM t a JOIN t b ON a.k = b.k AND a.id < b.id', '{t}'),
    (25, 'SELECT t.k, u.w, m.v FROM t JOIN u ON t.k = u.k LEFT JOIN m ON m.v = u.w', '{t,u,m}'),
    (26, 'SELECT k, count(*) AS c FROM (SELECT k FROM t UNION ALL SELECT k FROM u) x GROUP BY k', '{t,u}'),
    (27, 'SELECT x.k, x.c, y.w FROM (SELECT k, count(*) AS c FROM t GROUP BY k) x LEFT JOIN u y ON x.c = y.w', '{t,u}'),
    (28, 'SELECT DISTINCT t.k, u.w FROM t, u WHERE t.v < u.w', '{t,u}'),
    (29, 'SELECT t.k, count(u.id) AS c, sum(u.w) AS s FROM t LEFT JOIN u ON t.k = u.k GROUP BY t.k', '{t,u}'),
    (30, 'SELECT t.id, u.id AS uid, m.v FROM t FULL JOIN u ON t.k = u.k FULL JOIN m ON m.k = u.k', '{t,u,m}')
  ) q(n, query, tabs), generate_series(1, 4) rep
 ORDER BY n, rep;
SELECT n, count(*) FILTER (WHERE line LIKE 'check: ok%') AS checks_ok,
       count(*) FILTER (WHERE line NOT LIKE 'check: ok%') AS other_lines,
       sum(substring(line FROM '\((\d+) rows?\)')::int) AS view_rows_checked
  FROM sweep, LATERAL plan_run(query, script, evict => rep % 2 = 0)
 GROUP BY n ORDER BY n;

DROP TABLE sweep;
DROP FUNCTION random_script(text[], int);
DROP TABLE t, u, m;
DROP EXTENSION hummock_stream_test;
DROP EXTENSION hummock_stream;
