/*-------------------------------------------------------------------------
 *
 * plan_top_n.c
 *	  Planning Top-N in a streaming view: ORDER BY ... LIMIT n [OFFSET m]
 *	  [WITH TIES], and row_number() <= n per group.
 *
 *	DISTINCT ON (d)		a query level with DISTINCT ON: the first row of each
 *						group of equal d in the ORDER BY order (which begins
 *						with d; its other keys order within the group), that
 *						is TopN(group d; the other ORDER BY keys; limit 1).
 *						Without more ORDER BY keys the row is any of the
 *						group's (the one with the least unique key), as in
 *						Postgres, where it is unpredictable.
 *	ORDER BY ... LIMIT	a query level with ORDER BY and LIMIT or OFFSET
 *						ends in TopN(no group; its sort keys) over the
 *						level's rows; ORDER BY expressions that are not
 *						output columns travel as hidden columns
 *						(top_n_extra).  LIMIT and OFFSET are constants
 *						(LIMIT NULL: no limit).
 *	row_number() <= n	a subquery in FROM computing row_number() OVER
 *						(PARTITION BY p ORDER BY o) AS rn, whose outer
 *						WHERE bounds rn (rn <= n, rn < n, rn = 1, mirrored
 *						too): the subquery without the window, then
 *						TopN(group p, order o, limit n) numbering the rows,
 *						then the subquery's columns with rn as the number.
 *						The bound conjuncts are taken out of the outer
 *						WHERE.  Any other use of window functions is
 *						refused (check_query_level's error).
 *
 * Sort keys are ordered by the bytes of their memcmp encodings (inverted
 * for DESC, with the NULL marker moved for NULLS FIRST ascending and
 * NULLS LAST descending), so a sort key must use its type's default btree
 * ordering, of a type whose encoding is ordered, and text in a collation
 * that orders by bytes.  Partition keys need an encoding and
 * deterministic collations.
 *
 * src/stream/plan/plan_top_n.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/stratnum.h"
#include "catalog/pg_type.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/clauses.h"
#include "optimizer/optimizer.h"
#include "parser/parsetree.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/typcache.h"

#include "hummock_stream/row/memcmp_key.h"

#include "plan_internal.h"

/* ---------------------------------------------------------------------
 * ORDER BY ... LIMIT
 * ---------------------------------------------------------------------
 */

/* Is this a Top-N level (ORDER BY with LIMIT or OFFSET)? */
static bool
is_top_n(Query *q)
{
	return q->sortClause != NIL && (q->limitCount != NULL || q->limitOffset != NULL);
}

List *
top_n_extra(Query *q)
{
	List	   *extra = NIL;
	ListCell   *lc;

	if (!is_top_n(q) && !q->hasDistinctOn)
		return NIL;
	foreach(lc, q->sortClause)
	{
		TargetEntry *tle = get_sortgroupclause_tle(lfirst(lc), q->targetList);

		if (tle->resjunk)
			extra = list_append_unique_ptr(extra, tle);
	}
	return extra;
}

/* The value of a LIMIT or OFFSET clause; -1 for NULL (no limit). */
static int64
const_count(Node *n, const char *what)
{
	Const	   *c;
	int64		v;

	n = eval_const_expressions(NULL, copyObject(n));
	if (!IsA(n, Const))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("%s must be a constant in a streaming materialized view", what)));
	c = (Const *) n;
	if (c->constisnull)
		return -1;
	v = DatumGetInt64(c->constvalue);
	if (v < 0)
		ereport(ERROR,
				(errcode(strcmp(what, "LIMIT") == 0 ? ERRCODE_INVALID_ROW_COUNT_IN_LIMIT_CLAUSE :
						 ERRCODE_INVALID_ROW_COUNT_IN_RESULT_OFFSET_CLAUSE),
				 errmsg("%s must not be negative", what)));
	return v;
}

/*
 * Check that rows can be ordered by expression e as sgc says, in the byte
 * order of its memcmp encoding (text under a collation whose order is not
 * the byte order: of its collated sort key, *coll); returns whether it is
 * descending, and in *nulls_first whether NULLs come first.
 */
static bool
sort_key_desc(Expr *e, SortGroupClause *sgc, bool *nulls_first, Oid *coll_out)
{
	Oid			type = exprType((Node *) e);
	Oid			coll = exprCollation((Node *) e);
	Oid			opfamily;
	Oid			opcintype;
	int16		strategy;
	TypeCacheEntry *tc = lookup_type_cache(getBaseType(type), TYPECACHE_BTREE_OPFAMILY);
	bool		desc;

	if (!get_ordering_op_properties(sgc->sortop, &opfamily, &opcintype, &strategy) ||
		opfamily != tc->btree_opf || (HsMemcmpTypeSupport(type) != HS_MEMCMP_ORDERED && !HsTypeHasOwnSortKey(type)))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("ordering by type %s with operator %s is not supported in a streaming materialized view",
						format_type_be(type), get_opname(sgc->sortop)),
				 errdetail("Top-N, DISTINCT ON and row_number() bounds keep rows ordered by a byte encoding of the sort key, which exists for numbers, text, dates and times, uuid, bool, bytea, enums, inet and cidr, and arrays and rows of them (not of enums, inet or cidr), in their default order; not for ranges, jsonb or other types."),
				 errhint("Order by an expression of such a type.")));
	*coll_out = InvalidOid;
	if (OidIsValid(coll) && !HsCollationIsBytewise(coll))
	{
		if (!HsCollationNeedsSortKey(type, coll))
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("ORDER BY type %s with collation \"%s\" is not supported in a streaming materialized view",
							format_type_be(type), get_collation_name(coll)),
					 errdetail("Streaming Top-N orders values of this type by their bytes."),
					 errhint("Write ORDER BY x COLLATE \"C\".")));
		*coll_out = coll;
	}
	desc = strategy == BTGreaterStrategyNumber;
	*nulls_first = sgc->nulls_first;
	return desc;
}

/* Position of tle among the output columns of q, then extra; -1 if none. */
static int
level_column(Query *q, List *extra, TargetEntry *tle)
{
	int			i = 0;
	ListCell   *lc;

	foreach(lc, visible_tlist(q))
	{
		if (lfirst(lc) == tle)
			return i;
		i++;
	}
	foreach(lc, extra)
	{
		if (lfirst(lc) == tle)
			return i;
		i++;
	}
	return -1;
}

/* ORDER BY ... LIMIT n [OFFSET m] over in (q's level output). */
RelOut *
top_n_level(PlanCtx *ctx, Query *q, RelOut *in, List *extra)
{
	int			n = list_length(q->sortClause);
	int		   *cols = palloc(sizeof(int) * Max(n, 1));
	bool	   *desc = palloc(sizeof(bool) * Max(n, 1));
	bool	   *nulls_first = palloc(sizeof(bool) * Max(n, 1));
	Oid		   *colls = palloc(sizeof(Oid) * Max(n, 1));
	int64		limit = -1;
	int64		offset = 0;
	int			i = 0;
	ListCell   *lc;
	HsExec	   *e;
	HsStateTable *rows;
	HsStateTable *shown;
	RelOut	   *out;

	if (!is_top_n(q))
		return in;
	foreach(lc, q->sortClause)
	{
		SortGroupClause *sgc = lfirst(lc);
		TargetEntry *tle = get_sortgroupclause_tle(sgc, q->targetList);

		cols[i] = level_column(q, extra, tle);
		if (cols[i] < 0)
			elog(ERROR, "ORDER BY column not found while planning a streaming view");
		desc[i] = sort_key_desc(tle->expr, sgc, &nulls_first[i], &colls[i]);
		i++;
	}
	if (q->limitCount)
		limit = const_count(q->limitCount, "LIMIT");
	if (q->limitOffset)
		offset = Max(const_count(q->limitOffset, "OFFSET"), 0);
	if (limit < 0)
		limit = PG_INT64_MAX / 2;
	check_kept_rows(in->desc, "TopN");
	rows = next_state(ctx, "TopN rows");
	shown = next_state(ctx, "TopN shown rows");
	note_operator(ctx, "TopN (limit %lld%s%s)", (long long) Min(limit, PG_INT64_MAX / 2),
				  offset > 0 ? ", offset" : "",
				  q->limitOption == LIMIT_OPTION_WITH_TIES ? ", with ties" : "");
	e = HsExecTopNCreate(in->desc, NULL, 0, cols, desc, nulls_first, colls, n,
						 in->has_ukey ? int_array(in->ukey) : NULL, list_length(in->ukey),
						 limit, Min(offset, PG_INT64_MAX / 2),
						 q->limitOption == LIMIT_OPTION_WITH_TIES, false, rows, shown);
	attach(in, e);
	out = relout_of(e, NIL);
	out->nvisible = in->nvisible;
	out->has_ukey = in->has_ukey;
	out->ukey = in->ukey;
	return out;
}

/*
 * Check that rows can be grouped by e (a partition or DISTINCT ON key):
 * by its key encoding, or by its hash (plan_hashed_keys.c).
 */
static void
check_group_key(Expr *e, const char *what)
{
	(void) key_needs_hash(exprType((Node *) e), exprCollation((Node *) e),
						  psprintf("%s type", what), NULL);
}

/*
 * in with a hidden column of the hash of each group column gcols[i] that
 * must be grouped by its hash (plan_hashed_keys.c), which gcols[i] then
 * names; the rows keep their columns and key.
 */
static RelOut *
with_hashed_group_columns(RelOut *in, int *gcols, int ng, const char **mark)
{
	List	   *exprs = NIL;
	bool		any = false;
	RelOut	   *out;

	for (int c = 0; c < in->desc->natts; c++)
		exprs = lappend(exprs, var_tle(in->desc, c, c + 1)->expr);
	for (int i = 0; i < ng; i++)
	{
		Form_pg_attribute att = TupleDescAttr(in->desc, gcols[i]);

		if (!group_key_needs_hash(att->atttypid, att->attcollation))
			continue;
		exprs = lappend(exprs, hashed_group_key(var_tle(in->desc, gcols[i], 1)->expr));
		gcols[i] = list_length(exprs) - 1;
		any = true;
	}
	*mark = any ? HASHED_KEYS_ROLE_MARK : "";
	if (!any)
		return in;
	out = project_cols(in, exprs, in->nvisible, NIL, true);
	out->churns = in->churns;
	return out;
}

RelOut *
distinct_on_level(PlanCtx *ctx, Query *q, RelOut *in, List *extra)
{
	const char *mark;
	int			ng = list_length(q->distinctClause);
	int			nsort = list_length(q->sortClause);
	int		   *gcols = palloc(sizeof(int) * Max(ng, 1));
	int		   *scols = palloc(sizeof(int) * Max(nsort, 1));
	bool	   *sdesc = palloc(sizeof(bool) * Max(nsort, 1));
	bool	   *snulls = palloc(sizeof(bool) * Max(nsort, 1));
	Oid		   *scolls = palloc(sizeof(Oid) * Max(nsort, 1));
	int			ns = 0;
	int			i = 0;
	ListCell   *lc;
	HsExec	   *e;
	HsStateTable *rows;
	HsStateTable *shown;
	RelOut	   *out;

	if (!q->hasDistinctOn)
		return in;
	foreach(lc, q->distinctClause)
	{
		TargetEntry *tle = get_sortgroupclause_tle(lfirst(lc), q->targetList);

		check_group_key(tle->expr, "DISTINCT ON");
		gcols[i] = level_column(q, extra, tle);
		if (gcols[i] < 0)
			elog(ERROR, "DISTINCT ON column not found while planning a streaming view");
		i++;
	}
	/* ORDER BY begins with the DISTINCT ON keys; the rest orders a group */
	foreach(lc, q->sortClause)
	{
		SortGroupClause *sgc = lfirst(lc);
		TargetEntry *tle = get_sortgroupclause_tle(sgc, q->targetList);

		if (get_sortgroupref_clause_noerr(sgc->tleSortGroupRef, q->distinctClause))
			continue;
		scols[ns] = level_column(q, extra, tle);
		if (scols[ns] < 0)
			elog(ERROR, "ORDER BY column not found while planning a streaming view");
		sdesc[ns] = sort_key_desc(tle->expr, sgc, &snulls[ns], &scolls[ns]);
		ns++;
	}
	in = with_hashed_group_columns(in, gcols, ng, &mark);
	check_kept_rows(in->desc, "TopN");
	rows = next_state(ctx, psprintf("TopN rows%s", mark));
	shown = next_state(ctx, "TopN shown rows");
	note_operator(ctx, "TopN per group (DISTINCT ON %d column%s)", ng, ng == 1 ? "" : "s");
	e = HsExecTopNCreate(in->desc, gcols, ng, scols, sdesc, snulls, scolls, ns,
						 in->has_ukey ? int_array(in->ukey) : NULL, list_length(in->ukey),
						 1, 0, false, false, rows, shown);
	attach(in, e);
	out = relout_of(e, NIL);
	out->nvisible = in->nvisible;
	/* one row per DISTINCT ON group */
	out->has_ukey = true;
	for (i = 0; i < ng; i++)
		out->ukey = lappend_int(out->ukey, gcols[i]);
	return out;
}

/* ---------------------------------------------------------------------
 * row_number() <= n per group
 * ---------------------------------------------------------------------
 */

/*
 * The bound n of a WHERE conjunct "rn <= n" (also rn < n, rn = 1 and the
 * mirrored forms) on column resno of the subquery at rtindex; -1 if c is
 * not one.
 */
static int64
row_number_bound(Node *c, int rtindex, AttrNumber resno)
{
	OpExpr	   *op;
	Node	   *l;
	Node	   *r;
	char	   *name;
	bool		var_left;
	Const	   *k;
	int64		v;

	if (!IsA(c, OpExpr) || list_length(((OpExpr *) c)->args) != 2)
		return -1;
	op = (OpExpr *) c;
	l = linitial(op->args);
	r = lsecond(op->args);
	if (IsA(l, Var) && ((Var *) l)->varno == rtindex && ((Var *) l)->varattno == resno &&
		((Var *) l)->varlevelsup == 0)
		var_left = true;
	else if (IsA(r, Var) && ((Var *) r)->varno == rtindex && ((Var *) r)->varattno == resno &&
			 ((Var *) r)->varlevelsup == 0)
		var_left = false;
	else
		return -1;
	k = (Const *) eval_const_expressions(NULL, copyObject(var_left ? r : l));
	if (!IsA(k, Const) || k->constisnull)
		return -1;
	switch (k->consttype)
	{
		case INT2OID:
			v = DatumGetInt16(k->constvalue);
			break;
		case INT4OID:
			v = DatumGetInt32(k->constvalue);
			break;
		case INT8OID:
			v = DatumGetInt64(k->constvalue);
			break;
		default:
			return -1;
	}
	name = get_opname(op->opno);
	if (strcmp(name, "=") == 0)
		return v == 1 ? 1 : -1;
	if (strcmp(name, var_left ? "<=" : ">=") == 0)
		return Max(v, 0);
	if (strcmp(name, var_left ? "<" : ">") == 0)
		return Max(v - 1, 0);
	return -1;
}

/*
 * A per-group Top-N: sub computes row_number() OVER (PARTITION BY p ORDER
 * BY o) AS rn, and the outer query's WHERE bounds rn (its conjuncts over
 * the subquery are *quals; the bound is taken out of them).  Planned as
 * sub without the window function, then TopN(group p, order o, limit n)
 * numbering the rows, then sub's columns with rn as the number.
 */
RelOut *
plan_group_top_n(PlanCtx *ctx, Query *sub, int rtindex, List *outer, List **quals)
{
	const char *mark;
	WindowClause *wc;
	TargetEntry *rn = NULL;
	Query	   *sub2;
	List	   *kept = NIL;
	int64		limit = -1;
	ListCell   *lc;
	RelOut	   *in;
	RelOut	   *out;
	List	   *exprs = NIL;
	int		   *gcols;
	int		   *scols;
	bool	   *sdesc;
	bool	   *snulls;
	Oid		   *scolls;
	int			ng;
	int			ns;
	int			i;
	HsExec	   *e;
	HsStateTable *rows;
	HsStateTable *shown;

	/* not the form: a level with window functions (plan_window.c) */
	if (list_length(sub->windowClause) != 1)
		return NULL;
	wc = linitial_node(WindowClause, sub->windowClause);
	foreach(lc, sub->targetList)
	{
		TargetEntry *tle = lfirst(lc);

		if (IsA(tle->expr, WindowFunc) &&
			((WindowFunc *) tle->expr)->winfnoid == F_ROW_NUMBER &&
			((WindowFunc *) tle->expr)->winref == wc->winref && rn == NULL && !tle->resjunk)
			rn = tle;
		else if (contain_window_function((Node *) tle->expr))
			rn = NULL, wc = NULL;
		if (wc == NULL)
			break;
	}
	if (wc == NULL || rn == NULL || wc->orderClause == NIL)
		return NULL;
	foreach(lc, *quals)
	{
		int64		b = row_number_bound(lfirst(lc), rtindex, rn->resno);

		if (b >= 0)
			limit = limit < 0 ? b : Min(limit, b);
		else
			kept = lappend(kept, lfirst(lc));
	}
	if (limit < 0)
		return NULL;
	*quals = kept;

	/* sub without the window: partition and order columns become outputs */
	sub2 = copyObject(sub);
	sub2->windowClause = NIL;
	sub2->hasWindowFuncs = false;
	sub2->targetList = NIL;
	foreach(lc, sub->targetList)
	{
		TargetEntry *tle = lfirst(lc);

		if (tle == rn)
			continue;
		tle = flatCopyTargetEntry(tle);
		if (tle->resjunk && tle->ressortgroupref &&
			(get_sortgroupref_clause_noerr(tle->ressortgroupref, wc->partitionClause) ||
			 get_sortgroupref_clause_noerr(tle->ressortgroupref, wc->orderClause)))
			tle->resjunk = false;
		sub2->targetList = lappend(sub2->targetList, tle);
	}
	in = plan_query(ctx, sub2, outer);

	ng = list_length(wc->partitionClause);
	ns = list_length(wc->orderClause);
	gcols = palloc(sizeof(int) * Max(ng, 1));
	scols = palloc(sizeof(int) * Max(ns, 1));
	sdesc = palloc(sizeof(bool) * Max(ns, 1));
	snulls = palloc(sizeof(bool) * Max(ns, 1));
	scolls = palloc(sizeof(Oid) * Max(ns, 1));
	i = 0;
	foreach(lc, wc->partitionClause)
	{
		SortGroupClause *sgc = lfirst(lc);
		TargetEntry *tle = get_sortgroupclause_tle(sgc, sub2->targetList);

		check_group_key(tle->expr, "PARTITION BY");
		gcols[i++] = level_column(sub2, NIL, tle);
	}
	i = 0;
	foreach(lc, wc->orderClause)
	{
		SortGroupClause *sgc = lfirst(lc);
		TargetEntry *tle = get_sortgroupclause_tle(sgc, sub2->targetList);

		scols[i] = level_column(sub2, NIL, tle);
		sdesc[i] = sort_key_desc(tle->expr, sgc, &snulls[i], &scolls[i]);
		i++;
	}
	in = with_hashed_group_columns(in, gcols, ng, &mark);
	check_kept_rows(in->desc, "TopN");
	rows = next_state(ctx, psprintf("TopN rows%s", mark));
	shown = next_state(ctx, "TopN shown rows");
	note_operator(ctx, "TopN per group (%d partition column%s, limit %lld, row_number)",
				  ng, ng == 1 ? "" : "s", (long long) limit);
	e = HsExecTopNCreate(in->desc, gcols, ng, scols, sdesc, snulls, scolls, ns,
						 in->has_ukey ? int_array(in->ukey) : NULL, list_length(in->ukey),
						 limit, 0, false, true, rows, shown);
	attach(in, e);
	out = relout_of(e, NIL);
	out->has_ukey = in->has_ukey;
	out->ukey = in->ukey;

	/* sub's output columns: rn is the row number, the rest sub2's columns */
	foreach(lc, sub->targetList)
	{
		TargetEntry *tle = lfirst(lc);
		int			col = -1;
		ListCell   *lc2;

		if (tle->resjunk)
			continue;
		if (tle == rn)
			col = e->out_desc->natts - 1;
		else
			foreach(lc2, sub2->targetList)
				if (((TargetEntry *) lfirst(lc2))->resno == tle->resno)
					col = level_column(sub2, NIL, lfirst(lc2));
		exprs = lappend(exprs, var_tle(e->out_desc, col, 1)->expr);
	}
	return project_level(out, exprs, NIL, true);
}
