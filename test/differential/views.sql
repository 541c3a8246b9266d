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
