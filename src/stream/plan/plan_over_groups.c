/*-------------------------------------------------------------------------
 *
 * plan_over_groups.c
 *	  What an aggregating query level computes over its groups, after the
 *	  aggregation, made a query level of its own.
 *
 * Some things at an aggregating level run over the groups rather than over
 * the input rows, and the streaming planner plans neither inside the
 * aggregation:
 *
 *	- set-returning calls in the select list outside GROUP BY expressions
 *	  (SELECT g, unnest(array_agg(x)) ... GROUP BY g, generate_series(1,
 *	  count(*))): Postgres runs them after the aggregation and HAVING;
 *	- comparisons of the groups' values with the current time in the
 *	  select list (max(ts) > now() - interval '1 hour' AS active): over the
 *	  new level's rows they are comparisons of a row with the time, which
 *	  plan_temporal.c splits the rows by;
 *	- window functions of a level with GROUPING SETS (below);
 *	- DISTINCT at a level with GROUPING SETS, which compares the rows of
 *	  all its sets;
 *	- HAVING conjuncts that compare the level's aggregates with the rows
 *	  of a subquery that reads nothing of the level (HAVING count(*) >=
 *	  ALL (SELECT count(*) FROM t GROUP BY k), count(*) IN (SELECT ...)),
 *	  which become semi and anti joins only as WHERE conjuncts.
 *
 * So the level becomes
 *
 *	SELECT <its select list over groups' columns, calling the functions>
 *	  FROM (SELECT <its columns without the calls>, <the aggregates and
 *	               grouped columns the calls and conjuncts read>
 *	          FROM ... WHERE ... GROUP BY ... HAVING <the other conjuncts>) groups
 *	 WHERE <those conjuncts over groups' columns>
 *
 * where the calls are a select list's set-returning functions again
 * (plan_srf.c) and the conjuncts WHERE subqueries (plan_sublinks.c,
 * plan_join.c).  The subquery is one level deeper than the level was:
 * what it reads of the levels above moves one level up.  ORDER BY, LIMIT
 * and DISTINCT, which follow HAVING, move to the new level (a column the
 * level orders by without showing it comes along), where they apply to
 * the rows the set-returning calls make, as Postgres applies them (LIMIT
 * counts those rows, DISTINCT compares them); with window functions the
 * level is left as it is (and refused where it cannot be planned), but at
 * a level with GROUPING SETS, whose windows run over the rows of all its
 * sets (rank() OVER (ORDER BY g) of ROLLUP (g) ranks the total row among
 * the others): there the select list's window functions are computed
 * above, with the windows (their PARTITION BY and ORDER BY keys columns of
 * the subquery), over the rows of every set.
 *
 * src/stream/plan/plan_over_groups.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "rewrite/rewriteManip.h"

#include "plan_internal.h"

/*
 * The values of the groups (aggregates, grouping() and grouped columns of
 * the level) that node reads, appended to *parts; true if it reads them
 * in a way that cannot be moved (inside a subquery).  A window function's
 * arguments are read as any expression's: only a level whose windows move
 * above (GROUPING SETS) walks one here (HAVING has none).
 */
static bool
group_values_walker(Node *node, List **parts)
{
	if (node == NULL)
		return false;
	if ((IsA(node, Aggref) && ((Aggref *) node)->agglevelsup == 0) ||
		(IsA(node, GroupingFunc) && ((GroupingFunc *) node)->agglevelsup == 0) ||
		(IsA(node, Var) && ((Var *) node)->varlevelsup == 0))
	{
		*parts = list_append_unique(*parts, node);
		return false;
	}
	if (IsA(node, SubLink))
	{
		SubLink    *s = (SubLink *) node;

		/* a subquery may compare the level's values, not read them */
		if (contain_vars_of_level(s->subselect, 1) || contain_aggs_of_level(s->subselect, 1))
			return true;
		return group_values_walker(s->testexpr, parts);
	}
	return expression_tree_walker(node, group_values_walker, parts);
}

/* A subquery that compares its rows with the level's aggregates? */
static bool
quantified_over_aggregates_walker(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, SubLink) && ((SubLink *) node)->testexpr &&
		contain_aggs_of_level(((SubLink *) node)->testexpr, 0))
		return true;
	if (IsA(node, Query))
		return false;
	return expression_tree_walker(node, quantified_over_aggregates_walker, context);
}

/*
 * Does HAVING conjunct c compare the level's aggregates with the rows of
 * a subquery (x op ANY/ALL, IN) that reads nothing of the level?  (A
 * scalar subquery compared with an aggregate is planned in place.)
 */
static bool
compares_with_subquery(Node *c)
{
	List	   *parts = NIL;

	return quantified_over_aggregates_walker(c, NULL) && !group_values_walker(c, &parts);
}

/* Does node call a function of the current time outside aggregate calls? */
static bool
time_outside_aggregates_walker(Node *node, void *context)
{
	if (node == NULL || IsA(node, Aggref) || IsA(node, Query))
		return false;
	if (is_time_value_function(node) ||
		(IsA(node, FuncExpr) && is_time_function(((FuncExpr *) node)->funcid)))
		return true;
	return expression_tree_walker(node, time_outside_aggregates_walker, context);
}

/*
 * Is select-list entry tle of aggregating level q computed over its
 * groups: a set-returning call, or a comparison of the groups' values
 * with the current time (max(ts) > now() - interval '1 hour', outside a
 * GROUP BY expression, which is a value of the rows: plan_temporal.c)?
 */
static bool
computed_over_groups(Query *q, TargetEntry *tle)
{
	if (expression_returns_set((Node *) tle->expr))
		return true;
	if (q->groupingSets && contain_windowfuncs((Node *) tle->expr))
		return true;
	return time_outside_aggregates_walker((Node *) tle->expr, NULL) &&
		!(tle->ressortgroupref &&
		  get_sortgroupref_clause_noerr(tle->ressortgroupref, q->groupClause));
}

/* Is sortgroupref ref a PARTITION BY or ORDER BY key of one of q's windows? */
static bool
window_key(Query *q, Index ref)
{
	ListCell   *lc;

	foreach(lc, q->windowClause)
	{
		WindowClause *wc = lfirst(lc);

		if (get_sortgroupref_clause_noerr(ref, wc->partitionClause) ||
			get_sortgroupref_clause_noerr(ref, wc->orderClause))
			return true;
	}
	return false;
}

Query *
split_over_groups(Query *q)
{
	Query	   *sub;
	Query	   *top;
	List	   *parts = NIL;
	List	   *part_vars = NIL;
	List	   *moved = NIL;
	List	   *having = NIL;
	List	   *junk = NIL;
	List	   *ordering = NIL;
	ListCell   *lc;
	bool		steps;
	int			rt;
	AttrNumber	resno = 0;
	AttrNumber	nkept = 0;
	bool		above = false;
	bool		windows_above;	/* GROUPING SETS: windows over every set's rows */

	if (q->setOperations || !aggregating(q))
		return q;
	windows_above = q->groupingSets != NIL && q->hasWindowFuncs;
	foreach(lc, make_ands_implicit((Expr *) q->havingQual))
	{
		if (compares_with_subquery(lfirst(lc)))
			moved = lappend(moved, lfirst(lc));
		else
			having = lappend(having, lfirst(lc));
	}
	foreach(lc, q->targetList)
		above |= computed_over_groups(q, lfirst(lc));
	above |= q->groupingSets != NIL && q->distinctClause != NIL;
	if (!above && moved == NIL)
		return q;
	steps = q->sortClause || q->limitCount || q->limitOffset || q->distinctClause;
	if (q->hasWindowFuncs && !windows_above)
	{
		if (moved != NIL)
			unsupported("HAVING comparing aggregates with a subquery together with window functions", false);
		return q;
	}
	foreach(lc, q->targetList)
	{
		TargetEntry *tle = lfirst(lc);

		if (!computed_over_groups(q, tle))
			continue;
		/*
		 * (calls grouped by that stayed: composites, refused later; an ORDER
		 * BY entry that is not shown stays, and is refused)
		 */
		if ((tle->ressortgroupref &&
			 get_sortgroupref_clause_noerr(tle->ressortgroupref, q->groupClause)) ||
			tle->resjunk || group_values_walker((Node *) tle->expr, &parts))
		{
			if (windows_above)
				unsupported("window functions over GROUPING SETS ordering a level by a window function it does not show, or grouping by one", false);
			return q;
		}
	}
	foreach(lc, moved)
		(void) group_values_walker(lfirst(lc), &parts);

	/* sub: the level without them, returning what they read */
	sub = copyObject(q);
	sub->targetList = NIL;
	sub->hasTargetSRFs = false;
	sub->havingQual = (Node *) make_ands_explicit(having);
	if (having == NIL)
		sub->havingQual = NULL;
	/* ORDER BY, LIMIT and DISTINCT come after HAVING: above; windows too */
	sub->windowClause = NIL;
	sub->hasWindowFuncs = false;
	sub->sortClause = NIL;
	sub->distinctClause = NIL;
	sub->hasDistinctOn = false;
	sub->limitCount = NULL;
	sub->limitOffset = NULL;
	sub->limitOption = LIMIT_OPTION_DEFAULT;
	foreach(lc, q->targetList)
	{
		TargetEntry *tle = lfirst(lc);

		if (computed_over_groups(q, tle))
			continue;
		tle = flatCopyTargetEntry(tle);
		if (tle->resjunk && tle->ressortgroupref &&
			((steps &&
			  (get_sortgroupref_clause_noerr(tle->ressortgroupref, q->sortClause) ||
			   get_sortgroupref_clause_noerr(tle->ressortgroupref, q->distinctClause))) ||
			 (windows_above && window_key(q, tle->ressortgroupref))))
			ordering = lappend(ordering, tle);	/* a column above too */
		else if (tle->resjunk)
			junk = lappend(junk, tle);
		else
		{
			tle->resno = ++resno;
			sub->targetList = lappend(sub->targetList, tle);
		}
	}
	foreach(lc, parts)
		sub->targetList = lappend(sub->targetList,
								  makeTargetEntry(copyObject(lfirst(lc)), ++resno,
												  psprintf("group_value_%d", foreach_current_index(lc) + 1),
												  false));
	foreach(lc, ordering)
	{
		TargetEntry *tle = lfirst(lc);

		tle->resno = ++resno;
		tle->resjunk = false;
		sub->targetList = lappend(sub->targetList, tle);
	}
	foreach(lc, junk)
	{
		TargetEntry *tle = lfirst(lc);

		tle->resno = ++resno;
		sub->targetList = lappend(sub->targetList, tle);
	}
	/* sub is one level deeper: what it reads of the levels above too */
	IncrementVarSublevelsUp((Node *) sub, 1, 1);

	/* top: the select list and the conjuncts over sub's columns */
	top = query_over(sub, "groups", &rt);
	nkept = 0;
	foreach(lc, q->targetList)
	{
		TargetEntry *tle = lfirst(lc);

		if (!tle->resjunk && !computed_over_groups(q, tle))
			nkept++;
	}
	foreach(lc, parts)
		part_vars = lappend(part_vars, sub_var(sub, rt, nkept + foreach_current_index(lc) + 1));
	resno = 0;
	nkept = 0;
	foreach(lc, q->targetList)
	{
		TargetEntry *tle = lfirst(lc);
		Expr	   *e;

		if (tle->resjunk)
			continue;
		if (computed_over_groups(q, tle))
			e = (Expr *) replace_calls((Node *) tle->expr, parts, part_vars);
		else
			e = (Expr *) sub_var(sub, rt, ++nkept);	/* (kept in order) */
		top->targetList = lappend(top->targetList,
								  makeTargetEntry(e, ++resno, tle->resname, false));
		llast_node(TargetEntry, top->targetList)->ressortgroupref = tle->ressortgroupref;
	}
	foreach(lc, ordering)
	{
		TargetEntry *tle = lfirst(lc);
		TargetEntry *above = makeTargetEntry((Expr *) sub_var(sub, rt, tle->resno), ++resno,
											 tle->resname, true);

		above->ressortgroupref = tle->ressortgroupref;
		top->targetList = lappend(top->targetList, above);
	}
	if (steps)
	{
		top->sortClause = copyObject(q->sortClause);
		top->distinctClause = copyObject(q->distinctClause);
		top->hasDistinctOn = q->hasDistinctOn;
		top->limitCount = copyObject(q->limitCount);
		top->limitOffset = copyObject(q->limitOffset);
		top->limitOption = q->limitOption;
	}
	if (moved)
	{
		top->jointree->quals = replace_calls((Node *) make_ands_explicit(moved), parts,
											part_vars);
		top->hasSubLinks = true;
	}
	if (windows_above)
	{
		top->windowClause = copyObject(q->windowClause);
		top->hasWindowFuncs = true;
	}
	top->hasTargetSRFs = expression_returns_set((Node *) top->targetList);
	return top;
}
