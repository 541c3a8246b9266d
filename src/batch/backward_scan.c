/*-------------------------------------------------------------------------
 *
 * backward_scan.c
 *	  Scroll cursors over relations that scan forward only.
 *
 * Design notes
 *
 * A hummock scan reads its SSTs forward: it cannot step back.  The
 * planner gives a SCROLL cursor a Material node on top of any plan that
 * ExecSupportsBackwardScan rejects, but it accepts every Seq Scan, so a
 * scroll cursor over a hummock relation would hand FETCH BACKWARD to a
 * scan that only moves forward.  This planner hook finishes the job: when
 * a backward fetch could reach a scan of a hummock relation (through the
 * nodes that pass the direction down: Result, Limit, LockRows, Subquery
 * Scan, Append, Merge Append), it puts a Material node on top, as the
 * planner does for the plans it knows cannot scan backward.  The rows are
 * then read forward once, and FETCH BACKWARD, PRIOR, FIRST, ABSOLUTE and
 * MOVE work as they do over heap.  Nodes that read their input before
 * returning a row (Sort, Material, aggregates, ...) already shield a scan
 * below them, and plans with any other node got their Material from the
 * planner.
 *
 * A cursor declared without SCROLL or NO SCROLL is planned without either
 * flag, and Postgres lets it scroll when its plan claims it can: such a
 * cursor's backward fetch reaches the scan, which refuses it with a hint
 * to declare the cursor SCROLL.  Materializing every such cursor would
 * tax the forward-only server-side cursors drivers use to read in batches.
 *
 * The hook runs after set_plan_references, so the Material node gets the
 * finished tlist the planner would have given it: a Var referencing each
 * column of its input (OUTER_VAR), and its input's param sets (the input's
 * initPlans move up to it, as materialize_finished_plan does).  Scroll
 * cursors are never planned in parallel, so no plan node id of a
 * parallel-aware node is at stake.
 *
 * src/batch/backward_scan.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "nodes/plannodes.h"
#include "optimizer/planmain.h"
#include "optimizer/planner.h"
#include "parser/parsetree.h"

#include "hummock_stream/batch/tableam.h"
#include "hummock_stream/meta/catalog.h"

static planner_hook_type prev_planner = NULL;

/* Could a backward fetch at plan reach a scan of a hummock relation? */
static bool
backward_reaches_hummock_scan(PlannedStmt *stmt, Plan *plan)
{
	ListCell   *lc;

	if (plan == NULL)
		return false;
	switch (nodeTag(plan))
	{
		case T_SeqScan:
		case T_SampleScan:
		case T_TidRangeScan:
			{
				RangeTblEntry *rte = rt_fetch(((Scan *) plan)->scanrelid,
											  stmt->rtable);

				return rte->rtekind == RTE_RELATION &&
					HsRelidIsHummock(rte->relid);
			}
		case T_Result:
		case T_Limit:
		case T_LockRows:
			return backward_reaches_hummock_scan(stmt, plan->lefttree);
		case T_SubqueryScan:
			return backward_reaches_hummock_scan(stmt,
												 ((SubqueryScan *) plan)->subplan);
		case T_Append:
			foreach(lc, ((Append *) plan)->appendplans)
				if (backward_reaches_hummock_scan(stmt, lfirst(lc)))
					return true;
			return false;
		case T_MergeAppend:
			foreach(lc, ((MergeAppend *) plan)->mergeplans)
				if (backward_reaches_hummock_scan(stmt, lfirst(lc)))
					return true;
			return false;
		default:
			return false;
	}
}

/* A Material node over a finished plan, its tlist referencing the input's. */
static Plan *
materialize_on_top(Plan *subplan)
{
	Plan	   *mat = materialize_finished_plan(subplan);
	List	   *tlist = NIL;
	ListCell   *lc;

	foreach(lc, subplan->targetlist)
	{
		TargetEntry *tle = lfirst(lc);
		Var		   *var;

		tle = flatCopyTargetEntry(tle);
		if (tle->expr && !IsA(tle->expr, Const))
		{
			Var		   *old = IsA(tle->expr, Var) ? (Var *) tle->expr : NULL;

			var = makeVar(OUTER_VAR, tle->resno, exprType((Node *) tle->expr),
						  exprTypmod((Node *) tle->expr),
						  exprCollation((Node *) tle->expr), 0);
			if (old != NULL && old->varnosyn > 0)
			{
				var->varnosyn = old->varnosyn;
				var->varattnosyn = old->varattnosyn;
			}
			tle->expr = (Expr *) var;
		}
		tlist = lappend(tlist, tle);
	}
	mat->targetlist = tlist;
	/* SS_finalize_plan ran before: the Material node sees the params its input does */
	mat->extParam = bms_copy(subplan->extParam);
	mat->allParam = bms_copy(subplan->allParam);
	return mat;
}

static PlannedStmt *
hs_planner(Query *parse, const char *query_string, int cursorOptions,
		   ParamListInfo boundParams)
{
	PlannedStmt *stmt;

	if (prev_planner)
		stmt = prev_planner(parse, query_string, cursorOptions, boundParams);
	else
		stmt = standard_planner(parse, query_string, cursorOptions,
								boundParams);

	if ((cursorOptions & CURSOR_OPT_SCROLL) &&
		backward_reaches_hummock_scan(stmt, stmt->planTree))
		stmt->planTree = materialize_on_top(stmt->planTree);
	return stmt;
}

void
HsBackwardScanInstall(void)
{
	prev_planner = planner_hook;
	planner_hook = hs_planner;
}
