/*-------------------------------------------------------------------------
 *
 * plan_sublinks.c
 *	  Scalar subqueries, NOT IN and LATERAL subqueries in a streaming
 *	  view, rewritten into joins the planner knows (before plan_join.c
 *	  turns IN, EXISTS and NOT EXISTS into semi and anti joins).
 *
 *	(SELECT agg(...) FROM ...)		an uncorrelated scalar subquery that
 *									returns one row whatever its input (an
 *									aggregation without GROUP BY, HAVING,
 *									LIMIT or set operations) becomes a FROM
 *									item joined with no condition (a dynamic
 *									filter: when its value changes, every
 *									row meets the new one), the subquery a
 *									Var of it; at an aggregating level that
 *									Var is grouped by too (one value).
 *	(SELECT v FROM ...)				an uncorrelated one that may return no
 *									row or several (any other query of one
 *									column whose type has a min) becomes
 *									(SELECT min(v), count(*) FROM (...) s),
 *									one row as above, the subquery
 *									hummock_stream._one_row(count, min): its
 *									value, NULL without a row, and 21000
 *									where the expression is evaluated over
 *									more than one, as Postgres raises it.
 *	(SELECT v FROM t WHERE			a correlated one that reads one table
 *	  t.k = outer.o ...)			(by a key that is not unique, or related
 *									otherwise) becomes the aggregating
 *									(SELECT min(v) FROM t WHERE ...), with its
 *									rows counted per group too, its value
 *									_one_row(count, min) where it is
 *									evaluated, as above (min_of_rows); then
 *									as the aggregating ones below.
 *	(SELECT agg(...) FROM ...		a correlated one whose WHERE relates the
 *	  WHERE i = outer.o AND ...)	outer query only by equalities with
 *									expressions of one FROM item of it
 *									becomes that item LEFT JOINed with the
 *									subquery grouped by the inner sides, on
 *									the equalities; an outer row without a
 *									group sees what the aggregation gives
 *									over no rows (count 0, the others NULL).
 *	x NOT IN (SELECT y FROM ...)	(uncorrelated, a WHERE conjunct) is, with
 *									SQL's NULLs: no y equals x, and x is not
 *									NULL unless there is no y, and no y is
 *									NULL:  NOT EXISTS (... AND y = x) AND (x
 *									IS NOT NULL OR (SELECT count(*) ...) = 0)
 *									AND (SELECT count(*) ... WHERE y IS NULL)
 *									= 0.
 *	x NOT IN (SELECT y FROM ...		the same over the rows the subquery has
 *	  WHERE <correlated> ...)		for the outer row: a correlated NOT
 *									EXISTS and correlated counts (see
 *									rewrite_correlated_not_in).
 *	FROM a, LATERAL (SELECT ...		a LATERAL subquery related to the items
 *	  WHERE i = a.o ...) s			before it by equalities in its WHERE
 *									becomes a subquery computing per value
 *									of i what it computed per row of a,
 *									joined on i = a.o (decorrelate_lateral).
 *	x op ALL (SELECT y ...),		quantified comparisons in WHERE become
 *	x op ANY (SELECT y ...			EXISTS and NOT EXISTS over the
 *	  WHERE <correlated>)			subquery's rows with the comparison
 *									added (rewrite_quantified).
 *	(SELECT v FROM t WHERE			a correlated scalar subquery of one row
 *	  t.k = a.o ORDER BY ... LIMIT 1)	by its LIMIT 1 becomes LEFT JOIN
 *									LATERAL (...) ON true, then decorrelated
 *									as the LATERAL subqueries below are.
 *	a JOIN b ON ... AND <subquery>	a subquery in the ON of an inner join
 *									that no outer join nulls moves to WHERE;
 *	a LEFT JOIN b ON ... AND		one reading only a table the join may
 *	  <subquery over b>				null filters that table in a subquery
 *									(hoist_on_sublinks).
 *	EXISTS (SELECT ... WHERE		a subquery of EXISTS, IN, ANY or ALL that
 *	  i = outer.o GROUP BY g ...)	groups, related by equalities in its
 *									WHERE: a filter over it grouped by i too
 *									(groups_as_filter), then as above.
 *	x IN (SELECT ... WHERE			EXISTS, IN, op ANY/ALL over a UNION
 *	  <correlated> UNION ALL ...)	[ALL] whose branches read the outer
 *									query: a test per branch, ORed (ALL:
 *									ANDed; split_union_tests_mutator).
 *	(SELECT agg(...) FROM t			an aggregating scalar subquery or a
 *	  WHERE t.x < a.o ...),			LATERAL one related otherwise (any
 *	LATERAL (... a.o ...)			condition, a.o in its select list) first
 *									reads the distinct values of the columns
 *									of a it uses, its domain, instead of a,
 *									and is related to a by IS NOT DISTINCT
 *									FROM on them (correlate_through_domain);
 *									then the rewrites above apply.
 *
 * src/stream/plan/plan_sublinks.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/stratnum.h"
#include "access/table.h"
#include "catalog/pg_aggregate.h"
#include "catalog/pg_attribute.h"
#include "catalog/pg_index.h"
#include "catalog/pg_opfamily.h"
#include "catalog/pg_type.h"
#include "executor/executor.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/clauses.h"
#include "optimizer/optimizer.h"
#include "optimizer/prep.h"
#include "optimizer/subselect.h"
#include "parser/parse_coerce.h"
#include "parser/parse_func.h"
#include "parser/parse_oper.h"
#include "parser/parsetree.h"
#include "rewrite/rewriteManip.h"
#include "utils/array.h"
#include "utils/fmgroids.h"
#include "utils/rel.h"
#include "utils/relcache.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"
#include "utils/typcache.h"

#include "plan_internal.h"

/* ---------------------------------------------------------------------
 * Building blocks
 * ---------------------------------------------------------------------
 */

/*
 * A range table entry for subquery sub named alias (in_from: an item of
 * FROM, not a set operation's input), its columns named as sub names them.
 */
RangeTblEntry *
subquery_rte(Query *sub, const char *alias, bool in_from)
{
	RangeTblEntry *rte = makeNode(RangeTblEntry);
	List	   *colnames = NIL;
	ListCell   *lc;

	rte->rtekind = RTE_SUBQUERY;
	rte->subquery = sub;
	rte->inFromCl = in_from;
	foreach(lc, sub->targetList)
	{
		TargetEntry *tle = lfirst(lc);

		if (!tle->resjunk)
			colnames = lappend(colnames,
							   makeString(pstrdup(tle->resname ? tle->resname : "?column?")));
	}
	rte->alias = makeAlias(alias, NIL);
	rte->eref = makeAlias(alias, colnames);
	return rte;
}

/* Add sub to q's range table as a subquery item; its index. */
static int
add_subquery_rte(Query *q, Query *sub, const char *alias)
{
	q->rtable = lappend(q->rtable, subquery_rte(sub, alias, true));
	return list_length(q->rtable);
}

/* A RangeTblRef to rtindex. */
static RangeTblRef *
make_ref(int rtindex)
{
	RangeTblRef *r = makeNode(RangeTblRef);

	r->rtindex = rtindex;
	return r;
}

/* A Var of column attno (1-based) of sub, the subquery at rtindex. */
Var *
sub_var(Query *sub, int rtindex, AttrNumber attno)
{
	TargetEntry *tle = list_nth(sub->targetList, attno - 1);

	return makeVar(rtindex, attno, exprType((Node *) tle->expr), exprTypmod((Node *) tle->expr),
				   exprCollation((Node *) tle->expr), 0);
}

/* Does sub return exactly one row whatever its input? */
static bool
one_row_always(Query *sub)
{
	return sub->hasAggs && sub->groupClause == NIL && sub->groupingSets == NIL &&
		sub->havingQual == NULL && sub->setOperations == NULL &&
		!sub->hasTargetSRFs && !sub->hasWindowFuncs && sub->limitCount == NULL &&
		sub->limitOffset == NULL;
}

/* A call of the plain aggregate fnoid of result type, with no argument yet. */
static Aggref *
make_aggref(Oid fnoid, Oid type)
{
	Aggref	   *a = makeNode(Aggref);

	a->aggfnoid = fnoid;
	a->aggtype = type;
	a->aggkind = AGGKIND_NORMAL;
	a->aggsplit = AGGSPLIT_SIMPLE;
	a->aggno = -1;
	a->aggtransno = -1;
	a->location = -1;
	return a;
}

/* count(*), as parse analysis makes it. */
static Aggref *
make_count_star(void)
{
	Aggref	   *a = make_aggref(F_COUNT_, INT8OID);

	a->aggstar = true;
	return a;
}

/*
 * SELECT <targets> FROM (sub) AS alias [WHERE quals]: a new query level
 * over sub; quals and targets are built by the caller over *rt.
 */
Query *
query_over(Query *sub, const char *alias, int *rt)
{
	Query	   *q = makeNode(Query);

	q->commandType = CMD_SELECT;
	q->querySource = QSRC_ORIGINAL;
	q->canSetTag = true;
	*rt = add_subquery_rte(q, copyObject(sub), alias);
	q->jointree = makeFromExpr(list_make1(make_ref(*rt)), NULL);
	return q;
}

/* x IS [NOT] NULL */
static Node *
null_test(Node *x, NullTestType type)
{
	NullTest   *nt = makeNode(NullTest);

	nt->arg = (Expr *) x;
	nt->nulltesttype = type;
	nt->argisrow = false;
	nt->location = -1;
	return (Node *) nt;
}

/* (SELECT count(*) FROM <count's FROM> WHERE <count's WHERE>) = 0 */
static Node *
counts_zero(Query *count)
{
	SubLink    *sl = makeNode(SubLink);

	count->targetList = list_make1(makeTargetEntry((Expr *) make_count_star(), 1,
												   pstrdup("count"), false));
	count->hasAggs = true;
	sl->subLinkType = EXPR_SUBLINK;
	sl->subselect = (Node *) count;
	sl->location = -1;
	return (Node *) make_opclause(lookup_type_cache(INT8OID, TYPECACHE_EQ_OPR)->eq_opr, BOOLOID,
								  false, (Expr *) sl,
								  (Expr *) makeConst(INT8OID, -1, InvalidOid, 8,
													 Int64GetDatum(0), false,
													 FLOAT8PASSBYVAL),
								  InvalidOid, InvalidOid);
}

/* (SELECT count(*) FROM (sub) s [WHERE s.<column 1> IS NULL]) = 0 */
static Node *
count_is_zero(Query *sub, bool only_nulls)
{
	int			rt;
	Query	   *count = query_over(sub, "hs_not_in", &rt);

	if (only_nulls)
		count->jointree->quals = null_test((Node *) sub_var(sub, rt, 1), IS_NULL);
	return counts_zero(count);
}

/*
 * Is e a column of a table of q (not under an outer join) declared NOT
 * NULL, so that it is never NULL there?
 */
static bool
never_null(Query *q, Node *e)
{
	Var		   *v = (Var *) e;
	RangeTblEntry *rte;
	HeapTuple	tup;
	bool		result = false;
	ListCell   *lc;
	bool		direct = false;

	if (!IsA(e, Var) || v->varlevelsup != 0 || v->varattno <= 0)
		return false;
	foreach(lc, q->jointree->fromlist)
		if (IsA(lfirst(lc), RangeTblRef) && ((RangeTblRef *) lfirst(lc))->rtindex == v->varno)
			direct = true;
	rte = rt_fetch(v->varno, q->rtable);
	if (!direct || rte->rtekind != RTE_RELATION)
		return false;
	tup = SearchSysCache2(ATTNUM, ObjectIdGetDatum(rte->relid), Int16GetDatum(v->varattno));
	if (HeapTupleIsValid(tup))
	{
		result = ((Form_pg_attribute) GETSTRUCT(tup))->attnotnull;
		ReleaseSysCache(tup);
	}
	return result;
}

static Query *correlate_through_domain(Query *q, Query *sub);
static bool from_reads_table(Query *sub);

/* ---------------------------------------------------------------------
 * NOT IN
 * ---------------------------------------------------------------------
 */

/* Does node (an expression, or a query at depth 0) read above level top? */
typedef struct LevelsContext
{
	int			top;
	int			depth;
} LevelsContext;

static bool
reads_above_walker(Node *node, LevelsContext *ctx)
{
	if (node == NULL)
		return false;
	if (IsA(node, Var))
		return (int) ((Var *) node)->varlevelsup - ctx->depth > ctx->top;
	if (IsA(node, Aggref))
	{
		if ((int) ((Aggref *) node)->agglevelsup - ctx->depth > ctx->top)
			return true;
	}
	if (IsA(node, Query))
	{
		bool		r;

		ctx->depth++;
		r = query_tree_walker((Query *) node, reads_above_walker, ctx, 0);
		ctx->depth--;
		return r;
	}
	return expression_tree_walker(node, reads_above_walker, ctx);
}

/* Does subquery sub (of a sublink) read levels more than top above it? */
static bool
reads_above(Query *sub, int top)
{
	LevelsContext ctx = {top, 0};

	return query_tree_walker(sub, reads_above_walker, &ctx, 0);
}

/*
 * A subquery that only filters rows of its FROM (no aggregation, grouping,
 * set operation, set-returning function, window or LIMIT): its rows exist
 * exactly where its WHERE holds, which the correlated rewrite relies on.
 */
static bool
plain_filter(Query *sub)
{
	return sub->commandType == CMD_SELECT && !sub->hasAggs && sub->groupClause == NIL &&
		sub->groupingSets == NIL && sub->havingQual == NULL && sub->setOperations == NULL &&
		!sub->hasTargetSRFs && !sub->hasWindowFuncs && sub->limitCount == NULL &&
		sub->limitOffset == NULL && sub->cteList == NIL && sub->jointree != NULL;
}

/* Does expression e read the query level above its own? */
static bool
expr_reads_above(Node *e)
{
	LevelsContext ctx = {0, 0};

	return reads_above_walker(e, &ctx);
}

/*
 * Does sub reach the level above only through equalities <its expression>
 * = <the outer query's expression> among the conjuncts of its WHERE (what
 * the correlated scalar subquery rewrite accepts)?
 */
static bool
correlated_by_equalities(Query *sub)
{
	Query	   *rest = copyObject(sub);
	List	   *kept = NIL;
	ListCell   *lc;

	foreach(lc, make_ands_implicit((Expr *) rest->jointree->quals))
	{
		Node	   *c = lfirst(lc);
		OpExpr	   *op = (OpExpr *) c;

		if (!expr_reads_above(c))
			kept = lappend(kept, c);
		else if (!IsA(c, OpExpr) || list_length(op->args) != 2 ||
				 !op_mergejoinable(op->opno, exprType(linitial(op->args))) ||
				 expr_reads_above(linitial(op->args)) == expr_reads_above(lsecond(op->args)))
			return false;
	}
	rest->jointree->quals = kept ? (Node *) make_ands_explicit(kept) : NULL;
	return !reads_above(rest, 0);
}

/* sub with qual added to its WHERE, and no DISTINCT or ORDER BY (a copy) */
static Query *
sub_where(Query *sub, Node *qual)
{
	Query	   *c = copyObject(sub);

	c->distinctClause = NIL;
	c->hasDistinctOn = false;
	c->sortClause = NIL;
	/* (one flat AND: the decorrelation reads the WHERE's conjuncts) */
	if (qual)
		c->jointree->quals = (Node *) make_ands_explicit(lappend(make_ands_implicit((Expr *) c->jointree->quals),
																 qual));
	return c;
}

/* (SELECT count(*) FROM <sub's FROM> WHERE <sub's WHERE> [AND qual]) = 0 */
static Node *
correlated_count_is_zero(Query *sub, Node *qual)
{
	return counts_zero(sub_where(sub, qual));
}

static Node *sublink_params_mutator(Node *node, List *ys);

/*
 * The test of x NOT IN (SELECT y ...) seen from inside the subquery, for
 * its value y: x = y, with whatever coercion the parser put around the
 * subquery's column (a domain's relabeling to its base type) kept.
 */
static Node *
not_in_comparison(OpExpr *test, Node *y)
{
	Node	   *cmp = copyObject((Node *) test);

	IncrementVarSublevelsUp(cmp, 1, 0);
	return sublink_params_mutator(cmp, list_make1(y));
}

/*
 * x NOT IN (SELECT y FROM ... WHERE <correlated>), with SQL's NULLs, over
 * the rows the subquery has for the outer row:
 *
 *	NOT EXISTS (SELECT FROM ... WHERE <correlated> AND y = x)
 *	AND (x IS NOT NULL OR (SELECT count(*) FROM ... WHERE <correlated>) = 0)
 *	AND (SELECT count(*) FROM ... WHERE <correlated> AND y IS NULL) = 0
 *
 * The counts are correlated scalar subqueries, rewritten into grouped
 * LEFT JOINs like any other (so the correlation must be by equalities,
 * or go through the domain: correlate_through_domain).
 */
static List *
rewrite_correlated_not_in(Query *q, OpExpr *test, Query *sub, Node *x)
{
	Node	   *y = (Node *) linitial_node(TargetEntry, sub->targetList)->expr;
	SubLink    *ex = makeNode(SubLink);
	List	   *result;

	if (!plain_filter(sub) || reads_above(sub, 1) ||
		!(correlated_by_equalities(sub) || correlate_through_domain(q, sub) != NULL))
		return NIL;
	ex->subLinkType = EXISTS_SUBLINK;
	ex->subselect = (Node *) sub_where(sub, not_in_comparison(test, y));
	ex->location = -1;
	result = list_make1(make_notclause((Expr *) ex));
	if (!never_null(q, x))
		result = lappend(result,
						 make_orclause(list_make2(null_test(copyObject(x), IS_NOT_NULL),
												  correlated_count_is_zero(sub, NULL))));
	if (!never_null(sub, y))
		result = lappend(result,
						 correlated_count_is_zero(sub, null_test(copyObject(y), IS_NULL)));
	return result;
}

/* The Params of a sublink's test (its columns 1..n), replaced by ys. */
static Node *
sublink_params_mutator(Node *node, List *ys)
{
	if (node == NULL)
		return NULL;
	if (IsA(node, Param) && ((Param *) node)->paramkind == PARAM_SUBLINK &&
		((Param *) node)->paramid >= 1 && ((Param *) node)->paramid <= list_length(ys))
		return copyObject(list_nth(ys, ((Param *) node)->paramid - 1));
	return expression_tree_mutator(node, sublink_params_mutator, ys);
}

/*
 * The rows of sublink sl's subquery for the outer row, with its test (the
 * comparison of the outer row with a row of the subquery, cmp) added to
 * its WHERE as "cmp IS <test>" (test -1: cmp itself; no test: EXISTS):
 * the subquery with it added to its WHERE when it only filters rows, or
 * SELECT FROM (sub) s WHERE ... when it is uncorrelated; NULL otherwise.
 */
static Query *
sublink_rows(SubLink *sl, int test)
{
	Query	   *sub = (Query *) sl->subselect;
	Query	   *rows;
	List	   *ys = NIL;
	Node	   *cmp;
	ListCell   *lc;

	if (sl->testexpr != NULL &&
		(contains_sublink(sl->testexpr) || contain_subplans(sl->testexpr)))
		return NULL;
	if (plain_filter(sub))
	{
		rows = sub_where(sub, NULL);
		foreach(lc, rows->targetList)
			if (!((TargetEntry *) lfirst(lc))->resjunk)
				ys = lappend(ys, ((TargetEntry *) lfirst(lc))->expr);
	}
	else if (!reads_above(sub, 0))
	{
		int			rt;
		AttrNumber	attno = 0;

		rows = query_over(sub, "hs_sublink", &rt);
		foreach(lc, sub->targetList)
		{
			attno++;
			if (!((TargetEntry *) lfirst(lc))->resjunk)
				ys = lappend(ys, sub_var(sub, rt, attno));
		}
	}
	else
		return NULL;
	if (sl->testexpr == NULL)
		return rows;
	/* the outer row's side, seen from inside the subquery */
	cmp = copyObject(sl->testexpr);
	IncrementVarSublevelsUp(cmp, 1, 0);
	cmp = sublink_params_mutator(cmp, ys);
	if (test >= 0)
	{
		BooleanTest *bt = makeNode(BooleanTest);

		bt->arg = (Expr *) cmp;
		bt->booltesttype = (BoolTestType) test;
		bt->location = -1;
		cmp = (Node *) bt;
	}
	rows->jointree->quals = (Node *) make_ands_explicit(lappend(make_ands_implicit((Expr *) rows->jointree->quals),
																cmp));
	rows->hasSubLinks = rows->hasSubLinks || sub->hasSubLinks;
	return rows;
}

/* EXISTS (rows) */
static Node *
make_exists(Query *rows)
{
	SubLink    *ex = makeNode(SubLink);

	ex->subLinkType = EXISTS_SUBLINK;
	ex->subselect = (Node *) rows;
	ex->location = -1;
	return (Node *) ex;
}

/*
 * The conjunct that replaces a quantified comparison c of q's WHERE, or
 * NULL if c is not one this can rewrite.  In WHERE only true passes, so
 * with cmp the sublink's test of an outer row against a row y of sub:
 *
 *	x op ALL (sub)			NOT EXISTS (rows of sub WHERE cmp IS NOT TRUE)
 *	NOT (x op ALL (sub))	EXISTS (rows of sub WHERE cmp IS FALSE)
 *	x op ANY (sub), sub correlated
 *							EXISTS (rows of sub WHERE cmp)
 *
 * (an uncorrelated ANY is a semi join already, NOT ... ANY is NOT IN);
 * the rows of sub as sublink_rows makes them.  Then plan_join.c turns
 * the EXISTS into a semi or anti join.
 */
static Node *
rewrite_quantified(Node *c)
{
	bool		negated = is_notclause(c);
	SubLink    *sl = (SubLink *) (negated ? (Node *) get_notclausearg((Expr *) c) : c);
	Query	   *rows;

	if (!IsA(sl, SubLink))
		return NULL;
	if (sl->subLinkType == ALL_SUBLINK)
		rows = sublink_rows(sl, negated ? IS_FALSE : IS_NOT_TRUE);
	else if (sl->subLinkType == ANY_SUBLINK && !negated && reads_above((Query *) sl->subselect, 0))
		rows = sublink_rows(sl, -1);
	else
		return NULL;
	if (rows == NULL)
		return NULL;
	return sl->subLinkType == ALL_SUBLINK && !negated ?
		(Node *) make_notclause((Expr *) make_exists(rows)) : make_exists(rows);
}

/*
 * Is sublink sl's test "x op y", a strict operator over an expression x
 * of q and a column y of its subquery that are never NULL (so that it is
 * never NULL)?
 */
static bool
test_never_null(Query *q, SubLink *sl)
{
	OpExpr	   *op = (OpExpr *) sl->testexpr;
	Query	   *sub = (Query *) sl->subselect;

	return op != NULL && IsA(op, OpExpr) && list_length(op->args) == 2 &&
		IsA(lsecond(op->args), Param) &&
		((Param *) lsecond(op->args))->paramkind == PARAM_SUBLINK &&
		((Param *) lsecond(op->args))->paramid == 1 && func_strict(op->opfuncid) &&
		never_null(q, linitial(op->args)) &&
		never_null(sub, (Node *) linitial_node(TargetEntry, sub->targetList)->expr);
}

/*
 * EXISTS, IN, ANY and ALL used as values (in the select list, HAVING, or
 * under OR, NOT or CASE in WHERE), not as conjuncts of WHERE: counts of
 * the subquery's rows (the rows of sub, as sublink_rows makes them, with
 * the test cmp of the outer row against a row of sub), which the scalar
 * subquery rewrite turns into joins:
 *
 *	EXISTS (sub)		(SELECT count(*) FROM <rows of sub>) <> 0
 *	x op ANY (sub)		CASE WHEN (count where cmp IS TRUE) <> 0 THEN true
 *							 WHEN (count where cmp IS NULL) <> 0 THEN NULL
 *							 ELSE false END
 *	x op ALL (sub)		CASE WHEN (count where cmp IS FALSE) <> 0 THEN false
 *							 WHEN (count where cmp IS NULL) <> 0 THEN NULL
 *							 ELSE true END
 *
 * which is SQL's three-valued result (without the second WHEN where the
 * test is never NULL; a count where cmp is true counts where cmp holds,
 * so an equality stays one the rewrite joins on).  Others are left as
 * they are.
 */
static Node *
sublink_values_mutator(Node *node, Query *q)
{
	if (node == NULL)
		return NULL;
	if (IsA(node, Query))
		return node;
	if (IsA(node, SubLink))
	{
		SubLink    *sl = (SubLink *) node;
		bool		any = sl->subLinkType == ANY_SUBLINK;
		Query	   *decided;
		Query	   *unknown;
		CaseExpr   *ce;
		CaseWhen   *w1;
		CaseWhen   *w2;

		if (sl->subLinkType == EXISTS_SUBLINK)
		{
			decided = sublink_rows(sl, -1);
			return decided ? (Node *) make_notclause((Expr *) counts_zero(decided)) : node;
		}
		if (!any && sl->subLinkType != ALL_SUBLINK)
			return node;
		decided = sublink_rows(sl, any ? -1 : IS_FALSE);
		unknown = test_never_null(q, sl) ? NULL : sublink_rows(sl, IS_UNKNOWN);
		if (decided == NULL || (unknown == NULL && !test_never_null(q, sl)))
			return node;
		w1 = makeNode(CaseWhen);
		w1->expr = (Expr *) make_notclause((Expr *) counts_zero(decided));
		w1->result = (Expr *) makeBoolConst(any, false);
		w1->location = -1;
		ce = makeNode(CaseExpr);
		ce->casetype = BOOLOID;
		ce->casecollid = InvalidOid;
		ce->arg = NULL;
		ce->args = list_make1(w1);
		if (unknown)
		{
			w2 = makeNode(CaseWhen);
			w2->expr = (Expr *) make_notclause((Expr *) counts_zero(unknown));
			w2->result = (Expr *) makeBoolConst(false, true);
			w2->location = -1;
			ce->args = lappend(ce->args, w2);
		}
		ce->defresult = (Expr *) makeBoolConst(!any, false);
		ce->location = -1;
		return (Node *) ce;
	}
	return expression_tree_mutator(node, sublink_values_mutator, q);
}

/*
 * The conjuncts that replace "NOT (x = ANY (sub))" in q's WHERE (see the
 * top), or NIL if c is not one this can rewrite.
 */
/*
 * (x1, ..., xn) NOT IN (SELECT y1, ..., yn ...) over an uncorrelated
 * subquery: the row is kept when every row of the subquery differs from
 * it for certain, i.e. NOT EXISTS a row where each pair is equal or
 * unknown (xi = yi OR xi IS NULL OR yi IS NULL; just xi = yi where neither
 * side can be NULL, so that an equi anti-join remains where the columns
 * are NOT NULL).  Over no rows it holds, NULLs or not, as in SQL.  NIL if
 * the test is not that (correlated subqueries stay refused).
 */
static List *
rewrite_row_not_in(Query *q, SubLink *sl)
{
	Query	   *sub = (Query *) sl->subselect;
	Query	   *exists;
	SubLink    *ex;
	List	   *conds = NIL;
	ListCell   *lc;
	int			rt;
	int			i = 0;

	if (reads_above(sub, 0))
		return NIL;
	foreach(lc, ((BoolExpr *) sl->testexpr)->args)
	{
		OpExpr	   *op = lfirst(lc);
		Param	   *p;

		if (!IsA(op, OpExpr) || list_length(op->args) != 2 ||
			!IsA(lsecond(op->args), Param) ||
			(p = lsecond(op->args))->paramkind != PARAM_SUBLINK ||
			p->paramid != ++i || !func_strict(op->opfuncid) ||
			contain_subplans(linitial(op->args)) || contains_sublink(linitial(op->args)))
			return NIL;
	}
	exists = query_over(sub, "hs_not_in", &rt);
	i = 0;
	foreach(lc, ((BoolExpr *) sl->testexpr)->args)
	{
		OpExpr	   *op = lfirst(lc);
		Node	   *x = copyObject(linitial(op->args));
		Var		   *y = sub_var(sub, rt, ++i);
		Node	   *eq;

		IncrementVarSublevelsUp(x, 1, 0);
		eq = (Node *) make_opclause(op->opno, BOOLOID, false, (Expr *) x,
									(Expr *) copyObject(y), InvalidOid, op->inputcollid);
		if (!never_null(q, linitial(op->args)) ||
			!never_null(sub, (Node *) ((TargetEntry *) list_nth(sub->targetList, i - 1))->expr) ||
			sub->setOperations || sub->hasAggs || sub->groupClause || sub->hasTargetSRFs)
			eq = (Node *) make_orclause(list_make3(eq, null_test(copyObject(x), IS_NULL),
												   null_test((Node *) copyObject(y), IS_NULL)));
		conds = lappend(conds, eq);
	}
	exists->jointree->quals = (Node *) make_ands_explicit(conds);
	ex = makeNode(SubLink);
	ex->subLinkType = EXISTS_SUBLINK;
	ex->subselect = (Node *) exists;
	ex->location = -1;
	return list_make1(make_notclause((Expr *) ex));
}

static List *
rewrite_not_in(Query *q, Node *c)
{
	SubLink    *sl;
	Query	   *sub;
	OpExpr	   *test;
	Node	   *x;
	Query	   *exists;
	SubLink    *ex;
	int			rt;
	List	   *result;

	if (!is_notclause(c) || !IsA(get_notclausearg((Expr *) c), SubLink))
		return NIL;
	sl = (SubLink *) get_notclausearg((Expr *) c);
	if (sl->subLinkType == ANY_SUBLINK && is_andclause(sl->testexpr))
		return rewrite_row_not_in(q, sl);
	if (sl->subLinkType != ANY_SUBLINK || !IsA(sl->testexpr, OpExpr))
		return NIL;
	test = (OpExpr *) sl->testexpr;
	sub = (Query *) sl->subselect;
	/* (the subquery's column may be coerced: a domain relabeled to its base type) */
	if (list_length(test->args) != 2 ||
		!IsA(strip_implicit_coercions(lsecond(test->args)), Param) ||
		((Param *) strip_implicit_coercions(lsecond(test->args)))->paramkind != PARAM_SUBLINK ||
		((Param *) strip_implicit_coercions(lsecond(test->args)))->paramid != 1 ||
		contain_subplans(linitial(test->args)) || contains_sublink(linitial(test->args)))
		return NIL;
	x = linitial(test->args);
	if (reads_above(sub, 0))
		return rewrite_correlated_not_in(q, test, sub, x);

	/* NOT EXISTS (SELECT FROM (sub) s WHERE x = s.y) */
	exists = query_over(sub, "hs_not_in", &rt);
	exists->jointree->quals = not_in_comparison(test, (Node *) sub_var(sub, rt, 1));
	ex = makeNode(SubLink);
	ex->subLinkType = EXISTS_SUBLINK;
	ex->subselect = (Node *) exists;
	ex->location = -1;
	result = list_make1(make_notclause((Expr *) ex));

	/* x IS NOT NULL OR there is no y; and no y is NULL */
	if (!never_null(q, x))
		result = lappend(result,
						 make_orclause(list_make2(null_test(copyObject(x), IS_NOT_NULL),
												  count_is_zero(sub, false))));
	if (!(sub->setOperations == NULL && !sub->hasAggs && sub->groupClause == NIL &&
		  !sub->hasTargetSRFs &&
		  never_null(sub, (Node *) linitial_node(TargetEntry, sub->targetList)->expr)))
		result = lappend(result, count_is_zero(sub, true));
	return result;
}

/* ---------------------------------------------------------------------
 * Scalar subqueries
 * ---------------------------------------------------------------------
 */


typedef struct ScalarContext
{
	PlanCtx    *ctx;			/* the planning (records relied indexes) */
	Query	   *q;				/* the level being rewritten */
	bool		in_having_or_target;	/* (the value must be grouped by) */
	int			n;				/* subqueries rewritten so far */
	bool		lateral;		/* one became a LATERAL subquery */
} ScalarContext;

/* Group q by expression e (a Var of a one-row or grouped FROM item). */
static void
group_by_too(Query *q, Expr *e)
{
	TargetEntry *tle;
	SortGroupClause *sgc = makeNode(SortGroupClause);
	Index		ref = 0;
	ListCell   *lc;
	Oid			sortop;
	Oid			eqop;
	bool		hashable;

	foreach(lc, q->targetList)
		ref = Max(ref, ((TargetEntry *) lfirst(lc))->ressortgroupref);
	ref++;
	tle = makeTargetEntry((Expr *) copyObject(e), list_length(q->targetList) + 1, NULL, true);
	tle->ressortgroupref = ref;
	q->targetList = lappend(q->targetList, tle);
	get_sort_group_operators(exprType((Node *) e), false, true, false, &sortop, &eqop, NULL,
							 &hashable);
	sgc->tleSortGroupRef = ref;
	sgc->eqop = eqop;
	sgc->sortop = sortop;
	sgc->nulls_first = false;
	sgc->hashable = hashable;
	q->groupClause = lappend(q->groupClause, sgc);
}

/* The value of expression e over no rows: count 0, other aggregates NULL. */
static Node *
over_no_rows_mutator(Node *node, void *arg)
{
	if (node == NULL)
		return NULL;
	if (IsA(node, Aggref))
	{
		Aggref	   *a = (Aggref *) node;

		if (a->aggfnoid == F_COUNT_ || a->aggfnoid == F_COUNT_ANY)
			return (Node *) makeConst(INT8OID, -1, InvalidOid, 8, Int64GetDatum(0), false,
									  FLOAT8PASSBYVAL);
		return (Node *) makeNullConst(a->aggtype, -1, a->aggcollid);
	}
	return expression_tree_mutator(node, over_no_rows_mutator, arg);
}

/*
 * CASE WHEN <present> IS NULL THEN <value over no rows> ELSE v END: the
 * value v of an aggregation LEFT JOINed by groups, or where no group
 * matched (present, a column that is true in every group, NULL), what the
 * aggregation value gives over no rows.
 */
static Node *
value_or_over_no_rows(Var *v, Node *value, Var *present)
{
	CaseExpr   *ce = makeNode(CaseExpr);
	CaseWhen   *cw = makeNode(CaseWhen);
	NullTest   *absent = makeNode(NullTest);

	absent->arg = (Expr *) present;
	absent->nulltesttype = IS_NULL;
	absent->location = -1;
	cw->expr = (Expr *) absent;
	cw->result = (Expr *) over_no_rows_mutator(copyObject(value), NULL);
	cw->location = -1;
	ce->casetype = v->vartype;
	ce->casecollid = v->varcollid;
	ce->args = list_make1(cw);
	ce->defresult = (Expr *) v;
	ce->location = -1;
	return (Node *) ce;
}

/* Is sub a plain scan of one table: SELECT expr FROM t WHERE ...? */
static bool
plain_scan(Query *sub)
{
	RangeTblEntry *rte;

	if (sub->hasAggs || sub->groupClause || sub->groupingSets || sub->havingQual ||
		sub->setOperations || sub->hasTargetSRFs || sub->hasWindowFuncs ||
		sub->distinctClause || sub->limitCount || sub->limitOffset ||
		sub->cteList || list_length(sub->rtable) != 1 ||
		list_length(sub->jointree->fromlist) != 1 ||
		!IsA(linitial(sub->jointree->fromlist), RangeTblRef))
		return false;
	rte = linitial(sub->rtable);
	return rte->rtekind == RTE_RELATION;
}

/*
 * The equality of clause (or of the DistinctExpr under an IS NOT DISTINCT
 * FROM, *null_safe), if it is one with two arguments; else NULL.
 */
static OpExpr *
equality_of(Node *clause, bool *null_safe)
{
	OpExpr	   *op;

	*null_safe = false;
	if (is_notclause(clause) && IsA(get_notclausearg(clause), DistinctExpr))
	{
		*null_safe = true;
		clause = (Node *) get_notclausearg(clause);
	}
	else if (!IsA(clause, OpExpr))
		return NULL;
	op = (OpExpr *) clause;
	if (list_length(op->args) != 2 ||
		!op_mergejoinable(op->opno, exprType(linitial(op->args))))
		return NULL;
	return op;
}

/* The operator of an equality template (split_correlation's *on). */
static OpExpr *
template_op(Node *tmpl, bool *null_safe)
{
	*null_safe = is_notclause(tmpl);
	if (*null_safe)
		tmpl = (Node *) get_notclausearg(tmpl);
	Assert(IsA(tmpl, OpExpr) || IsA(tmpl, DistinctExpr));
	return (OpExpr *) tmpl;
}

/* The equality template tmpl over a and b. */
static Node *
equality_over(Node *tmpl, Node *a, Node *b)
{
	bool		null_safe;

	template_op(tmpl, &null_safe)->args = list_make2(a, b);
	return tmpl;
}

/*
 * Do equalities on values of type typid in collation a and in collation b
 * compare alike?  The same collation does.  For the string types whose
 * equality in a deterministic collation is bytewise equality (text,
 * varchar, char, name), two deterministic collations do; a
 * nondeterministic one ("und-ci") against another does not, nor do two
 * collations of another type (citext folds case by its collation).
 */
static bool
same_equality(Oid typid, Oid a, Oid b)
{
	if (a == b)
		return true;
	typid = getBaseType(typid);
	return OidIsValid(a) && OidIsValid(b) &&
		(typid == TEXTOID || typid == VARCHAROID || typid == BPCHAROID ||
		 typid == NAMEOID) &&
		get_collation_isdeterministic(a) && get_collation_isdeterministic(b);
}

/*
 * Does grouping by the inner sides (GROUP BY, DISTINCT, PARTITION BY:
 * each by its type's default equality in its own collation) group as the
 * correlation's equalities on compare?  Each equality must belong to the
 * btree family of its inner side's type (equality_of admits only
 * mergejoinable ones) and compare in a collation that equates as the
 * inner side's does; else two rows one group holds could
 * match different outer rows, or one outer row several groups.
 */
static bool
groups_as_equalities(List *inner, List *on)
{
	ListCell   *li;
	ListCell   *lo;

	forboth(li, inner, lo, on)
	{
		bool		null_safe;
		OpExpr	   *op = template_op(lfirst(lo), &null_safe);
		TypeCacheEntry *tc = lookup_type_cache(exprType(lfirst(li)),
											   TYPECACHE_BTREE_OPFAMILY);

		if (!OidIsValid(tc->btree_opf) || !op_in_opfamily(op->opno, tc->btree_opf) ||
			!same_equality(exprType(lfirst(li)), op->inputcollid,
						   exprCollation(lfirst(li))))
			return false;
	}
	return true;
}

/*
 * Do the equalities on (their operators; inner: the table's side of each)
 * pick at most one row of plain_scan sub's table: does a unique index
 * (no predicate, no expressions, not deferrable) have only key columns
 * that some equality compares with the index's own equality?  The index
 * found is added to ctx->relied_indexes: the view depends on it, as it
 * would show several rows where Postgres raises an error without it.
 */
static bool
unique_by(PlanCtx *ctx, Query *sub, List *inner, List *on)
{
	RangeTblEntry *rte = linitial(sub->rtable);
	Relation	rel = table_open(rte->relid, AccessShareLock);
	List	   *indexes = RelationGetIndexList(rel);
	bool		found = false;
	ListCell   *lc;

	table_close(rel, AccessShareLock);
	foreach(lc, indexes)
	{
		HeapTuple	tup = SearchSysCache1(INDEXRELID, ObjectIdGetDatum(lfirst_oid(lc)));
		Form_pg_index index;
		bool		covered = true;
		Datum		d;
		bool		isnull;
		oidvector  *classes;
		oidvector  *collations;

		if (!HeapTupleIsValid(tup))
			continue;
		index = (Form_pg_index) GETSTRUCT(tup);
		if (!index->indisunique || !index->indimmediate || !index->indisvalid ||
			!heap_attisnull(tup, Anum_pg_index_indpred, NULL) ||
			!heap_attisnull(tup, Anum_pg_index_indexprs, NULL))
		{
			ReleaseSysCache(tup);
			continue;
		}
		d = SysCacheGetAttr(INDEXRELID, tup, Anum_pg_index_indclass, &isnull);
		classes = (oidvector *) DatumGetPointer(d);
		d = SysCacheGetAttr(INDEXRELID, tup, Anum_pg_index_indcollation, &isnull);
		collations = (oidvector *) DatumGetPointer(d);
		for (int k = 0; k < index->indnkeyatts && covered; k++)
		{
			Oid			family = get_opclass_family(classes->values[k]);
			ListCell   *li;
			ListCell   *lo;

			covered = false;
			forboth(li, inner, lo, on)
			{
				Var		   *v = lfirst(li);
				bool		null_safe;
				OpExpr	   *op = template_op(lfirst(lo), &null_safe);

				/* (NULL IS NOT DISTINCT FROM every NULL a unique index has) */
				if (IsA(v, Var) && v->varattno == index->indkey.values[k] && !null_safe &&
					op_in_opfamily(op->opno, family) &&
					same_equality(v->vartype, op->inputcollid, collations->values[k]))
					covered = true;
			}
		}
		ReleaseSysCache(tup);
		if (covered)
		{
			ctx->relied_indexes = list_append_unique_oid(ctx->relied_indexes,
														 lfirst_oid(lc));
			found = true;
			break;
		}
	}
	return found;
}

/*
 * Split the WHERE of sub, which reaches the query level above it only by
 * equalities <its expression> = <the outer query's expression> (or IS NOT
 * DISTINCT FROM) among the conjuncts of its WHERE, into *local (the other
 * conjuncts) and, per equality, *inner (sub's side), *outer (the outer
 * side, as an expression of the outer level), *on (the equality, to be
 * given its arguments by equality_over) and *outer_first (whether the
 * outer side was first).  False if sub reads the level above in any other
 * way.
 */
static bool
split_correlation(Query *sub, List **local, List **inner, List **outer, List **on,
				  List **outer_first)
{
	List	   *conds;
	ListCell   *lc;

	*local = *inner = *outer = *on = *outer_first = NIL;
	/* the outer query may appear only in the WHERE's equalities */
	{
		Query	   *probe = copyObject(sub);

		probe->jointree->quals = NULL;
		if (contain_vars_of_level((Node *) probe, 1))
			return false;
	}
	conds = make_ands_implicit((Expr *) sub->jointree->quals);
	foreach(lc, conds)
	{
		Node	   *c = lfirst(lc);
		OpExpr	   *op;
		Node	   *l;
		Node	   *r;
		bool		null_safe;
		Node	   *tmpl;

		if (!contain_vars_of_level(c, 1))
		{
			*local = lappend(*local, c);
			continue;
		}
		if ((op = equality_of(c, &null_safe)) == NULL)
			return false;
		l = linitial(op->args);
		r = lsecond(op->args);
		if (contain_vars_of_level(l, 1) && !contain_vars_of_level(r, 1) &&
			!contain_vars_of_level(l, 0))
		{
			Node	   *t = l;

			l = r;
			r = t;
			*outer_first = lappend_int(*outer_first, true);
		}
		else if (contain_vars_of_level(r, 1) && !contain_vars_of_level(l, 1) &&
				 !contain_vars_of_level(r, 0))
			*outer_first = lappend_int(*outer_first, false);
		else
			return false;
		/* l: the subquery's side; r: the outer query's */
		if (contain_var_clause(l) == false || contain_aggs_of_level(l, 0))
			return false;
		r = copyObject(r);
		IncrementVarSublevelsUp(r, -1, 1);
		*inner = lappend(*inner, l);
		*outer = lappend(*outer, r);
		tmpl = (Node *) copyObject(op);
		((OpExpr *) tmpl)->args = NIL;
		if (null_safe)
			tmpl = (Node *) makeBoolExpr(NOT_EXPR, list_make1(tmpl), -1);
		*on = lappend(*on, tmpl);
	}
	return *inner != NIL;
}

/* A SortGroupClause of the default ordering of tle's type, numbering tle. */
static SortGroupClause *
sort_group_of(Query *sub, TargetEntry *tle)
{
	SortGroupClause *sgc = makeNode(SortGroupClause);
	Oid			type = exprType((Node *) tle->expr);
	ListCell   *lc;
	bool		hashable;

	if (tle->ressortgroupref == 0)
	{
		Index		ref = 0;

		foreach(lc, sub->targetList)
			ref = Max(ref, ((TargetEntry *) lfirst(lc))->ressortgroupref);
		tle->ressortgroupref = ref + 1;
	}
	get_sort_group_operators(type, false, true, false, &sgc->sortop, &sgc->eqop, NULL,
							 &hashable);
	sgc->tleSortGroupRef = tle->ressortgroupref;
	sgc->hashable = hashable;
	return sgc;
}

/*
 * Is the jointree node target, or the relation rt, within jointree node jt
 * on the nullable side of an outer join?
 */
bool
on_nullable_side(Node *jt, Node *target, int rt, bool nullable)
{
	if (jt == NULL)
		return false;
	if (jt == target || (IsA(jt, RangeTblRef) && ((RangeTblRef *) jt)->rtindex == rt))
		return nullable;
	if (IsA(jt, FromExpr))
	{
		ListCell   *lc;

		foreach(lc, ((FromExpr *) jt)->fromlist)
			if (on_nullable_side(lfirst(lc), target, rt, nullable))
				return true;
		return false;
	}
	if (IsA(jt, JoinExpr))
	{
		JoinExpr   *j = (JoinExpr *) jt;

		return on_nullable_side(j->larg, target, rt, nullable ||
								j->jointype == JOIN_RIGHT || j->jointype == JOIN_FULL) ||
			on_nullable_side(j->rarg, target, rt, nullable ||
							 j->jointype == JOIN_LEFT || j->jointype == JOIN_FULL ||
							 j->jointype == JOIN_ANTI);
	}
	return false;
}

/* The columns of the domain, for replace_rte_variables */
typedef struct DomainColumns
{
	int			rt;				/* the domain's range table index in sub */
	List	   *attnos;			/* the outer relation's columns, in order */
} DomainColumns;

static Node *
domain_column(Var *var, replace_rte_variables_context *context)
{
	DomainColumns *dc = context->callback_arg;
	int			pos = 0;
	ListCell   *lc;

	foreach(lc, dc->attnos)
	{
		if (lfirst_int(lc) == var->varattno)
			pos = foreach_current_index(lc) + 1;
	}
	Assert(pos > 0);
	return (Node *) makeVar(dc->rt, pos, var->vartype, var->vartypmod, var->varcollid,
							var->varlevelsup - 1);
}

/*
 * Do FROM items of sub (subqueries, functions) read item dom of sub, which
 * took the place of the outer row they read?  Such items are made LATERAL:
 * they follow dom, and rewrite_lateral decorrelates them over it.
 */
static bool
reads_domain_laterally(Query *sub, int dom)
{
	bool		found = false;
	ListCell   *lc;

	foreach(lc, sub->rtable)
	{
		RangeTblEntry *rte = lfirst(lc);
		List	   *vars = NIL;
		ListCell   *lv;

		if (rte->rtekind == RTE_SUBQUERY)
			vars = pull_vars_of_level((Node *) rte->subquery, 1);
		else if (rte->rtekind == RTE_FUNCTION)
			vars = pull_vars_of_level((Node *) rte->functions, 0);
		else if (rte->rtekind == RTE_VALUES)
			vars = pull_vars_of_level((Node *) rte->values_lists, 0);
		foreach(lv, vars)
		{
			Var		   *v = lfirst(lv);

			if (IsA(v, Var) && v->varno == dom)
			{
				rte->lateral = true;
				found = true;
				break;
			}
		}
	}
	return found;
}

/*
 * Sub, which reads columns of one relation r of q (its outer query) in
 * any way, rewritten to relate to q only by IS NOT DISTINCT FROM
 * equalities, so that the rewrites by equalities apply (what is called
 * decorrelation through the domain, or magic sets):
 *
 *		(... FROM t WHERE t.ts <= r.ts ...)
 *	becomes
 *		(... FROM t, (SELECT DISTINCT r.ts FROM r) d
 *		  WHERE t.ts <= d.ts AND d.ts IS NOT DISTINCT FROM r.ts ...)
 *
 * For each row of r exactly one row of the domain d has its values (r is
 * read whole, and no outer join of q may null it), so sub computes for d
 * what it computed for r's row; computed per distinct value, it is joined
 * back on the equalities.  (Values equal but told apart by a function,
 * numeric 1.0 and 1.00 in text, are one domain row: sub sees one of them.)
 * NULL if sub reads more than one relation of q, a whole row, or one that
 * is not a table or a self-contained subquery.
 */
static Query *
correlate_through_domain(Query *q, Query *sub)
{
	List	   *vars = pull_vars_of_level((Node *) sub, 1);
	DomainColumns dc = {0, NIL};
	int			r = 0;
	RangeTblEntry *rte;
	Query	   *dom;
	Query	   *out;
	List	   *conds = NIL;
	ListCell   *lc;
	bool		has_sublinks = false;
	int			i;

	if (vars == NIL)
		return NULL;
	foreach(lc, vars)
	{
		Var		   *v = lfirst(lc);

		if (!IsA(v, Var) || v->varattno <= 0 || (r != 0 && v->varno != r))
			return NULL;
		r = v->varno;
		if (!list_member_int(dc.attnos, v->varattno))
		{
			TypeCacheEntry *tc = lookup_type_cache(v->vartype, TYPECACHE_EQ_OPR);

			if (!OidIsValid(tc->eq_opr))
				return NULL;	/* (no equality: no domain) */
			dc.attnos = lappend_int(dc.attnos, v->varattno);
		}
	}
	rte = rt_fetch(r, q->rtable);
	if (!(rte->rtekind == RTE_RELATION ||
		  (rte->rtekind == RTE_SUBQUERY && !rte->lateral && !reads_above(rte->subquery, 0))) ||
		on_nullable_side((Node *) q->jointree, NULL, r, false))
		return NULL;

	/* the domain: SELECT DISTINCT <the columns> FROM r */
	dom = makeNode(Query);
	dom->commandType = CMD_SELECT;
	dom->querySource = QSRC_ORIGINAL;
	dom->canSetTag = true;
	dom->rtable = list_make1(copyObject(rte));
	((RangeTblEntry *) linitial(dom->rtable))->inFromCl = true;
	dom->jointree = makeFromExpr(list_make1(make_ref(1)), NULL);
	i = 0;
	foreach(lc, dc.attnos)
	{
		AttrNumber	a = (AttrNumber) lfirst_int(lc);
		Oid			type;
		int32		typmod;
		Oid			coll;
		TargetEntry *tle;

		if (rte->rtekind == RTE_RELATION)
			get_atttypetypmodcoll(rte->relid, a, &type, &typmod, &coll);
		else
		{
			Node	   *e = (Node *) ((TargetEntry *) list_nth(rte->subquery->targetList, a - 1))->expr;

			type = exprType(e);
			typmod = exprTypmod(e);
			coll = exprCollation(e);
		}
		i++;
		tle = makeTargetEntry((Expr *) makeVar(1, a, type, typmod, coll, 0), i,
							  psprintf("hs_domain_%d", i), false);
		dom->targetList = lappend(dom->targetList, tle);
		dom->distinctClause = lappend(dom->distinctClause, sort_group_of(dom, tle));
	}

	/* sub over the domain, and the domain equal to r's row */
	dc.rt = list_length(sub->rtable) + 1;
	out = (Query *) replace_rte_variables((Node *) copyObject(sub), r, 1, domain_column, &dc,
										  &has_sublinks);
	(void) add_subquery_rte(out, dom, "hs_domain");
	if (reads_domain_laterally(out, dc.rt))
	{
		/* (its FROM items that read the outer row now read the domain) */
		out->jointree->fromlist = lcons(make_ref(dc.rt), out->jointree->fromlist);
	}
	else
		out->jointree->fromlist = lappend(out->jointree->fromlist, make_ref(dc.rt));
	i = 0;
	foreach(lc, dc.attnos)
	{
		TargetEntry *tle = list_nth(dom->targetList, i++);
		Var		   *d = makeVar(dc.rt, i, exprType((Node *) tle->expr),
								exprTypmod((Node *) tle->expr),
								exprCollation((Node *) tle->expr), 0);
		Var		   *o = copyObject(d);
		DistinctExpr *de;

		o->varno = r;
		o->varattno = (AttrNumber) lfirst_int(lc);
		o->varlevelsup = 1;
		de = (DistinctExpr *) make_opclause(lookup_type_cache(d->vartype, TYPECACHE_EQ_OPR)->eq_opr,
											BOOLOID, false, (Expr *) d, (Expr *) o,
											InvalidOid, d->varcollid);
		NodeSetTag(de, T_DistinctExpr);
		de->opfuncid = get_opcode(de->opno);
		conds = lappend(conds, makeBoolExpr(NOT_EXPR, list_make1(de), -1));
	}
	out->jointree->quals = (Node *)
		make_ands_explicit(list_concat(make_ands_implicit((Expr *) out->jointree->quals),
									   conds));
	return out;
}

/* Whether FROM item jt is a function or VALUES list (which reads no table). */
static bool
is_function_item(Query *q, Node *jt)
{
	RangeTblEntry *rte;

	if (!IsA(jt, RangeTblRef))
		return false;
	rte = rt_fetch(((RangeTblRef *) jt)->rtindex, q->rtable);
	return rte->rtekind == RTE_FUNCTION || rte->rtekind == RTE_TABLEFUNC ||
		rte->rtekind == RTE_VALUES;
}

/*
 * The index in q's FROM list of the item holding every one of rels, or -1.
 *
 * A function in FROM is computed over the rows of the items its arguments
 * read (FROM t, unnest(t.tags) u): it cannot be the preserved side of a
 * join on its own.  So when rels are a function's columns, alone or with
 * those of other items, the FROM list becomes one item (a FromExpr of its
 * items; the WHERE conditions over them are pushed into it when the join
 * is planned), and that is the item.
 */
static int
from_item_holding(Query *q, Relids rels)
{
	ListCell   *lc;
	int			item = -1;
	int			i = 0;
	bool		functions = false;
	Relids		all = NULL;

	foreach(lc, q->jointree->fromlist)
	{
		Relids		r = get_relids_in_jointree(lfirst(lc), false);

		if (bms_is_subset(rels, r))
			item = i;
		functions = functions || is_function_item(q, lfirst(lc));
		all = bms_union(all, r);
		i++;
	}
	if (functions && list_length(q->jointree->fromlist) > 1 &&
		(item < 0 || is_function_item(q, list_nth(q->jointree->fromlist, item))) &&
		bms_is_subset(rels, all))
	{
		q->jointree->fromlist = list_make1(makeFromExpr(q->jointree->fromlist, NULL));
		item = 0;
	}
	return item;
}

/* hummock_stream._one_row(bigint, anyelement), or InvalidOid (an old extension) */
static Oid
one_row_function(void)
{
	Oid			argtypes[2] = {INT8OID, ANYELEMENTOID};

	return LookupFuncName(list_make2(makeString("hummock_stream"), makeString("_one_row")),
						  2, argtypes, true);
}

/*
 * hummock_stream._one_row(rows, value): the value of a scalar subquery of
 * rows rows whose min is value (NULL for none, error 21000 for more than
 * one, where it is evaluated), of the subquery's own type, typmod and
 * collation as the query was analyzed with them.
 */
static Node *
one_row_call(Var *rows, Var *value, Oid type, int32 typmod, Oid collation)
{
	FuncExpr   *call = makeFuncExpr(one_row_function(), value->vartype,
									list_make2(rows, value), value->varcollid,
									value->varcollid, COERCE_EXPLICIT_CALL);

	if (value->vartype != type || typmod != -1)
		return (Node *) makeRelabelType((Expr *) call, type, typmod, collation,
										COERCE_IMPLICIT_CAST);
	return (Node *) call;
}

static Aggref *make_min(Expr *v);

/*
 * Plain scan sub, SELECT v FROM t WHERE ..., which may return no row or
 * several per outer row, as SELECT min(v) FROM t WHERE ...: one row
 * always, which decorrelate groups by the correlation as any aggregating
 * subquery, counting each group's rows too for _one_row.  NULL if the type
 * of v has no min, or the extension has no _one_row.
 */
static Query *
min_of_rows(Query *sub)
{
	TargetEntry *tle;
	Aggref	   *min;

	if (!OidIsValid(one_row_function()))
		return NULL;
	sub = copyObject(sub);
	tle = linitial_node(TargetEntry, sub->targetList);
	min = make_min(tle->expr);
	if (min == NULL)
		return NULL;
	tle->expr = (Expr *) min;
	tle->ressortgroupref = 0;
	sub->sortClause = NIL;		/* (of no meaning over one row) */
	sub->hasAggs = true;
	return sub;
}

/*
 * A correlated scalar subquery sub of q, decorrelated (see the top): the
 * expression that replaces it, or NULL if it is not of the form.
 */
static Node *
decorrelate(Query *q, Query *sub, ScalarContext *sc)
{
	List	   *local = NIL;
	List	   *inner = NIL;
	List	   *outer = NIL;
	Relids		outer_rels = NULL;
	ListCell   *lc;
	Query	   *grouped;
	int			item = -1;
	int			rt;
	int			i;
	JoinExpr   *j;
	List	   *on = NIL;
	List	   *outer_first = NIL;	/* per equality: is the outer side first? */
	bool		aggregated;
	bool		counted = false;	/* min_of_rows: _one_row(count, min) */
	Node	   *written;		/* the subquery's value, as written */
	Node	   *value;
	Node	   *no_rows_value;
	TargetEntry *present;

	if (list_length(sub->targetList) != 1 || sub->rtable == NIL || reads_above(sub, 1))
		return NULL;
	aggregated = one_row_always(sub);
	if (!aggregated && !plain_scan(sub))
		return NULL;
	written = (Node *) linitial_node(TargetEntry, sub->targetList)->expr;
	/* over no rows the value is the outer row's: as written, one level up */
	no_rows_value = copyObject(written);
	IncrementVarSublevelsUp(no_rows_value, -1, 1);
	if (!split_correlation(sub, &local, &inner, &outer, &on, &outer_first))
	{
		/* rows related otherwise: their min and count, through the domain */
		if (!aggregated && (sub = min_of_rows(sub)) != NULL)
			aggregated = counted = true;
		if (!aggregated || contain_subplans(no_rows_value) ||
			(sub = correlate_through_domain(q, sub)) == NULL ||
			!split_correlation(sub, &local, &inner, &outer, &on, &outer_first))
			return NULL;
	}
	if (!aggregated && !unique_by(sc->ctx, sub, inner, on))
	{
		/* rows of no unique key: their min and count per correlation */
		if ((sub = min_of_rows(sub)) == NULL)
			return NULL;
		aggregated = counted = true;
	}
	if (aggregated && !groups_as_equalities(inner, on))
		return NULL;
	foreach(lc, outer)
		outer_rels = bms_join(outer_rels, varnos_of(lfirst(lc)));
	/* the FROM item of q that holds every outer expression */
	item = from_item_holding(q, outer_rels);
	if (item < 0)
		return NULL;

	/* SELECT inner..., value, true FROM ... WHERE local GROUP BY inner... */
	grouped = copyObject(sub);
	grouped->jointree->quals = local ? (Node *) make_ands_explicit(local) : NULL;
	value = (Node *) linitial_node(TargetEntry, grouped->targetList)->expr;
	grouped->targetList = NIL;
	i = 0;
	foreach(lc, inner)
	{
		TargetEntry *tle;

		i++;
		tle = makeTargetEntry((Expr *) copyObject(lfirst(lc)), i, psprintf("k%d", i), false);

		grouped->targetList = lappend(grouped->targetList, tle);
	}
	for (i = 1; aggregated && i <= list_length(inner); i++)
	{
		TargetEntry *tle = list_nth(grouped->targetList, i - 1);
		SortGroupClause *sgc = makeNode(SortGroupClause);
		Oid			sortop;
		Oid			eqop;
		bool		hashable;

		tle->ressortgroupref = i;
		get_sort_group_operators(exprType((Node *) tle->expr), false, true, false, &sortop,
								 &eqop, NULL, &hashable);
		sgc->tleSortGroupRef = i;
		sgc->eqop = eqop;
		sgc->sortop = sortop;
		sgc->hashable = hashable;
		grouped->groupClause = lappend(grouped->groupClause, sgc);
	}
	grouped->targetList = lappend(grouped->targetList,
								  makeTargetEntry((Expr *) copyObject(value),
												  list_length(inner) + 1, pstrdup("value"), false));
	present = makeTargetEntry((Expr *) makeBoolConst(true, false), list_length(inner) + 2,
							  pstrdup("present"), false);
	grouped->targetList = lappend(grouped->targetList, present);
	if (counted)
		grouped->targetList = lappend(grouped->targetList,
									  makeTargetEntry((Expr *) make_count_star(),
													  list_length(inner) + 3,
													  pstrdup("rows"), false));
	rt = add_subquery_rte(q, grouped, psprintf("hs_scalar_%d", ++sc->n));

	/* the FROM item LEFT JOIN the groups ON outer = inner */
	i = 0;
	foreach(lc, on)
	{
		if (list_nth_int(outer_first, i))
			equality_over(lfirst(lc), list_nth(outer, i), (Node *) sub_var(grouped, rt, i + 1));
		else
			equality_over(lfirst(lc), (Node *) sub_var(grouped, rt, i + 1), list_nth(outer, i));
		i++;
	}
	j = makeNode(JoinExpr);
	j->jointype = JOIN_LEFT;
	j->larg = list_nth(q->jointree->fromlist, item);
	j->rarg = (Node *) make_ref(rt);
	j->quals = (Node *) make_ands_explicit(on);
	j->rtindex = 0;
	list_nth_cell(q->jointree->fromlist, item)->ptr_value = j;

	/* a row looked up: its value, NULL where there is none */
	if (!aggregated)
	{
		Var		   *v = sub_var(grouped, rt, list_length(inner) + 1);

		if (sc->in_having_or_target && aggregating(q))
			group_by_too(q, (Expr *) v);
		return (Node *) v;
	}

	/* the rows' value: NULL where the group has none (rows NULL too) */
	if (counted)
	{
		Node	   *call = one_row_call(sub_var(grouped, rt, list_length(inner) + 3),
										sub_var(grouped, rt, list_length(inner) + 1),
										exprType(written), exprTypmod(written),
										exprCollation(written));

		if (sc->in_having_or_target && aggregating(q))
			group_by_too(q, (Expr *) call);
		return call;
	}

	/* the value, or what the aggregation gives over no rows */
	{
		Node	   *ce = value_or_over_no_rows(sub_var(grouped, rt, list_length(inner) + 1),
											   no_rows_value,
											   sub_var(grouped, rt, list_length(inner) + 2));

		if (sc->in_having_or_target && aggregating(q))
			group_by_too(q, (Expr *) ce);
		return ce;
	}
}

/*
 * A correlated scalar subquery that returns at most one row by its
 * ORDER BY ... LIMIT 1 (the latest or largest row of the outer row's):
 * LEFT JOIN LATERAL (sub) ON true to the FROM item of q that holds every
 * column of q it reads, its value a Var of it (NULL where it has no row,
 * as the subquery's value is).  rewrite_lateral then decorrelates it, or
 * refuses it.  NULL if sub is not one.
 */
static Node *
scalar_as_lateral(Query *q, Query *sub, ScalarContext *sc)
{
	Const	   *limit = sub->limitCount ?
		(Const *) eval_const_expressions(NULL, copyObject(sub->limitCount)) : NULL;
	Relids		outer_rels = NULL;
	ListCell   *lc;
	int			item;
	int			rt;
	JoinExpr   *j;
	Var		   *v;
	List	   *outer_vars;

	if (limit == NULL || !IsA(limit, Const) || limit->consttype != INT8OID ||
		limit->constisnull || DatumGetInt64(limit->constvalue) != 1 || sub->limitOffset != NULL ||
		sub->sortClause == NIL || ExecCleanTargetListLength(sub->targetList) != 1 ||
		reads_above(sub, 1))
		return NULL;
	outer_vars = pull_vars_of_level((Node *) sub, 1);
	foreach(lc, outer_vars)
		outer_rels = bms_add_member(outer_rels, ((Var *) lfirst(lc))->varno);
	item = from_item_holding(q, outer_rels);
	if (item < 0)
		return NULL;
	rt = add_subquery_rte(q, copyObject(sub), psprintf("hs_scalar_%d", ++sc->n));
	rt_fetch(rt, q->rtable)->lateral = true;
	j = makeNode(JoinExpr);
	j->jointype = JOIN_LEFT;
	j->larg = list_nth(q->jointree->fromlist, item);
	j->rarg = (Node *) make_ref(rt);
	j->quals = (Node *) makeBoolConst(true, false);
	j->rtindex = 0;
	list_nth_cell(q->jointree->fromlist, item)->ptr_value = j;
	sc->lateral = true;
	v = sub_var(sub, rt, 1);
	if (sc->in_having_or_target && aggregating(q))
		group_by_too(q, (Expr *) v);
	return (Node *) v;
}

/*
 * min(v) of the type of v, as parse analysis makes it; NULL if the type has
 * no min aggregate.
 */
static Aggref *
make_min(Expr *v)
{
	Oid			type = exprType((Node *) v);
	Oid			funcid;
	Oid			rettype;
	bool		retset;
	int			nvargs;
	Oid			vatype;
	Oid		   *true_types;
	Aggref	   *a;

	if (func_get_detail(list_make1(makeString("min")), NIL, NIL, 1, &type, false, false,
						false, &funcid, &rettype, &retset, &nvargs, &vatype, &true_types,
						NULL) != FUNCDETAIL_AGGREGATE)
		return NULL;
	/* (min(text) of a varchar, min(int4) of a domain over int4) */
	if (!IsPolymorphicType(true_types[0]) && true_types[0] != type)
	{
		if (!IsBinaryCoercible(type, true_types[0]))
			return NULL;
		v = (Expr *) makeRelabelType(v, true_types[0], -1, exprCollation((Node *) v),
									 COERCE_IMPLICIT_CAST);
		type = true_types[0];
	}
	a = make_aggref(funcid, IsPolymorphicType(rettype) ? type : rettype);
	a->aggcollid = exprCollation((Node *) v);
	a->inputcollid = exprCollation((Node *) v);
	a->aggargtypes = list_make1_oid(type);
	a->args = list_make1(makeTargetEntry(v, 1, NULL, false));
	return a;
}

/*
 * An uncorrelated scalar subquery sub that may return no row or several:
 * (SELECT min(s.v), count(*) FROM (sub) s), one row always, added to q's
 * FROM as the one-row ones are; returns hummock_stream._one_row(count,
 * min) over it, or NULL if the type of v has no min (or the extension's
 * function is missing: an extension not updated).
 */
static Node *
at_most_one_row(ScalarContext *sc, Query *sub, Oid type, int32 typmod, Oid collation)
{
	int			inner;
	int			rt;
	Query	   *w;
	Aggref	   *min;
	Var		   *value;
	Var		   *rows;
	Node	   *call;

	if (!OidIsValid(one_row_function()))
		return NULL;
	w = query_over(sub, "hs_one_row", &inner);
	min = make_min((Expr *) sub_var(sub, inner, 1));
	if (min == NULL)
		return NULL;
	w->targetList = list_make2(makeTargetEntry((Expr *) min, 1, pstrdup("value"), false),
							   makeTargetEntry((Expr *) make_count_star(), 2,
											   pstrdup("rows"), false));
	w->hasAggs = true;
	rt = add_subquery_rte(sc->q, w, psprintf("hs_scalar_%d", ++sc->n));
	sc->q->jointree->fromlist = lappend(sc->q->jointree->fromlist, make_ref(rt));
	value = sub_var(w, rt, 1);
	rows = sub_var(w, rt, 2);
	if (sc->in_having_or_target && sc->q->groupClause != NIL)
	{
		group_by_too(sc->q, (Expr *) value);
		group_by_too(sc->q, (Expr *) rows);
	}
	call = one_row_call(rows, value, type, typmod, collation);
	return call;
}

static Node *
scalar_mutator(Node *node, ScalarContext *sc)
{
	if (node == NULL)
		return NULL;
	if (IsA(node, SubLink) && ((SubLink *) node)->subLinkType == EXPR_SUBLINK)
	{
		SubLink    *sl = (SubLink *) node;
		Query	   *sub = (Query *) sl->subselect;
		int			rt;
		Var		   *v;
		Node	   *done;

		if (reads_above(sub, 1))
			unsupported_subquery();
		if (contain_vars_of_level((Node *) sub, 1))
		{
			done = decorrelate(sc->q, sub, sc);
			if (done == NULL)
				done = scalar_as_lateral(sc->q, sub, sc);
			if (done == NULL && (sub->limitCount || sub->limitOffset) && sub->sortClause == NIL)
				ereport(ERROR,
						(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
						 errmsg("LIMIT without ORDER BY in a correlated scalar subquery is not supported in a streaming materialized view"),
						 errdetail("Which row such a subquery returns is not defined."),
						 errhint("Add ORDER BY: (SELECT ... ORDER BY ... LIMIT 1) takes the first row in that order.")));
			if (done == NULL)
				ereport(ERROR,
						(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
						 errmsg("this correlated scalar subquery is not supported in a streaming materialized view"),
						 errdetail("A correlated scalar subquery must read one table (a value of a type that has min(), or looked up by a unique key), aggregate without GROUP BY, HAVING or LIMIT, or take one row by ORDER BY ... LIMIT 1; one related to the outer query otherwise than by equalities in its WHERE must read columns of only one item of the outer query, a table or a subquery that no outer join nulls.")));
			return done;
		}
		if (sc->in_having_or_target && sc->q->groupClause == NIL && aggregating(sc->q))
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("a scalar subquery in an aggregating query without GROUP BY is not supported in a streaming materialized view")));
		if (!one_row_always(sub) || list_length(sub->targetList) != 1)
		{
			done = at_most_one_row(sc, sub, exprType(node), exprTypmod(node),
								   exprCollation(node));
			if (done == NULL)
				ereport(ERROR,
						(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
						 errmsg("a scalar subquery that may return other than one row is not supported in a streaming materialized view"),
						 errdetail("A scalar subquery must aggregate without GROUP BY, HAVING or LIMIT, so that it always returns one row, or return a type that has min().")));
			return done;
		}
		rt = add_subquery_rte(sc->q, copyObject(sub), psprintf("hs_scalar_%d", ++sc->n));
		sc->q->jointree->fromlist = lappend(sc->q->jointree->fromlist, make_ref(rt));
		v = sub_var(sub, rt, 1);
		if (sc->in_having_or_target && sc->q->groupClause != NIL)
			group_by_too(sc->q, (Expr *) v);
		return (Node *) v;
	}
	if (IsA(node, SubLink) || IsA(node, Query))
		return node;			/* (IN and EXISTS: plan_join.c) */
	if (IsA(node, Aggref) && sc->in_having_or_target)
	{
		/* an aggregate's arguments are per input row: not grouped by */
		Node	   *r;

		sc->in_having_or_target = false;
		r = expression_tree_mutator(node, scalar_mutator, sc);
		sc->in_having_or_target = true;
		return r;
	}
	return expression_tree_mutator(node, scalar_mutator, sc);
}

/*
 * Does conjunct c of an ON read no FROM item of q but side, a table?
 * Then rows of side that c rejects join no row: side becomes
 *
 *		(SELECT <its columns> FROM side WHERE c) AS side
 *
 * (same columns at the same numbers, so nothing else in q changes), which
 * plans c as a WHERE of its own level.
 */
static bool
filter_side(Query *q, Node *side, Node *c)
{
	RangeTblRef *ref;
	RangeTblEntry *rte;
	RangeTblEntry *sub_rte;
	Query	   *sub;
	Relation	rel;
	Node	   *cond;
	bool		dropped = false;

	if (!IsA(side, RangeTblRef))
		return false;
	ref = (RangeTblRef *) side;
	rte = rt_fetch(ref->rtindex, q->rtable);
	if (rte->rtekind != RTE_RELATION ||
		!bms_equal(pull_varnos(NULL, c), bms_make_singleton(ref->rtindex)))
		return false;
	sub = makeNode(Query);
	sub->commandType = CMD_SELECT;
	sub->querySource = QSRC_ORIGINAL;
	sub->canSetTag = true;
	sub->hasSubLinks = true;
	sub->rtable = list_make1(copyObject(rte));
	rel = table_open(rte->relid, NoLock);	/* (locked by the analysis) */
	for (int a = 0; a < RelationGetDescr(rel)->natts; a++)
	{
		Form_pg_attribute att = TupleDescAttr(RelationGetDescr(rel), a);

		dropped |= att->attisdropped;
		sub->targetList = lappend(sub->targetList,
								  makeTargetEntry((Expr *) makeVar(1, a + 1, att->atttypid,
																   att->atttypmod,
																   att->attcollation, 0),
												  a + 1, pstrdup(NameStr(att->attname)),
												  false));
	}
	table_close(rel, NoLock);
	if (dropped)
		return false;			/* (its columns would move) */
	/* c one level down: side is item 1 there, outer levels one further */
	cond = copyObject(c);
	IncrementVarSublevelsUp(cond, 1, 1);
	ChangeVarNodes(cond, ref->rtindex, 1, 0);
	sub->jointree = makeFromExpr(list_make1(make_ref(1)), cond);

	sub_rte = makeNode(RangeTblEntry);
	sub_rte->rtekind = RTE_SUBQUERY;
	sub_rte->subquery = sub;
	sub_rte->alias = rte->alias;
	sub_rte->eref = rte->eref;
	sub_rte->inFromCl = true;
	list_nth_cell(q->rtable, ref->rtindex - 1)->ptr_value = sub_rte;
	return true;
}

/*
 * Subqueries in ON.  In the ON of an inner join that no outer join nulls
 * a conjunct moves to WHERE (*moved), where it filters the same rows (an
 * inner join under the preserved side of an outer join loses a row there
 * or later with every row it makes).  Elsewhere, a conjunct reading only
 * a table on a side the join may null (the right of a LEFT JOIN, either
 * side of an inner join) filters that table (filter_side).  What is left
 * is refused.
 */
static void
hoist_on_sublinks(Query *q, Node *jt, bool nullable, List **moved)
{
	if (IsA(jt, FromExpr))
	{
		ListCell   *lc;

		foreach(lc, ((FromExpr *) jt)->fromlist)
			hoist_on_sublinks(q, lfirst(lc), nullable, moved);
	}
	else if (IsA(jt, JoinExpr))
	{
		JoinExpr   *j = (JoinExpr *) jt;

		if (contains_sublink(j->quals))
		{
			List	   *kept = NIL;
			ListCell   *lc;

			foreach(lc, make_ands_implicit((Expr *) j->quals))
			{
				Node	   *c = lfirst(lc);

				if (!contains_sublink(c))
					kept = lappend(kept, c);
				else if (j->jointype == JOIN_INNER && !nullable)
					*moved = lappend(*moved, c);
				else if ((j->jointype == JOIN_INNER || j->jointype == JOIN_LEFT) &&
						 filter_side(q, j->rarg, c))
					continue;
				else if ((j->jointype == JOIN_INNER || j->jointype == JOIN_RIGHT) &&
						 filter_side(q, j->larg, c))
					continue;
				else
					kept = lappend(kept, c);
			}
			j->quals = kept ? (Node *) make_ands_explicit(kept) :
				makeBoolConst(true, false);
		}
		hoist_on_sublinks(q, j->larg, nullable ||
						  j->jointype == JOIN_RIGHT || j->jointype == JOIN_FULL, moved);
		hoist_on_sublinks(q, j->rarg, nullable ||
						  j->jointype == JOIN_LEFT || j->jointype == JOIN_FULL, moved);
	}
}

/*
 * The subquery of an EXISTS, IN / ANY or ALL conjunct when it groups
 * (GROUP BY, with or without aggregates and HAVING) and relates to the
 * outer row only by equalities in its WHERE (EXISTS (SELECT 1 FROM o
 * WHERE o.cust = c.id GROUP BY o.day HAVING count(*) > 2)): the same rows
 * as a filter over an uncorrelated subquery,
 *
 *	SELECT s.<its columns> FROM (<it, without the equalities, grouped by
 *	  their inner sides too, which it returns>) s WHERE s.hs_key_i = <outer i>
 *
 * since the rows of one outer row are those whose inner sides equal its
 * values, and grouping them by g gives the groups (those values, g) of all
 * rows (every group has rows, so none is lost; an aggregation without
 * GROUP BY, which has a row over no rows, is not rewritten).  Then the
 * conjunct is a semi or anti join (or the quantified rewrite) over it.
 * sl's subquery is replaced; false if it is not such a subquery.
 */
static bool
groups_as_filter(SubLink *sl)
{
	Query	   *sub = (Query *) sl->subselect;
	Query	   *g;
	Query	   *f;
	List	   *local;
	List	   *inner;
	List	   *outer;
	List	   *on;
	List	   *outer_first;
	List	   *conds = NIL;
	List	   *keys = NIL;
	ListCell   *lc;
	int			rt;
	int			i;

	/*
	 * (an EXISTS whose grouping aggregates nothing is Postgres's own pull-up:
	 * it drops the GROUP BY; a view planned so before stays planned so)
	 */
	if (sl->subLinkType == EXISTS_SUBLINK && IsA(sub, Query) && !sub->hasAggs &&
		sub->havingQual == NULL)
		return false;
	if (!IsA(sub, Query) || sub->groupClause == NIL || sub->groupingSets != NIL ||
		sub->setOperations || sub->hasWindowFuncs || sub->hasTargetSRFs ||
		sub->limitCount || sub->limitOffset || sub->hasDistinctOn ||
		!contain_vars_of_level((Node *) sub, 1) || reads_above(sub, 1))
		return false;
	g = copyObject(sub);
	if (!split_correlation(g, &local, &inner, &outer, &on, &outer_first))
		return false;
	if (!groups_as_equalities(inner, on))
		return false;
	g->jointree->quals = local ? (Node *) make_ands_explicit(local) : NULL;
	g->sortClause = NIL;
	/* one level deeper than it was: WITH queries of the levels above too */
	IncrementVarSublevelsUp((Node *) g, 1, 1);
	/* its inner sides: grouped by and returned, after its own columns */
	i = 0;
	foreach(lc, inner)
	{
		AttrNumber	resno = add_output_column(g, NULL, (Expr *) copyObject(lfirst(lc)),
											  psprintf("hs_key_%d", ++i));
		TargetEntry *tle = list_nth(g->targetList, resno - 1);

		g->groupClause = lappend(g->groupClause, sort_group_of(g, tle));
		if (g->distinctClause != NIL)
			g->distinctClause = lappend(g->distinctClause, sort_group_of(g, tle));
		keys = lappend(keys, tle);
	}
	f = query_over(g, "hs_groups", &rt);
	foreach(lc, sub->targetList)
	{
		TargetEntry *tle = lfirst(lc);

		if (!tle->resjunk)
			f->targetList = lappend(f->targetList,
									makeTargetEntry((Expr *) sub_var(g, rt, tle->resno),
													tle->resno,
													tle->resname ? pstrdup(tle->resname) : NULL,
													false));
	}
	i = 0;
	foreach(lc, on)
	{
		Node	   *k = (Node *) sub_var(g, rt, ((TargetEntry *) list_nth(keys, i))->resno);
		Node	   *o = copyObject(list_nth(outer, i));

		IncrementVarSublevelsUp(o, 1, 0);	/* (the outer row, seen from f) */
		conds = lappend(conds, list_nth_int(outer_first, i) ?
						equality_over(lfirst(lc), o, k) : equality_over(lfirst(lc), k, o));
		i++;
	}
	f->jointree->quals = (Node *) make_ands_explicit(conds);
	sl->subselect = (Node *) f;
	return true;
}

typedef struct TestParams
{
	List	   *values;			/* the inner query's output expressions */
} TestParams;

static Node *
test_params_mutator(Node *node, TestParams *tp)
{
	if (node == NULL)
		return NULL;
	if (IsA(node, Param) && ((Param *) node)->paramkind == PARAM_SUBLINK &&
		((Param *) node)->paramid >= 1 && ((Param *) node)->paramid <= list_length(tp->values))
		return copyObject(list_nth(tp->values, ((Param *) node)->paramid - 1));
	return expression_tree_mutator(node, test_params_mutator, tp);
}

/*
 * EXISTS (SELECT ... FROM a WHERE p AND EXISTS (SELECT ... FROM b WHERE
 * r)) is EXISTS (SELECT ... FROM a, b WHERE p AND r): a row of a with a
 * row of b is a row of their product, and the product has one exactly
 * when a has such a row.  So is a conjunct x IN (SELECT y FROM b WHERE
 * r), as b's rows with x = y; and the same holds under NOT EXISTS and in
 * an IN's subquery.  Postgres's pull-up makes the outer EXISTS a semi
 * join whose condition would still hold the inner sublink, which a join
 * cannot evaluate; merged, the inner query's items are the semi join's.
 * Only inner queries that read a row of a level above (an uncorrelated
 * one would pair every row of sub with each of its rows in the product:
 * left alone, its test is a value the count of sub's rows reads, or a
 * filter of their own), that just filter
 * (plain_filter, no DISTINCT ON), whose FROM items do not read sub's
 * (items_read_above), with no subquery in an IN's tested expression, and
 * only in a subquery that reads the level above (an uncorrelated one is
 * planned whole, its sublinks at its own level: its plan stays).
 */
/*
 * Does a FROM item of q (a subquery, function, VALUES list or join
 * condition) read the level above q?  Merged into that level, the item
 * would read its siblings, which only a LATERAL item may.
 */
static bool
items_read_above(Query *q)
{
	Node	   *quals = q->jointree->quals;
	List	   *tlist = q->targetList;
	bool		reads;

	q->jointree->quals = NULL;
	q->targetList = NIL;
	reads = contain_vars_of_level((Node *) q, 1);
	q->jointree->quals = quals;
	q->targetList = tlist;
	return reads;
}

static void
merge_nested_exists(Query *sub)
{
	List	   *conds;
	List	   *kept = NIL;
	ListCell   *lc;
	bool		merged = false;

	if (!plain_filter(sub) || sub->hasDistinctOn || sub->jointree->quals == NULL ||
		!reads_above(sub, 0))
		return;
	conds = make_ands_implicit((Expr *) sub->jointree->quals);
	foreach(lc, conds)
	{
		Node	   *c = lfirst(lc);
		SubLink    *sl = (SubLink *) c;
		Query	   *in;
		int			offset = list_length(sub->rtable);

		if (!IsA(c, SubLink) ||
			!(sl->subLinkType == EXISTS_SUBLINK ||
			  (sl->subLinkType == ANY_SUBLINK && sl->testexpr != NULL)) ||
			!plain_filter((Query *) sl->subselect) ||
			((Query *) sl->subselect)->hasDistinctOn ||
			!(reads_above((Query *) sl->subselect, 0) ||
			  (sl->testexpr && contain_vars_of_level(sl->testexpr, 0))) ||
			items_read_above((Query *) sl->subselect) ||
			contains_sublink(sl->testexpr))
		{
			kept = lappend(kept, c);
			continue;
		}
		in = copyObject((Query *) sl->subselect);
		/* its items numbered after sub's, and sub's level its own */
		OffsetVarNodes((Node *) in, offset, 0);
		IncrementVarSublevelsUp((Node *) in, -1, 1);
		sub->rtable = list_concat(sub->rtable, in->rtable);
		sub->jointree->fromlist = list_concat(sub->jointree->fromlist,
											  in->jointree->fromlist);
		if (in->jointree->quals)
			kept = list_concat(kept, make_ands_implicit((Expr *) in->jointree->quals));
		if (sl->subLinkType == ANY_SUBLINK)
		{
			TestParams	tp = {NIL};
			ListCell   *lt;

			foreach(lt, in->targetList)
				if (!((TargetEntry *) lfirst(lt))->resjunk)
					tp.values = lappend(tp.values, ((TargetEntry *) lfirst(lt))->expr);
			kept = lappend(kept, test_params_mutator(copyObject(sl->testexpr), &tp));
		}
		sub->hasSubLinks |= in->hasSubLinks;
		merged = true;
	}
	sub->jointree->quals = (Node *) make_ands_explicit(kept);
	if (merged)
		merge_nested_exists(sub);	/* (the inner queries' own conjuncts) */
}

/*
 * Can Postgres's pull-up make EXISTS or NOT EXISTS conjunct c of q's WHERE
 * a semi or anti join (convert_where_sublinks) whose condition holds no
 * subquery (the subquery's own WHERE is the condition)?  True for any
 * other conjunct.  (The pull-up is tried on a copy: it returns before changing
 * anything when it cannot, but it may change the query when it can.)
 */
static bool
exists_joinable(Query *q, Node *c)
{
	bool		under_not = is_notclause(c);
	SubLink    *sl = (SubLink *) (under_not ? (Node *) get_notclausearg((Expr *) c) : c);
	PlannerInfo *root;
	JoinExpr   *j;

	if (!IsA(sl, SubLink) || sl->subLinkType != EXISTS_SUBLINK)
		return true;
	root = makeNode(PlannerInfo);
	root->parse = copyObject(q);
	root->glob = makeNode(PlannerGlobal);
	root->query_level = 1;
	j = convert_EXISTS_sublink_to_join(root, copyObject(sl), under_not,
									   get_relids_in_jointree((Node *) q->jointree, false));
	/* (a join's condition cannot hold a subquery: it stays in the count's) */
	return j != NULL && !contains_sublink(j->quals);
}

/*
 * The branches of sub, a UNION [ALL] of queries of which one at least
 * reads the query level above sub, each as a query of its own at sub's
 * level (its references to the levels above sub one level nearer); NIL if
 * sub is not one (another set operation, ORDER BY, LIMIT, WITH, or a
 * branch whose columns are not of the union's types).
 */
static void
union_branches(Query *sub, Node *op, List **branches, bool *ok)
{
	if (!*ok)
		return;
	if (IsA(op, SetOperationStmt))
	{
		SetOperationStmt *so = (SetOperationStmt *) op;

		if (so->op != SETOP_UNION)
		{
			*ok = false;
			return;
		}
		union_branches(sub, so->larg, branches, ok);
		union_branches(sub, so->rarg, branches, ok);
	}
	else if (IsA(op, RangeTblRef))
	{
		RangeTblEntry *rte = rt_fetch(((RangeTblRef *) op)->rtindex, sub->rtable);
		Query	   *b;
		ListCell   *lt;
		ListCell   *lc;

		if (rte->rtekind != RTE_SUBQUERY)
		{
			*ok = false;
			return;
		}
		b = copyObject(rte->subquery);
		/* every visible column of the union's type (no coercion between) */
		lc = list_head(((SetOperationStmt *) sub->setOperations)->colTypes);
		foreach(lt, b->targetList)
		{
			TargetEntry *tle = lfirst(lt);

			if (tle->resjunk)
				continue;
			if (lc == NULL || exprType((Node *) tle->expr) != lfirst_oid(lc))
			{
				*ok = false;
				return;
			}
			lc = lnext(((SetOperationStmt *) sub->setOperations)->colTypes, lc);
		}
		if (lc != NULL)
		{
			*ok = false;
			return;
		}
		IncrementVarSublevelsUp((Node *) b, -1, 2);
		*branches = lappend(*branches, b);
	}
	else
		*ok = false;
}

static List *
correlated_union_branches(Query *sub)
{
	List	   *branches = NIL;
	bool		ok = true;

	if (sub->setOperations == NULL || sub->sortClause || sub->limitCount ||
		sub->limitOffset || sub->cteList || sub->rowMarks ||
		!contain_vars_of_level((Node *) sub, 1))
		return NIL;
	union_branches(sub, sub->setOperations, &branches, &ok);
	return ok ? branches : NIL;
}

/* Does node hold a subquery outside the arguments of its aggregates? */
static bool
sublink_outside_aggs_walker(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, Aggref))
		return false;
	if (IsA(node, SubLink))
	{
		SubLink    *sl = (SubLink *) node;

		/* (one reading this level's aggregates cannot move above them) */
		*(bool *) context = *(bool *) context ||
			contain_aggs_of_level(sl->subselect, 1);
		return true;
	}
	return expression_tree_walker(node, sublink_outside_aggs_walker, context);
}

typedef struct AggColumns
{
	Query	   *agg;			/* the aggregation below: its targets */
} AggColumns;

/* Each aggregate of this level a column of the aggregation below (rt 1). */
static Node *
aggs_to_columns_mutator(Node *node, AggColumns *ac)
{
	if (node == NULL)
		return NULL;
	if (IsA(node, Aggref) && ((Aggref *) node)->agglevelsup == 0)
	{
		int			n = list_length(ac->agg->targetList) + 1;

		ac->agg->targetList = lappend(ac->agg->targetList,
									  makeTargetEntry((Expr *) copyObject(node), n,
													  psprintf("hs_agg_%d", n), false));
		return (Node *) sub_var(ac->agg, 1, n);
	}
	if (IsA(node, SubLink) || IsA(node, Query))
		return node;
	return expression_tree_mutator(node, aggs_to_columns_mutator, ac);
}

Query *
scalars_over_aggregation(Query *q)
{
	bool		inner_aggs = false;
	bool		found;
	AggColumns	ac;
	Query	   *top;
	List	   *targets;
	Node	   *having;
	int			rt;

	if (!q->hasSubLinks || !aggregating(q) || q->groupClause != NIL ||
		q->groupingSets != NIL || q->hasWindowFuncs || q->hasTargetSRFs ||
		q->cteList != NIL || q->setOperations != NULL || q->jointree == NULL)
		return q;
	found = sublink_outside_aggs_walker((Node *) q->targetList, &inner_aggs) |
		sublink_outside_aggs_walker(q->havingQual, &inner_aggs);
	if (!found || inner_aggs)
		return q;

	/* the aggregation: q's FROM and WHERE, its aggregates as columns */
	ac.agg = copyObject(q);
	ac.agg->targetList = NIL;
	ac.agg->havingQual = NULL;
	ac.agg->sortClause = NIL;
	ac.agg->distinctClause = NIL;
	ac.agg->hasDistinctOn = false;
	ac.agg->limitCount = NULL;
	ac.agg->limitOffset = NULL;
	targets = (List *) aggs_to_columns_mutator((Node *) copyObject(q->targetList), &ac);
	having = aggs_to_columns_mutator(copyObject(q->havingQual), &ac);
	if (ac.agg->targetList == NIL)
		return q;				/* (no aggregate: HAVING alone) */
	top = query_over(ac.agg, "hs_aggregation", &rt);
	Assert(rt == 1);			/* (the aggregates' Vars name it so) */
	top->targetList = targets;
	top->jointree->quals = having;
	top->sortClause = q->sortClause;
	top->distinctClause = q->distinctClause;
	top->hasDistinctOn = q->hasDistinctOn;
	top->limitCount = q->limitCount;
	top->limitOffset = q->limitOffset;
	top->limitOption = q->limitOption;
	top->hasSubLinks = true;
	/* (q reads no column outside its aggregates: Postgres has checked that) */
	return top;
}

/*
 * EXISTS (...), x IN (...) and x op ANY/ALL (...) over a UNION [ALL] whose
 * branches read the outer query: a test of each branch, ORed (ALL: ANDed),
 * which is the same with SQL's NULLs (a row is in the union exactly when
 * it is in a branch); each branch's test is then rewritten as any other.
 */
static Node *
split_union_tests_mutator(Node *node, void *context)
{
	if (node == NULL)
		return NULL;
	if (IsA(node, SubLink))
	{
		SubLink    *sl = (SubLink *) node;
		List	   *branches = NIL;

		if ((sl->subLinkType == EXISTS_SUBLINK || sl->subLinkType == ANY_SUBLINK ||
			 sl->subLinkType == ALL_SUBLINK) && IsA(sl->subselect, Query))
			branches = correlated_union_branches((Query *) sl->subselect);
		if (branches != NIL)
		{
			List	   *tests = NIL;
			ListCell   *lc;

			foreach(lc, branches)
			{
				SubLink    *t = makeNode(SubLink);

				t->subLinkType = sl->subLinkType;
				t->subLinkId = sl->subLinkId;
				t->testexpr = split_union_tests_mutator(copyObject(sl->testexpr), context);
				t->operName = sl->operName;
				t->subselect = lfirst(lc);
				t->location = sl->location;
				tests = lappend(tests, t);
			}
			return (Node *) (sl->subLinkType == ALL_SUBLINK ? make_andclause(tests) :
							 make_orclause(tests));
		}
		sl = (SubLink *) copyObject(sl);
		sl->testexpr = split_union_tests_mutator(sl->testexpr, context);
		return (Node *) sl;
	}
	if (IsA(node, Query))
		return node;
	return expression_tree_mutator(node, split_union_tests_mutator, context);
}

void
rewrite_sublinks(PlanCtx *ctx, Query *q)
{
	ScalarContext sc = {ctx, q, false, 0, false};
	List	   *conds;
	List	   *kept = NIL;
	List	   *moved = NIL;
	ListCell   *lc;

	if (!q->hasSubLinks || q->jointree == NULL)
		return;
	/* tests over a correlated UNION: one per branch */
	q->jointree->quals = split_union_tests_mutator(q->jointree->quals, NULL);
	foreach(lc, q->targetList)
		((TargetEntry *) lfirst(lc))->expr =
			(Expr *) split_union_tests_mutator((Node *) ((TargetEntry *) lfirst(lc))->expr, NULL);
	q->havingQual = split_union_tests_mutator(q->havingQual, NULL);
	/* subqueries in the ON of inner joins: in WHERE */
	hoist_on_sublinks(q, (Node *) q->jointree, false, &moved);
	if (moved)
		q->jointree->quals = (Node *)
			make_ands_explicit(list_concat(make_ands_implicit((Expr *) q->jointree->quals),
										   moved));
	/* NOT IN conjuncts of WHERE */
	conds = make_ands_implicit((Expr *) q->jointree->quals);
	foreach(lc, conds)
	{
		Node	   *c = lfirst(lc);
		Node	   *quantified;

		List	   *instead;

		/* a grouping subquery correlated by equalities: a filter over its groups */
		if (IsA(c, SubLink))
			groups_as_filter((SubLink *) c);
		else if (is_notclause(c) && IsA(get_notclausearg((Expr *) c), SubLink))
			groups_as_filter((SubLink *) get_notclausearg((Expr *) c));
		/* EXISTS and IN within a correlated one: one query over both */
		{
			Node	   *n = is_notclause(c) ? (Node *) get_notclausearg((Expr *) c) : c;

			/* (tests of a set of rows; a scalar subquery's rows would multiply) */
			if (IsA(n, SubLink) && IsA(((SubLink *) n)->subselect, Query) &&
				(((SubLink *) n)->subLinkType == EXISTS_SUBLINK ||
				 ((SubLink *) n)->subLinkType == ANY_SUBLINK ||
				 ((SubLink *) n)->subLinkType == ALL_SUBLINK))
				merge_nested_exists((Query *) ((SubLink *) n)->subselect);
		}
		quantified = rewrite_quantified(c);
		instead = quantified ? list_make1(quantified) : rewrite_not_in(q, c);

		/*
		 * (a sublink conjunct is a semi or anti join, plan_join.c; an
		 * EXISTS that cannot be one is a count, as a value is)
		 */
		if (instead == NIL &&
			((!IsA(c, SubLink) &&
			  !(is_notclause(c) && IsA(get_notclausearg((Expr *) c), SubLink))) ||
			 !exists_joinable(q, c)))
			c = sublink_values_mutator(c, q);
		kept = instead ? list_concat(kept, instead) : lappend(kept, c);
	}
	foreach(lc, q->targetList)
	{
		TargetEntry *tle = lfirst(lc);

		tle->expr = (Expr *) sublink_values_mutator((Node *) tle->expr, q);
	}
	q->havingQual = sublink_values_mutator(q->havingQual, q);
	/* scalar subqueries: WHERE first (a Var there is not grouped by) */
	kept = (List *) scalar_mutator((Node *) kept, &sc);
	q->jointree->quals = kept ? (Node *) make_ands_explicit(kept) : NULL;
	sc.in_having_or_target = true;
	foreach(lc, q->targetList)
	{
		TargetEntry *tle = lfirst(lc);

		tle->expr = (Expr *) scalar_mutator((Node *) tle->expr, &sc);
	}
	q->havingQual = scalar_mutator(q->havingQual, &sc);
	if (sc.lateral)
		rewrite_lateral(q);
}

/* ---------------------------------------------------------------------
 * LATERAL subqueries
 * ---------------------------------------------------------------------
 */

static void
refuse_lateral(const char *detail)
{
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("this LATERAL subquery is not supported in a streaming materialized view"),
			 errdetail_internal("%s", detail)));
}

/*
 * The first LATERAL subquery under join tree node jt (whose parent is
 * parent) that reads the level above it: its range table index, 0 if
 * none.  *list is set to the FROM list holding it, or *join to the join
 * whose right input it is (its only other place).  LATERAL subqueries
 * that read nothing above are only unmarked.
 */
static int
find_lateral(Query *q, Node *jt, Node *parent, FromExpr **list, JoinExpr **join)
{
	ListCell   *lc;
	int			rt = 0;

	if (IsA(jt, RangeTblRef))
	{
		RangeTblEntry *rte = rt_fetch(((RangeTblRef *) jt)->rtindex, q->rtable);

		/* (a VALUES list is a function item: plan_join.c) */
		if (rte->rtekind != RTE_SUBQUERY || !rte->lateral || values_of_subquery(rte->subquery))
			return 0;
		if (!contain_vars_of_level((Node *) rte->subquery, 1))
		{
			rte->lateral = false;
			return 0;
		}
		if (IsA(parent, FromExpr))
			*list = (FromExpr *) parent;
		else if (((JoinExpr *) parent)->rarg == jt &&
				 (((JoinExpr *) parent)->jointype == JOIN_INNER ||
				  ((JoinExpr *) parent)->jointype == JOIN_LEFT))
			*join = (JoinExpr *) parent;
		else
			refuse_lateral("A LATERAL subquery must be an item of FROM or the right side of an inner join or LEFT JOIN.");
		return ((RangeTblRef *) jt)->rtindex;
	}
	if (IsA(jt, FromExpr))
	{
		foreach(lc, ((FromExpr *) jt)->fromlist)
			if ((rt = find_lateral(q, lfirst(lc), jt, list, join)) != 0)
				return rt;
	}
	else if (IsA(jt, JoinExpr))
	{
		if ((rt = find_lateral(q, ((JoinExpr *) jt)->larg, jt, list, join)) == 0)
			rt = find_lateral(q, ((JoinExpr *) jt)->rarg, jt, list, join);
	}
	return rt;
}

/*
 * Insert e among sub's output columns (after the last one), named name in
 * rte's column names too (rte: sub's range table entry, or NULL); its
 * resno.
 */
AttrNumber
add_output_column(Query *sub, RangeTblEntry *rte, Expr *e, const char *name)
{
	ListCell   *lc;
	int			pos = 0;
	AttrNumber	resno = 1;

	foreach(lc, sub->targetList)
		if (!((TargetEntry *) lfirst(lc))->resjunk)
			pos = foreach_current_index(lc) + 1;
	sub->targetList = list_insert_nth(sub->targetList, pos,
									  makeTargetEntry(e, 0, pstrdup(name), false));
	foreach(lc, sub->targetList)
		((TargetEntry *) lfirst(lc))->resno = resno++;
	if (rte)
		rte->eref->colnames = lappend(rte->eref->colnames, makeString(pstrdup(name)));
	return pos + 1;
}

/*
 * The value of a LATERAL subquery's LIMIT or OFFSET (what names it), which
 * must be a constant: -1 if there is none or it is NULL (LIMIT ALL).
 */
static int64
lateral_bound(Node *n, const char *what)
{
	Const	   *c;

	if (n == NULL)
		return -1;
	c = (Const *) eval_const_expressions(NULL, copyObject(n));
	if (!IsA(c, Const) || c->consttype != INT8OID)
		refuse_lateral(psprintf("Its %s must be a constant.", what));
	if (c->constisnull)
		return -1;
	if (DatumGetInt64(c->constvalue) < 0)
		ereport(ERROR,
				(errcode(strcmp(what, "LIMIT") == 0 ? ERRCODE_INVALID_ROW_COUNT_IN_LIMIT_CLAUSE :
						 ERRCODE_INVALID_ROW_COUNT_IN_RESULT_OFFSET_CLAUSE),
				 errmsg("%s must not be negative", what)));
	return DatumGetInt64(c->constvalue);
}

/* v <op> n, op the bigint comparison of btree strategy strategy. */
static Expr *
compare_int8(Var *v, int strategy, int64 n)
{
	Oid			op = get_opfamily_member(INTEGER_BTREE_FAM_OID, INT8OID, INT8OID, strategy);

	return make_opclause(op, BOOLOID, false, (Expr *) v,
						 (Expr *) makeConst(INT8OID, -1, InvalidOid, 8, Int64GetDatum(n),
											false, FLOAT8PASSBYVAL),
						 InvalidOid, InvalidOid);
}

/*
 * row_number() OVER (PARTITION BY keys ORDER BY <sub's ORDER BY>) as a new
 * output column of sub (which then has no ORDER BY or LIMIT); its resno.
 */
static AttrNumber
number_rows_by(Query *sub, RangeTblEntry *rte, List *keys)
{
	WindowClause *wc = makeNode(WindowClause);
	WindowFunc *f = makeNode(WindowFunc);
	ListCell   *lc;

	foreach(lc, keys)
		wc->partitionClause = lappend(wc->partitionClause, sort_group_of(sub, lfirst(lc)));
	wc->orderClause = sub->sortClause;
	wc->frameOptions = FRAMEOPTION_DEFAULTS;
	wc->winref = 1;
	f->winfnoid = F_ROW_NUMBER;
	f->wintype = INT8OID;
	f->winref = 1;
	f->location = -1;
	sub->windowClause = list_make1(wc);
	sub->hasWindowFuncs = true;
	sub->sortClause = NIL;
	sub->limitCount = NULL;
	sub->limitOffset = NULL;
	return add_output_column(sub, rte, (Expr *) f, "hs_row_number");
}

/*
 * SELECT DISTINCT ... ORDER BY ... LIMIT as SELECT <its columns> FROM
 * (SELECT DISTINCT ...) d ORDER BY ... LIMIT: its window functions (the
 * row numbers of number_rows_by) are computed before DISTINCT, so the
 * level that numbers the rows must be above the one that makes them
 * distinct.  The ORDER BY expressions of a DISTINCT are among its columns,
 * so the outer level orders by its Vars of them.  *keys (the inner's
 * target entries of the correlation columns) become the outer's.
 */
static Query *
distinct_below(Query *sub, List **keys)
{
	Query	   *inner = copyObject(sub);
	Query	   *outer;
	int			rt;
	ListCell   *lc;
	List	   *outer_keys = NIL;

	inner->sortClause = NIL;
	inner->limitCount = NULL;
	inner->limitOffset = NULL;
	outer = query_over(inner, "hs_distinct", &rt);
	foreach(lc, sub->targetList)
	{
		TargetEntry *tle = lfirst(lc);
		TargetEntry *o;

		o = makeTargetEntry((Expr *) sub_var(inner, rt, tle->resno), tle->resno,
							tle->resname ? pstrdup(tle->resname) : NULL, tle->resjunk);
		o->ressortgroupref = tle->ressortgroupref;
		outer->targetList = lappend(outer->targetList, o);
	}
	foreach(lc, *keys)
		outer_keys = lappend(outer_keys,
							 list_nth(outer->targetList, ((TargetEntry *) lfirst(lc))->resno - 1));
	*keys = outer_keys;
	outer->sortClause = copyObject(sub->sortClause);
	outer->limitCount = copyObject(sub->limitCount);
	outer->limitOffset = copyObject(sub->limitOffset);
	outer->limitOption = sub->limitOption;
	return outer;
}

/*
 * LATERAL subquery rt of q, related to the items before it only by
 * equalities in its WHERE, becomes a subquery of its own: the inner sides
 * of the equalities become more output columns, and the equalities (over
 * them) conditions of the FROM list or join that holds it, which then
 * joins it like any other item.  What the subquery computed per outer row
 * it computes per value of those columns:
 *
 *	no aggregation		its rows, filtered by the rest of its WHERE;
 *	GROUP BY g			grouped by g and the columns;
 *	ORDER BY o LIMIT n	numbered by row_number() OVER (PARTITION BY the
 *	  [OFFSET m]		columns ORDER BY o), and rn <= m + n [AND rn >
 *						m] join the conditions (a per-group Top-N,
 *						plan_top_n.c, then a filter);
 *	windows				each partitioned by the columns too;
 *	DISTINCT [ON (d)]	distinct on the columns too (the first row of
 *						each (d, columns) in its ORDER BY);
 *	aggregation only	grouped by the columns, LEFT JOINed to the item
 *						holding the outer side, and an outer row without a
 *						group sees what the aggregation gives over no rows
 *						(count 0, the others NULL) as the scalar subquery
 *						rewrite does.
 */
static void
decorrelate_lateral(Query *q, int rt, FromExpr *list, JoinExpr *join)
{
	RangeTblEntry *rte = rt_fetch(rt, q->rtable);
	Query	   *sub = copyObject(rte->subquery);
	Query	   *written = rte->subquery;
	List	   *local;
	List	   *inner;
	List	   *outer;
	List	   *on;
	List	   *outer_first;
	List	   *keys = NIL;
	List	   *conds = NIL;
	Relids		outer_rels = NULL;
	ListCell   *lc;
	bool		one_row;
	int64		limit = lateral_bound(sub->limitCount, "LIMIT");	/* -1: none */
	int64		offset = Max(lateral_bound(sub->limitOffset, "OFFSET"), 0);
	int			n_visible = list_length(visible_tlist(sub));
	AttrNumber	present = 0;
	Node	   *on_cond = NULL; /* aggregating, joined ON this */
	bool		on_left = false;
	int			i;

	if (reads_above(sub, 1))
		refuse_lateral("A LATERAL subquery may read only the query level it is in.");
	if (!split_correlation(sub, &local, &inner, &outer, &on, &outer_first) ||
		!from_reads_table(sub))
	{
		/*
		 * Related otherwise than by equalities, or reading no table (a
		 * function or VALUES list, which has no rows of its own to group
		 * per value): through its domain, which reads the outer item.
		 */
		Query	   *d = correlate_through_domain(q, sub);

		if (d == NULL || !split_correlation(d, &local, &inner, &outer, &on, &outer_first))
			refuse_lateral(from_reads_table(sub) ?
						   "A LATERAL subquery related to the items before it otherwise than by equalities in its WHERE must read columns of only one of them, a table or a subquery that no outer join nulls." :
						   "A LATERAL subquery that reads no table must read columns of only one item before it, a table or a subquery that no outer join nulls.");
		sub = d;
	}
	if (sub->limitCount == NULL || limit < 0)
		sub->limitCount = NULL; /* (LIMIT ALL) */
	if (offset == 0)
		sub->limitOffset = NULL;
	if (sub->setOperations || sub->groupingSets ||
		sub->limitOption == LIMIT_OPTION_WITH_TIES ||
		((sub->limitCount || sub->limitOffset) &&
		 (sub->hasTargetSRFs || sub->hasDistinctOn || sub->hasWindowFuncs)))
		refuse_lateral("Set operations, GROUPING SETS and FETCH ... WITH TIES are not supported in it, nor LIMIT or OFFSET together with DISTINCT ON, window functions or set-returning functions.");
	if (sub->hasAggs && sub->groupClause == NIL &&
		(sub->havingQual || sub->limitCount || sub->limitOffset))
		refuse_lateral("HAVING, LIMIT or OFFSET in an aggregation without GROUP BY is not supported in it.");
	if ((sub->limitCount || sub->limitOffset) && sub->sortClause == NIL)
		refuse_lateral("LIMIT or OFFSET without ORDER BY is not supported in it.");
	one_row = one_row_always(sub);
	if ((sub->groupClause != NIL || one_row || sub->distinctClause != NIL ||
		 sub->windowClause != NIL || sub->limitCount || sub->limitOffset) &&
		!groups_as_equalities(inner, on))
		refuse_lateral("An equality relating a LATERAL subquery that groups, numbers or picks rows per outer row must compare as its own side's type and collation group.");
	foreach(lc, outer)
		outer_rels = bms_join(outer_rels, varnos_of(lfirst(lc)));
	if (join && !bms_is_subset(outer_rels, get_relids_in_jointree(join->larg, false)))
		refuse_lateral("A LATERAL subquery on the right of a join may read only that join's left side.");

	/* the subquery per value of its sides of the equalities */
	sub->jointree->quals = local ? (Node *) make_ands_explicit(local) : NULL;
	i = 0;
	foreach(lc, inner)
	{
		AttrNumber	resno = add_output_column(sub, rte, (Expr *) copyObject(lfirst(lc)),
											  psprintf("hs_key_%d", ++i));
		TargetEntry *tle = list_nth(sub->targetList, resno - 1);

		keys = lappend(keys, tle);
		if (sub->groupClause != NIL || one_row)
			sub->groupClause = lappend(sub->groupClause, sort_group_of(sub, tle));
		if (sub->distinctClause != NIL)
			sub->distinctClause = lappend(sub->distinctClause, sort_group_of(sub, tle));
	}
	/* its windows: over the outer row's rows, i.e. partitioned by the keys too */
	foreach(lc, sub->windowClause)
	{
		WindowClause *wc = lfirst(lc);
		List	   *by_keys = NIL;
		ListCell   *lk;

		foreach(lk, keys)
			by_keys = lappend(by_keys, sort_group_of(sub, lfirst(lk)));
		wc->partitionClause = list_concat(by_keys, wc->partitionClause);
	}
	if (one_row)
		present = add_output_column(sub, rte, (Expr *) makeBoolConst(true, false),
									"hs_present");
	if ((sub->limitCount || sub->limitOffset) && sub->distinctClause != NIL)
	{
		/* the distinct rows are numbered, not the rows before DISTINCT */
		sub = distinct_below(sub, &keys);
	}
	if (sub->limitCount || sub->limitOffset)
	{
		/* rows offset+1 .. offset+limit of each value's, numbered */
		AttrNumber	rn = number_rows_by(sub, rte, keys);
		Var		   *rn_var = makeVar(rt, rn, INT8OID, -1, InvalidOid, 0);

		if (limit >= 0)
			conds = lappend(conds, compare_int8(rn_var, BTLessEqualStrategyNumber,
												limit > PG_INT64_MAX - offset ?
												PG_INT64_MAX : limit + offset));
		if (offset > 0)
			conds = lappend(conds, compare_int8(rn_var, BTGreaterStrategyNumber, offset));
	}
	else if (!sub->hasDistinctOn)
		sub->sortClause = NIL;	/* (DISTINCT ON's picks the first row of each) */

	/* the equalities, over the new columns */
	i = 0;
	foreach(lc, on)
	{
		Node	   *k = (Node *) sub_var(sub, rt, ((TargetEntry *) list_nth(keys, i))->resno);

		conds = lappend(conds, list_nth_int(outer_first, i) ?
						equality_over(lfirst(lc), list_nth(outer, i), k) :
						equality_over(lfirst(lc), k, list_nth(outer, i)));
		i++;
	}
	rte->subquery = sub;
	rte->lateral = false;

	if (!one_row)
	{
		/* joined like any item, on the equalities (and the row numbers) */
		Node	  **quals = list ? &list->quals : &join->quals;

		*quals = (Node *) make_ands_explicit(list_concat(make_ands_implicit((Expr *) *quals),
														 conds));
		return;
	}

	/* one row per outer row: LEFT JOINed to what holds the outer side */
	if (list)
	{
		int			item = -1;
		JoinExpr   *j = makeNode(JoinExpr);

		foreach(lc, list->fromlist)
		{
			Node	   *n = lfirst(lc);

			if (!(IsA(n, RangeTblRef) && ((RangeTblRef *) n)->rtindex == rt) &&
				bms_is_subset(outer_rels, get_relids_in_jointree(n, false)))
				item = foreach_current_index(lc);
		}
		if (item < 0)
			refuse_lateral("An aggregating LATERAL subquery must relate to one item before it.");
		j->jointype = JOIN_LEFT;
		j->larg = list_nth(list->fromlist, item);
		j->rarg = (Node *) make_ref(rt);
		j->quals = (Node *) make_ands_explicit(conds);
		list_nth_cell(list->fromlist, item)->ptr_value = j;
		foreach(lc, list->fromlist)
		{
			Node	   *n = lfirst(lc);

			if (IsA(n, RangeTblRef) && ((RangeTblRef *) n)->rtindex == rt)
			{
				list->fromlist = foreach_delete_current(list->fromlist, lc);
				break;
			}
		}
	}
	else
	{
		/*
		 * Joined ON a condition: every outer row has exactly one row of
		 * the subquery, so an inner join keeps the outer rows where the
		 * condition holds (a filter above the join: no outer join may
		 * null it), and a LEFT JOIN gives NULLs where it does not.
		 */
		if (join->quals && !(IsA(join->quals, Const) &&
							 DatumGetBool(((Const *) join->quals)->constvalue) &&
							 !((Const *) join->quals)->constisnull))
		{
			on_cond = join->quals;
			on_left = join->jointype == JOIN_LEFT;
			if (!on_left && (contain_subplans(on_cond) ||
							 on_nullable_side((Node *) q->jointree, (Node *) join, 0, false)))
				refuse_lateral("An aggregating LATERAL subquery inner-joined ON a condition must not be on the nullable side of an outer join, nor its condition hold a subquery.");
		}
		join->jointype = JOIN_LEFT;
		join->quals = (Node *) make_ands_explicit(conds);
	}

	/* its columns: the group's values, or the aggregation's over no rows */
	{
		List	   *tlist = NIL;

		for (AttrNumber a = 1; a <= n_visible; a++)
		{
			/* over no rows: the column as written, the outer row's values in it */
			TargetEntry *tle = list_nth(written->targetList, a - 1);
			Node	   *value = copyObject((Node *) tle->expr);
			Node	   *ce;

			IncrementVarSublevelsUp(value, -1, 1);
			ce = value_or_over_no_rows(sub_var(sub, rt, a), value, sub_var(sub, rt, present));

			tlist = lappend(tlist, makeTargetEntry((Expr *) ce, a, NULL, false));
		}
		if (on_cond)
		{
			/* the condition over the columns' values */
			Node	   *cond = ReplaceVarsFromTargetList(on_cond, rt, 0, rte, tlist,
														 REPLACEVARS_CHANGE_VARNO, rt, NULL);

			if (!on_left)
				q->jointree->quals = (Node *)
					make_ands_explicit(lappend(make_ands_implicit((Expr *) q->jointree->quals),
											   cond));
			else
			{
				/* LEFT JOIN ... ON cond: the values where it holds, else NULL */
				foreach(lc, tlist)
				{
					TargetEntry *tle = lfirst(lc);
					CaseExpr   *ce = makeNode(CaseExpr);
					CaseWhen   *cw = makeNode(CaseWhen);

					cw->expr = (Expr *) copyObject(cond);
					cw->result = tle->expr;
					cw->location = -1;
					ce->casetype = exprType((Node *) tle->expr);
					ce->casecollid = exprCollation((Node *) tle->expr);
					ce->args = list_make1(cw);
					ce->defresult = (Expr *) makeNullConst(ce->casetype,
														   exprTypmod((Node *) tle->expr),
														   ce->casecollid);
					ce->location = -1;
					tle->expr = (Expr *) ce;
				}
			}
		}
		q->targetList = (List *)
			ReplaceVarsFromTargetList((Node *) q->targetList, rt, 0, rte, tlist,
									  REPLACEVARS_CHANGE_VARNO, rt, NULL);
		q->jointree = (FromExpr *)
			ReplaceVarsFromTargetList((Node *) q->jointree, rt, 0, rte, tlist,
									  REPLACEVARS_CHANGE_VARNO, rt, NULL);
		q->havingQual = ReplaceVarsFromTargetList(q->havingQual, rt, 0, rte, tlist,
												  REPLACEVARS_CHANGE_VARNO, rt, NULL);
	}
}

/* Does sub's FROM read a table (in it or in a subquery of it)? */
static bool
from_reads_table(Query *sub)
{
	ListCell   *lc;

	foreach(lc, sub->rtable)
	{
		RangeTblEntry *rte = lfirst(lc);

		if (rte->rtekind == RTE_RELATION ||
			(rte->rtekind == RTE_SUBQUERY && from_reads_table(rte->subquery)))
			return true;
	}
	return false;
}

/*
 * Every LATERAL subquery of q (after its join alias Vars are flattened)
 * decorrelated into a join (decorrelate_lateral), or refused.
 */
void
rewrite_lateral(Query *q)
{
	for (;;)
	{
		FromExpr   *list = NULL;
		JoinExpr   *join = NULL;
		int			rt = find_lateral(q, (Node *) q->jointree, NULL, &list, &join);

		if (rt == 0)
			return;
		decorrelate_lateral(q, rt, list, join);
	}
}

/* ---------------------------------------------------------------------
 * ARRAY(SELECT ...)
 * ---------------------------------------------------------------------
 */

/*
 * SELECT <each column of sub> FROM (sub) AS s ORDER BY <sub's ORDER BY>:
 * sub (a copy, one level deeper now) with its hidden columns shown, so
 * that the query over it can order by them.  sub keeps its ORDER BY where
 * its LIMIT, OFFSET or DISTINCT ON needs it.
 */
static Query *
select_all_of_subquery(Query *sub)
{
	Query	   *w = makeNode(Query);
	RangeTblEntry *rte = makeNode(RangeTblEntry);
	RangeTblRef *rtr = makeNode(RangeTblRef);
	List	   *colnames = NIL;
	ListCell   *lc;

	IncrementVarSublevelsUp((Node *) sub, 1, 1);
	w->commandType = CMD_SELECT;
	w->querySource = QSRC_ORIGINAL;
	w->canSetTag = true;
	foreach(lc, sub->targetList)
	{
		TargetEntry *te = lfirst_node(TargetEntry, lc);
		TargetEntry *outer;

		colnames = lappend(colnames, makeString(psprintf("c%d", te->resno)));
		outer = makeTargetEntry((Expr *) makeVar(1, te->resno, exprType((Node *) te->expr),
												 exprTypmod((Node *) te->expr),
												 exprCollation((Node *) te->expr), 0),
								te->resno, te->resname, te->resjunk);
		outer->ressortgroupref = te->ressortgroupref;
		w->targetList = lappend(w->targetList, outer);
		te->resjunk = false;
	}
	w->sortClause = sub->sortClause;
	if (sub->limitCount == NULL && sub->limitOffset == NULL && !sub->hasDistinctOn)
		sub->sortClause = NIL;
	rte->rtekind = RTE_SUBQUERY;
	rte->subquery = sub;
	rte->eref = makeAlias("s", colnames);
	rte->inFromCl = true;
	w->rtable = list_make1(rte);
	rtr->rtindex = 1;
	w->jointree = makeFromExpr(list_make1(rtr), NULL);
	return w;
}

/*
 * The order Postgres gives the rows of plain subquery sub that has no
 * ORDER BY and reads one function (ARRAY(SELECT x FROM unnest(a) x),
 * ARRAY(SELECT upper(x) FROM unnest(a) x WHERE ...)): the function's,
 * as an expression over sub (its ordinality, added to the function); NULL
 * for another subquery.  ARRAY(SELECT unnest(a)), the function in the
 * select list alone, is first made that shape (in place).
 */
static Expr *
function_order(Query *sub)
{
	RangeTblEntry *rte;
	RangeTblRef *rtr;

	if (sub->sortClause != NIL || sub->cteList != NIL || sub->hasSubLinks)
		return NULL;
	if (sub->rtable == NIL && sub->hasTargetSRFs && sub->jointree->quals == NULL &&
		!sub->hasAggs && !sub->hasWindowFuncs && sub->groupClause == NIL &&
		sub->distinctClause == NIL && sub->limitCount == NULL && sub->limitOffset == NULL &&
		sub->setOperations == NULL && list_length(sub->targetList) == 1)
	{
		/* SELECT f(...) -> SELECT f.f FROM f(...) f */
		TargetEntry *te = linitial_node(TargetEntry, sub->targetList);
		RangeTblFunction *rtf;
		Oid			type;

		if (!IsA(te->expr, FuncExpr) || !((FuncExpr *) te->expr)->funcretset ||
			expression_returns_set((Node *) ((FuncExpr *) te->expr)->args))
			return NULL;
		type = exprType((Node *) te->expr);
		if (type == RECORDOID || type_is_rowtype(type))
			return NULL;
		rtf = makeNode(RangeTblFunction);
		rtf->funcexpr = (Node *) te->expr;
		rtf->funccolcount = 1;
		rte = makeNode(RangeTblEntry);
		rte->rtekind = RTE_FUNCTION;
		rte->functions = list_make1(rtf);
		rte->eref = makeAlias("f", list_make1(makeString("f")));
		rte->inFromCl = true;
		sub->rtable = list_make1(rte);
		rtr = makeNode(RangeTblRef);
		rtr->rtindex = 1;
		sub->jointree->fromlist = list_make1(rtr);
		te->expr = (Expr *) makeVar(1, 1, type, exprTypmod((Node *) rtf->funcexpr),
									exprCollation(rtf->funcexpr), 0);
		sub->hasTargetSRFs = false;
	}
	if (list_length(sub->rtable) != 1 || list_length(sub->jointree->fromlist) != 1 ||
		!IsA(linitial(sub->jointree->fromlist), RangeTblRef))
		return NULL;
	rte = linitial_node(RangeTblEntry, sub->rtable);
	if (rte->rtekind != RTE_FUNCTION)
		return NULL;
	if (!rte->funcordinality)
	{
		rte->funcordinality = true;
		rte->eref->colnames = lappend(rte->eref->colnames, makeString(pstrdup("ordinality")));
	}
	return (Expr *) makeVar(1, list_length(rte->eref->colnames), INT8OID, -1, InvalidOid, 0);
}

/* An ORDER BY key of aggregate a, last: its arguments gain the key. */
static void add_aggregate_order_as(Aggref *a, Expr *key, const SortGroupClause *like,
								   const char *resname);

static void
add_aggregate_order(Aggref *a, Expr *key, const char *resname)
{
	add_aggregate_order_as(a, key, NULL, resname);
}

/* ... as like orders (its operator and NULLs), if not NULL */
static void
add_aggregate_order_as(Aggref *a, Expr *key, const SortGroupClause *like,
					   const char *resname)
{
	SortGroupClause *sort = makeNode(SortGroupClause);
	TargetEntry *arg = makeTargetEntry(key, list_length(a->args) + 1,
									   resname ? pstrdup(resname) : NULL, true);
	Index		ref = 0;
	ListCell   *lc;
	bool		hashable;

	foreach(lc, a->args)
		ref = Max(ref, lfirst_node(TargetEntry, lc)->ressortgroupref);
	get_sort_group_operators(exprType((Node *) key), true, true, false, &sort->sortop,
							 &sort->eqop, NULL, &hashable);
	sort->hashable = hashable;
	sort->nulls_first = false;
	if (like != NULL)
	{
		sort->sortop = like->sortop;
		sort->eqop = like->eqop;
		sort->nulls_first = like->nulls_first;
	}
	arg->ressortgroupref = sort->tleSortGroupRef = ref + 1;
	a->args = lappend(a->args, arg);
	a->aggorder = lappend(a->aggorder, sort);
}

/*
 * ARRAY(SELECT e FROM ... WHERE ... ORDER BY s) is COALESCE((SELECT
 * array_agg(e ORDER BY s) FROM ... WHERE ...), '{}'): the array of the
 * subquery's values in its order, empty without rows, as Postgres builds
 * it; a scalar subquery then, planned as any other.  A subquery that
 * aggregates, groups, has DISTINCT, window or set-returning functions, set
 * operations, LIMIT or OFFSET is aggregated from a level above it:
 * SELECT array_agg(s.e ORDER BY s.s) FROM (<it>) s.
 */
static Node *
array_sublink_as_aggregate(SubLink *sl)
{
	Query	   *sub = castNode(Query, sl->subselect);
	TargetEntry *value = NULL;
	Aggref	   *agg;
	Oid			elem;
	Oid			array_type;
	List	   *args;
	ListCell   *lc;
	CoalesceExpr *result;
	Index		next_ref = 1;
	bool		plain;
	Expr	   *order;

	if (sub->commandType != CMD_SELECT || sub->utilityStmt || sub->rowMarks ||
		sub->hasModifyingCTE)
		return NULL;
	plain = !(sub->hasAggs || sub->hasWindowFuncs || sub->hasTargetSRFs ||
			  sub->groupClause || sub->groupingSets || sub->havingQual ||
			  sub->distinctClause || sub->setOperations || sub->limitCount ||
			  sub->limitOffset);
	foreach(lc, sub->targetList)
	{
		TargetEntry *te = lfirst_node(TargetEntry, lc);

		if (te->resjunk)
			continue;
		if (value != NULL)
			return NULL;		/* (Postgres allows one column) */
		value = te;
	}
	if (value == NULL)
		return NULL;
	elem = exprType((Node *) value->expr);
	array_type = exprType((Node *) sl);
	if (!OidIsValid(array_type))
		return NULL;

	/* array_agg(value ORDER BY the subquery's sort keys) */
	sub = copyObject(sub);
	order = plain || sub->rtable == NIL ? function_order(sub) : NULL;
	if (order != NULL)
		plain = true;			/* (SELECT f(...) is now plain) */
	if (!plain)
		sub = select_all_of_subquery(sub);
	value = NULL;
	foreach(lc, sub->targetList)
		if (!lfirst_node(TargetEntry, lc)->resjunk)
			value = lfirst(lc);
	args = list_make1(makeTargetEntry(copyObject(value->expr), 1, NULL, false));
	agg = makeNode(Aggref);
	foreach(lc, sub->sortClause)
	{
		SortGroupClause *sort = copyObject(lfirst_node(SortGroupClause, lc));
		TargetEntry *key = get_sortgroupclause_tle(sort, sub->targetList);
		TargetEntry *arg = makeTargetEntry(copyObject(key->expr), list_length(args) + 1,
										   NULL, true);

		arg->ressortgroupref = sort->tleSortGroupRef = next_ref++;
		args = lappend(args, arg);
		agg->aggorder = lappend(agg->aggorder, sort);
	}
	agg->aggfnoid = type_is_array(elem) ? F_ARRAY_AGG_ANYARRAY : F_ARRAY_AGG_ANYNONARRAY;
	agg->aggtype = array_type;
	agg->aggcollid = exprCollation((Node *) value->expr);
	agg->inputcollid = exprCollation((Node *) value->expr);
	agg->aggtranstype = InvalidOid; /* (set by Postgres's planner) */
	agg->aggargtypes = list_make1_oid(elem);	/* (the arguments, not the ORDER BY) */
	agg->args = args;
	if (order != NULL)
		add_aggregate_order(agg, order, NULL);	/* (no ORDER BY: the function's) */
	agg->aggstar = false;
	agg->aggvariadic = false;
	agg->aggkind = AGGKIND_NORMAL;
	agg->agglevelsup = 0;
	agg->aggsplit = AGGSPLIT_SIMPLE;
	agg->aggno = agg->aggtransno = -1;
	agg->location = -1;

	sub->targetList = list_make1(makeTargetEntry((Expr *) agg, 1,
												 value->resname ? pstrdup(value->resname) : NULL,
												 false));
	sub->sortClause = NIL;
	sub->hasAggs = true;

	sl = copyObject(sl);
	sl->subLinkType = EXPR_SUBLINK;
	sl->subselect = (Node *) sub;
	result = makeNode(CoalesceExpr);
	result->coalescetype = array_type;
	result->coalescecollid = agg->aggcollid;
	result->args = list_make2(sl,
							  makeConst(array_type, -1, result->coalescecollid, -1,
										PointerGetDatum(construct_empty_array(elem)),
										false, false));
	result->location = -1;
	return (Node *) result;
}

static Node *
array_sublinks_mutator(Node *node, void *context)
{
	if (node == NULL)
		return NULL;
	if (IsA(node, SubLink) && ((SubLink *) node)->subLinkType == ARRAY_SUBLINK)
	{
		Node	   *rewritten = array_sublink_as_aggregate((SubLink *) node);

		if (rewritten)
		{
			/* (the subquery's own ARRAY sublinks too) */
			SubLink    *sl = linitial_node(SubLink, ((CoalesceExpr *) rewritten)->args);

			sl->subselect = (Node *) query_tree_mutator(castNode(Query, sl->subselect),
														array_sublinks_mutator, context, 0);
			return rewritten;
		}
	}
	if (IsA(node, Query))
		return (Node *) query_tree_mutator((Query *) node, array_sublinks_mutator, context, 0);
	return expression_tree_mutator(node, array_sublinks_mutator, context);
}

void
array_sublinks_as_aggregates(Query *q)
{
	Query	   *rewritten = query_tree_mutator(q, array_sublinks_mutator, NULL, 0);

	memcpy(q, rewritten, sizeof(Query));
}

/* ---------------------------------------------------------------------
 * Aggregates over one function, in the function's order
 *
 * (SELECT string_agg(t, '+') FROM unnest(a.tags) t) gives the elements in
 * the array's order in Postgres: the aggregate reads the function's rows
 * as it returns them.  A view recomputes such a call from the group's kept
 * rows, which it reads in the order of their bytes; so an aggregate whose
 * result depends on its rows' order (a RECOMPUTE call: array_agg,
 * string_agg, jsonb_agg, ... and any user-defined one), without ORDER BY
 * or DISTINCT, at a level without GROUP BY that reads one function, is
 * given ORDER BY the function's ordinality (added to the function).  The
 * added key's argument is named FUNCTION_ORDER_ARG, so the state role of
 * its kept rows says so (plan_agg.c): a view planned before keeps its
 * plan (PlanCtx.function_order).  Likewise over one subquery with ORDER
 * BY (its sort keys, SUBQUERY_ORDER_ARG, PlanCtx.subquery_order).
 * ---------------------------------------------------------------------
 */

typedef struct UnorderedCalls
{
	List	   *calls;			/* Aggref of the level, to order */
	bool		whole_row;		/* the level reads its FROM item's row */
} UnorderedCalls;

static bool
unordered_calls_walker(Node *node, UnorderedCalls *u)
{
	if (node == NULL)
		return false;
	if (IsA(node, Query))
		return false;			/* (another level) */
	if (IsA(node, Var) && ((Var *) node)->varlevelsup == 0 &&
		((Var *) node)->varattno == InvalidAttrNumber)
		u->whole_row = true;
	if (IsA(node, Aggref))
	{
		Aggref	   *a = (Aggref *) node;

		if (a->agglevelsup == 0 && a->aggorder == NIL && a->aggdistinct == NIL &&
			a->aggkind == AGGKIND_NORMAL && agg_is_recomputed(a))
			u->calls = lappend(u->calls, a);
		return false;
	}
	return expression_tree_walker(node, unordered_calls_walker, u);
}

/* Level q's order-dependent aggregates over one function, ordered (in place). */
static void
order_calls_by_function(Query *q)
{
	UnorderedCalls u = {NIL, false};
	Expr	   *order;
	ListCell   *lc;

	if (!q->hasAggs || q->groupClause != NIL || q->groupingSets != NIL ||
		q->hasWindowFuncs || q->hasTargetSRFs || q->setOperations != NULL ||
		list_length(q->rtable) != 1 ||
		linitial_node(RangeTblEntry, q->rtable)->rtekind != RTE_FUNCTION)
		return;
	(void) unordered_calls_walker((Node *) q->targetList, &u);
	(void) unordered_calls_walker(q->havingQual, &u);
	(void) unordered_calls_walker(q->jointree->quals, &u);
	if (u.calls == NIL || u.whole_row || (order = function_order(q)) == NULL)
		return;
	/* (equal calls of the target list and HAVING stay equal) */
	foreach(lc, u.calls)
		add_aggregate_order(lfirst(lc), copyObject(order), FUNCTION_ORDER_ARG);
}

/*
 * Level q's order-dependent aggregates over one subquery with ORDER BY, in
 * its order (in place): Postgres's aggregate reads the subquery's rows as
 * its sort returns them (hashed or in one group; as good as defined, and
 * relied on).  Each sort key must be a column the subquery shows.
 */
static void
order_calls_by_subquery(Query *q)
{
	UnorderedCalls u = {NIL, false};
	RangeTblEntry *rte;
	Query	   *sub;
	ListCell   *lc;

	if (!q->hasAggs || q->groupingSets != NIL || q->hasWindowFuncs || q->hasTargetSRFs ||
		q->setOperations != NULL || list_length(q->rtable) != 1 ||
		list_length(q->jointree->fromlist) != 1 ||
		!IsA(linitial(q->jointree->fromlist), RangeTblRef))
		return;
	rte = linitial_node(RangeTblEntry, q->rtable);
	if (rte->rtekind != RTE_SUBQUERY || rte->lateral)
		return;
	sub = rte->subquery;
	if (sub->sortClause == NIL || sub->setOperations != NULL)
		return;
	foreach(lc, sub->sortClause)
	{
		TargetEntry *tle = get_sortgroupclause_tle(lfirst(lc), sub->targetList);

		if (tle->resjunk)
			return;
	}
	(void) unordered_calls_walker((Node *) q->targetList, &u);
	(void) unordered_calls_walker(q->havingQual, &u);
	(void) unordered_calls_walker(q->jointree->quals, &u);
	if (u.calls == NIL || u.whole_row)
		return;
	foreach(lc, u.calls)
	{
		ListCell   *ls;

		foreach(ls, sub->sortClause)
		{
			SortGroupClause *sgc = lfirst(ls);
			TargetEntry *tle = get_sortgroupclause_tle(sgc, sub->targetList);
			Node	   *e = (Node *) tle->expr;

			add_aggregate_order_as(lfirst(lc),
								   (Expr *) makeVar(1, tle->resno, exprType(e), exprTypmod(e),
													exprCollation(e), 0),
								   sgc, SUBQUERY_ORDER_ARG);
		}
	}
}

typedef struct CallOrders
{
	bool		functions;
	bool		subqueries;
} CallOrders;

static Node *
function_order_mutator(Node *node, void *context)
{
	CallOrders *co = context;

	if (node == NULL)
		return NULL;
	if (IsA(node, Query))
	{
		Query	   *q = query_tree_mutator((Query *) node, function_order_mutator, context, 0);

		if (co->functions)
			order_calls_by_function(q);
		if (co->subqueries)
			order_calls_by_subquery(q);
		return (Node *) q;
	}
	return expression_tree_mutator(node, function_order_mutator, context);
}

void
aggregates_in_function_order(Query *q, bool functions, bool subqueries)
{
	CallOrders	co = {functions, subqueries};
	Query	   *rewritten = (Query *) function_order_mutator((Node *) q, &co);

	memcpy(q, rewritten, sizeof(Query));
}
