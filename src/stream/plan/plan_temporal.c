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
 * the family (a date column against now()), the row's side is cast to the
 * time's type, as the cross-type operator compares; the type must have an
 * ordered key encoding and no collation.  Each condition becomes a
 * DynamicFilter (exec_dynamic_filter.c) over the FROM item it reads, or
 * over the join of the items when it reads several.
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
			 errdetail("A temporal filter is a WHERE condition comparing an expression of the row with one of the current time and constants, such as ts > now() - interval '1 hour'."),
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
	 * A comparison of the btree family of the time's type, compared in
	 * that type with its own ordered encoding.
	 */
	type = exprType(time);
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

List *
take_temporal(List *conds, List **temporal)
{
	List	   *rest = NIL;
	ListCell   *lc;
	TemporalFilter tf;

	foreach(lc, conds)
	{
		List	   *parts = temporal_conjuncts(lfirst(lc));
		ListCell   *lp;

		/* (an equality is two filters, or stays as it was) */
		foreach(lp, parts)
			if (!temporal_filter(lfirst(lp), &tf))
				break;
		if (lp == NULL)
			*temporal = list_concat(*temporal, parts);
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
		TemporalFilter tf;
		HsExec	   *e;
		RelOut	   *out;
		Expr	   *bound;

		if (!temporal_filter(lfirst(lc), &tf))
			elog(ERROR, "not a temporal filter");
		bound = expression_planner((Expr *) time_param_mutator((Node *) tf.time, NULL));
		note_operator(ctx, "DynamicFilter (%s)",
					  tf.strategy == BTLessStrategyNumber ? "<" :
					  tf.strategy == BTLessEqualStrategyNumber ? "<=" :
					  tf.strategy == BTGreaterEqualStrategyNumber ? ">=" : ">");
		e = HsExecDynamicFilterCreate(in->desc, map_expr(tf.row, in), tf.type, tf.strategy,
									  bound, next_state(ctx, "DynamicFilter rows by key"));
		attach(in, e);
		out = relout_of(e, in->vars);
		out->has_ukey = in->has_ukey;
		out->ukey = in->ukey;
		out->nvisible = in->nvisible;
		in = out;
	}
	return in;
}
