/*-------------------------------------------------------------------------
 *
 * plan_temporal.c
 *	  Temporal filters: WHERE conditions that compare a row with the
 *	  current time (ts > now() - interval '1 hour').
 *
 * A view at epoch E is its query run with now() = E's time, so a row
 * enters or leaves the view when time passes its bound, with no write.
 * The current time may appear only in such a condition: a WHERE conjunct
 * (of any query level, before its aggregation) or a HAVING conjunct (over
 * the aggregation's rows: max(ts) > now() - interval '1 hour')
 *
 *		row_expr  op  time_expr		(or time_expr op row_expr)
 *
 * with op one of < <= > >= of a btree operator family (= is two of
 * them, >= and <=: ts::date = current_date holds the rows of the day), time_expr built of
 * the functions of the current time (now(), current_timestamp,
 * current_date, localtimestamp, ...; transaction_timestamp() and
 * statement_timestamp() are the same time in a view), constants and
 * immutable or stable built-in functions, and row_expr free of them.  A
 * BETWEEN is two such conjuncts.  When the two sides' types differ within
 * the family, the narrower side is cast to the other's type, as the
 * cross-type operator compares (a date column against now(): the row's
 * date to timestamptz; a timestamptz column against current_date: the
 * day's start at the view's TimeZone); the type must have an ordered key
 * encoding and no collation.  Each condition becomes a
 * DynamicFilter (exec_dynamic_filter.c) over the FROM item it reads, or
 * over the join of the items when it reads several.
 *
 * Under OR, a conjunct P1 OR ... OR (C AND F1 AND ...) whose one argument
 * reading the time is a conjunction of temporal filters F (and conditions
 * C without the time) is the same: rows where P1 OR ... OR C holds go on
 * to the filters, which let those where P1 OR ... holds pass whatever the
 * time (they are not kept) and hold the others to F.  WHERE status =
 * 'open' OR ts > now() - interval '1 day' keeps the open rows and the
 * others of the last day.  Two arguments reading the time are refused (a
 * row passing both would pass twice).  NOT (ts > bound) is ts <= bound.
 *
 * src/stream/plan/plan_temporal.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/stratnum.h"
#include "catalog/pg_type.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/clauses.h"
#include "optimizer/optimizer.h"
#include "parser/parse_coerce.h"
#include "rewrite/rewriteManip.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/typcache.h"

#include "hummock_stream/row/memcmp_key.h"

#include "plan_internal.h"

void
refuse_time_function(void)
{
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("now() and the other functions of the current time are supported in a streaming materialized view only in temporal filters"),
			 errdetail("A temporal filter is a WHERE or HAVING condition comparing an expression of the row with one of the current time and constants, such as ts > now() - interval '1 hour', possibly ORed with conditions that do not read the time."),
			 errhint("Compare with a constant timestamp, or filter on the time when you read the view.")));
}

bool
is_time_function(Oid funcid)
{
	switch (funcid)
	{
		case F_NOW:
		case F_TRANSACTION_TIMESTAMP:
		case F_STATEMENT_TIMESTAMP:
			return true;
	}
	return false;
}

bool
is_time_value_function(Node *node)
{
	if (!IsA(node, SQLValueFunction))
		return false;
	switch (((SQLValueFunction *) node)->op)
	{
		case SVFOP_CURRENT_DATE:
		case SVFOP_CURRENT_TIME:
		case SVFOP_CURRENT_TIME_N:
		case SVFOP_CURRENT_TIMESTAMP:
		case SVFOP_CURRENT_TIMESTAMP_N:
		case SVFOP_LOCALTIME:
		case SVFOP_LOCALTIME_N:
		case SVFOP_LOCALTIMESTAMP:
		case SVFOP_LOCALTIMESTAMP_N:
			return true;
		default:
			return false;
	}
}

static bool
time_walker(Node *node, void *arg)
{
	if (node == NULL)
		return false;
	if (IsA(node, FuncExpr) && is_time_function(((FuncExpr *) node)->funcid))
		return true;
	if (is_time_value_function(node))
		return true;
	return expression_tree_walker(node, time_walker, arg);
}

bool
contains_time(Node *node)
{
	return time_walker(node, NULL);
}

/* Vars of any level, aggregates, sublinks, window calls: not of the time alone. */
static bool
not_time_only_walker(Node *node, void *arg)
{
	if (node == NULL)
		return false;
	if (IsA(node, Var) || IsA(node, Aggref) || IsA(node, SubLink) ||
		IsA(node, WindowFunc) || IsA(node, GroupingFunc) || IsA(node, PlaceHolderVar) ||
		IsA(node, Param))
		return true;
	return expression_tree_walker(node, not_time_only_walker, arg);
}

bool
temporal_filter(Node *c, TemporalFilter *tf)
{
	OpExpr	   *op;
	Node	   *row;
	Node	   *time;
	Oid			opno;
	List	   *interps;
	ListCell   *lc;
	int			strategy = 0;
	Oid			opfamily = InvalidOid;
	Oid			type;
	Oid			row_type;
	TypeCacheEntry *tc;
	Oid			same_op;

	if (!IsA(c, OpExpr) || list_length(((OpExpr *) c)->args) != 2)
		return false;
	op = (OpExpr *) c;
	row = linitial(op->args);
	time = lsecond(op->args);
	opno = op->opno;
	if (contains_time(row))
	{
		Node	   *t = row;

		row = time;
		time = t;
		opno = get_commutator(opno);
		if (!OidIsValid(opno))
			return false;
	}
	if (!contains_time(time) || contains_time(row) || not_time_only_walker(time, NULL) ||
		contain_volatile_functions(time) || contain_window_function(row))
		return false;
	/*
	 * The two sides compared in one type, as the operator compares them:
	 * a cross-type comparison of a family (timestamptz > date, date <
	 * now()) converts the narrower side, which is the one with an implicit
	 * cast to the other's type (date to timestamptz at the view's TimeZone).
	 */
	type = exprType(time);
	row_type = exprType(row);
	if (row_type != type && !can_coerce_type(1, &row_type, &type, COERCION_IMPLICIT))
	{
		if (!can_coerce_type(1, &type, &row_type, COERCION_IMPLICIT))
			return false;
		time = coerce_to_target_type(NULL, copyObject(time), type, row_type, -1,
									 COERCION_IMPLICIT, COERCE_IMPLICIT_CAST, -1);
		if (time == NULL)
			return false;
		type = row_type;
	}
	/* a comparison of the btree family of that type, with its ordered encoding */
	tc = lookup_type_cache(type, TYPECACHE_BTREE_OPFAMILY);
	if (!OidIsValid(tc->btree_opf) || HsMemcmpTypeSupport(type) != HS_MEMCMP_ORDERED ||
		type_is_collatable(type))
		return false;
	interps = get_op_btree_interpretation(opno);
	foreach(lc, interps)
	{
		OpBtreeInterpretation *i = lfirst(lc);

		if (i->opfamily_id == tc->btree_opf &&
			(i->strategy == BTLessStrategyNumber || i->strategy == BTLessEqualStrategyNumber ||
			 i->strategy == BTGreaterStrategyNumber ||
			 i->strategy == BTGreaterEqualStrategyNumber))
		{
			strategy = i->strategy;
			opfamily = i->opfamily_id;
			break;
		}
	}
	if (strategy == 0)
		return false;
	same_op = get_opfamily_member(opfamily, type, type, strategy);
	if (!OidIsValid(same_op))
		return false;
	if (exprType(row) != type)
	{
		row = coerce_to_target_type(NULL, copyObject(row), exprType(row), type, -1,
									COERCION_IMPLICIT, COERCE_IMPLICIT_CAST, -1);
		if (row == NULL)
			return false;
	}
	tf->row = (Expr *) row;
	tf->time = (Expr *) time;
	tf->type = type;
	tf->strategy = strategy;
	return true;
}

/*
 * The time expression with the functions of the current time replaced
 * by parameter 1 (timestamptz), cast as each function returns it.
 */
static Node *
time_param_mutator(Node *node, void *arg)
{
	if (node == NULL)
		return NULL;
	if ((IsA(node, FuncExpr) && is_time_function(((FuncExpr *) node)->funcid)) ||
		is_time_value_function(node))
	{
		Param	   *p = makeNode(Param);
		Oid			type = exprType(node);
		int32		typmod = exprTypmod(node);
		Node	   *r;

		p->paramkind = PARAM_EXTERN;
		p->paramid = 1;
		p->paramtype = TIMESTAMPTZOID;
		p->paramtypmod = -1;
		p->paramcollid = InvalidOid;
		p->location = -1;
		if (type == TIMESTAMPTZOID && typmod < 0)
			return (Node *) p;
		r = coerce_to_target_type(NULL, (Node *) p, TIMESTAMPTZOID, type, typmod,
								  COERCION_EXPLICIT, COERCE_EXPLICIT_CAST, -1);
		if (r == NULL)
			elog(ERROR, "no cast from timestamptz to %s", format_type_be(type));
		return r;
	}
	return expression_tree_mutator(node, time_param_mutator, arg);
}

List *
temporal_conjuncts(Node *c)
{
	OpExpr	   *op = (OpExpr *) c;
	List	   *interps;
	ListCell   *lc;

	if (!IsA(c, OpExpr) || list_length(op->args) != 2 ||
		contains_time(linitial(op->args)) == contains_time(lsecond(op->args)))
		return list_make1(c);
	interps = get_op_btree_interpretation(op->opno);
	foreach(lc, interps)
	{
		OpBtreeInterpretation *i = lfirst(lc);
		Oid			ge;
		Oid			le;

		if (i->strategy != BTEqualStrategyNumber)
			continue;
		ge = get_opfamily_member(i->opfamily_id, i->oplefttype, i->oprighttype,
								 BTGreaterEqualStrategyNumber);
		le = get_opfamily_member(i->opfamily_id, i->oplefttype, i->oprighttype,
								 BTLessEqualStrategyNumber);
		if (!OidIsValid(ge) || !OidIsValid(le))
			continue;
		return list_make2(make_opclause(ge, BOOLOID, false, copyObject(linitial(op->args)),
										copyObject(lsecond(op->args)), InvalidOid,
										op->inputcollid),
						  make_opclause(le, BOOLOID, false, copyObject(linitial(op->args)),
										copyObject(lsecond(op->args)), InvalidOid,
										op->inputcollid));
	}
	return list_make1(c);
}

/*
 * The conjuncts of e that read the time, as temporal filters, appended to
 * *filters, and the others to *plain; false if one that reads the time
 * is not a temporal filter.
 */
static bool
split_time_conjuncts(Node *e, List **filters, List **plain)
{
	ListCell   *lc;
	TemporalFilter tf;

	foreach(lc, make_ands_implicit((Expr *) e))
	{
		Node	   *c = lfirst(lc);
		ListCell   *lp;

		if (is_andclause(c))
		{
			/* (a BETWEEN, or parentheses) */
			if (!split_time_conjuncts(c, filters, plain))
				return false;
			continue;
		}
		if (!contains_time(c))
		{
			*plain = lappend(*plain, c);
			continue;
		}
		/* (an equality is two filters) */
		foreach(lp, temporal_conjuncts(c))
		{
			if (!temporal_filter(lfirst(lp), &tf))
				return false;
			*filters = lappend(*filters, lfirst(lp));
		}
	}
	return true;
}

/* The arguments of an OR, nested ORs flattened. */
static List *
or_arguments(Node *c)
{
	List	   *args = NIL;
	ListCell   *lc;

	if (!is_orclause(c))
		return list_make1(c);
	foreach(lc, ((BoolExpr *) c)->args)
		args = list_concat(args, or_arguments(lfirst(lc)));
	return args;
}

bool
temporal_condition(Node *c, TemporalCondition *tc)
{
	List	   *others = NIL;
	Node	   *timed = NULL;
	ListCell   *lc;

	memset(tc, 0, sizeof(*tc));
	if (!contains_time(c))
		return false;
	if (is_notclause(c))
	{
		/* NOT (ts > bound) is ts <= bound (NULL stays NULL) */
		Node	   *n = negate_clause((Node *) get_notclausearg(c));

		return !is_notclause(n) && temporal_condition(n, tc);
	}
	if (!is_orclause(c))
	{
		/* one filter, or an equality as two */
		foreach(lc, temporal_conjuncts(c))
		{
			TemporalFilter tf;

			if (!temporal_filter(lfirst(lc), &tf))
				return false;
			tc->filters = lappend(tc->filters, lfirst(lc));
		}
		return true;
	}
	/* an OR: one argument reads the time, the others pass rows anyway */
	foreach(lc, or_arguments(c))
	{
		if (!contains_time(lfirst(lc)))
			others = lappend(others, lfirst(lc));
		else if (timed == NULL)
			timed = lfirst(lc);
		else
			return false;
	}
	if (!split_time_conjuncts(timed, &tc->filters, &tc->plain) || tc->filters == NIL)
		return false;
	tc->bypass = list_length(others) == 1 ? linitial(others) : make_orclause(others);
	return true;
}

List *
take_temporal(List *conds, List **temporal)
{
	List	   *rest = NIL;
	ListCell   *lc;
	TemporalCondition tc;

	foreach(lc, conds)
	{
		if (temporal_condition(lfirst(lc), &tc))
			*temporal = lappend(*temporal, lfirst(lc));
		else
			rest = lappend(rest, lfirst(lc));
	}
	return rest;
}

RelOut *
apply_temporal(PlanCtx *ctx, RelOut *in, List *temporal)
{
	ListCell   *lc;

	foreach(lc, temporal)
	{
		TemporalCondition tc;
		ListCell   *lf;

		if (!temporal_condition(lfirst(lc), &tc))
			elog(ERROR, "not a temporal filter");
		/*
		 * P OR (plain AND filters): rows where P or plain holds go on; of
		 * them, those where P holds pass every filter as they are.
		 */
		if (tc.bypass && tc.plain)
			in = apply_filter(in, list_make1(make_orclause(list_make2(tc.bypass,
																	  make_ands_explicit(tc.plain)))));
		foreach(lf, tc.filters)
		{
			TemporalFilter tf;
			HsExec	   *e;
			RelOut	   *out;
			Expr	   *bound;

			(void) temporal_filter(lfirst(lf), &tf);
			bound = expression_planner((Expr *) time_param_mutator((Node *) tf.time, NULL));
			note_operator(ctx, "DynamicFilter (%s%s)",
						  tf.strategy == BTLessStrategyNumber ? "<" :
						  tf.strategy == BTLessEqualStrategyNumber ? "<=" :
						  tf.strategy == BTGreaterEqualStrategyNumber ? ">=" : ">",
						  tc.bypass ? ", or passing by a condition without the time" : "");
			check_kept_rows(in->desc, "temporal filter");
			e = HsExecDynamicFilterCreate(in->desc, map_expr(tf.row, in), tf.type, tf.strategy,
										  bound,
										  tc.bypass ? map_expr(tc.bypass, in) : NULL,
										  next_state(ctx, "DynamicFilter rows by key"));
			attach(in, e);
			out = relout_of(e, in->vars);
			out->has_ukey = in->has_ukey;
			out->ukey = in->ukey;
			out->nvisible = in->nvisible;
			in = out;
		}
	}
	return in;
}

/* ---------------------------------------------------------------------
 * Comparisons with the current time inside expressions
 * ---------------------------------------------------------------------
 *
 * A comparison of a row with the current time may also be a value of the
 * row, not a filter: CASE WHEN due < now() THEN 'late' ELSE 'on time'
 * END, count(*) FILTER (WHERE ts > now() - interval '1 day'), GROUP BY
 * ts > now() - interval '1 hour'.  Its value changes as time passes, so
 * the level reads its rows through
 *
 *	SELECT <what the level reads of them>, true AS hs_now FROM ... WHERE ... AND C
 *	UNION ALL
 *	SELECT <what the level reads of them>, CASE WHEN r IS NULL THEN NULL ELSE false END
 *	  FROM ... WHERE ... AND (NOT C OR r IS NULL)
 *
 * (C the comparison, r its row side; NOT C OR r IS NULL is C IS NOT
 * TRUE, the time's side being a value): two temporal filters, one of them
 * under OR, so a row moves from one branch to the other when time passes
 * its bound, and the level reads hs_now, C's value, where it read C.  Each
 * row is in exactly one branch.  An equality (ts::date = current_date AS
 * today) is two temporal filters and splits the rows three ways (at, below
 * or NULL, above: split_branches).  Several such comparisons nest (the
 * next one splits the level over the first).
 */

/*
 * A comparison the split takes, over the row's values: a temporal filter,
 * or an equality (two of them: *tfs gets one or two).
 */
static bool
row_time_comparison(Node *node, List **tfs)
{
	List	   *filters;
	ListCell   *lc;

	*tfs = NIL;
	if (!IsA(node, OpExpr) || !contains_time(node))
		return false;
	filters = temporal_conjuncts(node);
	foreach(lc, filters)
	{
		TemporalFilter *tf = palloc(sizeof(TemporalFilter));

		if (!temporal_filter(lfirst(lc), tf) ||
			contain_aggs_of_level((Node *) tf->row, 0) ||
			contain_window_function((Node *) tf->row) ||
			contains_sublink((Node *) tf->row) || contain_vars_of_level((Node *) tf->row, 1) ||
			!contain_vars_of_level((Node *) tf->row, 0))
			return false;
	}
	*tfs = filters;
	return filters != NIL;
}

typedef struct FindTime
{
	bool		in_agg_only;	/* only inside aggregate calls */
	int			agg_depth;
	Node	   *found;
} FindTime;

static bool
find_time_walker(Node *node, FindTime *ft)
{
	List	   *filters;

	if (node == NULL)
		return false;
	if (IsA(node, Query))
		return false;			/* (a subquery's own comparisons are its) */
	if ((!ft->in_agg_only || ft->agg_depth > 0) && row_time_comparison(node, &filters))
	{
		ft->found = node;
		return true;
	}
	if (IsA(node, Aggref))
	{
		bool		r;

		ft->agg_depth++;
		r = expression_tree_walker(node, find_time_walker, ft);
		ft->agg_depth--;
		return r;
	}
	return expression_tree_walker(node, find_time_walker, ft);
}


/*
 * Does select-list entry tle of q read q's rows only inside aggregate
 * calls?  At an aggregating level it does, unless it is a GROUP BY
 * expression (computed per row, then grouped by); the split takes a
 * comparison with the time only where it reads rows.
 */
static bool
rows_only_in_aggregates(Query *q, TargetEntry *tle)
{
	return aggregating(q) &&
		!(tle->ressortgroupref &&
		  get_sortgroupref_clause_noerr(tle->ressortgroupref, q->groupClause));
}

/* The first comparison q's select list or HAVING has that the split takes. */
static Node *
find_row_time_comparison(Query *q)
{
	FindTime	ft = {false, 0, NULL};
	ListCell   *lc;

	foreach(lc, q->targetList)
	{
		TargetEntry *tle = lfirst(lc);

		ft.in_agg_only = rows_only_in_aggregates(q, tle);
		if (find_time_walker((Node *) tle->expr, &ft))
			return ft.found;
	}
	ft.in_agg_only = true;
	if (find_time_walker(q->havingQual, &ft))
		return ft.found;
	return NULL;
}

typedef struct SplitVars
{
	Node	   *cond;			/* the comparison, read as ... */
	Var		   *now;			/* ... this column */
	List	   *vars;			/* the level's Vars, read as column i + 1 */
	bool		in_agg_only;	/* cond replaced only inside aggregate calls */
	int			agg_depth;
} SplitVars;

static Node *
split_vars_mutator(Node *node, SplitVars *sv)
{
	if (node == NULL)
		return NULL;
	if ((!sv->in_agg_only || sv->agg_depth > 0) && equal(node, sv->cond))
		return copyObject((Node *) sv->now);
	if (IsA(node, Aggref))
	{
		Node	   *r;

		sv->agg_depth++;
		r = expression_tree_mutator(node, split_vars_mutator, sv);
		sv->agg_depth--;
		return r;
	}
	if (IsA(node, Var) && ((Var *) node)->varlevelsup == 0)
	{
		ListCell   *lc;

		foreach(lc, sv->vars)
		{
			Var		   *v = lfirst(lc);

			if (v->varno == ((Var *) node)->varno && v->varattno == ((Var *) node)->varattno)
				return (Node *) makeVar(1, foreach_current_index(lc) + 1, v->vartype,
										v->vartypmod, v->varcollid, 0);
		}
		elog(ERROR, "streaming plan: a column the time split does not carry");
	}
	return expression_tree_mutator(node, split_vars_mutator, sv);
}

/* One branch: q's rows where cond holds, the Vars and then hs_now = now. */
static Query *
split_branch(Query *q, List *vars, Node *cond, Expr *now)
{
	Query	   *b = copyObject(q);
	ListCell   *lc;

	b->targetList = NIL;
	foreach(lc, vars)
		b->targetList = lappend(b->targetList,
								makeTargetEntry(copyObject(lfirst(lc)),
												foreach_current_index(lc) + 1,
												psprintf("hs_col_%d", foreach_current_index(lc) + 1),
												false));
	b->targetList = lappend(b->targetList,
							makeTargetEntry(now, list_length(vars) + 1, pstrdup("hs_now"), false));
	b->hasAggs = false;
	b->hasWindowFuncs = false;
	b->hasTargetSRFs = false;
	b->hasDistinctOn = false;
	b->groupClause = NIL;
	b->groupingSets = NIL;
	b->havingQual = NULL;
	b->windowClause = NIL;
	b->distinctClause = NIL;
	b->sortClause = NIL;
	b->limitCount = NULL;
	b->limitOffset = NULL;
	b->limitOption = LIMIT_OPTION_DEFAULT;
	b->jointree->quals = (Node *)
		make_ands_explicit(lappend(make_ands_implicit((Expr *) b->jointree->quals), cond));
	/* two levels deeper than the level: WITH queries of the levels above too */
	IncrementVarSublevelsUp((Node *) b, 2, 1);
	return b;
}

/* The level's Vars (outside its FROM and WHERE), each once. */
static List *
level_vars(Query *q)
{
	List	   *vars = pull_var_clause((Node *) list_make2(q->targetList, q->havingQual),
									   PVC_RECURSE_AGGREGATES | PVC_RECURSE_WINDOWFUNCS |
									   PVC_RECURSE_PLACEHOLDERS);
	List	   *unique = NIL;
	ListCell   *lc;

	foreach(lc, vars)
	{
		Var		   *v = lfirst(lc);
		ListCell   *lu;
		bool		seen = false;

		foreach(lu, unique)
			seen |= ((Var *) lfirst(lu))->varno == v->varno &&
				((Var *) lfirst(lu))->varattno == v->varattno;
		if (!seen)
		{
			v = copyObject(v);
			v->location = -1;
			unique = lappend(unique, v);
		}
	}
	return unique;
}

/* r IS NULL */
static Expr *
is_null(Expr *r)
{
	NullTest   *nt = makeNode(NullTest);

	nt->arg = (Expr *) copyObject(r);
	nt->nulltesttype = IS_NULL;
	nt->location = -1;
	return (Expr *) nt;
}

/*
 * The branches of comparison cond (its temporal filters: one, or two for
 * an equality): *conds, which split the rows, and *values, cond's value
 * in each.
 *
 *	r op t:		r op t -> true;  NOT (r op t) OR r IS NULL -> false, or NULL where r is
 *	r = t:		r >= t AND r <= t -> true;  r < t OR r IS NULL -> false or NULL;
 *				r > t -> false
 */
static void
split_branches(Node *cond, List *filters, List **conds, List **values)
{
	Expr	   *row = NULL;
	CaseExpr   *ce = makeNode(CaseExpr);
	CaseWhen   *cw = makeNode(CaseWhen);
	TemporalFilter tf;

	(void) temporal_filter(linitial(filters), &tf);
	row = tf.row;
	cw->expr = is_null(row);
	cw->result = (Expr *) makeNullConst(BOOLOID, -1, InvalidOid);
	cw->location = -1;
	ce->casetype = BOOLOID;
	ce->args = list_make1(cw);
	ce->defresult = (Expr *) makeBoolConst(false, false);
	ce->location = -1;

	*conds = list_make2(list_length(filters) == 1 ? copyObject(cond) :
						(Node *) make_andclause(copyObject(filters)),
						make_orclause(list_make2(negate_clause(copyObject(linitial(filters))),
												 is_null(row))));
	*values = list_make2(makeBoolConst(true, false), ce);
	if (list_length(filters) == 2)
	{
		*conds = lappend(*conds, negate_clause(copyObject(lsecond(filters))));
		*values = lappend(*values, makeBoolConst(false, false));
	}
}

/* UNION ALL of queries (their columns of the same types), left-deep. */
static Query *
union_all_of(List *queries)
{
	Query	   *u = makeNode(Query);
	Node	   *tree = NULL;
	ListCell   *lc;

	u->commandType = CMD_SELECT;
	u->querySource = QSRC_ORIGINAL;
	u->canSetTag = true;
	u->jointree = makeFromExpr(NIL, NULL);
	foreach(lc, queries)
	{
		RangeTblRef *ref = makeNode(RangeTblRef);

		u->rtable = lappend(u->rtable,
							subquery_rte(lfirst(lc), psprintf("hs_split_%d",
															  foreach_current_index(lc) + 1),
										 false));
		ref->rtindex = list_length(u->rtable);
		if (tree == NULL)
			tree = (Node *) ref;
		else
		{
			SetOperationStmt *op = makeNode(SetOperationStmt);

			op->op = SETOP_UNION;
			op->all = true;
			op->larg = tree;
			op->rarg = (Node *) ref;
			tree = (Node *) op;
		}
	}
	/* every node's column types, and the level's Vars: the leftmost's columns */
	foreach(lc, ((Query *) linitial(queries))->targetList)
	{
		TargetEntry *tle = lfirst(lc);
		Node	   *n;

		for (n = tree; IsA(n, SetOperationStmt); n = ((SetOperationStmt *) n)->larg)
		{
			SetOperationStmt *op = (SetOperationStmt *) n;

			op->colTypes = lappend_oid(op->colTypes, exprType((Node *) tle->expr));
			op->colTypmods = lappend_int(op->colTypmods, exprTypmod((Node *) tle->expr));
			op->colCollations = lappend_oid(op->colCollations,
											exprCollation((Node *) tle->expr));
		}
		u->targetList = lappend(u->targetList,
								makeTargetEntry((Expr *) makeVar(1, tle->resno,
																 exprType((Node *) tle->expr),
																 exprTypmod((Node *) tle->expr),
																 exprCollation((Node *) tle->expr),
																 0),
												tle->resno, pstrdup(tle->resname), false));
	}
	u->setOperations = tree;
	return u;
}

Query *
split_on_time(Query *q)
{
	for (int round = 0; round < 4; round++)
	{
		Node	   *cond;
		List	   *filters;
		List	   *vars;
		List	   *conds;
		List	   *values;
		List	   *branches = NIL;
		Query	   *top;
		SplitVars	sv;
		ListCell   *lc;
		ListCell   *lv;

		if (q->setOperations || q->groupingSets || q->jointree == NULL ||
			contains_sublink((Node *) q->targetList) || contains_sublink(q->havingQual) ||
			contain_vars_of_level((Node *) q, 1))
			return q;
		cond = find_row_time_comparison(q);
		if (cond == NULL)
			return q;
		(void) row_time_comparison(cond, &filters);
		vars = level_vars(q);
		split_branches(cond, filters, &conds, &values);
		forboth(lc, conds, lv, values)
			branches = lappend(branches, split_branch(q, vars, lfirst(lc), lfirst(lv)));

		/* the level over them: C is hs_now, the Vars are the columns */
		top = copyObject(q);
		top->rtable = list_make1(subquery_rte(union_all_of(branches), "hs_time_split", true));
		top->jointree = makeFromExpr(list_make1(makeNode(RangeTblRef)), NULL);
		((RangeTblRef *) linitial(top->jointree->fromlist))->rtindex = 1;
		top->cteList = NIL;
		top->hasSubLinks = false;
		sv.cond = cond;
		sv.now = makeVar(1, list_length(vars) + 1, BOOLOID, -1, InvalidOid, 0);
		sv.vars = vars;
		sv.agg_depth = 0;
		/* (where find_row_time_comparison looks: over groups, in aggregates) */
		foreach(lc, top->targetList)
		{
			TargetEntry *tle = lfirst(lc);

			sv.in_agg_only = rows_only_in_aggregates(q, tle);
			tle->expr = (Expr *) split_vars_mutator((Node *) tle->expr, &sv);
		}
		sv.in_agg_only = true;
		top->havingQual = split_vars_mutator(top->havingQual, &sv);
		q = top;
	}
	return q;
}
