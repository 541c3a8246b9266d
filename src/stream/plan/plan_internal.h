/*-------------------------------------------------------------------------
 *
 * plan_internal.h
 *	  What the files of the streaming planner share: the planning context,
 *	  RelOut (an executor's rows and what they stand for), and the
 *	  functions each file offers the others.
 *
 *	stream_plan.c	the core: RelOut helpers, map_expr, leaves, query
 *					levels, the view, the entry points
 *	plan_checks.c	what a view's query may use (0A000 otherwise)
 *	plan_join.c		join trees, join keys, semi/anti joins from sublinks
 *	plan_sublinks.c	scalar subqueries and NOT IN, rewritten into joins
 *	plan_temporal.c	temporal filters (conditions on the current time)
 *	plan_agg.c		aggregation (Aggref analysis, group keys, HAVING),
 *					DISTINCT, GROUPING SETS
 *	plan_top_n.c	ORDER BY ... LIMIT, row_number() <= n, DISTINCT ON
 *	plan_setop.c	UNION, INTERSECT, EXCEPT [ALL]
 *	plan_srf.c		set-returning functions of a select list
 *	plan_over_groups.c	what runs over an aggregating level's groups: a level above
 *	plan_window.c	window functions
 *	plan_views.c	Postgres views in FROM, expanded
 *	plan_with.c		WITH queries, inlined as subqueries
 *	plan_recursive.c	recursive WITH queries, computed again whole
 *	plan_whole_rows.c	whole rows of items other than tables
 *	plan_hashed_keys.c	group keys of types whose equal values differ in
 *					their bytes, grouped by their hash
 *
 * src/stream/plan/plan_internal.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_STREAM_PLAN_INTERNAL_H
#define HS_STREAM_PLAN_INTERNAL_H

#include "nodes/parsenodes.h"
#include "nodes/pathnodes.h"

#include "hummock_stream/stream/stream_plan.h"

/*
 * A FROM item, join or query level as planned: the executor that emits
 * its rows, and for each column the Var of the query level it stands for.
 * Expressions of the query are rewritten onto such a row by map_expr
 * (each Var becomes Var(1, column)).
 */
typedef struct RelOut
{
	HsExec	   *tail;			/* emits the rows; its downstream is free */
	TupleDesc	desc;
	List	   *vars;			/* per column: Var (varno, varattno), an
								 * expression of the level it computes (over
								 * a recursive WITH query's row columns), or
								 * NULL */
	bool		has_ukey;		/* ukey is a unique key of the rows */
	List	   *ukey;			/* column indexes (int, 0-based) */
	int			nvisible;		/* query levels: the tlist columns come
								 * first, hidden key columns after */
	bool		churns;			/* may delete and re-insert a row within an
								 * epoch (an outer, semi or anti join's
								 * output): a join over it consolidates it
								 * first (exec_consolidate.c) */
	bool		constant;		/* a constant input's rows (filtered) */
} RelOut;

/* One planning of a view: what it hands out and what it records. */
typedef struct PlanCtx
{
	bool		dry;			/* planning only: placeholder state tables */
	HsStateTable *states;
	int			nstates;
	int			used;			/* state tables handed out */
	List	   *leaves;			/* HsStreamLeaf */
	List	   *sources;		/* Oid, distinct */
	List	   *semi_quals;		/* quals of pulled-up sublinks (they use
								 * columns too) */
	List	   *operators;		/* text: the stateful executors, in order */
	List	   *state_roles;	/* text: what each state table holds */
	List	   *relied_indexes; /* Oid: unique indexes the plan relies on */
	List	   *recorded_roles; /* text: the job's state tables' (or NIL) */
	bool		constant_joins; /* a LEFT JOIN to a VALUES list or function
								 * that reads no table joins it as a
								 * constant input, and so does an inner
								 * join to a large one (a new view, or one
								 * planned so: plan_constant_with.c) */
	bool		join_order;		/* inner joins of three items or more are
								 * joined smallest first (a new view, or one
								 * planned so: plan_join.c) */
	bool		function_order; /* order-dependent aggregates over one
								 * function read it in its order (a new
								 * view, or one planned so: plan_sublinks.c) */
	bool		subquery_order; /* ... and over one subquery with ORDER BY */
	bool		hashed_join_keys;	/* an equality of a type whose equal
									 * values can differ in their bytes is a
									 * join key, by its hash (a new view, or
									 * one planned so: plan_hashed_keys.c) */
	bool		distinct_shown_by_min;	/* a DISTINCT column whose equal
										 * values print differently shows a
										 * min of its rows' forms (a new
										 * view, or one planned so:
										 * plan_agg.c) */
	List	   *constant_refs;	/* RangeTblRef: FROM-list items planned
								 * as constant inputs (plan_join.c) */
	bool		constant_rows;	/* compute constant inputs' rows (else
								 * only their shape) */
} PlanCtx;

/* ---- stream_plan.c: the core ---- */

/* Note an executor for the catalog (fragments). */
extern void note_operator(PlanCtx *ctx, const char *fmt,...) pg_attribute_printf(2, 3);

/* The next state table, which holds role (in planning order). */
extern HsStateTable *next_state(PlanCtx *ctx, const char *role);

/*
 * Was the next state table created to hold role (by the job's first
 * plan, perhaps made by an older version)?
 */
extern bool next_state_recorded_as(PlanCtx *ctx, const char *role);

/*
 * Refuse rows of desc as the state of a role (an executor keeping them)
 * if a column is an anonymous record, whose row type lives only in the
 * process that made it.
 */
extern void check_kept_rows(TupleDesc desc, const char *role);
extern void check_kept_column(TupleDesc desc, int col, const char *role);
/* record or record[] (a domain over one too): values no state may keep */
extern bool anonymous_row_type(Oid type);

/* plan_hashed_keys.c */
extern void check_key_collation(Oid type, Oid collation);
extern bool group_key_needs_hash(Oid type, Oid collation);
extern bool group_key_hashable(Oid type);
/*
 * Whether a key of type under collation is taken by its hash; one that
 * needs a hash and has none is refused (0A000) as "<refused> <type> is not
 * supported" ("grouping by type", "PARTITION BY type", ...), with a DETAIL
 * saying compares_rows (DISTINCT, INTERSECT, ...) compares whole rows when
 * that is not NULL.
 */
extern bool key_needs_hash(Oid type, Oid collation, const char *refused,
						   const char *compares_rows);
extern Expr *hashed_group_key(Expr *e);
extern Expr *hashed_key(Expr *e, Oid collation);

/* Make e the downstream of in's rows. */
extern void attach(RelOut *in, HsExec *e);

/* The rows e emits, whose columns stand for vars; no unique key. */
extern RelOut *relout_of(HsExec *e, List *vars);

/* e (an expression of the query level) over the rows of in. */
extern Expr *map_expr(Expr *e, RelOut *in);

/*
 * node with every occurrence of calls[i] (compared with equal()) replaced
 * by a copy of vars[i]: calls a later executor computes become Vars of
 * its output columns.
 */
extern Node *replace_calls(Node *node, List *calls, List *vars);
extern List *map_quals(List *quals, RelOut *in);

/* The range table indexes of the current level's Vars in node. */
extern Relids varnos_of(Node *node);

/* A target entry (resno) reading column col of desc's rows. */
extern TargetEntry *var_tle(TupleDesc desc, int col, int resno);

/* An int array (at least one element) of an integer List. */
extern int *int_array(List *l);

/* Keep the rows of in for which quals hold. */
extern RelOut *apply_filter(RelOut *in, List *quals);

/* The target list entries of q that are output columns. */
extern List *visible_tlist(Query *q);

/* Does q's level aggregate (aggregates, GROUP BY or HAVING)? */
extern bool aggregating(Query *q);

/*
 * Project in to exprs (the first nvisible are output columns, the rest
 * hidden), then hidden columns for in's unique key if add_key.
 */
extern RelOut *project_cols(RelOut *in, List *exprs, int nvisible, List *qual,
							bool add_key);
extern RelOut *project_level(RelOut *in, List *exprs, List *qual, bool add_key);

/*
 * The columns (attnos) of range table entry rtindex of q that q uses, at
 * any level below it too, and in the quals of pulled-up sublinks;
 * *whole_row (if not NULL): whether q uses its whole row.
 */
extern Bitmapset *used_attnos(PlanCtx *ctx, Query *q, int rtindex, bool *whole_row);

/* A source table (range table entry rtindex of q): a leaf the job feeds. */
extern RelOut *plan_leaf(PlanCtx *ctx, Query *q, int rtindex, List *quals);

/* A subquery (or CTE) of q at rtindex, filtered by quals. */
extern RelOut *plan_subquery(PlanCtx *ctx, Query *sub, int rtindex, List *outer,
							 List *quals);

/* A query level; outer: the enclosing levels, innermost first. */
extern RelOut *plan_query(PlanCtx *ctx, Query *q, List *outer);

/* ---- plan_checks.c ---- */

/* Refuse construct what (0A000), as the subject of "... not supported". */
extern void unsupported(const char *what, bool plural) pg_attribute_noreturn();

/* Refuse a subquery that is not IN / EXISTS / NOT EXISTS in WHERE. */
extern void unsupported_subquery(void) pg_attribute_noreturn();

/* Check the view's whole query before planning it. */
extern void check_view_query(Query *q);

/* Check the view's columns (its visible target list, renumbered). */
extern void check_view_columns(List *view_tlist);

/* What a query level may not use (its FROM items are checked as planned). */
extern void check_query_level(Query *q, bool top);

/* Does node (an expression tree of one level) contain a SubLink? */
extern bool contains_sublink(Node *node);

/* A source table of the view: checked, returns its OID. */
extern Oid	check_relation(RangeTblEntry *rte);

/* ---- plan_join.c ---- */

/* A node of q's join tree (FROM item, JoinExpr, FromExpr) filtered by quals. */
extern RelOut *plan_jtnode(PlanCtx *ctx, Query *q, List *outer, Node *jt, List *quals);

/*
 * The items of a FROM list joined on conds (those over one item filter
 * it); semis (from convert_where_sublinks) apply last.
 */
extern RelOut *plan_fromlist(PlanCtx *ctx, Query *q, List *outer, List *items,
							 List *conds, List *semis);

/*
 * Take q's WHERE conjuncts that are IN / EXISTS / NOT EXISTS sublinks out
 * of it; returns them as semi and anti JoinExprs.
 */
extern List *convert_where_sublinks(PlanCtx *ctx, Query *q);

/* ---- plan_recursive.c ---- */

/*
 * A reference (q's range table entry rtindex) to recursive WITH query cte,
 * filtered by quals.
 */
extern RelOut *plan_recursive_with(PlanCtx *ctx, Query *q, CommonTableExpr *cte,
								   int rtindex, List *quals);

/* ---- plan_constant_with.c ---- */

/*
 * A recursive WITH query that reads no table, computed: SELECT * FROM
 * (VALUES <its rows, sorted by their bytes>) AS name(columns); NULL if it
 * reads anything that may change (then plan_recursive_with plans it).
 */
extern Query *constant_recursive_with(CommonTableExpr *cte);

/*
 * Every EXISTS, scalar or one-column ANY/ALL sublink of q (any level) over
 * an uncorrelated subquery that reads no table, computed (in place).
 */
extern void fold_constant_sublinks(Query *q);

/*
 * The query of FROM item jt of q (a function, a VALUES list or a subquery)
 * if it reads nothing that may change (no table, no column of another
 * item or of an enclosing query, no volatile function, not the current
 * time); else NULL.
 */
extern Query *constant_from_item(Query *q, Node *jt);

/*
 * FROM item rtindex of q, whose query constant_from_item gave, as a
 * constant input of the job: its rows are computed now, sorted by their
 * bytes, and numbered (the number, a last hidden column, is their key).
 */
extern RelOut *plan_constant_input(PlanCtx *ctx, Query *q, int rtindex, Query *item);

/*
 * Does the view's query q read nothing that may change (no table at any
 * depth, no volatile function, not the current time)?  Then its rows are
 * computed once, when the view is created: plan_constant_query gives them
 * as a constant input (numbered rows: the number is their key), the
 * whole of the job, which has no source and never changes.
 */
extern bool query_is_constant(Query *q);
extern RelOut *plan_constant_query(PlanCtx *ctx, Query *q);

/*
 * Does the query of a constant FROM item (constant_from_item) return at
 * least n rows?  (Runs it until it has.)
 */
extern bool constant_has_rows(Query *item, int64 n);

/*
 * Ends the role of the left rows of the first join of inner-joined items
 * in the order the planner chose: " (joins FROM items 3, 1, 2)" (their
 * positions in the FROM list, from 1).
 */
#define JOIN_ORDER_ROLE_MARK " (joins FROM items "

/*
 * In the role of a join's left rows when a key of the join is the hash of
 * an equality's sides (plan_hashed_keys.c).
 */
#define HASHED_KEYS_ROLE_MARK " (keys hashed)"

/*
 * The mark of an aggregation's groups whose float sum and avg calls are
 * kept exactly (agg_accumulators.c); a view planned before keeps float
 * running sums.
 */
#define EXACT_FLOAT_SUMS_ROLE_MARK " with exact float sums"

/*
 * In the role of a DISTINCT's rows when its columns whose equal values
 * print differently are shown by a min (plan_agg.c).
 */
#define DISTINCT_SHOWN_BY_MIN_ROLE_MARK " (shown by min)"

/* Ends the role of a join's state table that keeps a constant input's rows. */
#define CONSTANT_INPUT_ROLE_SUFFIX " (constant)"

/* ---- plan_temporal.c ---- */

/* A temporal filter: row op time, compared in type (plan_temporal.c). */
typedef struct TemporalFilter
{
	Expr	   *row;			/* an expression of the row, of type */
	Expr	   *time;			/* of the current time and constants */
	Oid			type;
	int			strategy;		/* btree strategy of op (< <= > >=) */
} TemporalFilter;

/* Is funcid now() or another function of the current time? */
extern bool is_time_function(Oid funcid);

/* Is node CURRENT_DATE, CURRENT_TIMESTAMP, LOCALTIME ...? */
extern bool is_time_value_function(Node *node);

/* Does node call a function of the current time? */
extern bool contains_time(Node *node);

/* 0A000: the current time outside a temporal filter. */
extern void refuse_time_function(void) pg_attribute_noreturn();

/*
 * Conjunct c as the conjuncts it stands for: row_expr = time_expr as the
 * two temporal filters row_expr >= time_expr and row_expr <= time_expr;
 * any other as itself.
 */
extern List *temporal_conjuncts(Node *c);

/*
 * q with the comparisons of a row with the current time in its select
 * list (inside aggregates at an aggregating level, or as GROUP BY
 * expressions) read from a split of its rows by them (plan_temporal.c).
 */
extern Query *split_on_time(Query *q);

/* Is conjunct c a temporal filter?  If so, *tf describes it. */
extern bool temporal_filter(Node *c, TemporalFilter *tf);

/*
 * A WHERE or HAVING conjunct that reads the current time, as the planner
 * runs it: rows where bypass holds pass (NULL: none); the others must
 * meet plain (conditions free of the time) and every temporal filter.
 */
typedef struct TemporalCondition
{
	List	   *filters;		/* temporal filters (temporal_filter) */
	List	   *plain;
	Expr	   *bypass;
} TemporalCondition;

/*
 * Is conjunct c a temporal condition: a temporal filter, an equality with
 * the time (two filters), or P OR (C AND filters) with P and C free of
 * the time?
 */
extern bool temporal_condition(Node *c, TemporalCondition *tc);

/* conds without their temporal conditions, which are appended to *temporal. */
extern List *take_temporal(List *conds, List **temporal);

/* in through a DynamicFilter per temporal filter of each temporal condition. */
extern RelOut *apply_temporal(PlanCtx *ctx, RelOut *in, List *temporal);

/* ---- plan_sublinks.c ---- */

/*
 * Every ARRAY(SELECT ...) of q (any level) over a plain subquery as
 * COALESCE((SELECT array_agg(... ORDER BY ...) ...), '{}') (in place).
 */
extern void array_sublinks_as_aggregates(Query *q);

/*
 * Give every order-dependent aggregate call without ORDER BY of q (any
 * level) that aggregates the rows of one function the function's order
 * (in place): its ordinality, an argument named FUNCTION_ORDER_ARG; with
 * subqueries, one that aggregates the rows of one subquery with ORDER BY
 * that order (its sort keys, arguments named SUBQUERY_ORDER_ARG).
 */
extern void aggregates_in_function_order(Query *q, bool functions, bool subqueries);
#define FUNCTION_ORDER_ARG "function order"
/* Ends the role of the kept rows of calls so ordered (plan_agg.c). */
#define FUNCTION_ORDER_ROLE_SUFFIX " (function order)"
/* ... and over one subquery with ORDER BY, in its order */
#define SUBQUERY_ORDER_ARG "subquery order"
#define SUBQUERY_ORDER_ROLE_SUFFIX " (subquery order)"

/*
 * Rewrite q's scalar subqueries (uncorrelated, or correlated by
 * equalities) into joins, and NOT IN conjuncts of its WHERE into NOT
 * EXISTS and counts; other sublinks are left for convert_where_sublinks.
 */
extern void rewrite_sublinks(PlanCtx *ctx, Query *q);

/*
 * An aggregation without GROUP BY whose select list or HAVING holds a
 * subquery outside its aggregates' arguments (SELECT count(*) * 100.0 /
 * (SELECT count(*) FROM o) FROM t): a query level over it, SELECT <the
 * select list> FROM (SELECT <its aggregates> FROM ... WHERE ...) WHERE
 * <HAVING>, where the aggregation (one row whatever its input, over no
 * rows too) is a FROM item whose columns are its aggregates, so the
 * subqueries are those of a query that does not aggregate.  q itself if
 * it is not one.
 */
extern Query *scalars_over_aggregation(Query *q);

/*
 * A range table entry for subquery sub named alias (in_from: an item of
 * FROM, not a set operation's input) (plan_sublinks.c).
 */
extern RangeTblEntry *subquery_rte(Query *sub, const char *alias, bool in_from);

/*
 * SELECT <targets> FROM (a copy of sub) AS alias: a new query level over
 * sub, at range table index *rt; the caller adds its targets and quals.
 */
extern Query *query_over(Query *sub, const char *alias, int *rt);

/* A Var of column attno (1-based) of sub, the subquery at rtindex. */
extern Var *sub_var(Query *sub, int rtindex, AttrNumber attno);
extern void rewrite_lateral(Query *q);

/*
 * Is the jointree node target, or the relation rt, within jointree node jt
 * on the nullable side of an outer join (nullable: whether jt itself is)?
 */
extern bool on_nullable_side(Node *jt, Node *target, int rt, bool nullable);

/*
 * Insert e among sub's output columns (after the last one), named name in
 * rte's column names too (rte: sub's range table entry, or NULL); its
 * resno.
 */
extern AttrNumber add_output_column(Query *sub, RangeTblEntry *rte, Expr *e,
									const char *name);

/* plan_whole_rows.c: whole rows of items other than tables, as ROW(...) */
extern void expand_whole_rows(Query *q);

/*
 * Make FROM item rte (a function, WITH query, VALUES list or set
 * operation) a subquery selecting its columns, in place.
 */
extern void wrap_in_subquery(RangeTblEntry *rte);

/*
 * plan_join.c: LEFT JOIN f ON cond as LEFT JOIN LATERAL (... WHERE cond)
 * ON true, unless keep_constants and f reads no table (a constant input)
 */
extern void filter_outer_functions(Query *q, Node *jt, bool keep_constants);
extern RangeTblEntry *values_of_subquery(Query *sub);

/*
 * plan_with.c: non-recursive WITH queries (and recursive ones that read
 * no table, computed) inlined at every level (in place)
 */
extern void inline_with_queries(Query *q);
/* FROM item rte made subquery sub, in place (its columns and alias stay) */
extern void rte_as_subquery(RangeTblEntry *rte, Query *sub);

/* ---- plan_agg.c ---- */

/* grouping() at a level with a plain GROUP BY: 0 (in place) */
extern void grouping_without_sets(Query *q);

/*
 * Columns shown through a grouped primary key (functional dependency)
 * added to GROUP BY (in place; q's join aliases flattened)
 */
extern void group_by_dependent_columns(Query *q);

/*
 * The aggregation of q over from (WHERE applied), then HAVING and q's
 * output columns; extra: hidden Top-N sort columns.
 */
extern RelOut *agg_level(PlanCtx *ctx, Query *q, RelOut *from, List *extra);

/* Is call a recomputed from its group's kept rows (not by accumulators)? */
extern bool agg_is_recomputed(Aggref *a);

/*
 * A query level with GROUPING SETS, ROLLUP or CUBE: an aggregation level
 * per grouping set over its own inputs, their rows unioned (its output
 * columns, its ORDER BY columns, the grouping expressions, the set).
 */
extern RelOut *grouping_sets_query(PlanCtx *ctx, Query *q, List *outer);

/* DISTINCT over the visible columns of in. */
extern RelOut *distinct_level(PlanCtx *ctx, RelOut *in);

/* ---- plan_top_n.c ---- */

/*
 * The ORDER BY entries of a Top-N or DISTINCT ON level that are not
 * output columns.
 */
extern List *top_n_extra(Query *q);

/* DISTINCT ON over in (q's level output), if q has it. */
extern RelOut *distinct_on_level(PlanCtx *ctx, Query *q, RelOut *in, List *extra);

/* ORDER BY ... LIMIT n [OFFSET m] over in (q's level output), if q has it. */
extern RelOut *top_n_level(PlanCtx *ctx, Query *q, RelOut *in, List *extra);

/*
 * A subquery with row_number() OVER (PARTITION BY ... ORDER BY ...) bounded
 * by the outer WHERE (*quals, from which the bound is taken).
 */
extern RelOut *plan_group_top_n(PlanCtx *ctx, Query *sub, int rtindex, List *outer,
								List **quals);

/* ---- plan_srf.c ---- */

/*
 * Set-returning functions among targets (Exprs of the query level, the
 * List rewritten in place so that each call reads its column): from with
 * a ProjectSet of the calls after it, or from itself if there are none.
 */
extern RelOut *srf_level(PlanCtx *ctx, RelOut *from, List **targets);

/*
 * At an aggregating level, the set-returning calls of GROUP BY expressions
 * as a LATERAL ROWS FROM item of q's FROM (plan_srf.c), in place.
 */
extern void grouped_calls_to_from(Query *q);

/* ---- plan_over_groups.c ---- */

/*
 * An aggregating level whose select list calls set-returning functions
 * over its groups (unnest(array_agg(x))), or whose HAVING compares its
 * aggregates with a subquery (count(*) >= ALL (SELECT ...)), as a level
 * over it that does those; q itself otherwise.
 */
extern Query *split_over_groups(Query *q);

/* ---- plan_window.c ---- */

/*
 * Window functions among targets (as srf_level): from with an OverWindow
 * of the calls after it, or from itself if there are none.
 */
extern RelOut *window_level(PlanCtx *ctx, Query *q, RelOut *from, List **targets);

/* ---- plan_setop.c ---- */

/* A query level that is a set operation (q->setOperations). */
extern RelOut *plan_setop_query(PlanCtx *ctx, Query *q, List *outer);

#endif							/* HS_STREAM_PLAN_INTERNAL_H */
