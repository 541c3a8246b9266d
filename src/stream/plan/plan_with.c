/*-------------------------------------------------------------------------
 *
 * plan_with.c
 *	  WITH queries as the subqueries they stand for.
 *
 * A reference to a (non-recursive) WITH query in FROM is planned as a copy
 * of its query, each reference with its own executors: a view keeps no
 * shared materialization, and its functions are immutable or stable, so
 * the copies compute what one evaluation would.  Postgres's planner does
 * the same for a WITH query read once or declared NOT MATERIALIZED
 * (inline_cte).  Doing it before anything else is planned lets every
 * rewrite see a WITH query as the subquery it is: one that reads an outer
 * query's row (`LATERAL (WITH y AS (SELECT ... WHERE o.k = c.id) SELECT
 * ... FROM y)`) is decorrelated as such a subquery is, where a copy
 * planned at its reference would read the outer row at the wrong level.
 *
 * The inlined copy's references to query levels above the WITH query's
 * own level are moved down by the levels between the WITH clause and the
 * reference, as Postgres's inline_cte does.  A recursive WITH query that
 * reads no table is computed and inlined as the VALUES list of its rows
 * (plan_constant_with.c); other recursive ones stay, for
 * plan_recursive.c.
 *
 * src/stream/plan/plan_with.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "nodes/nodeFuncs.h"
#include "rewrite/rewriteManip.h"

#include "plan_internal.h"

typedef struct InlineContext
{
	const char *name;			/* the WITH query's name */
	Query	   *query;			/* its query */
	int			levelsup;		/* levels from the walk to the WITH clause */
} InlineContext;

/*
 * Make FROM item rte (a WITH query's reference, a function, a VALUES
 * list, a view or table) the subquery sub, in place: its columns and
 * alias stay; a relation's privileges to check go (sub's own are checked).
 */
void
rte_as_subquery(RangeTblEntry *rte, Query *sub)
{
	rte->rtekind = RTE_SUBQUERY;
	rte->subquery = sub;
	rte->security_barrier = false;
	rte->relid = InvalidOid;
	rte->relkind = 0;
	rte->rellockmode = 0;
	rte->tablesample = NULL;
	rte->inh = false;
	rte->requiredPerms = 0;
	rte->checkAsUser = InvalidOid;
	rte->selectedCols = rte->insertedCols = rte->updatedCols = NULL;
	rte->extraUpdatedCols = NULL;
	rte->securityQuals = NIL;
	rte->functions = NIL;
	rte->funcordinality = false;
	rte->tablefunc = NULL;
	rte->values_lists = NIL;
	rte->ctename = NULL;
	rte->ctelevelsup = 0;
	rte->self_reference = false;
	rte->coltypes = rte->coltypmods = rte->colcollations = NIL;
}

static bool
inline_walker(Node *node, InlineContext *ctx)
{
	if (node == NULL)
		return false;
	if (IsA(node, RangeTblEntry))
	{
		RangeTblEntry *rte = (RangeTblEntry *) node;

		if (rte->rtekind == RTE_CTE && rte->ctelevelsup == (Index) ctx->levelsup &&
			strcmp(rte->ctename, ctx->name) == 0)
		{
			Query	   *copy = copyObject(ctx->query);

			if (ctx->levelsup > 0)
				IncrementVarSublevelsUp((Node *) copy, ctx->levelsup, 1);
			rte_as_subquery(rte, copy);
		}
		return false;
	}
	if (IsA(node, Query))
	{
		bool		r;

		ctx->levelsup++;
		r = query_tree_walker((Query *) node, inline_walker, ctx, QTW_EXAMINE_RTES_BEFORE);
		ctx->levelsup--;
		return r;
	}
	return expression_tree_walker(node, inline_walker, ctx);
}

static bool inline_levels_walker(Node *node, void *ctx);

/* Inline q's non-recursive WITH queries, then those of every level below. */
void
inline_with_queries(Query *q)
{
	List	   *kept = NIL;
	ListCell   *lc;

	/* (in order: a later WITH query's references to an earlier one go first) */
	foreach(lc, q->cteList)
	{
		CommonTableExpr *cte = lfirst(lc);
		InlineContext ctx = {cte->ctename, (Query *) cte->ctequery, 0};

		if (cte->cterecursive && (ctx.query = constant_recursive_with(cte)) != NULL)
		{
			/* (its rows, as a VALUES list: plan_constant_with.c) */
			query_tree_walker(q, inline_walker, &ctx, QTW_EXAMINE_RTES_BEFORE);
			continue;
		}
		if (cte->cterecursive || !IsA(cte->ctequery, Query) ||
			((Query *) cte->ctequery)->commandType != CMD_SELECT)
		{
			kept = lappend(kept, cte);
			continue;
		}
		/* (the later WITH queries are walked too: query_tree_walker reads cteList) */
		query_tree_walker(q, inline_walker, &ctx, QTW_EXAMINE_RTES_BEFORE);
	}
	q->cteList = kept;
	query_tree_walker(q, inline_levels_walker, NULL, 0);
}

static bool
inline_levels_walker(Node *node, void *ctx)
{
	if (node == NULL)
		return false;
	if (IsA(node, Query))
	{
		inline_with_queries((Query *) node);
		return false;
	}
	return expression_tree_walker(node, inline_levels_walker, ctx);
}
