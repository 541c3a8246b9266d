-- The library of view definitions the differential tests maintain: one
-- line per view, "name|definition".  Every supported construct and its
-- edge cases over diff_t (primary key, NULLs in every column) and diff_np
-- (no primary key, duplicate rows).  Later issues add lines here.
v_count_all|SELECT count(*) AS n FROM diff_t
v_group_stats|SELECT grp, count(*) AS n, count(val) AS nv, sum(val) AS s, avg(val) AS a FROM diff_t GROUP BY grp
v_minmax|SELECT grp, min(val) AS lo, max(val) AS hi FROM diff_t GROUP BY grp
v_minmax_text|SELECT grp, min(note COLLATE "C") AS lo, max(note COLLATE "C") AS hi FROM diff_t GROUP BY grp
v_filter|SELECT id, grp, val FROM diff_t WHERE val > 10 AND flag
v_project_expr|SELECT id, val * 2 + 1 AS v2, upper(note) AS n, coalesce(amount, 0) AS amt FROM diff_t
v_having|SELECT grp, sum(amount) AS total, count(*) AS n FROM diff_t GROUP BY grp HAVING count(*) > 3
v_bool|SELECT grp, bool_and(flag) AS all_f, bool_or(flag) AS any_f, every(val > 0) AS pos FROM diff_t GROUP BY grp
v_distinct|SELECT DISTINCT grp, flag FROM diff_t
v_distinct_expr|SELECT DISTINCT val % 5 AS m FROM diff_t
v_nopk|SELECT grp, val FROM diff_np
v_nopk_filter|SELECT val FROM diff_np WHERE grp < 6
v_nopk_agg|SELECT grp, count(*) AS n, sum(val) AS s, min(val) AS lo, max(val) AS hi FROM diff_np GROUP BY grp
v_group_expr|SELECT val % 3 AS k, count(*) AS n, max(amount) AS m FROM diff_t GROUP BY val % 3
v_group_multi|SELECT grp, flag, count(*) AS n, min(ts) AS first_ts, max(ts) AS last_ts FROM diff_t GROUP BY grp, flag
v_global|SELECT sum(val) AS s, min(val) AS lo, max(amount) AS hi, avg(amount) AS a, count(note) AS nn FROM diff_t
v_hidden_key|SELECT count(*) AS n, sum(amount) AS s FROM diff_t GROUP BY grp
v_moving_filter|SELECT id, note FROM diff_t WHERE grp = 3
v_distinct_agg|SELECT DISTINCT count(*) AS n FROM diff_t GROUP BY grp
v_null_groups|SELECT amount IS NULL AS no_amount, flag, count(*) AS n, sum(val) AS s FROM diff_t GROUP BY 1, 2
v_case_group|SELECT CASE WHEN val < 0 THEN 'neg' WHEN val > 0 THEN 'pos' END AS sign, count(*) AS n, avg(amount) AS a FROM diff_t GROUP BY 1
-- Joins, semi/anti joins, UNION, subqueries and WITH, over diff_t (the
-- fact: grp and val are join keys, both nullable), diff_d (a dimension:
-- id is its primary key, code a non-unique join key, rows deleted and
-- re-inserted), diff_r (regions), diff_np (no primary key) and diff_mk
-- (two-column primary key).
v_j_inner|SELECT t.id, t.val, d.name FROM diff_t t JOIN diff_d d ON d.id = t.grp
v_j_left|SELECT t.id, d.name, d.region FROM diff_t t LEFT JOIN diff_d d ON d.id = t.grp
v_j_right|SELECT d.id AS did, t.id AS tid FROM diff_t t RIGHT JOIN diff_d d ON d.id = t.grp
v_j_full|SELECT d.id AS did, t.id AS tid, t.val FROM diff_t t FULL JOIN diff_d d ON d.id = t.grp
v_j_code|SELECT t.id, d.id AS did FROM diff_t t JOIN diff_d d ON d.code = t.val
v_j_code_left|SELECT d.id, d.code, t.id AS tid FROM diff_d d LEFT JOIN diff_t t ON t.val = d.code
v_j_left_agg|SELECT d.region, count(*) AS n, count(t.id) AS nt, sum(t.val) AS s FROM diff_d d LEFT JOIN diff_t t ON t.grp = d.id GROUP BY d.region
v_j_fact_dim_agg|SELECT d.name, count(*) AS n, sum(t.amount) AS total, max(t.val) AS hi, min(t.val) AS lo FROM diff_t t LEFT JOIN diff_d d ON d.id = t.grp GROUP BY d.name
v_j_right_agg|SELECT d.name, count(t.id) AS n, avg(t.amount) AS a FROM diff_t t RIGHT JOIN diff_d d ON d.id = t.grp GROUP BY d.name
v_j_full_agg|SELECT coalesce(d.region, -1) AS r, count(*) AS n, sum(t.val) AS s FROM diff_t t FULL JOIN diff_d d ON d.id = t.grp GROUP BY 1
v_j_3way|SELECT t.id, d.name, r.rname FROM diff_t t JOIN diff_d d ON d.id = t.grp JOIN diff_r r ON r.region = d.region
v_j_3way_left|SELECT t.id, d.name, r.rname FROM diff_t t LEFT JOIN diff_d d ON d.id = t.grp LEFT JOIN diff_r r ON r.region = d.region
v_j_4way|SELECT t.id, d.name, r.rname, np.val AS npval FROM diff_t t JOIN diff_d d ON d.id = t.grp JOIN diff_r r ON r.region = d.region JOIN diff_np np ON np.grp = r.region
v_j_4way_agg|SELECT r.rname, count(*) AS n, sum(np.val) AS s FROM diff_t t JOIN diff_d d ON d.id = t.grp JOIN diff_r r ON r.region = d.region LEFT JOIN diff_np np ON np.grp = t.grp GROUP BY r.rname
v_j_self|SELECT a.id, b.id AS other FROM diff_t a JOIN diff_t b ON a.grp = b.grp AND a.id < b.id
v_j_nullable|SELECT t.id, np.val FROM diff_t t JOIN diff_np np ON np.val = t.val
v_j_multicol|SELECT t.id, m.w FROM diff_t t JOIN diff_mk m ON m.a = t.grp AND m.b = t.val % 3
v_j_multicol_full|SELECT t.id, m.a, m.b, m.w FROM diff_t t FULL JOIN diff_mk m ON m.a = t.grp AND m.b = t.val % 3
v_j_comma|SELECT t.id, d.name FROM diff_t t, diff_d d WHERE t.grp = d.id AND d.active
v_j_on_filter|SELECT t.id, d.name FROM diff_t t LEFT JOIN diff_d d ON d.id = t.grp AND d.active AND t.val > 0
v_j_nonequi|SELECT d.id, count(t.id) AS n FROM diff_d d LEFT JOIN diff_t t ON t.grp = d.id AND t.val > d.code GROUP BY d.id
v_j_cross|SELECT r.rname, count(*) AS n FROM diff_r r, diff_d d WHERE d.region <> r.region GROUP BY r.rname
v_j_using|SELECT id, t.val, d.name FROM diff_t t JOIN diff_d d USING (id)
v_j_full_using|SELECT id, t.val, d.name FROM diff_t t FULL JOIN diff_d d USING (id)
v_j_distinct|SELECT DISTINCT d.region, t.flag FROM diff_t t JOIN diff_d d ON d.id = t.grp
v_semi_exists|SELECT d.id, d.name FROM diff_d d WHERE EXISTS (SELECT 1 FROM diff_t t WHERE t.grp = d.id AND t.flag)
v_anti_not_exists|SELECT d.id, d.name FROM diff_d d WHERE NOT EXISTS (SELECT 1 FROM diff_t t WHERE t.grp = d.id)
v_semi_in|SELECT id, val FROM diff_t WHERE grp IN (SELECT id FROM diff_d WHERE active)
v_semi_np|SELECT grp, val FROM diff_np WHERE EXISTS (SELECT 1 FROM diff_t t WHERE t.val = diff_np.val)
v_union_all|SELECT grp, val FROM diff_t UNION ALL SELECT grp, val FROM diff_np
v_union|SELECT grp FROM diff_t UNION SELECT grp FROM diff_np
v_union_agg|SELECT k, count(*) AS n FROM (SELECT grp AS k FROM diff_t UNION ALL SELECT code FROM diff_d) u GROUP BY k
v_subq_agg|SELECT s.region, sum(s.n) AS total, max(s.n) AS biggest FROM (SELECT d.region, d.id, count(*) AS n FROM diff_t t JOIN diff_d d ON d.id = t.grp GROUP BY d.region, d.id) s GROUP BY s.region
v_cte_join|WITH g AS (SELECT grp, sum(val) AS s, count(*) AS n FROM diff_t GROUP BY grp) SELECT d.name, g.s, g.n FROM diff_d d LEFT JOIN g ON g.grp = d.id
v_cte_twice|WITH a AS (SELECT grp, val FROM diff_t WHERE val > 0) SELECT x.grp, count(*) AS n FROM a x JOIN a y ON x.grp = y.grp GROUP BY x.grp
-- DISTINCT aggregates and Top-N (ties and the N-th row deleted happen
-- under the random workload; ORDER BY keys are unique or WITH TIES).
v_count_distinct|SELECT grp, count(DISTINCT val) AS nd, sum(DISTINCT val) AS sd, avg(DISTINCT amount) AS ad, count(*) AS n FROM diff_t GROUP BY grp
v_count_distinct_join|SELECT d.region, count(DISTINCT t.grp) AS ng, count(*) AS n FROM diff_t t JOIN diff_d d ON d.id = t.grp GROUP BY d.region
v_top|SELECT id, val FROM diff_t ORDER BY val DESC, id LIMIT 5
v_top_ties|SELECT id, grp FROM diff_t ORDER BY grp FETCH FIRST 3 ROWS WITH TIES
v_top_offset|SELECT id, amount FROM diff_t WHERE amount IS NOT NULL ORDER BY amount, id LIMIT 4 OFFSET 2
v_top_agg|SELECT grp, sum(val) AS s FROM diff_t GROUP BY grp ORDER BY sum(val) DESC, grp LIMIT 3
v_top_nopk|SELECT grp, val FROM diff_np ORDER BY val, grp LIMIT 5
v_group_top|SELECT grp, id, val, rn FROM (SELECT grp, id, val, row_number() OVER (PARTITION BY grp ORDER BY val DESC, id) AS rn FROM diff_t) s WHERE rn <= 2
v_top_collated|SELECT id, note FROM diff_t ORDER BY note COLLATE "en-x-icu" DESC NULLS LAST, id LIMIT 6
v_group_top_collated|SELECT grp, id, note FROM (SELECT grp, id, note, row_number() OVER (PARTITION BY grp ORDER BY note COLLATE "und-x-icu", id) AS rn FROM diff_t) s WHERE rn <= 2
v_srf_grouped|SELECT regexp_split_to_table(note, '') AS ch, count(*) AS n, sum(val) AS s FROM diff_t GROUP BY 1
v_srf_after_groups|SELECT grp, generate_series(1, least(count(*), 3)::int) AS k, sum(val) AS s FROM diff_t GROUP BY grp
v_on_subquery|SELECT d.id, t.id AS tid FROM diff_d d LEFT JOIN diff_t t ON t.grp = d.id AND t.val > (SELECT avg(val) FROM diff_t) JOIN diff_r r ON r.region = d.region AND r.region IN (SELECT region FROM diff_d WHERE active)
v_group_top_join|SELECT name, id FROM (SELECT d.name, t.id, row_number() OVER (PARTITION BY d.name ORDER BY t.id) AS rn FROM diff_t t JOIN diff_d d ON d.id = t.grp) s WHERE rn = 1
-- Special values in sums, averages and extremes over diff_f: NaN,
-- +Infinity, -Infinity, -0 and NULL among finite multiples of 1/4 (whose
-- float sums are exact in any order), inserted, updated and deleted.
v_f_sums|SELECT grp, count(*) AS n, count(f8) AS nf, sum(f8) AS s8, avg(f8) AS a8, sum(f4) AS s4, avg(f4) AS a4, sum(n) AS sn, avg(n) AS an FROM diff_f GROUP BY grp
v_f_minmax|SELECT grp, min(f8) AS lo8, max(f8) AS hi8, min(f4) AS lo4, max(f4) AS hi4, min(n) AS lon, max(n) AS hin FROM diff_f GROUP BY grp
v_f_global|SELECT count(f4) AS n, sum(f8) AS s8, avg(f4) AS a4, sum(n) AS sn, avg(n) AS an, max(f8) AS hi, min(n) AS lo FROM diff_f
v_f_distinct|SELECT grp, sum(DISTINCT f8) AS sd, count(DISTINCT n) AS cd, avg(DISTINCT f4) AS ad FROM diff_f GROUP BY grp
v_f_finite|SELECT grp, sum(f8) AS s8, avg(n) AS an FROM diff_f WHERE f8 IS NULL OR f8 NOT IN (float8 'NaN', float8 'Infinity', float8 '-Infinity') GROUP BY grp
-- Any aggregate: calls the accumulators cannot take back are recomputed
-- from each group's kept rows by Postgres (array_agg, string_agg, numeric
-- statistics, ordered-set aggregates, bit aggregates, DISTINCT and ORDER
-- BY inside them, min/max under a linguistic collation); FILTER on every
-- kind of call; groups emptied and refilled by the workload.
va_array|SELECT grp, array_agg(val ORDER BY val NULLS FIRST, id) AS vals, array_agg(DISTINCT flag) AS flags FROM diff_t GROUP BY grp
va_string|SELECT grp, string_agg(note, ',' ORDER BY note COLLATE "C", id) AS notes, count(*) FILTER (WHERE flag) AS nflag FROM diff_t GROUP BY grp
va_stats|SELECT grp, stddev_samp(val) AS sd, var_pop(amount) AS vp, regr_count(val, amount) AS rc FROM diff_t GROUP BY grp
va_ordered_set|SELECT grp, percentile_cont(0.5) WITHIN GROUP (ORDER BY val) AS med, percentile_disc(0.9) WITHIN GROUP (ORDER BY amount) AS p90, mode() WITHIN GROUP (ORDER BY val) AS mo FROM diff_t GROUP BY grp
va_bits|SELECT grp, bit_and(val) AS ba, bit_or(val) AS bo, bit_xor(val) AS bx FROM diff_t GROUP BY grp
va_filter_mix|SELECT grp, sum(val) FILTER (WHERE flag) AS s, min(val) FILTER (WHERE val > 0) AS lo, count(DISTINCT val) FILTER (WHERE amount IS NOT NULL) AS nd, array_agg(id ORDER BY id) FILTER (WHERE val % 2 = 0) AS even_ids FROM diff_t GROUP BY grp
va_global|SELECT array_agg(id ORDER BY id) AS ids, string_agg(DISTINCT note, '|' ORDER BY note) AS notes, count(*) FILTER (WHERE val < 0) AS neg FROM diff_t WHERE grp = 2
va_collation|SELECT flag, min(note COLLATE "en-x-icu") AS lo, max(note COLLATE "en-x-icu") AS hi FROM diff_t GROUP BY flag
va_nopk|SELECT grp, array_agg(val ORDER BY val) AS vals, sum(val) FILTER (WHERE val > 0) AS pos FROM diff_np GROUP BY grp
va_having|SELECT grp, string_agg(id::text, ',' ORDER BY id) AS ids FROM diff_t GROUP BY grp HAVING count(*) FILTER (WHERE flag) > 1
va_join|SELECT d.name, array_agg(t.id ORDER BY t.id) AS ids, avg(t.val) FILTER (WHERE t.flag) AS af FROM diff_t t JOIN diff_d d ON d.id = t.grp GROUP BY d.name
-- Set operations (INTERSECT and EXCEPT with and without ALL), DISTINCT
-- ON, NULLS FIRST/LAST in Top-N, a FULL JOIN of aggregates whose group
-- keys are NULL on both sides, a Postgres view as a source (diff_t_pos,
-- created by the test), settings-dependent STABLE functions.
vs_intersect|SELECT grp, val FROM diff_t INTERSECT SELECT grp, val FROM diff_np
vs_intersect_all|SELECT val FROM diff_np INTERSECT ALL SELECT val % 4 FROM diff_t
vs_except|SELECT grp FROM diff_t EXCEPT SELECT code FROM diff_d
vs_except_all|SELECT grp, val FROM diff_np EXCEPT ALL SELECT grp, val FROM diff_t
vs_distinct_on|SELECT DISTINCT ON (grp) grp, id, val FROM diff_t ORDER BY grp, val DESC NULLS LAST, id
vs_nulls_first|SELECT id, val FROM diff_t ORDER BY val NULLS FIRST, id LIMIT 6
vs_full_null_keys|SELECT coalesce(a.k, b.k) AS k, a.n AS an, b.n AS bn FROM (SELECT grp AS k, count(*) AS n FROM diff_t GROUP BY grp) a FULL JOIN (SELECT region AS k, count(*) AS n FROM diff_d GROUP BY region) b ON a.k = b.k
vs_pg_view|SELECT grp, count(*) AS n, sum(val) AS s FROM diff_t_pos GROUP BY grp
vs_stable|SELECT id, ts::text AS t, date_trunc('day', ts) AS day, to_char(amount, 'FM9999D00') AS amt FROM diff_t
vs_days|SELECT date_trunc('day', ts) AS day, count(*) AS n, jsonb_agg(id ORDER BY id) AS ids FROM diff_t GROUP BY 1
vs_rollup|SELECT grp, flag, count(*) AS n, sum(val) AS s, GROUPING(grp, flag) AS g FROM diff_t GROUP BY ROLLUP (grp, flag)
vs_cube_having|SELECT flag, val % 3 AS m, count(*) AS n FROM diff_t GROUP BY CUBE (flag, val % 3) HAVING count(*) > 1
vs_win_rank|SELECT id, grp, rank() OVER w AS r, dense_rank() OVER w AS dr, lag(val) OVER (PARTITION BY grp ORDER BY val NULLS FIRST, id) AS prev FROM diff_t WINDOW w AS (PARTITION BY grp ORDER BY val NULLS FIRST)
vs_win_running|SELECT id, flag, sum(val) OVER (PARTITION BY flag ORDER BY id) AS running, count(*) OVER (PARTITION BY flag) AS n, avg(amount) OVER (PARTITION BY flag ORDER BY id ROWS BETWEEN 3 PRECEDING AND 1 FOLLOWING) AS moving FROM diff_t
vs_win_agg|SELECT grp, count(*) AS n, rank() OVER (ORDER BY count(*) DESC, grp) AS r, sum(count(*)) OVER () AS total FROM diff_t GROUP BY grp
-- windows computed again only around each change (lag/lead by constants,
-- ROWS frames with constant offsets); over diff_np rows tie only with
-- identical rows
vs_win_lag_ranged|SELECT id, grp, lag(val) OVER w AS prev, lead(amount, 2) OVER w AS next2, avg(val) OVER (PARTITION BY grp ORDER BY id ROWS BETWEEN 2 PRECEDING AND 1 FOLLOWING) AS moving FROM diff_t WINDOW w AS (PARTITION BY grp ORDER BY id)
vs_win_global_ranged|SELECT id, first_value(val) OVER (ORDER BY id ROWS BETWEEN 3 PRECEDING AND CURRENT ROW) AS f, sum(amount) OVER (ORDER BY id ROWS BETWEEN 1 FOLLOWING AND 2 FOLLOWING) AS ahead FROM diff_t
vs_win_desc_ranged|SELECT id, val, lead(id) OVER (ORDER BY val DESC NULLS LAST, id) AS nxt, lag(note, 2) OVER (ORDER BY val DESC NULLS LAST, id) AS note2 FROM diff_t
vs_win_np_ranged|SELECT grp, val, lag(val) OVER (PARTITION BY grp ORDER BY val NULLS FIRST) AS p, count(val) OVER (PARTITION BY grp ORDER BY val NULLS FIRST ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) AS c FROM diff_np
vs_win_prefix_ranged|SELECT id, grp, row_number() OVER w AS rn, sum(amount) OVER w AS running, max(val) OVER w AS top, lag(val) OVER w AS prev FROM diff_t WINDOW w AS (PARTITION BY grp ORDER BY id)
vs_win_rank_ranged|SELECT id, grp, val, rank() OVER w AS r, dense_rank() OVER w AS dr, count(*) OVER w AS n, min(note) OVER w AS lo FROM diff_t WINDOW w AS (PARTITION BY grp ORDER BY val DESC NULLS FIRST)
vs_win_np_prefix|SELECT grp, val, rank() OVER (PARTITION BY grp ORDER BY val) AS r, sum(val) OVER (PARTITION BY grp ORDER BY val ROWS UNBOUNDED PRECEDING) AS s FROM diff_np
vs_win_range_ranged|SELECT id, val, sum(amount) OVER (ORDER BY val NULLS FIRST RANGE BETWEEN 3 PRECEDING AND 1 FOLLOWING) AS near, count(*) OVER (ORDER BY val NULLS FIRST RANGE BETWEEN CURRENT ROW AND 2 FOLLOWING) AS above FROM diff_t
vs_srf_series|SELECT id, generate_series(1, grp % 4) AS i, grp FROM diff_t
vs_srf_split|SELECT id, regexp_split_to_table(note, '') AS ch, unnest(ARRAY[val, val * 2]) AS twice FROM diff_t
vs_from_series|SELECT t.id, g, d.name FROM diff_t t JOIN diff_d d ON d.id = t.grp, generate_series(1, t.grp % 3) WITH ORDINALITY AS s(g, n) WHERE n < 3
vs_from_split|SELECT t.id, c.ch, c.pos FROM diff_t t LEFT JOIN LATERAL regexp_split_to_table(t.note, '') WITH ORDINALITY AS c(ch, pos) ON true
vs_from_counts|SELECT ch, count(*) AS n FROM diff_t CROSS JOIN LATERAL unnest(string_to_array(note, NULL)) AS ch GROUP BY ch
vs_from_kv|SELECT t.id, e.key, e.value FROM diff_t t, jsonb_each_text(jsonb_build_object('v', t.val, 'g', t.grp, 'n', t.note)) AS e WHERE e.value IS NOT NULL
vs_from_zip|SELECT t.id, r.a, r.b, r.o FROM diff_t t, ROWS FROM (generate_series(1, t.grp % 3), unnest(ARRAY[t.val, t.grp])) WITH ORDINALITY AS r(a, b, o)
vs_from_values|SELECT t.id, v.label, v.w * t.val AS weighted FROM diff_t t JOIN (VALUES (1, 'one', 10), (2, 'two', NULL), (3, 'three', 30)) AS v(g, label, w) ON v.g = t.grp
vs_from_recordset|SELECT t.id, r.k, r.w FROM diff_t t, jsonb_to_recordset(jsonb_build_array(jsonb_build_object('k', t.grp, 'w', t.val), jsonb_build_object('k', t.id % 5))) AS r(k int, w int) WHERE r.k IS NOT NULL
vs_sq_above_avg|SELECT id, val FROM diff_t WHERE val > (SELECT avg(val) FROM diff_t)
vs_sq_share|SELECT grp, sum(amount) AS s, sum(amount) * 100 / nullif((SELECT sum(amount) FROM diff_t), 0) AS pct FROM diff_t GROUP BY grp
vs_sq_corr_max|SELECT t.id, t.grp, t.val FROM diff_t t WHERE t.val = (SELECT max(i.val) FROM diff_t i WHERE i.grp = t.grp)
vs_sq_corr_count|SELECT d.id, (SELECT count(*) FROM diff_t t WHERE t.grp = d.id) AS n, (SELECT sum(t.val) FROM diff_t t WHERE t.grp = d.id AND t.flag) AS s FROM diff_d d
vs_sq_lookup|SELECT t.id, (SELECT d.name FROM diff_d d WHERE d.id = t.grp) AS name FROM diff_t t
vs_sq_not_in|SELECT id FROM diff_t WHERE val NOT IN (SELECT code FROM diff_d)
vs_sq_not_in_corr|SELECT d.id, d.name FROM diff_d d WHERE d.code NOT IN (SELECT t.val FROM diff_t t WHERE t.grp = d.id AND t.flag)
vs_sq_not_in_np|SELECT d.id FROM diff_d d WHERE d.code NOT IN (SELECT val FROM diff_np)
vs_sq_or_factor|SELECT t.id, d.name FROM diff_t t, diff_d d WHERE (t.grp = d.id AND t.val > 5) OR (t.grp = d.id AND d.active)
-- Views over views (each line reads views defined above it): chains of
-- aggregates over joins, diamonds, Top-N over an aggregate view, a view
-- over a view and a table joined, self-joins of a view, DISTINCT and
-- multiset upstreams; upstream rows deleted and inserted again and
-- upstream key updates come from the workload.
vv_stats_filter|SELECT grp, n, s FROM v_group_stats WHERE n > 2
vv_stats_agg|SELECT n % 4 AS k, count(*) AS groups, sum(s) AS s FROM v_group_stats GROUP BY n % 4
vv_stats_top|SELECT grp, s FROM v_group_stats WHERE s IS NOT NULL ORDER BY s DESC, grp LIMIT 3
vv_chain3|SELECT k, groups FROM vv_stats_agg WHERE groups > 1
vv_minmax_join|SELECT m.grp, m.lo, m.hi, d.name FROM v_minmax m JOIN diff_d d ON d.id = m.grp
vv_fact_dim_top|SELECT name, total FROM v_j_fact_dim_agg WHERE total IS NOT NULL ORDER BY total DESC, name LIMIT 2
vv_join_agg|SELECT name, count(*) AS n, max(val) AS hi FROM v_j_inner GROUP BY name
vv_join_agg_chain|SELECT hi, count(*) AS names FROM vv_join_agg GROUP BY hi
vv_diamond|SELECT a.grp, a.n, b.hi FROM vv_stats_filter a JOIN v_minmax b ON b.grp = a.grp
vv_diamond2|SELECT x.grp, x.s, y.lo FROM vv_stats_filter x LEFT JOIN vv_minmax_join y ON y.grp = x.grp
vv_self|SELECT a.grp AS g1, b.grp AS g2 FROM v_group_stats a JOIN v_group_stats b ON a.n = b.n AND a.grp < b.grp
vv_distinct_of|SELECT DISTINCT flag FROM v_distinct
vv_nopk_agg|SELECT grp, count(*) AS copies, sum(val) AS s FROM v_nopk GROUP BY grp
vv_nopk_join|SELECT a.grp, a.n, b.copies FROM v_nopk_agg a JOIN vv_nopk_agg b USING (grp)
vv_union|SELECT grp FROM vv_stats_filter UNION SELECT grp FROM v_minmax WHERE hi > 20
vv_top_of_top|SELECT id, val FROM v_top WHERE val > 0 ORDER BY id LIMIT 3
vv_count_distinct|SELECT count(DISTINCT n) AS nd, count(*) AS groups FROM v_group_stats
vv_exists|SELECT d.id FROM diff_d d WHERE EXISTS (SELECT 1 FROM vv_stats_filter f WHERE f.grp = d.id)
vv_array_len|SELECT grp, cardinality(vals) AS n, flags FROM va_array
-- Windows over different PARTITION BY lists (one OverWindow each,
-- stacked), IS NOT DISTINCT FROM join keys (NULL matches NULL), and a
-- chain of outer joins (consolidated between the joins)
vs_win_mixed|SELECT id, grp, rank() OVER (PARTITION BY grp ORDER BY val NULLS FIRST, id) AS in_grp, sum(val) OVER (PARTITION BY flag) AS by_flag, count(*) OVER () AS n FROM diff_t
vs_j_not_distinct|SELECT t.id, d.id AS did FROM diff_t t JOIN diff_d d ON d.code IS NOT DISTINCT FROM t.val
vs_j_not_distinct_left|SELECT d.id, t.id AS tid FROM diff_d d LEFT JOIN diff_t t ON t.val IS NOT DISTINCT FROM d.code AND t.grp = d.region
vs_j_outer_chain|SELECT t.id, d.id AS did, r.region AS rid, m.w FROM diff_t t LEFT JOIN diff_d d ON d.id = t.grp FULL JOIN diff_r r ON r.region = d.region LEFT JOIN diff_mk m ON m.a = t.grp AND m.b = r.region
-- LATERAL subqueries decorrelated into joins: a Top-N per outer row, an
-- aggregation without GROUP BY (count 0 where none), GROUP BY inside
vs_lat_top|SELECT d.id, x.id AS tid, x.val FROM diff_d d CROSS JOIN LATERAL (SELECT id, val FROM diff_t WHERE grp = d.id ORDER BY val, id LIMIT 2) x
vs_lat_agg|SELECT d.id, s.n, s.total FROM diff_d d LEFT JOIN LATERAL (SELECT count(*) AS n, sum(amount) AS total FROM diff_t t WHERE t.grp = d.id) s ON true
vs_lat_group|SELECT d.id, g.flag, g.n FROM diff_d d, LATERAL (SELECT flag, count(*) AS n FROM diff_t WHERE grp = d.code GROUP BY flag) g
vs_lat_offset|SELECT d.id, x.id AS tid FROM diff_d d, LATERAL (SELECT id FROM diff_t WHERE grp = d.id ORDER BY id DESC LIMIT 3 OFFSET 1) x
-- Correlated otherwise than by equalities: through the domain (the
-- distinct values of the outer columns read), joined back on them with
-- IS NOT DISTINCT FROM (region is NULL for some rows of diff_d)
vs_sq_domain|SELECT d.id, (SELECT count(*) FROM diff_t t WHERE t.grp < d.code AND t.val > coalesce(d.region, 0)) AS n, (SELECT coalesce(max(t.amount), -d.id) FROM diff_t t WHERE t.grp = d.id AND t.val < d.code * 10) AS top FROM diff_d d
vs_lat_domain|SELECT d.id, x.id AS tid FROM diff_d d, LATERAL (SELECT t.id FROM diff_t t WHERE t.grp > d.id AND t.val IS NOT DISTINCT FROM d.region ORDER BY t.val, t.id LIMIT 2) x
vs_lat_domain_agg|SELECT d.id, s.n, s.low FROM diff_d d, LATERAL (SELECT count(*) AS n, min(t.val) + d.code AS low FROM diff_t t WHERE t.grp <= d.region) s
vs_sq_not_in_domain|SELECT d.id FROM diff_d d WHERE d.code NOT IN (SELECT t.val FROM diff_t t WHERE t.grp > d.id AND t.flag)
vs_lat_distinct_on|SELECT d.id, x.grp, x.tid FROM diff_d d, LATERAL (SELECT DISTINCT ON (t.grp) t.grp, t.id AS tid FROM diff_t t WHERE t.val > d.code ORDER BY t.grp, t.val DESC, t.id) x
vs_lat_agg_on|SELECT d.id, s.n, s.top FROM diff_d d LEFT JOIN LATERAL (SELECT count(*) AS n, max(t.val) AS top FROM diff_t t WHERE t.grp = d.id) s ON s.n > coalesce(d.region, 0) * 4
vs_inh_sum|SELECT grp, count(*) AS n, sum(val) AS s, min(val) AS lo FROM diff_ih GROUP BY grp
vs_inh_only|SELECT grp, count(*) AS n FROM ONLY diff_ih GROUP BY grp
vs_inh_join|SELECT i.id, i.val, d.name FROM diff_ih i JOIN diff_d d ON d.id = i.id
vs_inh_child|SELECT id, val FROM diff_ih_a WHERE val > 0
vs_q_all|SELECT d.id FROM diff_d d WHERE d.code > ALL (SELECT t.val FROM diff_t t WHERE t.grp = d.region)
vs_q_not_all|SELECT d.id FROM diff_d d WHERE NOT (d.code < ALL (SELECT t.val FROM diff_t t WHERE t.grp = d.id))
vs_q_any_corr|SELECT d.id FROM diff_d d WHERE d.code + 40 < ANY (SELECT t.val FROM diff_t t WHERE t.grp = d.id)
vs_q_exists_value|SELECT d.id, EXISTS (SELECT 1 FROM diff_t t WHERE t.grp = d.id AND t.flag) AS any_flag FROM diff_d d
vs_q_in_value|SELECT t.id, t.grp IN (SELECT d.region FROM diff_d d WHERE d.active) AS in_active FROM diff_t t
vs_q_exists_or|SELECT t.id FROM diff_t t WHERE t.val > 40 OR EXISTS (SELECT 1 FROM diff_d d WHERE d.id = t.grp AND d.active)
vs_q_latest|SELECT d.id, (SELECT t.val FROM diff_t t WHERE t.grp = d.id ORDER BY t.id DESC LIMIT 1) AS latest FROM diff_d d
vs_q_exists_groups|SELECT d.id FROM diff_d d WHERE EXISTS (SELECT 1 FROM diff_t t WHERE t.grp = d.id GROUP BY t.flag HAVING count(*) > 3 AND sum(t.val) > 50)
vs_from_record|SELECT t.id, r.k, r.w FROM diff_t t, jsonb_to_record(CASE WHEN t.flag THEN jsonb_build_object('k', t.grp, 'w', t.val) END) AS r(k int, w int)
vs_whole_row_sub|SELECT s.grp, jsonb_agg(s ORDER BY s.id) AS rows, count(DISTINCT (s.flag, s.val)) AS nd FROM (SELECT id, grp, val, flag FROM diff_t) s GROUP BY s.grp
vs_whole_row_left|SELECT d.id, to_jsonb(s) AS s FROM diff_d d LEFT JOIN (SELECT id, grp, val FROM diff_t WHERE val > 40) s ON s.grp = d.id
vs_scalar_nested|SELECT d.id, (SELECT count(*) FROM (SELECT id FROM diff_t t WHERE t.grp = d.id AND t.flag) s) AS n FROM diff_d d
vs_exists_scalar|SELECT d.id FROM diff_d d WHERE EXISTS (SELECT 1 FROM diff_t t WHERE t.grp = d.id AND t.val > (SELECT avg(val) FROM diff_t))
vs_exists_in_exists|SELECT d.id FROM diff_d d WHERE NOT EXISTS (SELECT 1 FROM diff_t t WHERE t.grp = d.id AND t.id IN (SELECT np.grp FROM diff_np np WHERE np.val > 5))
vs_not_in_rows|SELECT t.id FROM diff_t t WHERE (t.grp, t.val) NOT IN (SELECT np.grp, np.val FROM diff_np np)
vs_with_lateral|SELECT d.id, x.n, x.s FROM diff_d d LEFT JOIN LATERAL (WITH y AS (SELECT val FROM diff_t t WHERE t.grp = d.id) SELECT count(*) AS n, sum(val) AS s FROM y) x ON true
vs_whole_row_cte_left|WITH x AS (SELECT id, grp, val FROM diff_t WHERE val > 60) SELECT d.id, to_jsonb(x) AS x FROM diff_d d LEFT JOIN x ON x.grp = d.id
vs_json_key|SELECT jsonb_build_object('a', t.amount, 'g', t.grp % 3) AS k, count(*) AS n FROM diff_t t GROUP BY 1
vs_left_values|SELECT d.id, v.label FROM diff_d d LEFT JOIN (VALUES (1, 'one'), (2, 'two'), (2, 'deux'), (NULL, 'none')) AS v(k, label) ON v.k = d.region
vs_left_function_on|SELECT t.id, g FROM diff_t t LEFT JOIN generate_series(1, 4) AS g ON g <= t.grp % 5 AND g > t.val % 3
vs_rollup_rank|SELECT grp % 4 AS g, count(*) AS n, rank() OVER (ORDER BY count(*) DESC, grp % 4) AS r, sum(count(*)) OVER (PARTITION BY GROUPING(grp % 4)) AS total FROM diff_t GROUP BY ROLLUP (grp % 4)
-- recursive WITH queries (computed again whole when their tables change):
-- reachability over diff_mk's cycles, a hierarchy over two tables, paths;
-- ones that read no table (constants of the view: a calendar, a series)
vs_rec_reach|WITH RECURSIVE r(x, y) AS (SELECT a, b FROM diff_mk UNION SELECT r.x, m.b FROM r JOIN diff_mk m ON m.a = r.y) SELECT x, y FROM r
vs_rec_tree|WITH RECURSIVE h(id, root, depth) AS (SELECT id, id, 0 FROM diff_d WHERE code = 0 UNION ALL SELECT t.id, h.root, h.depth + 1 FROM diff_t t JOIN h ON t.grp = h.id WHERE h.depth < 2) SELECT root, depth, count(*) AS n FROM h GROUP BY root, depth
vs_rec_const|WITH RECURSIVE days(d) AS (SELECT date '2024-01-01' UNION ALL SELECT d + 3 FROM days WHERE d < date '2024-02-15'), fib(a, b) AS (SELECT 1, 1 UNION SELECT b, a + b FROM fib WHERE b < 60) SELECT t.id, d.d, f.a FROM diff_t t JOIN days d ON d.d = date '2024-01-01' + t.val % 50 LEFT JOIN fib f ON f.a = t.grp
vs_const_sublinks|SELECT t.id, (SELECT max(n) FROM generate_series(1, 4) n) AS m FROM diff_t t WHERE t.grp IN (SELECT unnest(ARRAY[1, 2, NULL])) AND t.val > ALL (SELECT generate_series(-5, 0)) AND EXISTS (SELECT 1)
-- FROM items that read no table on either side of outer joins (constant
-- inputs): a calendar LEFT JOIN the facts, buckets joined on inequalities,
-- a FULL JOIN with a list of keys
vs_const_calendar|SELECT d, count(t.id) AS n, sum(t.amount) AS s FROM generate_series(-12, 14) d LEFT JOIN diff_t t ON t.val = d GROUP BY d
vs_const_buckets|SELECT b.lo, count(t.id) AS n, min(t.val) AS lo_val FROM (VALUES (-100, -5), (-5, 0), (0, 5), (5, 100), (NULL, 0)) b(lo, hi) LEFT JOIN diff_t t ON t.val >= b.lo AND t.val < b.hi GROUP BY b.lo
vs_const_inner_big|SELECT t.id, g, t.grp FROM diff_t t JOIN generate_series(-100, 100) g ON g = t.val + t.grp
vs_const_full|SELECT k.g, d.id, d.code FROM (SELECT unnest(ARRAY[0, 1, 2, 99, NULL]) AS g) k FULL JOIN diff_d d ON d.code = k.g
-- ARRAY(SELECT ...) (array_agg in the subquery's order, '{}' without
-- rows) and row tests over constant lists
vs_array_sublink|SELECT d.id, ARRAY(SELECT t.id FROM diff_t t WHERE t.grp = d.id ORDER BY t.val DESC NULLS LAST, t.id) AS ids FROM diff_d d
vs_array_unnest|SELECT t.id, ARRAY(SELECT unnest(ARRAY[t.note, 'zz', 'aa', t.note])) AS a, ARRAY(SELECT x FROM unnest(ARRAY[t.val, 3, -1, NULL]) x WHERE x IS DISTINCT FROM 3) AS b FROM diff_t t
vs_agg_fn_order|SELECT t.id, (SELECT string_agg(x, '+') FROM unnest(ARRAY[t.note, 'zz', 'aa', t.note]) x) AS s, (SELECT jsonb_agg(x) FROM unnest(ARRAY[t.val, 3, -1, NULL]) x WHERE x IS DISTINCT FROM 3) AS j FROM diff_t t
vs_const_rows_in|SELECT t.id, t.grp FROM diff_t t WHERE (t.grp, t.val % 3) IN (VALUES (1, 0), (2, 1), (NULL, 2), (3, NULL)) OR (t.grp, t.id) > ALL (SELECT 5, g FROM generate_series(1, 3) g)
vs_rec_paths|WITH RECURSIVE p(x, y, cost, hops) AS (SELECT a, b, w, 1 FROM diff_mk UNION ALL SELECT p.x, m.b, p.cost + m.w, p.hops + 1 FROM p JOIN diff_mk m ON m.a = p.y WHERE p.hops < 3) SELECT x, y, min(cost) AS lo, count(*) AS n FROM p GROUP BY x, y
-- columns shown through a grouped primary key (grouped by too, also in
-- every grouping set); a subquery of parameters that reads no table; the
-- text and length of a CYCLE clause's path (computed by the recomputation)
vs_fd_dept|SELECT d.id, d.name, d.region, count(t.id) AS n, sum(t.val) AS s FROM diff_d d LEFT JOIN diff_t t ON t.grp = d.id GROUP BY d.id
vs_fd_rollup|SELECT d.name, t.val % 3 AS m, count(*) AS n, grouping(t.val % 3) AS g FROM diff_d d JOIN diff_t t ON t.grp = d.id GROUP BY d.id, ROLLUP (t.val % 3)
vs_const_params|SELECT t.id, t.val * p.k AS v, p.tag FROM diff_t t CROSS JOIN (SELECT 3 AS k, 'x' AS tag) p WHERE t.grp < p.k
vs_rec_cycle_text|WITH RECURSIVE p(x, y, hops) AS (SELECT a, b, 1 FROM diff_mk UNION ALL SELECT p.x, m.b, p.hops + 1 FROM p JOIN diff_mk m ON m.a = p.y WHERE p.hops < 3) CYCLE y SET looped USING path SELECT x, y, path::text AS route, cardinality(path) AS len FROM p WHERE NOT looped
-- keys whose equal values differ in their bytes, grouped by their hash:
-- numrange bounds of other scales, text under a nondeterministic collation
vh_range_group|SELECT numrange(round(amount, abs(val) % 3), 1000) AS r, count(*) AS n, sum(val) AS s FROM diff_t GROUP BY 1
vh_range_distinct|SELECT DISTINCT numrange(round(amount, abs(val) % 3), 1000) AS r, grp FROM diff_t
vh_ci_group|SELECT CASE WHEN val % 2 = 0 THEN upper(note) ELSE note END COLLATE diff_ci AS note, count(*) AS n, max(id) AS top FROM diff_t GROUP BY 1
vh_ci_join|SELECT a.id, b.id AS bid FROM diff_t a JOIN diff_t b ON upper(a.note) COLLATE diff_ci = b.note AND a.grp = b.grp
vh_ci_union|SELECT upper(note) COLLATE diff_ci AS n FROM diff_t WHERE val > 0 UNION SELECT note FROM diff_t WHERE val < 0
vh_ci_except|SELECT note COLLATE diff_ci AS n FROM diff_t WHERE flag EXCEPT SELECT upper(note) FROM diff_t WHERE NOT flag
vh_ci_window|SELECT id, row_number() OVER (PARTITION BY upper(note) COLLATE diff_ci ORDER BY id) AS rn FROM diff_t
-- compared by the rows' text (vt_): a UNION ALL keeps equal values that
-- print differently apart, each as written
vt_union_scales|SELECT round(amount, abs(val) % 3) AS a, (val % 2) * float8 '-0.0' AS z FROM diff_t WHERE amount IS NOT NULL UNION ALL SELECT round(amount, 1), float8 '0' FROM diff_t WHERE flag
-- aggregates with moving-aggregate support (agg_moving.c): kept states
-- changed by the inverse, rebuilt when it gives up (negative values)
vm_msum|SELECT grp, diff_msum(val) AS s, count(*) AS n FROM diff_t GROUP BY grp
vm_msum_filter|SELECT flag, diff_msum(val) FILTER (WHERE grp > 2) AS s, diff_msum(val * 2 - 5) AS s2 FROM diff_t GROUP BY flag
vm_msum_global|SELECT diff_msum(val) AS s, diff_msum(grp) AS g FROM diff_t WHERE note IS NOT NULL
vm_msum_join|SELECT d.region, diff_msum(t.val) AS s FROM diff_t t JOIN diff_d d ON d.code = t.grp GROUP BY d.region
