/*-------------------------------------------------------------------------
 *
 * plan_views.c
 *	  Postgres views among a streaming view's sources: expanded into
 *	  subqueries when the view is created, as the rewriter expands them.
 *
 * A view in FROM becomes the subquery its definition is (its _RETURN
 * rule's query, with views inside it expanded too), so its base tables are
 * the streaming view's sources and capture follows them.  As the rewriter
 * does (ApplyRetrieveRule), the view's own permission check moves to the
 * *OLD* entry of its query's range table, and the base tables keep the
 * checkAsUser the relcache gave them (the view's owner, or nobody for a
 * security_invoker view), so privileges are checked as a query through
 * the view would check them, at creation and at every epoch
 * (view_privileges.c).  Only views the query uses are expanded (the *OLD*
 * and *NEW* entries of a view's query name the view itself).
 *
 * The streaming view keeps the expansion of its creation: it depends on
 * the Postgres view (DROP VIEW needs CASCADE), but CREATE OR REPLACE VIEW
 * of it later does not change what the streaming view computes.
 *
 * src/stream/plan/plan_views.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/table.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "nodes/nodeFuncs.h"
#include "parser/parsetree.h"
#include "rewrite/rewriteHandler.h"
#include "rewrite/rewriteManip.h"
#include "rewrite/prs2lock.h"
#include "utils/rel.h"

#include "hummock_stream/hummock_stream.h"
#include "hummock_stream/stream/stream_plan.h"

#include "plan_internal.h"

/* Views expanded inside one another, at most (a loop would be a bug). */
#define MAX_VIEW_DEPTH 100

static bool expand_walker(Node *node, void *depth);

/* Turn rte, a view the query uses, into the subquery of its definition. */
static void
expand_view(RangeTblEntry *rte, int depth)
{
	Relation	rel = table_open(rte->relid, AccessShareLock);
	Query	   *vq = copyObject(get_view_query(rel));
	RangeTblEntry *old;

	if (depth >= MAX_VIEW_DEPTH)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("views nested more than %d deep are not supported in a streaming materialized view",
						MAX_VIEW_DEPTH)));
	/* (its monitoring views, as its tables: said before what they compute) */
	if (RelationGetNamespace(rel) == get_namespace_oid(HS_SCHEMA_NAME, true))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("streaming materialized views over \"%s.%s\", a view of the %s extension, are not supported",
						HS_SCHEMA_NAME, RelationGetRelationName(rel), HS_EXTENSION_NAME),
				 errdetail("The extension's own views show state that changes as views are maintained.")));
	/* the view's permission check, on its *OLD* entry (as the rewriter) */
	old = rt_fetch(PRS2_OLD_VARNO, vq->rtable);
	Assert(old->relid == rte->relid);
	old->requiredPerms = rte->requiredPerms;
	old->checkAsUser = rte->checkAsUser;
	old->selectedCols = rte->selectedCols;
	old->insertedCols = rte->insertedCols;
	old->updatedCols = rte->updatedCols;
	old->extraUpdatedCols = rte->extraUpdatedCols;

	rte_as_subquery(rte, vq);
	rte->security_barrier = RelationIsSecurityView(rel);
	table_close(rel, NoLock);

	/* views inside the view */
	(void) expand_walker((Node *) vq, &depth);
}

/* Expand the views a query level uses, then walk into its other parts. */
static bool
expand_walker(Node *node, void *arg)
{
	if (node == NULL)
		return false;
	if (IsA(node, Query))
	{
		Query	   *q = (Query *) node;
		List	   *expanded = NIL;
		int			rt_index = 0;
		ListCell   *lc;

		foreach(lc, q->rtable)
		{
			RangeTblEntry *rte = lfirst(lc);

			rt_index++;
			if (rte->rtekind == RTE_RELATION && rte->relkind == RELKIND_VIEW &&
				rangeTableEntry_used((Node *) q, rt_index, 0))
			{
				expand_view(rte, *(int *) arg + 1);
				expanded = lappend(expanded, rte);
			}
		}
		foreach(lc, q->rtable)
		{
			RangeTblEntry *rte = lfirst(lc);

			if (rte->rtekind == RTE_SUBQUERY && !list_member_ptr(expanded, rte))
				(void) expand_walker((Node *) rte->subquery, arg);
		}
		list_free(expanded);
		return query_tree_walker(q, expand_walker, arg, QTW_IGNORE_RANGE_TABLE);
	}
	return expression_tree_walker(node, expand_walker, arg);
}

void
HsStreamPlanExpandViews(Query *query)
{
	int			depth = 0;

	(void) expand_walker((Node *) query, &depth);
}
