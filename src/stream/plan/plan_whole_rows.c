/*-------------------------------------------------------------------------
 *
 * plan_whole_rows.c
 *	  Whole-row references to FROM items other than tables, as rows made
 *	  of their columns.
 *
 * `SELECT to_jsonb(s) FROM (SELECT id, name FROM t) s`, `jsonb_agg(s ORDER
 * BY s.id)`, `row_to_json(r)` of a function's or a WITH query's row: the
 * item's whole row is a value of an anonymous row type (a table's is of
 * its named row type and made at its leaf, plan_leaf).  Postgres's
 * planner, when it pulls a subquery up, replaces such a reference by
 * ROW(its columns) with the subquery's column names; so does this
 * rewrite, for every FROM item whose columns are Vars of the level
 * (subqueries, WITH queries, functions, VALUES lists; a join's whole row
 * is already one, flatten_join_alias_vars).
 *
 * Outer joins.  The whole row of an item on the nullable side of an outer
 * join is NULL where the join adds a row without it, where ROW(its NULL
 * columns) is a row of NULLs.  A subquery so placed gets a column `true`
 * (hs_whole_row_present), and the reference becomes CASE WHEN it THEN
 * ROW(...) END; another item so placed (a function, a WITH query, a set
 * operation) is first made a subquery selecting its columns.
 *
 * The row's type is `record` unless the reference has a named composite
 * type (a function returning one, or a domain over one): then ROW(...) is
 * of that type, with a NULL for each dropped attribute, coerced to the
 * domain if it is one.  An anonymous row may be used within an
 * expression and in recomputed aggregates' arguments, not kept by an
 * operator (check_kept_column).
 *
 * src/stream/plan/plan_whole_rows.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "parser/parse_coerce.h"
#include "parser/parse_relation.h"
#include "parser/parsetree.h"
#include "rewrite/rewriteManip.h"
#include "utils/lsyscache.h"
#include "utils/typcache.h"

#include "plan_internal.h"

/* The column saying a nullable subquery's row is there. */
#define PRESENT_NAME "hs_whole_row_present"

typedef struct WholeRowsContext
{
	Query	   *q;				/* the level whose items are expanded */
	int			depth;			/* levels below q the walk is at */
} WholeRowsContext;

static void
refuse_whole_row(const char *detail)
{
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("this whole-row reference is not supported in a streaming materialized view"),
			 errdetail_internal("%s", detail)));
}

/*
 * Are vars the columns of composite type typid, a place for each dropped
 * attribute?  Each such place is made a NULL constant (as a row of the
 * type must have), whatever it was.
 */
static bool
composite_of(Oid typid, List *vars)
{
	TupleDesc	desc = lookup_rowtype_tupdesc(typid, -1);
	bool		same = desc->natts == list_length(vars);

	for (int i = 0; same && i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);

		if (att->attisdropped)
			lfirst(list_nth_cell(vars, i)) = makeNullConst(INT4OID, -1, InvalidOid);
		else
			same = att->atttypid == exprType(list_nth(vars, i));
	}
	ReleaseTupleDesc(desc);
	return same;
}

/*
 * Make FROM item rte (a function, WITH query, VALUES list or set
 * operation) a subquery that selects all its columns, in place: its
 * columns keep their numbers (a dropped one is a NULL), and what it read
 * of this level or above is read one level further up.
 */
void
wrap_in_subquery(RangeTblEntry *rte)
{
	Query	   *w = makeNode(Query);
	RangeTblEntry *inner = copyObject(rte);
	RangeTblRef *ref = makeNode(RangeTblRef);
	List	   *names;
	List	   *vars;
	ListCell   *ln;
	ListCell   *lv;

	w->commandType = CMD_SELECT;
	w->querySource = QSRC_ORIGINAL;
	w->canSetTag = true;
	w->rtable = list_make1(inner);
	IncrementVarSublevelsUp_rtable(w->rtable, 1, 0);
	ref->rtindex = 1;
	w->jointree = makeFromExpr(list_make1(ref), NULL);
	w->hasSubLinks = checkExprHasSubLink((Node *) inner->functions) ||
		checkExprHasSubLink((Node *) inner->values_lists);
	expandRTE(inner, 1, 0, -1, true, &names, &vars);
	forboth(ln, names, lv, vars)
		w->targetList = lappend(w->targetList,
								makeTargetEntry(lfirst(lv), list_length(w->targetList) + 1,
												pstrdup(strVal(lfirst(ln))), false));
	rte_as_subquery(rte, w);
}

/* ROW(the columns of item v->varno) for whole-row Var v, NULL if absent. */
static Node *
row_of_item(Var *v, WholeRowsContext *ctx)
{
	RangeTblEntry *rte = rt_fetch(v->varno, ctx->q->rtable);
	List	   *names;
	List	   *vars;
	RowExpr    *row;
	bool		nullable;
	AttrNumber	present = 0;
	Oid			named;
	Node	   *value;

	nullable = on_nullable_side((Node *) ctx->q->jointree, NULL, v->varno, false);
	if (nullable)
	{
		ListCell   *lc;

		if (rte->rtekind != RTE_SUBQUERY || rte->subquery->setOperations)
			wrap_in_subquery(rte);
		/* (once per item: a later reference finds the column) */
		foreach(lc, rte->eref->colnames)
			if (strcmp(strVal(lfirst(lc)), PRESENT_NAME) == 0)
				present = foreach_current_index(lc) + 1;
		if (present == 0)
			present = add_output_column(rte->subquery, rte,
										(Expr *) makeBoolConst(true, false), PRESENT_NAME);
	}
	/*
	 * A row of a named type has a place for each dropped column (a NULL);
	 * a domain over one is checked by a coercion of the row to it.
	 */
	named = v->vartype == RECORDOID ? InvalidOid : getBaseType(v->vartype);
	expandRTE(rte, v->varno, ctx->depth, -1, OidIsValid(named), &names, &vars);
	if (present > 0)
	{
		/* the columns the row is made of: not that one */
		names = list_delete_nth_cell(names, present - 1);
		vars = list_delete_nth_cell(vars, present - 1);
	}
	row = makeNode(RowExpr);
	row->args = vars;
	row->colnames = names;
	row->location = -1;
	if (OidIsValid(named) && !composite_of(named, vars))
		refuse_whole_row("The columns of this FROM item are not those of its row type.");
	row->row_typeid = OidIsValid(named) ? named : RECORDOID;
	row->row_format = COERCE_IMPLICIT_CAST;
	value = (Node *) row;
	if (OidIsValid(named) && named != v->vartype)
		value = coerce_to_domain(value, named, -1, v->vartype,
								 COERCION_IMPLICIT, COERCE_IMPLICIT_CAST, -1, false);
	if (present > 0)
	{
		/* (the missing row is NULL, not a row checked by the domain) */
		CaseExpr   *ce = makeNode(CaseExpr);
		CaseWhen   *cw = makeNode(CaseWhen);

		cw->expr = (Expr *) makeVar(v->varno, present, BOOLOID, -1, InvalidOid, ctx->depth);
		cw->result = (Expr *) value;
		cw->location = -1;
		ce->casetype = exprType(value);
		ce->casecollid = InvalidOid;
		ce->args = list_make1(cw);
		ce->defresult = (Expr *) makeNullConst(ce->casetype, -1, InvalidOid);
		ce->location = -1;
		return (Node *) ce;
	}
	return value;
}

static Node *
whole_rows_mutator(Node *node, WholeRowsContext *ctx)
{
	if (node == NULL)
		return NULL;
	if (IsA(node, Var))
	{
		Var		   *v = (Var *) node;

		if (v->varattno == 0 && v->varlevelsup == (Index) ctx->depth &&
			rt_fetch(v->varno, ctx->q->rtable)->rtekind != RTE_RELATION &&
			rt_fetch(v->varno, ctx->q->rtable)->rtekind != RTE_JOIN)
			return row_of_item(v, ctx);
		return node;
	}
	if (IsA(node, Query))
	{
		Node	   *r;

		ctx->depth++;
		r = (Node *) query_tree_mutator((Query *) node, whole_rows_mutator, ctx, 0);
		ctx->depth--;
		return r;
	}
	return expression_tree_mutator(node, whole_rows_mutator, ctx);
}

/*
 * Replace q's whole-row references to its FROM items that are not tables
 * (in q and in its subqueries' references to q) by rows of their columns.
 */
void
expand_whole_rows(Query *q)
{
	WholeRowsContext ctx = {q, 0};
	ListCell   *lc;

	q->targetList = (List *) whole_rows_mutator((Node *) q->targetList, &ctx);
	q->jointree = (FromExpr *) whole_rows_mutator((Node *) q->jointree, &ctx);
	q->havingQual = whole_rows_mutator(q->havingQual, &ctx);
	/* (LATERAL items: jsonb_each(to_jsonb(s)); in place, row_of_item may add to one) */
	foreach(lc, q->rtable)
	{
		RangeTblEntry *rte = lfirst(lc);

		if (!rte->lateral)
			continue;
		if (rte->rtekind == RTE_SUBQUERY)
			rte->subquery = (Query *) whole_rows_mutator((Node *) rte->subquery, &ctx);
		else if (rte->rtekind == RTE_FUNCTION)
			rte->functions = (List *) whole_rows_mutator((Node *) rte->functions, &ctx);
		else if (rte->rtekind == RTE_VALUES)
			rte->values_lists = (List *) whole_rows_mutator((Node *) rte->values_lists, &ctx);
	}
}
