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
 * columns like any other Var.  Calls nested in another call's arguments,
 * and calls at an aggregating level, are refused.
 *
 * src/stream/plan/plan_srf.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"

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
