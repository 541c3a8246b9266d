/*-------------------------------------------------------------------------
 *
 * plan_srf.c
 *	  Planning set-returning functions in a streaming view's select list.
 *
 * As Postgres's planner splits a target list at its set-returning
 * functions (split_pathtarget_at_srfs), a query level whose select list
 * calls them becomes
 *
 *	(its FROM and WHERE) -> ProjectSet(the distinct calls)
 *		-> Project(the select list, each call replaced by its column)
 *
 * ProjectSet (exec_project_set.c) passes the input columns through and
 * adds a column per call and the output row's position among those of its
 * input row, which follows the input's unique key into the level's.  The
 * calls stand in the select list as Vars of a range table entry that does
 * not exist (SRF_VARNO + k), which the level's RelOut maps to their
 * columns like any other Var.  Calls nested in another call's arguments
 * are refused.
 *
 * At an aggregating level, Postgres evaluates the calls in GROUP BY
 * expressions (SELECT unnest(tags) AS tag, count(*) ... GROUP BY tag)
 * before grouping, in lockstep: the same rows as ROWS FROM (the calls)
 * laterally joined to the level's FROM items, NULL-padded alike.  So
 * grouped_calls_to_from makes them such a FROM item (plan_join.c plans
 * it), and the expressions read its columns.  Calls in the select list
 * outside GROUP BY expressions run after the aggregation, over the groups
 * (plan_over_groups.c makes them a level of their own).  Calls returning
 * composites in GROUP BY are refused.
 *
 * src/stream/plan/plan_srf.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "utils/lsyscache.h"

#include "plan_internal.h"

/* The varno of the Var standing for call k: no range table reaches it. */
#define SRF_VARNO 1000000

static bool
is_srf_call(Node *node)
{
	return (IsA(node, FuncExpr) && ((FuncExpr *) node)->funcretset) ||
		(IsA(node, OpExpr) && ((OpExpr *) node)->opretset);
}

/* The distinct set-returning calls of node, outermost ones. */
static bool
collect_calls_walker(Node *node, List **calls)
{
	if (node == NULL)
		return false;
	if (is_srf_call(node))
	{
		List	   *args = IsA(node, FuncExpr) ? ((FuncExpr *) node)->args :
			((OpExpr *) node)->args;

		if (expression_returns_set((Node *) args))
			unsupported("set-returning functions in the arguments of set-returning functions", true);
		*calls = list_append_unique(*calls, node);
		return false;
	}
	return expression_tree_walker(node, collect_calls_walker, calls);
}

RelOut *
srf_level(PlanCtx *ctx, RelOut *from, List **targets)
{
	List	   *calls = NIL;
	List	   *call_vars = NIL;	/* the Var standing for each call */
	List	   *funcs = NIL;
	List	   *vars;
	ListCell   *lc;
	HsExec	   *e;
	RelOut	   *out;
	int			k = 0;

	foreach(lc, *targets)
		(void) collect_calls_walker(lfirst(lc), &calls);
	if (calls == NIL)
		return from;
	foreach(lc, calls)
	{
		Node	   *call = lfirst(lc);

		funcs = lappend(funcs, map_expr((Expr *) call, from));
		call_vars = lappend(call_vars, makeVar(SRF_VARNO + k, 1, exprType(call), exprTypmod(call),
										   exprCollation(call), 0));
		k++;
	}
	note_operator(ctx, "ProjectSet (%d set-returning function%s)", k, k == 1 ? "" : "s");
	e = HsExecProjectSetCreate(from->desc, funcs, NIL, false);
	attach(from, e);
	vars = list_concat_copy(from->vars, call_vars);
	vars = lappend(vars, NULL);	/* the position */
	out = relout_of(e, vars);
	out->nvisible = from->desc->natts;
	out->has_ukey = from->has_ukey;
	if (from->has_ukey)
		out->ukey = lappend_int(list_copy(from->ukey), e->out_desc->natts - 1);
	foreach(lc, *targets)
		lfirst(lc) = replace_calls(lfirst(lc), calls, call_vars);
	return out;
}

void
grouped_calls_to_from(Query *q)
{
	List	   *calls = NIL;
	List	   *call_vars = NIL;
	List	   *colnames = NIL;
	RangeTblEntry *rte;
	RangeTblRef *rtr;
	ListCell   *lc;
	int			rtindex;
	int			k = 0;

	if (!q->hasTargetSRFs || q->setOperations || q->groupingSets ||
		!aggregating(q))
		return;
	foreach(lc, q->targetList)
	{
		TargetEntry *tle = lfirst(lc);

		if (tle->ressortgroupref &&
			get_sortgroupref_clause_noerr(tle->ressortgroupref, q->groupClause))
			(void) collect_calls_walker((Node *) tle->expr, &calls);
	}
	if (calls == NIL)
		return;
	foreach(lc, calls)
		if (type_is_rowtype(exprType(lfirst(lc))))
			return;				/* (check_query_level refuses) */

	rte = makeNode(RangeTblEntry);
	rte->rtekind = RTE_FUNCTION;
	rte->lateral = true;
	rte->inFromCl = true;
	rtindex = list_length(q->rtable) + 1;
	foreach(lc, calls)
	{
		Node	   *call = lfirst(lc);
		RangeTblFunction *rtf = makeNode(RangeTblFunction);

		rtf->funcexpr = copyObject(call);
		rtf->funccolcount = 1;
		rte->functions = lappend(rte->functions, rtf);
		colnames = lappend(colnames, makeString(psprintf("set_returning_%d", ++k)));
		call_vars = lappend(call_vars, makeVar(rtindex, k, exprType(call), exprTypmod(call),
											   exprCollation(call), 0));
	}
	rte->eref = makeAlias("grouped_set_returning_calls", colnames);
	q->rtable = lappend(q->rtable, rte);
	rtr = makeNode(RangeTblRef);
	rtr->rtindex = rtindex;
	q->jointree->fromlist = lappend(q->jointree->fromlist, rtr);
	q->targetList = (List *) replace_calls((Node *) q->targetList, calls, call_vars);
	q->havingQual = replace_calls(q->havingQual, calls, call_vars);
	q->hasTargetSRFs = expression_returns_set((Node *) q->targetList);
}

