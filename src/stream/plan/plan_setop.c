/*-------------------------------------------------------------------------
 *
 * plan_setop.c
 *	  Planning set operations in a streaming view: UNION, INTERSECT and
 *	  EXCEPT, with or without ALL.
 *
 * The set-operation tree of a query level becomes a tree of Union
 * executors (two ports each) over its inputs, each input a query level of
 * its own (a subquery range table entry) projected onto the set
 * operation's column types and typmods (coerce_to_target_type, as the
 * analyzer resolved them); an input that reads no table (SELECT 0, a
 * VALUES list) is a constant leaf, its rows computed when the view is
 * planned (plan_constant_with.c).  UNION without ALL is then a DISTINCT over all
 * columns (plan_agg.c), at every node that has it, so its rows are unique;
 * UNION ALL rows have no unique key.
 *
 * INTERSECT and EXCEPT count the copies of each distinct row on each side:
 * the two inputs, each with a pair of flags (left, right), go through a
 * Union into a HashAgg grouped by every column, with count(left) FILTER
 * (WHERE left) as l and the same for the right as r; then
 *
 *		INTERSECT		rows with 0 < l and 0 < r, once each
 *		EXCEPT			rows with 0 < l and not 0 < r, once each
 *		INTERSECT ALL	least(l, r) copies
 *		EXCEPT ALL		l - r copies where r < l
 *
 * (SQL's rules, with NULLs equal, as the memcmp encoding of the group key
 * makes them).  The ALL forms end in a Replicate that turns the counted
 * rows into copies (no unique key); the others are unique rows.
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

#include "catalog/pg_operator.h"
#include "catalog/pg_type.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "parser/parse_coerce.h"
#include "parser/parsetree.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

#include "hummock_stream/row/memcmp_key.h"

#include "plan_internal.h"

/* "-"(int8, int8) in pg_operator (pg_operator_d.h names no constant) */
#define INT8_MINUS_OPERATOR 685

static RelOut *plan_setop_node(PlanCtx *ctx, Query *q, List *outer, Node *node,
								 List *types, List *typmods, List *colls);

/* in's columns, then the constant flags left and right (bool). */
static RelOut *
with_side_flags(RelOut *in, bool left)
{
	List	   *exprs = NIL;

	for (int i = 0; i < in->desc->natts; i++)
		exprs = lappend(exprs, var_tle(in->desc, i, i + 1)->expr);
	exprs = lappend(exprs, makeBoolConst(left, false));
	exprs = lappend(exprs, makeBoolConst(!left, false));
	return project_level(in, exprs, NIL, false);
}

/* 0 < x, over int8 x */
static Expr *
positive(Expr *x)
{
	return make_opclause(Int8LessOperator, BOOLOID, false,
						 (Expr *) makeConst(INT8OID, -1, InvalidOid, 8, Int64GetDatum(0), false,
											FLOAT8PASSBYVAL),
						 x, InvalidOid, InvalidOid);
}

/* INTERSECT [ALL] or EXCEPT [ALL] of op's two sides (see the top). */
static RelOut *
plan_intersect_except(PlanCtx *ctx, Query *q, List *outer, SetOperationStmt *op,
					  List *types, List *typmods)
{
	RelOut	   *l = plan_setop_node(ctx, q, outer, op->larg, types, typmods, op->colCollations);
	RelOut	   *r = plan_setop_node(ctx, q, outer, op->rarg, types, typmods, op->colCollations);
	int			n = l->desc->natts;
	HsExec	   *ports[2];
	HsExec	   *u;
	HsExec	   *agg;
	HsAggCall  *calls = palloc0(sizeof(HsAggCall) * (n + 2));
	int			ncalls = 2;
	int		   *shown = palloc(sizeof(int) * (n + 1));
	List	   *in_exprs = NIL;
	List	   *raw = NIL;
	HsStateTable *counts;
	HsStateTable *values = NULL;
	RelOut	   *in;
	RelOut	   *out;
	Var		   *nl;
	Var		   *nr;
	List	   *qual = NIL;
	List	   *tl = NIL;
	HsExec	   *p;
	ListCell   *lc;
	bool		intersect = op->op == SETOP_INTERSECT;

	for (int i = 0; i < n; i++)
	{
		Form_pg_attribute att = TupleDescAttr(l->desc, i);
		Expr	   *v = var_tle(l->desc, i, i + 1)->expr;

		shown[i] = i + 1;
		if (key_needs_hash(att->atttypid, att->attcollation,
						   intersect ? "INTERSECT over a column of type" :
						   "EXCEPT over a column of type",
						   intersect ? "INTERSECT" : "EXCEPT"))
		{
			/* grouped by its hash, shown by a min of its left rows' values */
			raw = lappend(raw, v);
			shown[i] = n + 2 + list_length(raw);
			v = hashed_group_key(v);
		}
		in_exprs = lappend(in_exprs, v);
	}
	if (list_length(raw) + 2 > HS_AGG_MAX_CALLS)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s over more than %d columns grouped by their hash is not supported in a streaming materialized view",
						intersect ? "INTERSECT" : "EXCEPT", HS_AGG_MAX_CALLS - 2)));
	l = with_side_flags(l, true);
	r = with_side_flags(r, false);
	note_operator(ctx, "Union");
	u = HsExecUnionCreate(l->desc, 2, ports);
	attach(l, ports[0]);
	attach(r, ports[1]);
	in = relout_of(u, NIL);
	if (raw != NIL)
	{
		in_exprs = lappend(in_exprs, var_tle(u->out_desc, n, n + 1)->expr);
		in_exprs = lappend(in_exprs, var_tle(u->out_desc, n + 1, n + 2)->expr);
		foreach(lc, raw)
		{
			HsAggCall  *c = &calls[ncalls++];

			in_exprs = lappend(in_exprs, lfirst(lc));
			c->kind = HS_AGG_MIN;
			c->arg = list_length(in_exprs) - 1;
			c->filter = n;
			c->argtype = exprType(lfirst(lc));
			c->restype = c->argtype;
		}
		in = project_level(in, in_exprs, NIL, false);
		for (int i = 2; i < ncalls; i++)
			check_kept_column(in->desc, calls[i].arg, intersect ? "INTERSECT" : "EXCEPT");
	}

	/* per distinct row: l = its copies on the left, r on the right */
	for (int k = 0; k < 2; k++)
	{
		calls[k].kind = HS_AGG_COUNT;
		calls[k].arg = n + k;
		calls[k].filter = n + k;
		calls[k].argtype = BOOLOID;
		calls[k].restype = INT8OID;
	}
	note_operator(ctx, "HashAgg (%s: copies of each row on each side%s)",
				  intersect ? "INTERSECT" : "EXCEPT", raw != NIL ? ", by hash" : "");
	check_kept_rows(in->desc, intersect ? "INTERSECT" : "EXCEPT");
	counts = next_state(ctx, raw == NIL ?
						(intersect ? "INTERSECT row counts" : "EXCEPT row counts") :
						(intersect ? "INTERSECT row counts" HASHED_KEYS_ROLE_MARK :
						 "EXCEPT row counts" HASHED_KEYS_ROLE_MARK));
	if (raw != NIL)
		values = next_state(ctx, intersect ? "INTERSECT values of hashed columns" :
							"EXCEPT values of hashed columns");
	agg = HsExecHashAggCreate(in->desc, n, calls, ncalls, NULL, counts, values, false);
	attach(in, agg);

	nl = makeVar(1, n + 1, INT8OID, -1, InvalidOid, 0);
	nr = makeVar(1, n + 2, INT8OID, -1, InvalidOid, 0);
	for (int i = 0; i < n; i++)
		tl = lappend(tl, var_tle(agg->out_desc, shown[i] - 1, i + 1));
	if (intersect)
	{
		qual = list_make2(positive((Expr *) nl), positive((Expr *) nr));
		if (op->all)
		{
			MinMaxExpr *least = makeNode(MinMaxExpr);

			least->minmaxtype = INT8OID;
			least->op = IS_LEAST;
			least->args = list_make2(copyObject(nl), copyObject(nr));
			least->location = -1;
			tl = lappend(tl, makeTargetEntry((Expr *) least, n + 1, NULL, false));
		}
	}
	else if (op->all)
	{
		/* r < l, then l - r copies */
		qual = list_make1(make_opclause(Int8LessOperator, BOOLOID, false, (Expr *) nr,
										(Expr *) nl, InvalidOid, InvalidOid));
		tl = lappend(tl, makeTargetEntry((Expr *) make_opclause(INT8_MINUS_OPERATOR, INT8OID, false,
																 (Expr *) copyObject(nl),
																 (Expr *) copyObject(nr),
																 InvalidOid, InvalidOid),
										 n + 1, NULL, false));
	}
	else
		qual = list_make2(positive((Expr *) nl),
						  makeBoolExpr(NOT_EXPR, list_make1(positive((Expr *) nr)), -1));
	qual = (List *) expression_planner((Expr *) qual);
	foreach(lc, tl)
	{
		TargetEntry *te = lfirst(lc);

		te->expr = expression_planner(te->expr);
	}
	p = HsExecProjectCreate(agg->out_desc, qual, tl);
	agg->downstream = p;
	if (op->all)
	{
		HsExec	   *rep = HsExecReplicateCreate(p->out_desc);

		note_operator(ctx, "Replicate (copies of counted rows)");
		p->downstream = rep;
		return relout_of(rep, NIL);
	}
	out = relout_of(p, NIL);
	out->has_ukey = true;
	for (int i = 0; i < n; i++)
		out->ukey = lappend_int(out->ukey, i);
	return out;
}

/*
 * in with its columns under collations colls (as Postgres compares the
 * rows of a set operation: under the collations the parser resolved for
 * it, colCollations, whatever each input's own are).  Only where one of
 * the two is nondeterministic: deterministic collations compare equal
 * exactly the equal bytes, so a plan without any stays as it was.  The
 * rows keep their columns (hidden ones too) and their key.
 */
static RelOut *
under_collations(RelOut *in, List *colls)
{
	List	   *exprs = NIL;
	bool		differ = false;
	RelOut	   *out;

	for (int i = 0; i < in->desc->natts; i++)
	{
		Expr	   *v = var_tle(in->desc, i, i + 1)->expr;
		Oid			coll = i < list_length(colls) ? list_nth_oid(colls, i) : InvalidOid;
		Oid			have = exprCollation((Node *) v);

		if (OidIsValid(coll) && have != coll &&
			(!get_collation_isdeterministic(coll) ||
			 (OidIsValid(have) && !get_collation_isdeterministic(have))))
		{
			v = (Expr *) makeRelabelType(v, exprType((Node *) v), exprTypmod((Node *) v), coll,
										 COERCE_IMPLICIT_CAST);
			differ = true;
		}
		exprs = lappend(exprs, v);
	}
	if (!differ)
		return in;
	out = project_cols(in, exprs, in->nvisible, NIL, false);
	out->has_ukey = in->has_ukey;
	out->ukey = list_copy(in->ukey);
	out->churns = in->churns;
	return out;
}

/*
 * UNION [ALL] tree node of a set-operation query, columns coerced to types
 * and under collations colls (its parent's).
 */
static RelOut *
plan_setop_node(PlanCtx *ctx, Query *q, List *outer, Node *node, List *types,
				List *typmods, List *colls)
{
	RelOut	   *out;

	if (IsA(node, RangeTblRef))
	{
		int			rtindex = ((RangeTblRef *) node)->rtindex;
		RangeTblEntry *rte = rt_fetch(rtindex, q->rtable);
		/* (an input that reads no table, UNION ALL SELECT 0: its rows, once) */
		RelOut	   *in = query_is_constant(rte->subquery) ?
			plan_constant_query(ctx, rte->subquery) :
			plan_query(ctx, rte->subquery, lcons(q, outer));
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
		return under_collations(project_level(in, exprs, NIL, false), colls);
	}
	else
	{
		SetOperationStmt *op = castNode(SetOperationStmt, node);
		HsExec	   *ports[2];
		RelOut	   *l;
		RelOut	   *r;
		HsExec	   *u;

		/* (rows compared under no collation: as Postgres, 42P22) */
		if (op->op != SETOP_UNION || !op->all)
		{
			ListCell   *lt;
			ListCell   *lcoll;

			forboth(lt, op->colTypes, lcoll, op->colCollations)
				check_key_collation(lfirst_oid(lt), lfirst_oid(lcoll));
		}
		if (op->op != SETOP_UNION)
			return under_collations(plan_intersect_except(ctx, q, outer, op, types, typmods),
									colls);
		l = plan_setop_node(ctx, q, outer, op->larg, types, typmods, op->colCollations);
		r = plan_setop_node(ctx, q, outer, op->rarg, types, typmods, op->colCollations);
		note_operator(ctx, "Union");
		u = HsExecUnionCreate(l->desc, 2, ports);
		attach(l, ports[0]);
		attach(r, ports[1]);
		out = relout_of(u, NIL);
		if (!op->all)
			out = distinct_level(ctx, out);
		return under_collations(out, colls);
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
	from = plan_setop_node(ctx, q, outer, (Node *) op, op->colTypes, op->colTypmods,
						   op->colCollations);
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
