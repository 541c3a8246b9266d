/*-------------------------------------------------------------------------
 *
 * stream_plan.c
 *	  From a view's analyzed query to its streaming executors: the core of
 *	  the planner (stream_plan.h).
 *
 * The definition is parsed and analyzed by Postgres (parse_analyze); the
 * planner checks the Query tree and turns it into a tree of executors
 * whose leaves are the source tables:
 *
 *	a table (each occurrence in FROM is a leaf the job feeds):
 *		Project(WHERE conditions on that table alone; the columns used)
 *	FROM a, b WHERE ... / a [INNER|LEFT|RIGHT|FULL] JOIN b ON ...:
 *		HashJoin(equalities between the two sides as the key; other
 *		conditions as the join filter), left-deep in FROM order, each next
 *		item preferably one related by an equality (plan_join.c)
 *	WHERE x IN (SELECT ...), EXISTS (...), NOT EXISTS (...):
 *		semi and anti HashJoins, converted by Postgres's own functions
 *		(plan_join.c)
 *	subqueries in FROM and WITH queries: planned as query levels (inline)
 *	UNION ALL: Union; UNION: Union then DISTINCT (plan_setop.c)
 *	a query level, over its FROM:
 *		aggregation: Project(group keys, aggregate arguments)
 *			-> HashAgg(group keys; aggregates)
 *			-> Project(HAVING; output columns, hidden group key columns)
 *			(plan_agg.c)
 *		otherwise: Project(output columns, hidden unique key columns)
 *		DISTINCT: then HashAgg(all output columns) (plan_agg.c)
 *		ORDER BY ... LIMIT: then TopN (plan_top_n.c)
 *	row_number() <= n per group: the subquery without the window, then
 *		TopN(partition, order) (plan_top_n.c)
 *	the view: Materialize(keyed by the unique key the levels carry up: a
 *		group key, the sources' primary keys, all columns of a DISTINCT);
 *		without one (a multiset): HashAgg(all columns; count(*))
 *			-> Materialize(count copies of each row)
 *
 * What the query may use is checked before and while it is planned
 * (plan_checks.c).
 *
 * Every executor's rows are described by a RelOut (plan_internal.h): for
 * each column, the Var of the query level it carries, so an expression of
 * the query is evaluated over any executor's rows by rewriting its Vars
 * (map_expr).  Join aliases (USING, NATURAL) are flattened to their base
 * columns first.  A RelOut also carries a unique key when one is known (a
 * table's primary key, a join's two keys together, a group key, all
 * columns after DISTINCT); it flows up as hidden columns and becomes the
 * view's key; without one the view is a multiset.
 *
 * Expressions stay Postgres expressions: WHERE, the projections and HAVING
 * are run through expression_planner and evaluated with ExecInitExpr.
 *
 * Planning is deterministic: the compute worker rebuilds the same tree
 * from the stored Query, and the state tables are handed out in the same
 * order (HsStreamPlanCreate counts them with placeholder tables,
 * next_state).
 *
 * src/stream/plan/stream_plan.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/table.h"
#include "catalog/index.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_type.h"
#include "executor/executor.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "optimizer/prep.h"
#include "parser/parsetree.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"

#include "hummock_stream/row/memcmp_key.h"
#include "hummock_stream/stream/capture.h"
#include "hummock_stream/stream/stream_plan.h"

#include "plan_internal.h"

/* ---------------------------------------------------------------------
 * RelOut: an executor's rows
 *
 * Each FROM item, join and query level becomes a RelOut: the executor
 * that emits its rows, and for each column the Var of the query level
 * it stands for.  Expressions of the query are rewritten onto such a row
 * by map_expr (each Var becomes Var(1, column)).
 * ---------------------------------------------------------------------
 */

/* Note an executor for the catalog (fragments). */
void
note_operator(PlanCtx *ctx, const char *fmt,...)
{
	va_list		ap;
	StringInfoData buf;

	initStringInfo(&buf);
	for (;;)
	{
		int			needed;

		va_start(ap, fmt);
		needed = appendStringInfoVA(&buf, fmt, ap);
		va_end(ap);
		if (needed == 0)
			break;
		enlargeStringInfo(&buf, needed);
	}
	ctx->operators = lappend(ctx->operators, buf.data);
}

/* The next state table, for role; placeholders when planning dry. */
bool
next_state_recorded_as(PlanCtx *ctx, const char *role)
{
	return ctx->used < list_length(ctx->recorded_roles) &&
		strcmp(list_nth(ctx->recorded_roles, ctx->used), role) == 0;
}

HsStateTable *
next_state(PlanCtx *ctx, const char *role)
{
	ctx->state_roles = lappend(ctx->state_roles, pstrdup(role));
	if (ctx->dry)
	{
		ctx->used++;
		return palloc0(sizeof(HsStateTable));
	}
	if (ctx->used >= ctx->nstates)
		elog(ERROR, "streaming plan needs more state tables than its job has (%d)",
			 ctx->nstates);
	return &ctx->states[ctx->used++];
}

/*
 * A record's value names its row type by a typmod that BlessTupleDesc
 * numbered in one process: another process (the compute worker after the
 * creator, or any after a restart) would read it as whatever row type it
 * numbered so, or as none.
 */
bool
anonymous_row_type(Oid type)
{
	type = getBaseType(type);
	return type == RECORDOID || type == RECORDARRAYOID;
}

/* check_kept_rows of column col (from 0) of desc only. */
void
check_kept_column(TupleDesc desc, int col, const char *role)
{
	Oid			type = getBaseType(TupleDescAttr(desc, col)->atttypid);

	if (anonymous_row_type(type))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("values of anonymous row types are not supported in the state of a streaming materialized view"),
				 errdetail("Column %d of the rows a %s keeps is of type %s (a ROW(...) constructor, a subquery's whole row or a function's record result); its row type exists only in the process that made it.",
						   col + 1, role, format_type_be(type)),
				 errhint("Cast the row to a named composite type (ROW(a, b)::my_type), or make it a value in the same expression (to_jsonb(ROW(a, b)), jsonb_build_object(...)).")));
}

void
check_kept_rows(TupleDesc desc, const char *role)
{
	for (int i = 0; i < desc->natts; i++)
		check_kept_column(desc, i, role);
}

/* Make e the downstream of in's rows. */
void
attach(RelOut *in, HsExec *e)
{
	in->tail->downstream = e;
}

/* The rows e emits, whose columns stand for vars; no unique key yet. */
RelOut *
relout_of(HsExec *e, List *vars)
{
	RelOut	   *r = palloc0(sizeof(RelOut));

	r->tail = e;
	r->desc = e->out_desc;
	r->vars = vars;
	r->nvisible = e->out_desc->natts;
	return r;
}

static Node *
map_vars_mutator(Node *node, List *vars)
{
	ListCell   *lc;

	if (node == NULL)
		return NULL;
	/* (an expression a column carries computed: plan_recursive.c) */
	if (!IsA(node, Var))
		foreach(lc, vars)
		{
			Node	   *w = lfirst(lc);

			if (w != NULL && !IsA(w, Var) && equal(w, node))
				return (Node *) makeVar(1, foreach_current_index(lc) + 1, exprType(node),
										exprTypmod(node), exprCollation(node), 0);
		}
	if (IsA(node, Var) && ((Var *) node)->varlevelsup == 0)
	{
		Var		   *v = (Var *) node;
		ListCell   *lc;
		int			i = 0;

		foreach(lc, vars)
		{
			Var		   *w = lfirst(lc);

			i++;
			if (w && w->varno == v->varno && w->varattno == v->varattno)
			{
				Var		   *nv = copyObject(v);

				nv->varno = 1;
				nv->varattno = i;
				nv->varnosyn = 0;
				nv->varattnosyn = 0;
				return (Node *) nv;
			}
		}
		/* (a table's whole row is a column of its leaf: plan_leaf) */
		if (v->varattno == 0)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("whole-row references are not supported in a streaming materialized view"),
					 errdetail("A whole-row reference is supported to a FROM item of its own query level.")));
		elog(ERROR, "streaming plan: column %d of range table entry %d is not available",
			 v->varattno, v->varno);
	}
	if (IsA(node, SubLink))
		unsupported_subquery();
	return expression_tree_mutator(node, map_vars_mutator, vars);
}

typedef struct ReplaceContext
{
	List	   *calls;
	List	   *vars;
} ReplaceContext;

static Node *
replace_calls_mutator(Node *node, ReplaceContext *rc)
{
	ListCell   *lc;
	ListCell   *lv;

	if (node == NULL)
		return NULL;
	forboth(lc, rc->calls, lv, rc->vars)
		if (equal(lfirst(lc), node))
			return copyObject(lfirst(lv));
	return expression_tree_mutator(node, replace_calls_mutator, rc);
}

Node *
replace_calls(Node *node, List *calls, List *vars)
{
	ReplaceContext rc = {calls, vars};

	return replace_calls_mutator(node, &rc);
}

/* e (an expression of the query level) over the rows of in. */
Expr *
map_expr(Expr *e, RelOut *in)
{
	/* (temporal filters become DynamicFilters before anything maps them) */
	if (contains_time((Node *) e))
		refuse_time_function();
	return expression_planner((Expr *) map_vars_mutator(copyObject((Node *) e), in->vars));
}

/* map_expr of each of quals. */
List *
map_quals(List *quals, RelOut *in)
{
	List	   *out = NIL;
	ListCell   *lc;

	foreach(lc, quals)
		out = lappend(out, map_expr(lfirst(lc), in));
	return out;
}

static bool
varnos_walker(Node *node, Bitmapset **out)
{
	if (node == NULL)
		return false;
	if (IsA(node, Var) && ((Var *) node)->varlevelsup == 0)
		*out = bms_add_member(*out, ((Var *) node)->varno);
	return expression_tree_walker(node, varnos_walker, out);
}

/* The range table indexes of the current level's Vars in node. */
Relids
varnos_of(Node *node)
{
	Relids		r = NULL;

	(void) varnos_walker(node, &r);
	return r;
}

/* A target entry (resno) reading column col of desc's rows. */
TargetEntry *
var_tle(TupleDesc desc, int col, int resno)
{
	Form_pg_attribute att = TupleDescAttr(desc, col);

	return makeTargetEntry((Expr *) makeVar(1, col + 1, att->atttypid, att->atttypmod,
											att->attcollation, 0), resno, NULL, false);
}

/* Keep the rows of in for which quals hold. */
RelOut *
apply_filter(RelOut *in, List *quals)
{
	List	   *tl = NIL;
	HsExec	   *e;
	RelOut	   *out;

	if (quals == NIL)
		return in;
	for (int i = 0; i < in->desc->natts; i++)
		tl = lappend(tl, var_tle(in->desc, i, i + 1));
	e = HsExecProjectCreate(in->desc, map_quals(quals, in), tl);
	attach(in, e);
	out = relout_of(e, in->vars);
	out->has_ukey = in->has_ukey;
	out->ukey = in->ukey;
	out->nvisible = in->nvisible;
	out->churns = in->churns;
	out->constant = in->constant;
	return out;
}

/* An int array of an integer List (at least one element long). */
int *
int_array(List *l)
{
	int		   *a = palloc(sizeof(int) * Max(list_length(l), 1));
	int			n = 0;
	ListCell   *lc;

	foreach(lc, l)
		a[n++] = lfirst_int(lc);
	return a;
}

/* Does q's level aggregate (aggregates, GROUP BY or HAVING)? */
bool
aggregating(Query *q)
{
	return q->hasAggs || q->groupClause != NIL || q->havingQual != NULL;
}

/* The target list entries of q that are output columns. */
List *
visible_tlist(Query *q)
{
	List	   *out = NIL;
	ListCell   *lc;

	foreach(lc, q->targetList)
		if (!((TargetEntry *) lfirst(lc))->resjunk)
			out = lappend(out, lfirst(lc));
	return out;
}

/*
 * Project in to exprs (over in; the first nvisible are output columns,
 * the rest hidden), then hidden columns for in's unique key unless add_key
 * is false; returns the result with its unique key.
 */
RelOut *
project_cols(RelOut *in, List *exprs, int nvisible, List *qual, bool add_key)
{
	List	   *tl = NIL;
	List	   *ukey = NIL;
	ListCell   *lc;
	HsExec	   *e;
	RelOut	   *out;

	foreach(lc, exprs)
		tl = lappend(tl, makeTargetEntry(lfirst(lc), list_length(tl) + 1, NULL, false));
	if (add_key && in->has_ukey)
	{
		foreach(lc, in->ukey)
		{
			int			k = lfirst_int(lc);
			int			found = -1;
			int			i = 0;
			ListCell   *lc2;

			foreach(lc2, exprs)
			{
				Var		   *v = lfirst(lc2);

				if (IsA(v, Var) && v->varattno == k + 1)
				{
					found = i;
					break;
				}
				i++;
			}
			if (found < 0)
			{
				found = list_length(tl);
				tl = lappend(tl, var_tle(in->desc, k, found + 1));
			}
			ukey = lappend_int(ukey, found);
		}
	}
	e = HsExecProjectCreate(in->desc, qual, tl);
	attach(in, e);
	out = relout_of(e, NIL);
	out->nvisible = nvisible;
	out->has_ukey = add_key && in->has_ukey;
	out->ukey = ukey;
	return out;
}

/* project_cols with every expression an output column. */
RelOut *
project_level(RelOut *in, List *exprs, List *qual, bool add_key)
{
	return project_cols(in, exprs, list_length(exprs), qual, add_key);
}

/* ---------------------------------------------------------------------
 * Leaves and query levels
 * ---------------------------------------------------------------------
 */

bool
HsStreamPlanKeylessTree(Oid relid)
{
	return find_inheritance_children(relid, NoLock) != NIL || HsCaptureTracksChildren(relid);
}

List *
HsStreamPlanSourceKey(Oid relid)
{
	Relation	rel = table_open(relid, AccessShareLock);
	Oid			pk = RelationGetPrimaryKeyIndex(rel);
	List	   *cols = NIL;

	if (OidIsValid(pk))
	{
		Relation	idx = index_open(pk, AccessShareLock);

		for (int i = 0; i < idx->rd_index->indnkeyatts; i++)
		{
			AttrNumber	att = idx->rd_index->indkey.values[i];

			if (!HsMemcmpTypeIdentifies(TupleDescAttr(RelationGetDescr(rel), att - 1)->atttypid))
			{
				list_free(cols);
				cols = NIL;
				break;
			}
			cols = lappend_int(cols, att);
		}
		index_close(idx, AccessShareLock);
	}
	table_close(rel, AccessShareLock);
	return cols;
}

typedef struct AttnoCtx
{
	int			varno;
	int			sublevels_up;
	Bitmapset  *attnos;
	bool		whole_row;		/* a Var of attno 0 */
} AttnoCtx;

static bool
attnos_walker(Node *node, AttnoCtx *c)
{
	if (node == NULL)
		return false;
	if (IsA(node, Var))
	{
		Var		   *v = (Var *) node;

		if (v->varno == c->varno && (int) v->varlevelsup == c->sublevels_up && v->varattno > 0)
			c->attnos = bms_add_member(c->attnos, v->varattno);
		else if (v->varno == c->varno && (int) v->varlevelsup == c->sublevels_up &&
				 v->varattno == 0)
			c->whole_row = true;
		return false;
	}
	if (IsA(node, Query))
	{
		bool		r;

		c->sublevels_up++;
		r = query_tree_walker((Query *) node, attnos_walker, c, 0);
		c->sublevels_up--;
		return r;
	}
	return expression_tree_walker(node, attnos_walker, c);
}

Bitmapset *
used_attnos(PlanCtx *ctx, Query *q, int rtindex, bool *whole_row)
{
	AttnoCtx	ac = {rtindex, 0, NULL, false};

	(void) query_tree_walker(q, attnos_walker, &ac, 0);
	(void) attnos_walker((Node *) ctx->semi_quals, &ac);
	if (whole_row)
		*whole_row = ac.whole_row;
	return ac.attnos;
}

/* Whole-row Vars of one range table entry, to be replaced by its ROW(). */
typedef struct WholeRowQuals
{
	int			varno;
	RowExpr    *row;
} WholeRowQuals;

static Node *
whole_row_quals_mutator(Node *node, WholeRowQuals *wq)
{
	if (node == NULL)
		return NULL;
	if (IsA(node, Var) && ((Var *) node)->varno == wq->varno &&
		((Var *) node)->varattno == 0 && ((Var *) node)->varlevelsup == 0)
		return copyObject((Node *) wq->row);
	return expression_tree_mutator(node, whole_row_quals_mutator, wq);
}

/*
 * A source table (range table entry rtindex of q): a leaf the job feeds,
 * filtered by quals and narrowed to the columns q uses and the primary
 * key.
 */
RelOut *
plan_leaf(PlanCtx *ctx, Query *q, int rtindex, List *quals)
{
	RangeTblEntry *rte = rt_fetch(rtindex, q->rtable);
	Oid			relid = check_relation(rte);
	Relation	rel = table_open(relid, AccessShareLock);
	TupleDesc	rdesc = CreateTupleDescCopy(RelationGetDescr(rel));
	bool		with_children = rte->inh && rel->rd_rel->relkind == RELKIND_RELATION;
	List	   *pk = with_children && HsStreamPlanKeylessTree(relid) ? NIL :
		HsStreamPlanSourceKey(relid);
	bool		whole_row;
	Bitmapset  *attnos = used_attnos(ctx, q, rtindex, &whole_row);
	List	   *full_vars = NIL;
	List	   *vars = NIL;
	List	   *tl = NIL;
	RelOut	   *out;
	HsStreamLeaf *leaf;
	HsExec	   *e;
	ListCell   *lc;
	int			a;

	table_close(rel, AccessShareLock);
	foreach(lc, pk)
		attnos = bms_add_member(attnos, lfirst_int(lc));
	for (int i = 0; i < rdesc->natts; i++)
		full_vars = lappend(full_vars, makeVar(rtindex, i + 1, TupleDescAttr(rdesc, i)->atttypid,
											   TupleDescAttr(rdesc, i)->atttypmod,
											   TupleDescAttr(rdesc, i)->attcollation, 0));
	a = -1;
	while ((a = bms_next_member(attnos, a)) >= 0)
	{
		/* (semi_quals of other levels may name columns this table lacks) */
		if (a > rdesc->natts || TupleDescAttr(rdesc, a - 1)->attisdropped)
			continue;
		tl = lappend(tl, var_tle(rdesc, a - 1, list_length(tl) + 1));
		vars = lappend(vars, list_nth(full_vars, a - 1));
	}
	if (tl == NIL)
	{
		/* no column is used (count(*)): keep one so rows have a shape */
		for (int i = 0; i < rdesc->natts && tl == NIL; i++)
			if (!TupleDescAttr(rdesc, i)->attisdropped)
			{
				tl = lappend(tl, var_tle(rdesc, i, 1));
				vars = lappend(vars, list_nth(full_vars, i));
			}
		if (tl == NIL)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("table \"%s\" has no columns", get_rel_name(relid))));
	}
	{
		RelOut		whole;

		memset(&whole, 0, sizeof(whole));
		whole.vars = full_vars;
		if (whole_row)
		{
			/*
			 * The row as a value of the table's row type (to_jsonb(t),
			 * jsonb_agg(t)): a column made here, below any join, so that an
			 * outer join's NULL row gives NULL, as Postgres's whole-row Var
			 * does (dropped columns are NULL in it).  The leaf's own quals
			 * (WHERE t IS NOT NULL) read it as that expression.
			 */
			RowExpr    *r = makeNode(RowExpr);
			Oid			rowtype = get_rel_type_id(relid);
			WholeRowQuals wq;

			for (int i = 0; i < rdesc->natts; i++)
			{
				Form_pg_attribute att = TupleDescAttr(rdesc, i);

				r->args = lappend(r->args, att->attisdropped ?
								  (Node *) makeNullConst(INT4OID, -1, InvalidOid) :
								  list_nth(full_vars, i));
				r->colnames = lappend(r->colnames,
									  makeString(pstrdup(att->attisdropped ? "" :
														 NameStr(att->attname))));
			}
			r->row_typeid = rowtype;
			r->row_format = COERCE_IMPLICIT_CAST;
			r->location = -1;
			wq.varno = rtindex;
			wq.row = r;
			quals = (List *) whole_row_quals_mutator((Node *) quals, &wq);
			tl = lappend(tl, makeTargetEntry(map_expr((Expr *) r, &whole),
											 list_length(tl) + 1, NULL, false));
			vars = lappend(vars, makeVar(rtindex, 0, rowtype, -1, InvalidOid, 0));
		}
		e = HsExecProjectCreate(rdesc, map_quals(quals, &whole), tl);
	}
	out = relout_of(e, vars);
	if (pk != NIL)
	{
		out->has_ukey = true;
		foreach(lc, pk)
		{
			int			i = 0;
			ListCell   *lc2;

			foreach(lc2, vars)
			{
				if (((Var *) lfirst(lc2))->varattno == lfirst_int(lc))
					break;
				i++;
			}
			out->ukey = lappend_int(out->ukey, i);
		}
	}
	note_operator(ctx, "Source %s%s", get_rel_name(relid), quals ? " (filtered)" : "");
	leaf = palloc(sizeof(HsStreamLeaf));
	leaf->relid = relid;
	leaf->entry = e;
	leaf->with_children = with_children;
	ctx->leaves = lappend(ctx->leaves, leaf);
	ctx->sources = list_append_unique_oid(ctx->sources, relid);
	return out;
}

/* A subquery (or CTE) of q at rtindex: its visible columns are its Vars. */
RelOut *
plan_subquery(PlanCtx *ctx, Query *sub, int rtindex, List *outer, List *quals)
{
	RelOut	   *out;
	ListCell   *lc;
	int			i = 0;

	/* row_number() <= n per group is a Top-N; other windows, a level's */
	out = sub->hasWindowFuncs ? plan_group_top_n(ctx, sub, rtindex, outer, &quals) : NULL;
	if (out == NULL)
		out = plan_query(ctx, sub, outer);

	out->vars = NIL;
	foreach(lc, sub->targetList)
	{
		TargetEntry *tle = lfirst(lc);

		if (tle->resjunk)
			continue;
		out->vars = lappend(out->vars,
							makeVar(rtindex, tle->resno, exprType((Node *) tle->expr),
									exprTypmod((Node *) tle->expr),
									exprCollation((Node *) tle->expr), 0));
		i++;
	}
	for (; i < out->desc->natts; i++)
		out->vars = lappend(out->vars, NULL);
	return apply_filter(out, quals);
}

/*
 * Put the conditions of a join tree in the form Postgres's planner gives
 * them (preprocess_qual_conditions): conjuncts common to every arm of an
 * OR are pulled out of it, so that "(a.x = b.y AND ...) OR (a.x = b.y AND
 * ...)" joins on a.x = b.y (TPC-H Q19) instead of meeting every row.
 */
static void
canonicalize_jointree(Node *jt)
{
	if (jt == NULL)
		return;
	if (IsA(jt, FromExpr))
	{
		FromExpr   *f = (FromExpr *) jt;
		ListCell   *lc;

		f->quals = (Node *) canonicalize_qual((Expr *) f->quals, false);
		foreach(lc, f->fromlist)
			canonicalize_jointree(lfirst(lc));
	}
	else if (IsA(jt, JoinExpr))
	{
		JoinExpr   *j = (JoinExpr *) jt;

		j->quals = (Node *) canonicalize_qual((Expr *) j->quals, false);
		canonicalize_jointree(j->larg);
		canonicalize_jointree(j->rarg);
	}
}

/*
 * A query level: its FROM items joined, WHERE, aggregation or projection,
 * DISTINCT, Top-N; or its set operation (plan_setop.c).  The result's
 * first nvisible columns are q's output columns; hidden columns after them
 * carry its unique key when it has one.  outer: the enclosing query
 * levels, innermost first.
 */
RelOut *
plan_query(PlanCtx *ctx, Query *q, List *outer)
{
	RelOut	   *from;
	List	   *semis;
	List	   *extra;
	bool		has_agg;

	q = copyObject(q);
	grouping_without_sets(q);
	grouped_calls_to_from(q);
	q = split_over_groups(q);
	check_query_level(q, outer == NIL);
	if (q->setOperations)
		return plan_setop_query(ctx, q, outer);
	if (q->groupingSets)
	{
		q->targetList = (List *) flatten_join_alias_vars(q, (Node *) q->targetList);
		q->havingQual = flatten_join_alias_vars(q, q->havingQual);
		group_by_dependent_columns(q);
		return top_n_level(ctx, q, grouping_sets_query(ctx, q, outer), top_n_extra(q));
	}
	q->targetList = (List *) flatten_join_alias_vars(q, (Node *) q->targetList);
	q->jointree = (FromExpr *) flatten_join_alias_vars(q, (Node *) q->jointree);
	q->havingQual = flatten_join_alias_vars(q, q->havingQual);
	group_by_dependent_columns(q);
	expand_whole_rows(q);
	canonicalize_jointree((Node *) q->jointree);
	q->havingQual = (Node *) canonicalize_qual((Expr *) q->havingQual, false);
	q = split_on_time(q);
	/*
	 * The time's comparisons the split does not take stay refused: in the
	 * select list, and in HAVING but in its temporal conditions (HAVING
	 * runs over the groups without map_expr's check).
	 */
	if (contains_time((Node *) q->targetList))
		refuse_time_function();
	{
		ListCell   *lc;

		foreach(lc, make_ands_implicit((Expr *) q->havingQual))
		{
			TemporalCondition tc;

			if (contains_time(lfirst(lc)) && !temporal_condition(lfirst(lc), &tc))
				refuse_time_function();
		}
	}
	q = scalars_over_aggregation(q);
	filter_outer_functions(q, (Node *) q->jointree, ctx->constant_joins);
	rewrite_lateral(q);
	rewrite_sublinks(ctx, q);
	semis = convert_where_sublinks(ctx, q);
	if (contains_sublink((Node *) q->targetList) ||
		contains_sublink((Node *) q->jointree) ||
		contains_sublink(q->havingQual))
		unsupported_subquery();

	from = plan_fromlist(ctx, q, outer, q->jointree->fromlist,
						 make_ands_implicit((Expr *) q->jointree->quals), semis);
	has_agg = aggregating(q);
	extra = top_n_extra(q);
	if (has_agg)
		from = agg_level(ctx, q, from, extra);
	else
	{
		List	   *targets = NIL;
		List	   *exprs = NIL;
		ListCell   *lc;

		foreach(lc, visible_tlist(q))
			targets = lappend(targets, ((TargetEntry *) lfirst(lc))->expr);
		foreach(lc, extra)
			targets = lappend(targets, ((TargetEntry *) lfirst(lc))->expr);
		/* window functions, then set-returning ones, as Postgres evaluates them */
		if (q->hasWindowFuncs)
			from = window_level(ctx, q, from, &targets);
		if (q->hasTargetSRFs)
			from = srf_level(ctx, from, &targets);
		foreach(lc, targets)
			exprs = lappend(exprs, map_expr(lfirst(lc), from));
		from = project_cols(from, exprs, list_length(exprs) - list_length(extra), NIL,
							q->distinctClause == NIL || q->hasDistinctOn);
	}
	if (q->hasDistinctOn)
		from = distinct_on_level(ctx, q, from, extra);
	else if (q->distinctClause)
		from = distinct_level(ctx, from);
	return top_n_level(ctx, q, from, extra);
}

/* ---------------------------------------------------------------------
 * The view
 * ---------------------------------------------------------------------
 */

/* Plan the view's query and its materialization into view. */
static void
plan_view(PlanCtx *ctx, HsStreamPlan *plan, TupleDesc view_desc, HsStateTable *view)
{
	Query	   *q = copyObject(plan->query);
	RelOut	   *out;
	int			nview = list_length(plan->view_tlist);
	ListCell   *lc;

	inline_with_queries(q);
	array_sublinks_as_aggregates(q);
	if (ctx->function_order || ctx->subquery_order)
		aggregates_in_function_order(q, ctx->function_order, ctx->subquery_order);
	fold_constant_sublinks(q);
	out = query_is_constant(q) ? plan_constant_query(ctx, q) : plan_query(ctx, q, NIL);
	plan->key_columns = NIL;
	if (out->has_ukey)
	{
		/* the key's leading columns that the view shows (all of them, often) */
		foreach(lc, out->ukey)
		{
			if (lfirst_int(lc) >= nview)
				break;
			plan->key_columns = lappend_int(plan->key_columns, lfirst_int(lc) + 1);
		}
		note_operator(ctx, "Materialize (key of %d column%s)", list_length(out->ukey),
					  list_length(out->ukey) == 1 ? "" : "s");
		attach(out, HsExecMaterializeCreate(out->desc, view_desc, int_array(out->ukey),
											list_length(out->ukey), false, view));
	}
	else
	{
		/* a multiset: a count per distinct row, stored as that many copies */
		HsAggCall  *count = palloc0(sizeof(HsAggCall));
		HsExec	   *agg;
		bool		folds = false;

		foreach(lc, plan->view_tlist)
		{
			TargetEntry *tle = lfirst(lc);
			Oid			t = exprType((Node *) tle->expr);

			if (!HsMemcmpTypeIdentifies(t))
				ereport(ERROR,
						(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
						 errmsg("column \"%s\" of type %s cannot be compared",
								tle->resname ? tle->resname : "?column?", format_type_be(t)),
						 errdetail("The view's rows have no unique key (a source table without a primary key, or a UNION ALL), so they are identified by all their columns.")));
			folds |= HsMemcmpTypeFolds(t);
		}
		if (out->desc->natts != nview)
		{
			List	   *exprs = NIL;

			for (int i = 0; i < nview; i++)
				exprs = lappend(exprs, var_tle(out->desc, i, i + 1)->expr);
			out = project_level(out, exprs, NIL, false);
		}
		count->kind = HS_AGG_COUNT_STAR;
		count->arg = -1;
		count->filter = -1;
		count->restype = INT8OID;
		/*
		 * Rows that print differently are different rows (a UNION ALL of
		 * 1.0 and 1.00 shows both), though their key encodings may be
		 * equal: the counts and copies are keyed by identity then, under
		 * a role of its own (a view from a build that merged them is
		 * refused until rebuilt).
		 */
		note_operator(ctx, "HashAgg (row counts of a multiset)");
		note_operator(ctx, "Materialize (multiset: copies of each row)");
		check_kept_rows(out->desc, "HashAgg");
		agg = HsExecHashAggCreate(out->desc, nview, count, 1, NULL,
								  next_state(ctx, folds ? "row counts by identity" : "row counts"),
								  NULL, false);
		HsExecHashAggIdentifyRows(agg);
		attach(out, agg);
		agg->downstream = HsExecMaterializeCreate(agg->out_desc, view_desc, NULL, 0, true, view);
		for (int i = 1; i <= nview; i++)
			plan->key_columns = lappend_int(plan->key_columns, i);
	}
}

static HsStreamPlan *plan_create(Query *q, List *recorded_roles, bool new_job,
								 bool constant_rows);

HsStreamPlan *
HsStreamPlanCreate(Query *q)
{
	return plan_create(q, NIL, true, true);
}

HsStreamPlan *
HsStreamPlanCreateAs(Query *q, List *recorded_roles)
{
	return plan_create(q, recorded_roles, false, true);
}

HsStreamPlan *
HsStreamPlanCreateForLoad(Query *q, List *recorded_roles)
{
	return plan_create(q, recorded_roles, false, false);
}

/*
 * Does plan join a VALUES list or function that reads no table on the
 * nullable side of a LEFT JOIN, whose condition reads the preserved side,
 * as a constant input?  A new view does; a view planned before constant
 * inputs existed keeps its decorrelated plan (filter_outer_functions), so
 * its state tables keep their layout.  Its recorded roles tell: constant
 * inputs are joined under roles of their own.
 */
static bool
new_or_recorded_with(const HsStreamPlan *plan, const char *role_suffix)
{
	ListCell   *lc;

	if (plan->new_job)
		return true;
	foreach(lc, plan->recorded_roles)
		if (strstr((const char *) lfirst(lc), role_suffix) != NULL)
			return true;
	return false;
}

static bool
makes_constant_joins(const HsStreamPlan *plan)
{
	return new_or_recorded_with(plan, CONSTANT_INPUT_ROLE_SUFFIX);
}

/*
 * Does plan join three or more inner-joined items smallest first
 * (plan_fromlist)?  A new view does; one planned before joins them in
 * FROM order, as its roles say.
 */
static bool
makes_join_order(const HsStreamPlan *plan)
{
	return new_or_recorded_with(plan, JOIN_ORDER_ROLE_MARK);
}

/*
 * Does plan give order-dependent aggregates over one function the
 * function's order (aggregates_in_function_order)?  A new view does; one
 * planned before keeps its plan (its kept rows' layout), as its roles say.
 */
static bool
makes_function_order(const HsStreamPlan *plan)
{
	return new_or_recorded_with(plan, FUNCTION_ORDER_ROLE_SUFFIX);
}

/*
 * Does plan give order-dependent aggregates over one subquery with ORDER BY
 * the subquery's order?  A new view does; one planned before keeps its
 * plan, as its roles say.
 */
static bool
makes_subquery_order(const HsStreamPlan *plan)
{
	return new_or_recorded_with(plan, SUBQUERY_ORDER_ROLE_SUFFIX);
}

/*
 * Does plan join by the hashes of equalities whose type's equal values can
 * differ in their bytes (plan_hashed_keys.c)?  A new view does; one planned
 * before filters such equalities over the rows it joins, as its roles say.
 */
static bool
makes_hashed_join_keys(const HsStreamPlan *plan)
{
	return new_or_recorded_with(plan, HASHED_KEYS_ROLE_MARK);
}

/*
 * Does plan show a DISTINCT column whose equal values print differently
 * by a min of its rows' forms (plan_agg.c)?  A new view does; one planned
 * before shows the first form stored, as its roles say.
 */
static bool
makes_distinct_min(const HsStreamPlan *plan)
{
	return new_or_recorded_with(plan, DISTINCT_SHOWN_BY_MIN_ROLE_MARK);
}

static HsStreamPlan *
plan_create(Query *q, List *recorded_roles, bool new_job, bool constant_rows)
{
	HsStreamPlan *plan = palloc0(sizeof(HsStreamPlan));
	ListCell   *lc;
	int			resno = 0;
	PlanCtx		ctx;
	MemoryContext tmp;
	MemoryContext old;

	check_view_query(q);

	plan->query = q;
	plan->recorded_roles = recorded_roles;
	plan->new_job = new_job;
	plan->constant_rows = constant_rows;
	foreach(lc, q->targetList)
	{
		TargetEntry *tle = lfirst(lc);

		if (tle->resjunk)
			continue;
		tle = flatCopyTargetEntry(tle);
		tle->resno = ++resno;
		plan->view_tlist = lappend(plan->view_tlist, tle);
	}
	check_view_columns(plan->view_tlist);

	/* plan once with placeholder state tables: checks, sources, counts */
	memset(&ctx, 0, sizeof(ctx));
	ctx.dry = true;
	ctx.recorded_roles = recorded_roles;
	ctx.constant_joins = makes_constant_joins(plan);
	ctx.function_order = makes_function_order(plan);
	ctx.subquery_order = makes_subquery_order(plan);
	ctx.join_order = makes_join_order(plan);
	ctx.hashed_join_keys = makes_hashed_join_keys(plan);
	ctx.distinct_shown_by_min = makes_distinct_min(plan);
	ctx.constant_rows = plan->constant_rows;
	tmp = AllocSetContextCreate(CurrentMemoryContext, "hummock_stream planning",
								ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(tmp);
	plan_view(&ctx, plan, ExecTypeFromTL(plan->view_tlist), palloc0(sizeof(HsStateTable)));
	MemoryContextSwitchTo(old);
	plan->key_columns = list_copy(plan->key_columns);
	plan->sources = list_copy(ctx.sources);
	list_sort(plan->sources, list_oid_cmp);
	plan->relied_indexes = list_copy(ctx.relied_indexes);
	plan->n_state_tables = ctx.used;
	plan->operators = NIL;
	plan->state_roles = NIL;
	{
		ListCell   *lc2;

		foreach(lc2, ctx.operators)
			plan->operators = lappend(plan->operators, pstrdup(lfirst(lc2)));
		foreach(lc2, ctx.state_roles)
			plan->state_roles = lappend(plan->state_roles, pstrdup(lfirst(lc2)));
	}
	MemoryContextDelete(tmp);
	return plan;
}

List *
HsStreamPlanBuild(HsStreamPlan *plan, TupleDesc view_desc, HsStateTable *view,
				  HsStateTable *states)
{
	PlanCtx		ctx;

	memset(&ctx, 0, sizeof(ctx));
	/* (as its dry planning did: choices recorded in roles, such as join orders) */
	ctx.recorded_roles = plan->recorded_roles ? plan->recorded_roles : plan->state_roles;
	ctx.constant_joins = makes_constant_joins(plan);
	ctx.function_order = makes_function_order(plan);
	ctx.subquery_order = makes_subquery_order(plan);
	ctx.join_order = makes_join_order(plan);
	ctx.hashed_join_keys = makes_hashed_join_keys(plan);
	ctx.distinct_shown_by_min = makes_distinct_min(plan);
	ctx.constant_rows = plan->constant_rows;
	ctx.states = states;
	ctx.nstates = plan->n_state_tables;
	plan_view(&ctx, plan, view_desc, view);
	if (ctx.used != plan->n_state_tables)
		elog(ERROR, "streaming plan uses %d state tables, its job has %d",
			 ctx.used, plan->n_state_tables);
	return ctx.leaves;
}
