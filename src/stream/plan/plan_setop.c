/*-------------------------------------------------------------------------
 *
 * plan_setop.c
 *	  Planning set operations in a streaming view: UNION ALL and UNION.
 *
 * The set-operation tree of a query level becomes a tree of Union
 * executors (two ports each) over its inputs, each input a query level of
 * its own (a subquery range table entry) projected onto the set
 * operation's column types and typmods (coerce_to_target_type, as the
 * analyzer resolved them).  UNION without ALL is then a DISTINCT over all
 * columns (plan_agg.c), at every node that has it, so its rows are unique;
 * UNION ALL rows have no unique key.  INTERSECT and EXCEPT are refused.
 *
 * The level's own Vars (its target list, ORDER BY) name the columns of the
 * leftmost input, as the analyzer builds them; over the Union's rows they
 * are mapped like any level's (map_expr), then ORDER BY ... LIMIT applies
 * (plan_top_n.c).
 *
 * src/stream/plan/plan_setop.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "parser/parse_coerce.h"
#include "parser/parsetree.h"
#include "utils/builtins.h"

#include "plan_internal.h"

/* UNION [ALL] tree node of a set-operation query, columns coerced to types. */
static RelOut *
plan_setop_node(PlanCtx *ctx, Query *q, List *outer, Node *node, List *types,
				List *typmods)
{
	RelOut	   *out;

	if (IsA(node, RangeTblRef))
	{
		int			rtindex = ((RangeTblRef *) node)->rtindex;
		RangeTblEntry *rte = rt_fetch(rtindex, q->rtable);
		RelOut	   *in = plan_query(ctx, rte->subquery, lcons(q, outer));
		List	   *exprs = NIL;
		ListCell   *lt,
				   *lm;
		int			i = 0;

		forboth(lt, types, lm, typmods)
		{
			Expr	   *v = var_tle(in->desc, i, i + 1)->expr;
			Oid			from = exprType((Node *) v);
			Node	   *c = coerce_to_target_type(NULL, (Node *) v, from, lfirst_oid(lt),
												  lfirst_int(lm), COERCION_IMPLICIT,
												  COERCE_IMPLICIT_CAST, -1);

			if (c == NULL)
				elog(ERROR, "could not convert a UNION column from %s to %s",
					 format_type_be(from), format_type_be(lfirst_oid(lt)));
			exprs = lappend(exprs, expression_planner((Expr *) c));
			i++;
		}
		return project_level(in, exprs, NIL, false);
	}
	else
	{
		SetOperationStmt *op = castNode(SetOperationStmt, node);
		HsExec	   *ports[2];
		RelOut	   *l;
		RelOut	   *r;
		HsExec	   *u;

		if (op->op != SETOP_UNION)
			unsupported("INTERSECT and EXCEPT", true);
		l = plan_setop_node(ctx, q, outer, op->larg, types, typmods);
		r = plan_setop_node(ctx, q, outer, op->rarg, types, typmods);
		note_operator(ctx, "Union");
		u = HsExecUnionCreate(l->desc, 2, ports);
		attach(l, ports[0]);
		attach(r, ports[1]);
		out = relout_of(u, NIL);
		if (!op->all)
			out = distinct_level(ctx, out);
		return out;
	}
}

/* A query level that is a set operation: its tree, its columns, Top-N. */
RelOut *
plan_setop_query(PlanCtx *ctx, Query *q, List *outer)
{
	SetOperationStmt *op = castNode(SetOperationStmt, q->setOperations);
	Node	   *leftmost = (Node *) op;
	List	   *exprs = NIL;
	ListCell   *lc;
	int			rtindex;
	List	   *extra;
	RelOut	   *from;

	/* the query's Vars are the leftmost input's columns */
	while (IsA(leftmost, SetOperationStmt))
		leftmost = ((SetOperationStmt *) leftmost)->larg;
	rtindex = castNode(RangeTblRef, leftmost)->rtindex;
	from = plan_setop_node(ctx, q, outer, (Node *) op, op->colTypes, op->colTypmods);
	from->vars = NIL;
	for (int i = 0; i < from->desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(from->desc, i);

		from->vars = lappend(from->vars, makeVar(rtindex, i + 1, att->atttypid,
												 att->atttypmod, att->attcollation, 0));
	}
	foreach(lc, visible_tlist(q))
		exprs = lappend(exprs, map_expr(((TargetEntry *) lfirst(lc))->expr, from));
	extra = top_n_extra(q);
	foreach(lc, extra)
		exprs = lappend(exprs, map_expr(((TargetEntry *) lfirst(lc))->expr, from));
	from = project_cols(from, exprs, list_length(exprs) - list_length(extra), NIL, true);
	return top_n_level(ctx, q, from, extra);
}
