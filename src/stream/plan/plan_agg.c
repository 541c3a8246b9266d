/*-------------------------------------------------------------------------
 *
 * plan_agg.c
 *	  Planning aggregation and DISTINCT in a streaming view.
 *
 * A query level with aggregates, GROUP BY or HAVING becomes
 *
 *	Project(group key expressions, aggregate arguments)
 *		-> HashAgg(group keys; one call per distinct Aggref)
 *		-> Project(HAVING; output columns, hidden group key columns)
 *
 * Aggref analysis: the group keys are the GROUP BY expressions (of types
 * with a memcmp encoding and deterministic collations); the calls are the
 * distinct Aggrefs of the target list and HAVING, in first-use order.
 * count, sum, avg, min, max, bool_and/every and bool_or of pg_catalog
 * over the types the executor supports are computed by retractable
 * accumulators (agg_kind says exactly when), with FILTER as an input
 * column the executor tests; min, max and DISTINCT calls need the second
 * state table (value counts).  Every other call (array_agg, string_agg,
 * statistics, ordered-set and user-defined aggregates, DISTINCT over
 * types without a key encoding, min/max under a collation that does not
 * order by bytes) is RECOMPUTE: its arguments, ORDER BY keys and FILTER
 * become kept columns (deduplicated across calls, after the other
 * inputs), which each group keeps as a multiset in the second state
 * table, and the call itself is copied with those expressions replaced by
 * columns of the recompute query (agg_recompute.c).  Direct arguments of
 * ordered-set aggregates must be constants.  A call of an aggregate with
 * moving-aggregate support whose moving state is not internal, without
 * ORDER BY or DISTINCT, is MOVING: planned as a RECOMPUTE call (the kept
 * rows rebuild its state when its inverse gives up), but maintained by
 * its transition and inverse transition functions (agg_moving.c); its
 * groups' state table says so in its role, and a view planned before
 * keeps such calls RECOMPUTE.
 *
 * After the aggregation, the output columns and HAVING are rewritten to
 * read the aggregation's output row: each aggregate call and each
 * occurrence of a group key expression becomes a Var of that row (what
 * the Postgres planner's setrefs does for an Agg node); any other column
 * is refused (not grouped nor aggregated).  The group key columns that
 * are not output columns follow as hidden columns: the group key is the
 * level's unique key (unless DISTINCT follows).
 *
 * DISTINCT over a level's output columns is a HashAgg with those columns
 * as its group key, whose rows are then unique; a column grouped by its
 * hash, or whose equal values print differently, is shown through a min
 * of it (distinct_by_hash), its only calls.
 *
 * src/stream/plan/plan_agg.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_aggregate.h"
#include "catalog/pg_constraint.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_type.h"
#include "nodes/makefuncs.h"
#include "parser/parse_agg.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "parser/parse_oper.h"
#include "parser/parsetree.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/regproc.h"
#include "utils/syscache.h"

#include "hummock_stream/row/memcmp_key.h"

#include "plan_internal.h"

/* ---------------------------------------------------------------------
 * Aggref analysis
 * ---------------------------------------------------------------------
 */

typedef struct AggAnalysis
{
	List	   *group_exprs;	/* Expr over the source */
	bool	   *hashed;			/* per group key: grouped by its hash
								 * (plan_hashed_keys.c) */
	List	   *aggrefs;		/* distinct Aggref nodes, in first-use order */
} AggAnalysis;

/* The arguments of an aggregate call that are not only ORDER BY keys. */
static int
agg_nargs(Aggref *a)
{
	ListCell   *lc;
	int			n = 0;

	foreach(lc, a->args)
		if (!((TargetEntry *) lfirst(lc))->resjunk)
			n++;
	return n;
}

/*
 * How a call is computed.  Natively, by retractable accumulators, if it
 * is count, sum, avg, min, max, bool_and/every or bool_or of pg_catalog
 * with at most one argument, over a type the executor supports, with a
 * DISTINCT the executor can count (count, sum and avg over key-encodable
 * values; min, max, bool_and and bool_or are the same over distinct
 * values), min/max over text ordered by its bytes; FILTER is applied by
 * the executor and ORDER BY changes none of their results.  Any other
 * call is RECOMPUTE: Postgres aggregates a touched group's kept rows
 * again (agg_recompute.c).
 */
static HsAggKind
native_agg_kind(Aggref *a)
{
	char	   *name = get_func_name(a->aggfnoid);
	Oid			argtype = a->args ? exprType((Node *) linitial_node(TargetEntry, a->args)->expr) : InvalidOid;
	HsAggKind	kind;

	if (a->agglevelsup != 0)
		unsupported("aggregates of an outer query level", true);
	if (a->aggdirectargs != NIL && contain_var_clause((Node *) a->aggdirectargs))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("direct arguments of ordered-set aggregates that refer to columns are not supported in a streaming materialized view"),
				 errhint("Use constants, such as percentile_cont(0.5).")));
	if (get_func_namespace(a->aggfnoid) != PG_CATALOG_NAMESPACE ||
		a->aggkind != AGGKIND_NORMAL || agg_nargs(a) > 1)
		return HS_AGG_RECOMPUTE;
	if (strcmp(name, "count") == 0)
		kind = a->aggstar || a->args == NIL ? HS_AGG_COUNT_STAR : HS_AGG_COUNT;
	else if (strcmp(name, "sum") == 0)
		kind = HS_AGG_SUM;
	else if (strcmp(name, "avg") == 0)
		kind = HS_AGG_AVG;
	else if (strcmp(name, "min") == 0)
		kind = HS_AGG_MIN;
	else if (strcmp(name, "max") == 0)
		kind = HS_AGG_MAX;
	else if (strcmp(name, "bool_and") == 0 || strcmp(name, "every") == 0)
		kind = HS_AGG_BOOL_AND;
	else if (strcmp(name, "bool_or") == 0)
		kind = HS_AGG_BOOL_OR;
	else
		return HS_AGG_RECOMPUTE;
	if (a->aggdistinct &&
		(kind == HS_AGG_COUNT || kind == HS_AGG_SUM || kind == HS_AGG_AVG) &&
		(HsMemcmpTypeSupport(argtype) == HS_MEMCMP_NONE ||
		 (OidIsValid(a->inputcollid) && !get_collation_isdeterministic(a->inputcollid))))
		return HS_AGG_RECOMPUTE;
	if (kind != HS_AGG_COUNT_STAR && kind != HS_AGG_COUNT &&
		!HsAggSupported(kind, argtype))
		return HS_AGG_RECOMPUTE;
	if ((kind == HS_AGG_MIN || kind == HS_AGG_MAX) && a->inputcollid != InvalidOid &&
		!HsCollationIsBytewise(a->inputcollid))
		return HS_AGG_RECOMPUTE;	/* min/max state orders text by bytes */
	return kind;
}

/*
 * The moving state type of a, resolved, if a call of a can be MOVING: an
 * aggregate with moving-aggregate support whose moving state is a type
 * that can be stored (not internal, nor another pseudo-type), called
 * without ORDER BY (the inverse takes out any row, not only the first:
 * agg_moving.c), DISTINCT or an order given by its function; else
 * InvalidOid.
 */
static Oid
moving_state_type(Aggref *a)
{
	HeapTuple	tup;
	Form_pg_aggregate agg;
	Oid			input_types[FUNC_MAX_ARGS];
	int			nargs;
	Oid			statetype = InvalidOid;
	ListCell   *lc;

	if (a->aggkind != AGGKIND_NORMAL || a->aggorder != NIL || a->aggdistinct != NIL)
		return InvalidOid;
	foreach(lc, a->args)
	{
		const char *name = lfirst_node(TargetEntry, lc)->resname;

		if (name != NULL && (strcmp(name, FUNCTION_ORDER_ARG) == 0 ||
							 strcmp(name, SUBQUERY_ORDER_ARG) == 0))
			return InvalidOid;
	}
	tup = SearchSysCache1(AGGFNOID, ObjectIdGetDatum(a->aggfnoid));
	if (!HeapTupleIsValid(tup))
		elog(ERROR, "cache lookup failed for aggregate %u", a->aggfnoid);
	agg = (Form_pg_aggregate) GETSTRUCT(tup);
	if (OidIsValid(agg->aggmtransfn) && OidIsValid(agg->aggminvtransfn))
	{
		nargs = get_aggregate_argtypes(a, input_types);
		statetype = resolve_aggregate_transtype(a->aggfnoid, agg->aggmtranstype,
												input_types, nargs);
		if (get_typtype(statetype) == TYPTYPE_PSEUDO)
			statetype = InvalidOid;
	}
	ReleaseSysCache(tup);
	return statetype;
}

/*
 * How a call is computed (native_agg_kind), MOVING where it can be unless
 * moving is false (a view planned before MOVING calls existed).
 */
static HsAggKind
agg_kind_of(Aggref *a, bool moving, Oid *statetype)
{
	HsAggKind	kind = native_agg_kind(a);

	*statetype = InvalidOid;
	if (kind == HS_AGG_RECOMPUTE && moving)
	{
		*statetype = moving_state_type(a);
		if (OidIsValid(*statetype))
			kind = HS_AGG_MOVING;
	}
	return kind;
}

/* Does a call of a keep its group's rows (RECOMPUTE or MOVING)? */
bool
agg_is_recomputed(Aggref *a)
{
	return native_agg_kind(a) == HS_AGG_RECOMPUTE;
}

static bool
collect_aggrefs_walker(Node *node, AggAnalysis *an)
{
	if (node == NULL)
		return false;
	if (IsA(node, Aggref))
	{
		ListCell   *lc;

		(void) native_agg_kind((Aggref *) node);
		foreach(lc, an->aggrefs)
			if (equal(lfirst(lc), node))
				return false;
		an->aggrefs = lappend(an->aggrefs, node);
		return false;			/* arguments cannot contain aggregates */
	}
	return expression_tree_walker(node, collect_aggrefs_walker, an);
}

/*
 * A Var of the recompute query for expression e of a RECOMPUTE call (over
 * the source): e's kept column, added to *kept unless an equal one is
 * there.  Column 1 of the recompute query is the group's ordinal, so kept
 * column k (0-based) is attno k + 2.
 */
static Expr *
kept_var(List **kept, Expr *e)
{
	ListCell   *lc;
	int			k = 0;

	foreach(lc, *kept)
	{
		if (equal(lfirst(lc), e))
			break;
		k++;
	}
	if (lc == NULL)
		*kept = lappend(*kept, e);
	return (Expr *) makeVar(1, (AttrNumber) (k + 2), exprType((Node *) e),
							exprTypmod((Node *) e), exprCollation((Node *) e), 0);
}

/*
 * kept_var of e, except that an expression making an anonymous row
 * (ROW(a, b), a record function) is kept as the columns it is made of and
 * made again by the recompute query: a record value names its row type by
 * a number only the process that made it knows (check_kept_column).
 */
static Node *
kept_expr_mutator(Node *node, List **kept)
{
	if (node == NULL)
		return NULL;
	/* (parts of an expression that are not one themselves) */
	if (IsA(node, List) || IsA(node, CaseWhen) || IsA(node, TargetEntry))
		return expression_tree_mutator(node, kept_expr_mutator, kept);
	if (!contain_var_clause(node))
		return copyObject(node);
	if (IsA(node, Var) || !anonymous_row_type(exprType(node)))
		return (Node *) kept_var(kept, (Expr *) node);
	return expression_tree_mutator(node, kept_expr_mutator, kept);
}

static Expr *
kept_expr(List **kept, Expr *e)
{
	return (Expr *) kept_expr_mutator((Node *) e, kept);
}

static Node *
grouping_zero_mutator(Node *node, void *context)
{
	if (node == NULL)
		return NULL;
	if (IsA(node, GroupingFunc) && ((GroupingFunc *) node)->agglevelsup == 0)
		return (Node *) makeConst(INT4OID, -1, InvalidOid, sizeof(int32),
								  Int32GetDatum(0), false, true);
	if (IsA(node, Query))
		return node;			/* (a subquery's grouping() is its own) */
	return expression_tree_mutator(node, grouping_zero_mutator, context);
}

/*
 * grouping() at a level with a plain GROUP BY is 0: every argument is
 * grouped in its one grouping set (Postgres's planner evaluates it so).
 */
void
grouping_without_sets(Query *q)
{
	if (q->groupingSets != NIL || !q->hasAggs)
		return;
	q->targetList = (List *) grouping_zero_mutator((Node *) q->targetList, NULL);
	q->havingQual = grouping_zero_mutator(q->havingQual, NULL);
}

/*
 * Columns a level shows because GROUP BY names their table's primary key
 * (SELECT d.id, d.name, count(*) ... GROUP BY d.id: Postgres's functional
 * dependency, parse_agg.c) are added to its GROUP BY, as resjunk entries:
 * each group of the key has one value of them, so the groups and their
 * values are the same, and the aggregation then reads only grouped
 * columns.  A column is added only when Postgres's own rule
 * (check_functional_grouping) says its table's key is grouped; any other
 * ungrouped column stays refused by post_agg_mutator.  With GROUPING
 * SETS, as in Postgres, only a key grouped in every set counts, and the
 * columns join every set.
 */
typedef struct DependentContext
{
	Query	   *q;
	List	   *group_exprs;	/* Expr: the level's grouping expressions */
	List	   *grouped_vars;	/* Var: those that are plain columns */
	List	   *found;			/* Var: dependent columns, no duplicates */
} DependentContext;

static bool
dependent_columns_walker(Node *node, DependentContext *ctx)
{
	ListCell   *lc;

	if (node == NULL || IsA(node, Aggref) || IsA(node, GroupingFunc) ||
		IsA(node, Query))
		return false;			/* (an aggregate's arguments are its own) */
	foreach(lc, ctx->group_exprs)
		if (equal(node, lfirst(lc)))
			return false;
	if (IsA(node, Var))
	{
		Var		   *v = (Var *) node;
		RangeTblEntry *rte;
		List	   *deps = NIL;

		if (v->varlevelsup != 0 || v->varattno <= 0 ||
			list_member(ctx->found, v))
			return false;
		rte = rt_fetch(v->varno, ctx->q->rtable);
		if (rte->rtekind == RTE_RELATION &&
			check_functional_grouping(rte->relid, v->varno, 0, ctx->grouped_vars, &deps))
			ctx->found = lappend(ctx->found, v);
		return false;
	}
	return expression_tree_walker(node, dependent_columns_walker, ctx);
}

void
group_by_dependent_columns(Query *q)
{
	DependentContext ctx;
	ListCell   *lc;
	Index		maxref = 0;
	List	   *common = NIL;	/* with grouping sets: refs in every set */
	List	   *added = NIL;

	if (q->groupClause == NIL)
		return;
	if (q->groupingSets != NIL)
	{
		List	   *sets = expand_grouping_sets(q->groupingSets, q->groupDistinct, 4096);

		common = sets != NIL ? linitial(sets) : NIL;
		foreach(lc, sets)
			common = list_intersection_int(common, lfirst(lc));
		if (common == NIL)
			return;
	}
	memset(&ctx, 0, sizeof(ctx));
	ctx.q = q;
	foreach(lc, q->groupClause)
	{
		SortGroupClause *sgc = lfirst(lc);
		Node	   *e = get_sortgroupclause_expr(sgc, q->targetList);

		ctx.group_exprs = lappend(ctx.group_exprs, e);
		if (IsA(e, Var) && ((Var *) e)->varlevelsup == 0 &&
			(q->groupingSets == NIL || list_member_int(common, sgc->tleSortGroupRef)))
			ctx.grouped_vars = lappend(ctx.grouped_vars, e);
	}
	if (ctx.grouped_vars == NIL)
		return;
	foreach(lc, q->targetList)
	{
		TargetEntry *tle = lfirst(lc);

		maxref = Max(maxref, tle->ressortgroupref);
		(void) dependent_columns_walker((Node *) tle->expr, &ctx);
	}
	(void) dependent_columns_walker(q->havingQual, &ctx);
	foreach(lc, ctx.found)
	{
		Var		   *v = lfirst(lc);
		SortGroupClause *sgc = makeNode(SortGroupClause);
		TargetEntry *tle;
		bool		hashable;

		get_sort_group_operators(v->vartype, false, false, false,
								 &sgc->sortop, &sgc->eqop, NULL, &hashable);
		if (!OidIsValid(sgc->eqop) ||
			(group_key_needs_hash(v->vartype, v->varcollid) && !group_key_hashable(v->vartype)))
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("column \"%s\" of type %s, shown through its table's grouped primary key, is not supported in a streaming materialized view",
							get_rte_attribute_name(rt_fetch(v->varno, q->rtable), v->varattno),
							format_type_be(v->vartype)),
					 errdetail("The view groups its rows by such columns too, and values of type %s cannot be a group key.",
							   format_type_be(v->vartype)),
					 errhint("Show it through an aggregate (for example min() of it cast to text).")));
		sgc->hashable = hashable;
		sgc->tleSortGroupRef = ++maxref;
		tle = makeTargetEntry((Expr *) copyObject(v), list_length(q->targetList) + 1,
							  NULL, true);
		tle->ressortgroupref = sgc->tleSortGroupRef;
		q->targetList = lappend(q->targetList, tle);
		q->groupClause = lappend(q->groupClause, sgc);
		added = lappend_int(added, sgc->tleSortGroupRef);
	}
	/* with grouping sets, in every set: "GROUP BY ROLLUP (...), cols" */
	if (q->groupingSets != NIL && added != NIL)
		q->groupingSets = lappend(q->groupingSets,
								  makeGroupingSet(GROUPING_SET_SIMPLE, added, -1));
}

typedef struct RewriteContext
{
	AggAnalysis *an;
	int		   *key_attno;		/* per group key: the output column showing
								 * it (NULL: column i + 1 for key i) */
} RewriteContext;

/* Does node contain an expression equal() to target? */
static bool
contains_expr_walker(Node *node, Node *target)
{
	if (node == NULL)
		return false;
	if (equal(node, target))
		return true;
	return expression_tree_walker(node, contains_expr_walker, target);
}

static bool
contains_expr(Node *node, Node *target)
{
	return contains_expr_walker(node, target);
}

/* Rewrite an expression over the source into one over the agg's output. */
static Node *
post_agg_mutator(Node *node, RewriteContext *ctx)
{
	ListCell   *lc;
	int			i;

	if (node == NULL)
		return NULL;
	if (!IsA(node, Const))
	{
		i = 0;
		foreach(lc, ctx->an->group_exprs)
		{
			Node	   *ge = lfirst(lc);

			i++;
			if (equal(node, ge))
				return (Node *) makeVar(1, ctx->key_attno ? ctx->key_attno[i - 1] : i,
										exprType(ge), exprTypmod(ge), exprCollation(ge), 0);
		}
	}
	if (IsA(node, Aggref))
	{
		Aggref	   *a = (Aggref *) node;

		i = list_length(ctx->an->group_exprs);
		foreach(lc, ctx->an->aggrefs)
		{
			i++;
			if (equal(lfirst(lc), node))
				return (Node *) makeVar(1, i, a->aggtype, -1, a->aggcollid, 0);
		}
		elog(ERROR, "aggregate call not found while planning a streaming view");
	}
	if (IsA(node, Var))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("a column that is neither grouped nor aggregated is not supported in a streaming materialized view"),
				 errhint("Add the column to GROUP BY.")));
	return expression_tree_mutator(node, post_agg_mutator, ctx);
}

static void
analyze_aggs(Query *q, AggAnalysis *an)
{
	ListCell   *lc;

	memset(an, 0, sizeof(*an));
	an->hashed = palloc0(sizeof(bool) * (list_length(q->groupClause) + 1));
	foreach(lc, q->groupClause)
	{
		SortGroupClause *sgc = lfirst(lc);
		Node	   *e = get_sortgroupclause_expr(sgc, q->targetList);
		Oid			t = exprType(e);
		Oid			coll = exprCollation(e);

		check_key_collation(t, coll);
		an->hashed[list_length(an->group_exprs)] =
			key_needs_hash(t, coll, "grouping by type", NULL);
		an->group_exprs = lappend(an->group_exprs, e);
	}
	foreach(lc, q->targetList)
		(void) collect_aggrefs_walker((Node *) ((TargetEntry *) lfirst(lc))->expr, an);
	(void) collect_aggrefs_walker(q->havingQual, an);
}

/* ---------------------------------------------------------------------
 * The aggregation level
 * ---------------------------------------------------------------------
 */

/*
 * Take the temporal filters out of a level's HAVING conjuncts (over the
 * aggregation e's output row: max(ts) > now() - interval '1 hour'): each
 * becomes a DynamicFilter over e's rows, so a group enters and leaves as
 * time passes (plan_temporal.c).  Returns what the level's projection
 * reads: e, or the last filter.
 */
static HsExec *
having_temporal(PlanCtx *ctx, HsExec *e, List **having)
{
	List	   *temporal = NIL;
	List	   *vars = NIL;

	*having = take_temporal(*having, &temporal);
	if (temporal == NIL)
		return e;
	for (int c = 0; c < e->out_desc->natts; c++)
		vars = lappend(vars, var_tle(e->out_desc, c, c + 1)->expr);
	return apply_temporal(ctx, relout_of(e, vars), temporal)->tail;
}

/*
 * Window functions over the groups: HAVING keeps groups, every expression
 * of q is rewritten over the aggregation's output row (a level whose Vars
 * are its columns), its window functions computed over those rows
 * (plan_window.c), then its output columns.
 */
static RelOut *
agg_windows(PlanCtx *ctx, Query *q, HsExec *agg, RewriteContext *rctx, List *extra,
			int nkeys, bool distinct)
{
	List	   *tl = NIL;
	List	   *vars = NIL;
	List	   *having = NIL;
	List	   *targets = NIL;
	List	   *exprs = NIL;
	Query	   *q2 = copyObject(q);
	HsExec	   *p;
	RelOut	   *groups;
	ListCell   *lc;
	int			nvisible = list_length(visible_tlist(q));

	if (q->havingQual)
		having = make_ands_implicit(expression_planner((Expr *) post_agg_mutator(q->havingQual, rctx)));
	for (int c = 0; c < agg->out_desc->natts; c++)
	{
		TargetEntry *tle = var_tle(agg->out_desc, c, c + 1);

		tl = lappend(tl, tle);
		vars = lappend(vars, copyObject(tle->expr));	/* Var (1, c + 1) */
	}
	{
		HsExec	   *src = having_temporal(ctx, agg, &having);

		p = HsExecProjectCreate(src->out_desc, having, tl);
		src->downstream = p;
	}
	groups = relout_of(p, vars);
	groups->has_ukey = !distinct;
	for (int k = 0; k < nkeys && !distinct; k++)
		groups->ukey = lappend_int(groups->ukey, k);

	/* q over the groups */
	foreach(lc, q2->targetList)
	{
		TargetEntry *tle = lfirst(lc);

		tle->expr = (Expr *) post_agg_mutator((Node *) tle->expr, rctx);
	}
	foreach(lc, visible_tlist(q2))
		targets = lappend(targets, ((TargetEntry *) lfirst(lc))->expr);
	foreach(lc, extra)
		targets = lappend(targets, post_agg_mutator((Node *) ((TargetEntry *) lfirst(lc))->expr,
													rctx));
	groups = window_level(ctx, q2, groups, &targets);
	foreach(lc, targets)
		exprs = lappend(exprs, map_expr(lfirst(lc), groups));
	return project_cols(groups, exprs, nvisible, NIL, !distinct);
}

/*
 * What the second state table of an aggregation holds: min/max values
 * (counted per value, "by identity" where a type's encoding folds values
 * that print differently, or one entry per row, "by row"), DISTINCT
 * values' counts and the kept rows of recomputed calls.
 */
static char *
minmax_role(List *kept, bool need_values, const HsAggCall *calls, int ncalls, bool by_row)
{
	const char *by = by_row ? " by row" : "";
	const char *order = "";

	for (int i = 0; !by_row && i < ncalls; i++)
		if ((calls[i].kind == HS_AGG_MIN || calls[i].kind == HS_AGG_MAX) &&
			!calls[i].distinct && HsMemcmpTypeFolds(calls[i].argtype))
			by = " by identity";
	/* kept rows of calls given their function's order (plan_sublinks.c) */
	for (int i = 0; i < ncalls; i++)
	{
		ListCell   *lc;

		if (calls[i].kind != HS_AGG_RECOMPUTE)
			continue;
		foreach(lc, calls[i].aggref->args)
		{
			const char *name = lfirst_node(TargetEntry, lc)->resname;

			if (name != NULL && strcmp(name, FUNCTION_ORDER_ARG) == 0)
				order = FUNCTION_ORDER_ROLE_SUFFIX;
			else if (name != NULL && strcmp(name, SUBQUERY_ORDER_ARG) == 0)
				order = SUBQUERY_ORDER_ROLE_SUFFIX;
		}
	}
	if (kept == NIL)
		return psprintf("HashAgg min/max%s and DISTINCT values", by);
	if (need_values)
		return psprintf("HashAgg min/max%s and DISTINCT values, kept rows%s", by, order);
	return psprintf("HashAgg kept rows%s", order);
}

/* Aggregation of q over from (WHERE already applied). */
RelOut *
agg_level(PlanCtx *ctx, Query *q, RelOut *from, List *extra)
{
	AggAnalysis an;
	RewriteContext rctx;
	HsAggCall  *calls;
	int			ncalls = 0;
	int			nkeys;
	List	   *exprs = NIL;
	List	   *having = NIL;
	List	   *tl = NIL;
	List	   *ukey = NIL;
	bool		need_minmax = false;
	bool		distinct = q->distinctClause != NIL;
	ListCell   *lc;
	HsExec	   *e;
	RelOut	   *in;
	RelOut	   *out;
	HsStateTable *groups;
	int			nvisible;
	int			i;
	List	   *kept = NIL;		/* Expr over the source: kept columns */
	HsAggKeptRows kept_rows;
	bool		moving;			/* MOVING calls allowed */
	bool		any_moving = false;
	bool		need_values = false;	/* min/max or DISTINCT calls */
	HsStateTable *second = NULL;
	bool		by_row;
	int		   *rowkey = NULL;
	int			nrowkey = 0;

	analyze_aggs(q, &an);
	nkeys = list_length(an.group_exprs);
	if (list_length(an.aggrefs) > HS_AGG_MAX_CALLS)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("a query level of a streaming materialized view may have at most %d distinct aggregate calls",
						HS_AGG_MAX_CALLS)));
	/* (and a min per group key shown in its printed forms, below) */
	calls = palloc0(sizeof(HsAggCall) * (list_length(an.aggrefs) + nkeys + 1));
	/* (the groups' state table is the next one: its role says) */
	moving = !next_state_recorded_as(ctx, "HashAgg groups") &&
		!next_state_recorded_as(ctx, "HashAgg groups" HASHED_KEYS_ROLE_MARK);
	foreach(lc, an.group_exprs)
	{
		Expr	   *ge = lfirst(lc);

		if (an.hashed[foreach_current_index(lc)])
			ge = hashed_group_key(ge);
		exprs = lappend(exprs, map_expr(ge, from));
	}
	foreach(lc, an.aggrefs)
	{
		Aggref	   *a = lfirst(lc);
		HsAggCall  *c = &calls[ncalls++];

		c->kind = agg_kind_of(a, moving, &c->statetype);
		c->restype = a->aggtype;
		c->arg = -1;
		c->filter = -1;
		any_moving |= c->kind == HS_AGG_MOVING;
		if (c->kind == HS_AGG_RECOMPUTE || c->kind == HS_AGG_MOVING)
		{
			/* the call over the kept rows: its expressions become columns */
			Aggref	   *na = copyObject(a);
			ListCell   *la;

			foreach(la, na->args)
			{
				TargetEntry *te = lfirst(la);

				te->expr = kept_expr(&kept, te->expr);
			}
			if (na->aggfilter)
				na->aggfilter = kept_expr(&kept, na->aggfilter);
			c->aggref = na;
			need_minmax = true;
			continue;
		}
		/* min, max, bool_and and bool_or are the same over distinct values */
		c->distinct = a->aggdistinct != NIL &&
			(c->kind == HS_AGG_COUNT || c->kind == HS_AGG_SUM || c->kind == HS_AGG_AVG);
		if (c->kind == HS_AGG_MIN || c->kind == HS_AGG_MAX || c->distinct)
			need_minmax = need_values = true;
		if (a->aggfilter)
		{
			exprs = lappend(exprs, map_expr(a->aggfilter, from));
			c->filter = list_length(exprs) - 1;
			/* count(*) FILTER (WHERE f): the rows where f is true */
			if (c->kind == HS_AGG_COUNT_STAR)
			{
				c->kind = HS_AGG_COUNT;
				c->arg = c->filter;
				c->argtype = BOOLOID;
			}
		}
		if (c->kind != HS_AGG_COUNT_STAR && c->arg < 0)
		{
			Expr	   *arg = linitial_node(TargetEntry, a->args)->expr;

			c->argtype = exprType((Node *) arg);
			exprs = lappend(exprs, map_expr(arg, from));
			c->arg = list_length(exprs) - 1;
		}
	}

	/*
	 * A group key whose encoding folds values Postgres prints differently
	 * (numeric 1.0 and 1.00, float -0 and 0, ...) is one group for all of
	 * them, as in Postgres, which shows the form of one of the group's
	 * rows.  The group's stored key is the form of the row that made it,
	 * which may be gone: the view shows instead a min of the key, whose
	 * value counts keep each form apart (agg_ordered_state.c), so it is
	 * always the form of a row the group has.  Its encoding is the key's,
	 * so it keys the view's rows as the key would.
	 */
	rctx.key_attno = NULL;
	if (list_length(an.aggrefs) + nkeys <= HS_AGG_MAX_CALLS)
	{
		for (i = 0; i < nkeys; i++)
		{
			Expr	   *ge = list_nth(an.group_exprs, i);
			Oid			type = exprType((Node *) ge);
			HsAggCall  *c;

			/*
			 * A hashed key (plan_hashed_keys.c) is shown wherever the level
			 * reads it; its min is taken over the key's own value, in the
			 * order of its encoding (the bytes it sends), not the type's.
			 */
			if (an.hashed[i])
			{
				/*
				 * (its value is read where the level shows it, in HAVING, in
				 * a hidden ORDER BY expression, and by window functions or
				 * an ORDER BY of the level, which may order by it)
				 */
				if (!contains_expr((Node *) visible_tlist(q), (Node *) ge) &&
					!contains_expr(q->havingQual, (Node *) ge) &&
					!contains_expr((Node *) extra, (Node *) ge) &&
					!q->hasWindowFuncs && q->sortClause == NIL)
					continue;
			}
			else if (q->hasWindowFuncs || !HsMemcmpTypeFolds(type) ||
					 !HsAggSupported(HS_AGG_MIN, type) ||
					 !contains_expr((Node *) visible_tlist(q), (Node *) ge))
				continue;		/* (views with windows were planned so before) */
			if (rctx.key_attno == NULL)
			{
				rctx.key_attno = palloc(sizeof(int) * nkeys);
				for (int k = 0; k < nkeys; k++)
					rctx.key_attno[k] = k + 1;
			}
			c = &calls[ncalls++];
			c->kind = HS_AGG_MIN;
			c->arg = i;
			if (an.hashed[i])
			{
				exprs = lappend(exprs, map_expr(ge, from));
				c->arg = list_length(exprs) - 1;
			}
			c->filter = -1;
			c->argtype = type;
			c->restype = type;
			rctx.key_attno[i] = nkeys + ncalls;
			need_minmax = need_values = true;
		}
	}
	for (i = 0; i < nkeys; i++)
		if (an.hashed[i] && list_length(an.aggrefs) + nkeys > HS_AGG_MAX_CALLS)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("a query level of a streaming materialized view grouping by type %s may have at most %d aggregate calls and group keys",
							format_type_be(exprType((Node *) list_nth(an.group_exprs, i))),
							HS_AGG_MAX_CALLS)));

	/* the kept rows of RECOMPUTE calls: the last input columns */
	kept_rows.ncols = list_length(kept);
	kept_rows.cols = palloc(sizeof(int) * Max(kept_rows.ncols, 1));
	i = 0;
	foreach(lc, kept)
	{
		exprs = lappend(exprs, map_expr(lfirst(lc), from));
		kept_rows.cols[i++] = list_length(exprs) - 1;
	}
	{
		bool		any_hashed = false;
		bool		any_float_sum = false;
		bool		exact;

		for (i = 0; i < nkeys; i++)
			any_hashed |= an.hashed[i];
		for (i = 0; i < ncalls; i++)
			any_float_sum |= (calls[i].kind == HS_AGG_SUM || calls[i].kind == HS_AGG_AVG) &&
				(calls[i].argtype == FLOAT4OID || calls[i].argtype == FLOAT8OID);
		/*
		 * (a view planned before keeps its layout: plan_hashed_keys.c; and
		 * its float sums running, as its groups' role says)
		 */
		exact = any_float_sum &&
			!next_state_recorded_as(ctx, psprintf("HashAgg groups%s%s",
												  any_moving ? " with moving states" : "",
												  any_hashed ? HASHED_KEYS_ROLE_MARK : ""));
		for (i = 0; i < ncalls; i++)
			calls[i].exact_float_sum = exact;
		groups = next_state(ctx, psprintf("HashAgg groups%s%s%s",
										  any_moving ? " with moving states" : "",
										  exact ? EXACT_FLOAT_SUMS_ROLE_MARK : "",
										  any_hashed ? HASHED_KEYS_ROLE_MARK : ""));
	}

	/*
	 * min/max keep each input row's value apart when the rows have a
	 * unique key (agg_ordered_state.c: written without reading the
	 * table); a view created before that keeps its values counted, as its
	 * state role says.
	 */
	by_row = need_minmax && from->has_ukey && from->ukey != NIL &&
		!next_state_recorded_as(ctx, minmax_role(kept, need_values, calls, ncalls, false));
	for (i = 0; by_row && i < ncalls; i++)
		if ((calls[i].kind == HS_AGG_MIN || calls[i].kind == HS_AGG_MAX) && !calls[i].distinct)
			break;
	by_row = by_row && i < ncalls;
	if (by_row)
	{
		rowkey = palloc(sizeof(int) * list_length(from->ukey));
		foreach(lc, from->ukey)
		{
			exprs = lappend(exprs, var_tle(from->desc, lfirst_int(lc), 1)->expr);
			rowkey[nrowkey++] = list_length(exprs) - 1;
		}
	}
	in = project_level(from, exprs, NIL, false);
	{
		/* how the calls are computed, where not natively (docs/SQL.md: costs) */
		int			nmoving = 0;
		int			nrecomputed = 0;
		char	   *how = "";

		for (i = 0; i < ncalls; i++)
		{
			nmoving += calls[i].kind == HS_AGG_MOVING;
			nrecomputed += calls[i].kind == HS_AGG_RECOMPUTE;
		}
		if (nmoving > 0 || nrecomputed > 0)
			how = psprintf(": %s%s%s", nmoving > 0 ? psprintf("%d by moving state", nmoving) : "",
						   nmoving > 0 && nrecomputed > 0 ? ", " : "",
						   nrecomputed > 0 ? psprintf("%d recomputed", nrecomputed) : "");
		note_operator(ctx, "HashAgg (%d group key%s, %d aggregate%s%s%s)", nkeys,
					  nkeys == 1 ? "" : "s", ncalls, ncalls == 1 ? "" : "s", how,
					  q->havingQual ? ", HAVING" : "");
	}
	if (need_minmax)
		second = next_state(ctx, minmax_role(kept, need_values, calls, ncalls, by_row));
	e = HsExecHashAggCreate(in->desc, nkeys, calls, ncalls, &kept_rows, groups, second,
							nkeys == 0);
	if (by_row)
		HsExecHashAggKeepValuesByRow(e, nrowkey, rowkey);
	/* what it keeps: group keys, min/max values, kept rows, results */
	for (i = 0; i < nkeys; i++)
		check_kept_column(in->desc, i, "HashAgg");
	for (i = 0; i < ncalls; i++)
		if (calls[i].kind == HS_AGG_MIN || calls[i].kind == HS_AGG_MAX)
			check_kept_column(in->desc, calls[i].arg, "HashAgg");
	for (i = 0; i < kept_rows.ncols; i++)
		check_kept_column(in->desc, kept_rows.cols[i], "HashAgg");
	check_kept_rows(e->out_desc, "HashAgg");
	attach(in, e);

	/* view columns (and hidden group key columns) over the aggregation */
	rctx.an = &an;
	if (q->hasWindowFuncs)
		return agg_windows(ctx, q, e, &rctx, extra, nkeys, distinct);
	foreach(lc, visible_tlist(q))
	{
		TargetEntry *tle = lfirst(lc);
		Expr	   *x = (Expr *) post_agg_mutator((Node *) tle->expr, &rctx);

		tl = lappend(tl, makeTargetEntry(expression_planner(x), list_length(tl) + 1,
										 NULL, false));
	}
	nvisible = list_length(tl);
	/* hidden: ORDER BY expressions of a Top-N that are not output columns */
	foreach(lc, extra)
	{
		TargetEntry *tle = lfirst(lc);
		Expr	   *x = (Expr *) post_agg_mutator((Node *) tle->expr, &rctx);

		tl = lappend(tl, makeTargetEntry(expression_planner(x), list_length(tl) + 1,
										 NULL, false));
	}
	if (!distinct)
	{
		for (i = 0; i < nkeys; i++)
		{
			int			found = -1;
			int			k = 0;

			foreach(lc, tl)
			{
				Var		   *v = (Var *) ((TargetEntry *) lfirst(lc))->expr;

				if (k >= nvisible)
					break;
				if (IsA(v, Var) &&
					v->varattno == (rctx.key_attno ? rctx.key_attno[i] : i + 1))
				{
					found = k;
					break;
				}
				k++;
			}
			if (found < 0)
			{
				found = list_length(tl);
				tl = lappend(tl, var_tle(e->out_desc, i, found + 1));
			}
			ukey = lappend_int(ukey, found);
		}
	}
	if (q->havingQual)
		having = make_ands_implicit(expression_planner((Expr *) post_agg_mutator(q->havingQual, &rctx)));
	{
		HsExec	   *src = having_temporal(ctx, e, &having);
		HsExec	   *p = HsExecProjectCreate(src->out_desc, having, tl);

		src->downstream = p;
		out = relout_of(p, NIL);
	}
	out->nvisible = nvisible;
	out->has_ukey = !distinct;
	out->ukey = ukey;
	return out;
}

/* ---------------------------------------------------------------------
 * DISTINCT
 * ---------------------------------------------------------------------
 */

/*
 * Is column att of a DISTINCT shown by a min of its rows' forms: its type
 * folds values that print differently into one key (numeric 1.0 and 1.00,
 * float -0 and 0, interval, bpchar, arrays and rows of them), the group
 * keeps the form of the row that made it, which may be gone, and the min's
 * value counts keep each form apart (so it is one some row still has).
 * (Not jsonb, which has no min.)
 */
static bool
distinct_shown_by_min(PlanCtx *ctx, Form_pg_attribute att)
{
	return ctx->distinct_shown_by_min && HsMemcmpTypeFolds(att->atttypid) &&
		HsAggSupported(HS_AGG_MIN, att->atttypid);
}

/*
 * DISTINCT over the visible columns of in, some of which must be grouped
 * by their hash (plan_hashed_keys.c) or shown by a min (above): a HashAgg
 * by the columns, hashed where they must be, with a min of each hashed or
 * folding column to show it (the form of one of the rows, as Postgres
 * shows one).  Rows equal to a row of another group in every column are in
 * that group, so the shown columns are a key of the output too.
 */
static RelOut *
distinct_by_hash(PlanCtx *ctx, RelOut *in)
{
	int			nhashed = 0;
	int			nshown = 0;		/* (the others shown by a min) */
	int			n = in->nvisible;
	List	   *exprs = NIL;
	List	   *tl = NIL;
	HsAggCall  *calls = palloc0(sizeof(HsAggCall) * (n + 1));
	int			ncalls = 0;
	int		   *shown = palloc(sizeof(int) * n);
	HsStateTable *groups;
	HsStateTable *values;
	HsExec	   *e;
	HsExec	   *p;
	RelOut	   *out;

	for (int i = 0; i < n; i++)
	{
		Form_pg_attribute att = TupleDescAttr(in->desc, i);

		if (group_key_needs_hash(att->atttypid, att->attcollation))
			nhashed++;
		else if (distinct_shown_by_min(ctx, att))
			nshown++;
	}
	if (n + nhashed + nshown > HS_AGG_MAX_CALLS)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("DISTINCT over more than %d columns some of which are grouped by their hash is not supported in a streaming materialized view",
						HS_AGG_MAX_CALLS / 2)));
	for (int i = 0; i < n; i++)
	{
		Expr	   *v = var_tle(in->desc, i, i + 1)->expr;
		Form_pg_attribute att = TupleDescAttr(in->desc, i);

		shown[i] = i + 1;
		if (group_key_needs_hash(att->atttypid, att->attcollation))
			v = hashed_group_key(v);
		exprs = lappend(exprs, v);
	}
	for (int i = 0; i < n; i++)
	{
		Form_pg_attribute att = TupleDescAttr(in->desc, i);
		HsAggCall  *c;

		if (!group_key_needs_hash(att->atttypid, att->attcollation) &&
			!distinct_shown_by_min(ctx, att))
			continue;
		exprs = lappend(exprs, var_tle(in->desc, i, i + 1)->expr);
		c = &calls[ncalls++];
		c->kind = HS_AGG_MIN;
		c->arg = list_length(exprs) - 1;
		c->filter = -1;
		c->argtype = att->atttypid;
		c->restype = att->atttypid;
		shown[i] = n + ncalls;
	}
	in = project_level(in, exprs, NIL, false);
	if (nhashed > 0)
		note_operator(ctx, "HashAgg (DISTINCT over %d column%s, %d by hash)", n, n == 1 ? "" : "s",
					  nhashed);
	else
		note_operator(ctx, "HashAgg (DISTINCT over %d column%s)", n, n == 1 ? "" : "s");
	check_kept_rows(in->desc, "DISTINCT");
	for (int i = 0; i < ncalls; i++)
		check_kept_column(in->desc, calls[i].arg, "DISTINCT");
	groups = next_state(ctx, psprintf("DISTINCT rows%s%s",
									  nhashed > 0 ? HASHED_KEYS_ROLE_MARK : "",
									  ctx->distinct_shown_by_min ?
									  DISTINCT_SHOWN_BY_MIN_ROLE_MARK : ""));
	values = next_state(ctx, minmax_role(NIL, true, calls, ncalls, false));
	e = HsExecHashAggCreate(in->desc, n, calls, ncalls, NULL, groups, values, false);
	attach(in, e);
	for (int i = 0; i < n; i++)
		tl = lappend(tl, var_tle(e->out_desc, shown[i] - 1, i + 1));
	p = HsExecProjectCreate(e->out_desc, NIL, tl);
	e->downstream = p;
	out = relout_of(p, NIL);
	out->nvisible = n;
	out->has_ukey = true;
	for (int i = 0; i < n; i++)
		out->ukey = lappend_int(out->ukey, i);
	return out;
}

/* DISTINCT over the visible columns of in. */
RelOut *
distinct_level(PlanCtx *ctx, RelOut *in)
{
	HsExec	   *e;
	RelOut	   *out;
	int			n = in->nvisible;
	int			nhashed = 0;
	int			nmin = 0;

	for (int i = 0; i < n; i++)
	{
		Form_pg_attribute att = TupleDescAttr(in->desc, i);

		if (key_needs_hash(att->atttypid, att->attcollation,
						   "DISTINCT over a column of type", "DISTINCT"))
			nhashed++;
		else if (distinct_shown_by_min(ctx, att))
			nmin++;
	}
	/* (a DISTINCT too wide for its mins shows the first form stored) */
	if (nhashed > 0 || (nmin > 0 && n + nmin <= HS_AGG_MAX_CALLS))
		return distinct_by_hash(ctx, in);
	if (in->desc->natts != n)
	{
		List	   *exprs = NIL;

		for (int i = 0; i < n; i++)
			exprs = lappend(exprs, var_tle(in->desc, i, i + 1)->expr);
		in = project_level(in, exprs, NIL, false);
	}
	note_operator(ctx, "HashAgg (DISTINCT over %d column%s)", n, n == 1 ? "" : "s");
	check_kept_rows(in->desc, "DISTINCT");
	e = HsExecHashAggCreate(in->desc, n, NULL, 0, NULL, next_state(ctx, "DISTINCT rows"), NULL, false);
	attach(in, e);
	out = relout_of(e, NIL);
	out->has_ukey = true;
	for (int i = 0; i < n; i++)
		out->ukey = lappend_int(out->ukey, i);
	return out;
}

/* ---------------------------------------------------------------------
 * GROUPING SETS, ROLLUP, CUBE
 * ---------------------------------------------------------------------
 */

typedef struct GroupingSetContext
{
	Query	   *q;
	List	   *set;			/* sortgrouprefs grouped in this set */
} GroupingSetContext;

/*
 * A target or HAVING expression of q as it reads in one grouping set:
 * GROUPING() is the constant its set gives, and a grouping expression not
 * in the set is NULL (outside aggregate calls, whose arguments see the
 * rows).
 */
static Node *
grouping_set_mutator(Node *node, GroupingSetContext *gs)
{
	ListCell   *lc;

	if (node == NULL)
		return NULL;
	if (IsA(node, GroupingFunc))
	{
		GroupingFunc *gf = (GroupingFunc *) node;
		int32		bits = 0;

		foreach(lc, gf->refs)
			bits = (bits << 1) | (list_member_int(gs->set, lfirst_int(lc)) ? 0 : 1);
		return (Node *) makeConst(INT4OID, -1, InvalidOid, 4, Int32GetDatum(bits), false, true);
	}
	if (IsA(node, Aggref))
		return node;
	if (!IsA(node, Const))
	{
		/*
		 * A grouping expression of the set keeps its value whole, even when
		 * a part of it is grouped only in other sets: in ROLLUP(abs(k), k)
		 * the set (abs(k)) shows abs(k), not abs(NULL).
		 */
		foreach(lc, gs->q->groupClause)
		{
			SortGroupClause *sgc = lfirst(lc);

			if (list_member_int(gs->set, sgc->tleSortGroupRef) &&
				equal(node, get_sortgroupclause_expr(sgc, gs->q->targetList)))
				return node;
		}
		foreach(lc, gs->q->groupClause)
		{
			SortGroupClause *sgc = lfirst(lc);
			Node	   *ge = get_sortgroupclause_expr(sgc, gs->q->targetList);

			if (!list_member_int(gs->set, sgc->tleSortGroupRef) && equal(node, ge))
				return (Node *) makeNullConst(exprType(ge), exprTypmod(ge), exprCollation(ge));
		}
	}
	return expression_tree_mutator(node, grouping_set_mutator, gs);
}

RelOut *
grouping_sets_query(PlanCtx *ctx, Query *q, List *outer)
{
	List	   *sets = expand_grouping_sets(q->groupingSets, q->groupDistinct, 4096);
	List	   *visible = visible_tlist(q);
	List	   *extra = top_n_extra(q);
	int			nsets = list_length(sets);
	int			nvis = list_length(visible);
	int			ncols = nvis + list_length(extra) + list_length(q->groupClause) + 1;
	HsExec	  **ports = palloc(sizeof(HsExec *) * Max(nsets, 1));
	HsExec	   *u = NULL;
	RelOut	   *out;
	ListCell   *lc;
	int			i = 0;

	if (sets == NIL)
		unsupported("GROUPING SETS without sets", true);
	note_operator(ctx, "GROUPING SETS (%d set%s)", nsets, nsets == 1 ? "" : "s");
	foreach(lc, sets)
	{
		GroupingSetContext gs;
		Query	   *qi = copyObject(q);
		List	   *tl = NIL;
		List	   *exprs = NIL;
		ListCell   *lt;
		RelOut	   *r;
		int			resno = 0;

		gs.q = q;
		gs.set = lfirst(lc);
		/* an aggregation level of its own, grouped by the set's expressions */
		qi->groupingSets = NIL;
		qi->groupClause = NIL;
		foreach(lt, q->groupClause)
			if (list_member_int(gs.set, ((SortGroupClause *) lfirst(lt))->tleSortGroupRef))
				qi->groupClause = lappend(qi->groupClause, copyObject(lfirst(lt)));
		qi->sortClause = NIL;
		qi->limitCount = NULL;
		qi->limitOffset = NULL;
		qi->distinctClause = NIL;
		qi->hasDistinctOn = false;
		qi->hasAggs = true;		/* (a level with GROUPING SETS is one) */
		/* its columns: q's, its ORDER BY ones, every grouping expression, the set */
		foreach(lt, q->targetList)
		{
			TargetEntry *tle = lfirst(lt);

			if (tle->resjunk && !list_member_ptr(extra, tle))
				continue;
			tle = flatCopyTargetEntry(tle);
			tle->expr = (Expr *) grouping_set_mutator((Node *) tle->expr, &gs);
			tle->resjunk = false;
			tle->resno = ++resno;
			tl = lappend(tl, tle);
		}
		foreach(lt, q->groupClause)
		{
			SortGroupClause *sgc = lfirst(lt);
			TargetEntry *tle = flatCopyTargetEntry(get_sortgroupclause_tle(sgc, q->targetList));

			tle->expr = (Expr *) grouping_set_mutator((Node *) tle->expr, &gs);
			tle->resjunk = false;
			tle->resno = ++resno;
			tle->ressortgroupref = 0;
			tle->resname = NULL;
			tl = lappend(tl, tle);
		}
		tl = lappend(tl, makeTargetEntry((Expr *) makeConst(INT4OID, -1, InvalidOid, 4,
															Int32GetDatum(i), false, true),
										 ++resno, NULL, false));
		/* the group clause reads the entries that carry its refs */
		foreach(lt, q->targetList)
		{
			TargetEntry *tle = lfirst(lt);

			/* (a grouped column that q does not show, nor orders by) */
			if (tle->ressortgroupref == 0 ||
				!list_member_int(gs.set, tle->ressortgroupref) ||
				!tle->resjunk || list_member_ptr(extra, tle))
				continue;
			tle = flatCopyTargetEntry(tle);
			tle->resno = ++resno;
			tl = lappend(tl, tle);
		}
		qi->targetList = tl;
		qi->havingQual = grouping_set_mutator(q->havingQual, &gs);
		r = plan_query(ctx, qi, outer);
		for (int c = 0; c < ncols; c++)
			exprs = lappend(exprs, var_tle(r->desc, c, c + 1)->expr);
		r = project_level(r, exprs, NIL, false);
		if (u == NULL)
		{
			note_operator(ctx, "Union (%d grouping sets)", nsets);
			u = HsExecUnionCreate(r->desc, nsets, ports);
		}
		attach(r, ports[i]);
		i++;
	}
	out = relout_of(u, NIL);
	out->nvisible = nvis;
	out->has_ukey = true;
	for (int c = nvis + list_length(extra); c < ncols; c++)
		out->ukey = lappend_int(out->ukey, c);
	if (q->distinctClause)
		unsupported("DISTINCT with GROUPING SETS", false);
	return out;
}
