/*-------------------------------------------------------------------------
 *
 * plan_window.c
 *	  Planning window functions in a streaming view's select list (other
 *	  than the Top-N per group form, plan_top_n.c).
 *
 * A query level (without aggregation) whose select list calls window
 * functions becomes
 *
 *	(its FROM and WHERE) -> OverWindow(the calls)
 *		-> Project(the select list, each call replaced by its column)
 *
 * as set-returning functions do (plan_srf.c): the calls stand in the
 * select list as Vars of a range table entry that does not exist
 * (WINDOW_VARNO + k).  OverWindow (exec_over_window.c) partitions its
 * input by the PARTITION BY all the level's windows share, and computes
 * every touched partition again with Postgres's WindowAgg; the calls, the
 * windows' ORDER BY keys and frames are handed to it as expressions over
 * its input columns, shifted one column right (its relation's column 1 is
 * the partition).  Windows with different PARTITION BY, and window
 * functions at an aggregating level, are refused.
 *
 * src/stream/plan/plan_window.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

#include "hummock_stream/row/memcmp_key.h"

#include "plan_internal.h"

/* The varno of the Var standing for call k: no range table reaches it. */
#define WINDOW_VARNO 2000000

static bool
collect_calls_walker(Node *node, List **calls)
{
	if (node == NULL)
		return false;
	if (IsA(node, WindowFunc))
	{
		*calls = list_append_unique(*calls, node);
		return false;			/* (arguments cannot hold window calls) */
	}
	return expression_tree_walker(node, collect_calls_walker, calls);
}

static bool
shift_vars_walker(Node *node, void *arg)
{
	if (node == NULL)
		return false;
	if (IsA(node, Var))
	{
		((Var *) node)->varattno++;
		return false;
	}
	return expression_tree_walker(node, shift_vars_walker, arg);
}

/* e (of the query level) over from's columns, one column right. */
static Expr *
over_relation(Expr *e, RelOut *from)
{
	Expr	   *m = map_expr(e, from);

	(void) shift_vars_walker((Node *) m, NULL);
	return m;
}

/* The PARTITION BY expressions of window wc. */
static List *
partition_exprs(Query *q, WindowClause *wc)
{
	List	   *out = NIL;
	ListCell   *lc;

	foreach(lc, wc->partitionClause)
		out = lappend(out, get_sortgroupclause_expr(lfirst(lc), q->targetList));
	return out;
}

RelOut *
window_level(PlanCtx *ctx, Query *q, RelOut *from, List **targets)
{
	List	   *calls = NIL;
	List	   *call_vars = NIL;	/* the Var standing for each call */
	List	   *windows = NIL;	/* the windows the calls use */
	List	   *funcs = NIL;
	List	   *order_exprs = NIL;
	List	   *new_windows = NIL;
	List	   *parts = NULL;
	List	   *part_mapped = NIL;
	ListCell   *lc;
	HsExec	   *e;
	HsStateTable *rows;
	HsStateTable *shown;
	RelOut	   *out;
	List	   *vars;
	int			k = 0;

	foreach(lc, *targets)
		(void) collect_calls_walker(lfirst(lc), &calls);
	if (calls == NIL)
		return from;

	/* the windows, which must share their PARTITION BY */
	foreach(lc, calls)
	{
		WindowFunc *f = lfirst(lc);
		ListCell   *lw;

		foreach(lw, q->windowClause)
		{
			WindowClause *wc = lfirst(lw);

			if (wc->winref != f->winref || list_member_ptr(windows, wc))
				continue;
			if (windows == NIL)
				parts = partition_exprs(q, wc);
			windows = lappend(windows, wc);
			if (!equal(parts, partition_exprs(q, wc)))
				ereport(ERROR,
						(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
						 errmsg("window functions over different PARTITION BY lists are not supported in a streaming materialized view"),
						 errhint("Compute each partitioning in its own subquery and join them.")));
		}
	}
	foreach(lc, parts)
	{
		Node	   *p = lfirst(lc);
		Oid			coll = exprCollation(p);

		if (HsMemcmpTypeSupport(exprType(p)) == HS_MEMCMP_NONE ||
			(OidIsValid(coll) && !get_collation_isdeterministic(coll)))
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("PARTITION BY type %s is not supported in a streaming materialized view",
							format_type_be(exprType(p)))));
		part_mapped = lappend(part_mapped, map_expr((Expr *) p, from));
	}

	/* each window's ORDER BY, frame offsets and the calls, over the relation */
	foreach(lc, windows)
	{
		WindowClause *wc = copyObject(lfirst(lc));
		ListCell   *ls;

		foreach(ls, wc->orderClause)
		{
			SortGroupClause *sgc = lfirst(ls);
			Expr	   *x = over_relation((Expr *) get_sortgroupclause_expr(sgc, q->targetList),
										  from);
			ListCell   *lo;
			int			ref = 0;
			int			i = 0;

			foreach(lo, order_exprs)
			{
				i++;
				if (equal(lfirst(lo), x))
					ref = i;
			}
			if (ref == 0)
			{
				order_exprs = lappend(order_exprs, x);
				ref = list_length(order_exprs);
			}
			sgc->tleSortGroupRef = ref;
		}
		wc->partitionClause = NIL;
		if (wc->startOffset)
			wc->startOffset = (Node *) over_relation((Expr *) wc->startOffset, from);
		if (wc->endOffset)
			wc->endOffset = (Node *) over_relation((Expr *) wc->endOffset, from);
		new_windows = lappend(new_windows, wc);
	}
	foreach(lc, calls)
	{
		WindowFunc *f = copyObject(lfirst(lc));
		ListCell   *la;

		foreach(la, f->args)
			lfirst(la) = over_relation(lfirst(la), from);
		if (f->aggfilter)
			f->aggfilter = over_relation(f->aggfilter, from);
		funcs = lappend(funcs, f);
		call_vars = lappend(call_vars, makeVar(WINDOW_VARNO + k, 1, f->wintype, -1, f->wincollid, 0));
		k++;
	}

	rows = next_state(ctx, "OverWindow rows");
	shown = next_state(ctx, "OverWindow shown rows");
	note_operator(ctx, "OverWindow (%d function%s, %d partition column%s)",
				  k, k == 1 ? "" : "s", list_length(parts), list_length(parts) == 1 ? "" : "s");
	e = HsExecOverWindowCreate(from->desc, part_mapped, funcs, new_windows, order_exprs,
							   rows, shown);
	attach(from, e);
	vars = list_concat_copy(from->vars, call_vars);
	out = relout_of(e, vars);
	out->nvisible = from->desc->natts;
	out->has_ukey = from->has_ukey;
	out->ukey = from->ukey;
	foreach(lc, *targets)
		lfirst(lc) = replace_calls(lfirst(lc), calls, call_vars);
	return out;
}
