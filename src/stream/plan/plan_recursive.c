/*-------------------------------------------------------------------------
 *
 * plan_recursive.c
 *	  Recursive WITH queries, computed again whole by Postgres whenever
 *	  the tables they read change.
 *
 * A recursive query (a hierarchy, a graph's reachable pairs) has no
 * maintenance row by row that stays exact in general: a deleted edge may
 * or may not cut paths that others still give.  So a reference to a
 * recursive WITH query in FROM is planned as
 *
 *	Source t1 -> Project(1, t1's columns, NULLs) --\
 *	Source t2 -> Project(2, NULLs, t2's columns) ---> Union
 *		-> RecomputeQuery(WITH RECURSIVE q AS (...) SELECT * FROM q)
 *
 * Every table the WITH query reads (at any depth: its subqueries and
 * sublinks too; each table once, with the columns any of its references
 * uses) is a source of the view, and its rows reach one RecomputeQuery
 * (exec_recompute_query.c) as rows of one wide shape: the table's number,
 * then each table's columns in turn, NULL but for its own.  The executor
 * keeps them, and after every epoch that changed them runs the WITH query
 * over them with Postgres's own executor: in a copy of the query each
 * table's reference is the subquery
 *
 *	SELECT <its columns, NULL for those not kept> FROM kept_rows WHERE src = i
 *
 * over the ephemeral relation of the kept rows.  What the query returns is
 * compared with what it returned before, and the difference flows on into
 * the rest of the view, maintained as usual.  Cost: an epoch that changes
 * a table the query reads reads all its kept rows and computes the query
 * whole, as REFRESH would, but only that part of the view; other epochs
 * cost nothing.
 *
 * Columns of anonymous row types (a CYCLE clause's path, a SEARCH
 * clause's ordering column) cannot be kept; the level's expressions over
 * them alone are computed by the recomputation instead (RecordUses).
 *
 * The WITH query must be self-contained: refused (0A000) are references to
 * columns of an enclosing query, to another WITH query of an enclosing
 * level, to whole rows of tables, and the current time.
 *
 * src/stream/plan/plan_recursive.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/sysattr.h"
#include "catalog/pg_attribute.h"
#include "catalog/pg_operator.h"
#include "catalog/pg_type.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "parser/parsetree.h"
#include "rewrite/rewriteManip.h"
#include "rewrite/rewriteSearchCycle.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

#include "plan_internal.h"

/*
 * Expressions of the level over the WITH query's anonymous row columns (a
 * CYCLE clause's path, a SEARCH clause's ordering column), computed in the
 * recomputation: cardinality(path), path::text, (ord).depth.  Such a
 * column's values name their row type by a typmod of the process that
 * made them, so they cannot be kept; a value computed from them in the
 * same query can.  The RecomputeQuery returns each such expression as a
 * column, and the level's expressions map onto it whole (map_expr matches
 * non-Var entries of a RelOut's vars).  A column used otherwise (bare, or
 * together with another item's columns) stays a kept column, refused.
 */
typedef struct RecordUses
{
	int			rtindex;
	Bitmapset  *record_cols;	/* the WITH query's anonymous row columns */
	int			depth;			/* query levels entered */
	List	   *exprs;			/* collected, no duplicates */
	Bitmapset  *bare;			/* record columns used otherwise */
} RecordUses;

/*
 * Does node read anything but columns of the WITH query's reference (a
 * column of another item or level, an aggregate, a window function, a
 * subquery), which the recomputation could not compute?
 */
static bool
reads_other_walker(Node *node, RecordUses *ru)
{
	if (node == NULL)
		return false;
	if (IsA(node, Var))
	{
		Var		   *v = (Var *) node;

		return v->varlevelsup != 0 || v->varno != ru->rtindex;
	}
	if (IsA(node, Aggref) || IsA(node, WindowFunc) || IsA(node, GroupingFunc) ||
		IsA(node, SubLink) || IsA(node, PlaceHolderVar) || IsA(node, Query))
		return true;
	return expression_tree_walker(node, reads_other_walker, ru);
}

/* Does node read only the reference's columns, a record column among them? */
static bool
reads_record_column(Node *node, RecordUses *ru)
{
	Bitmapset  *cols = NULL;
	List	   *vars;
	ListCell   *lc;

	if (reads_other_walker(node, ru))
		return false;
	vars = pull_var_clause(node, 0);
	foreach(lc, vars)
		cols = bms_add_member(cols, ((Var *) lfirst(lc))->varattno);
	return bms_overlap(cols, ru->record_cols);
}

static bool
record_uses_walker(Node *node, RecordUses *ru)
{
	if (node == NULL)
		return false;
	if (IsA(node, Query))
	{
		bool		r;

		ru->depth++;
		r = query_tree_walker((Query *) node, record_uses_walker, ru, QTW_IGNORE_JOINALIASES);
		ru->depth--;
		return r;
	}
	if (IsA(node, Var))
	{
		Var		   *v = (Var *) node;

		if (v->varlevelsup == (Index) ru->depth && v->varno == ru->rtindex &&
			bms_is_member(v->varattno, ru->record_cols))
			ru->bare = bms_add_member(ru->bare, v->varattno);
		return false;
	}
	/* (the nodes the level's expressions are walked through that have no type) */
	if (ru->depth == 0 && !IsA(node, List) && !IsA(node, FromExpr) &&
		!IsA(node, JoinExpr) && !IsA(node, TargetEntry) && !IsA(node, RangeTblRef) &&
		!IsA(node, RangeTblFunction) && !IsA(node, CaseWhen) &&
		!anonymous_row_type(exprType(node)) && reads_record_column(node, ru))
	{
		if (!list_member(ru->exprs, node))
			ru->exprs = lappend(ru->exprs, copyObject(node));
		return false;
	}
	return expression_tree_walker(node, record_uses_walker, ru);
}

/* A table the WITH query reads: one input of the RecomputeQuery. */
typedef struct RecursiveInput
{
	Oid			relid;
	bool		inh;
	RangeTblEntry *rte;			/* its first reference (for its privileges) */
	Bitmapset  *attnos;			/* the columns its references use (their
								 * Vars, and the columns checked for SELECT) */
	int			first;			/* its first column in the wide row (from 0) */
	List	   *cols;			/* int: its attnos kept, in order */
} RecursiveInput;

typedef struct RecursiveWalk
{
	const char *name;			/* the WITH query's */
	int			depth;			/* query levels entered (its own is 1) */
	List	   *levels;			/* Query *, innermost first */
	List	   *inputs;			/* RecursiveInput * */
	List	   *refs;			/* RangeTblEntry *: table references */
	List	   *ref_inputs;		/* int: the input of each */
	List	   *var_rtes;		/* RangeTblEntry *: the table a Var reads */
	List	   *var_attnos;		/* int: and its column */
} RecursiveWalk;

static void
refuse(const char *detail)
{
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("this recursive WITH query is not supported in a streaming materialized view"),
			 errdetail("%s", detail)));
}

static int
list_index_of(List *list, void *datum)
{
	ListCell   *lc;

	foreach(lc, list)
		if (lfirst(lc) == datum)
			return foreach_current_index(lc);
	return -1;
}

static void
note_table(RecursiveWalk *w, RangeTblEntry *rte)
{
	RecursiveInput *in = NULL;
	ListCell   *lc;
	int			a = -1;

	if (rte->tablesample)
		unsupported("TABLESAMPLE", false);
	foreach(lc, w->inputs)
	{
		RecursiveInput *i = lfirst(lc);

		if (i->relid == rte->relid && i->inh == rte->inh)
			in = i;
	}
	if (in == NULL)
	{
		in = palloc0(sizeof(RecursiveInput));
		in->relid = rte->relid;
		in->inh = rte->inh;
		in->rte = rte;
		w->inputs = lappend(w->inputs, in);
	}
	while ((a = bms_next_member(rte->selectedCols, a)) >= 0)
	{
		AttrNumber	attno = a + FirstLowInvalidHeapAttributeNumber;

		if (attno == InvalidAttrNumber)
			refuse("It reads a whole row of a table; name its columns.");
		if (attno > 0)
			in->attnos = bms_add_member(in->attnos, attno);
	}
	w->refs = lappend(w->refs, rte);
	w->ref_inputs = lappend_int(w->ref_inputs, list_index_of(w->inputs, in));
}

static bool
recursive_walker(Node *node, RecursiveWalk *w)
{
	if (node == NULL)
		return false;
	if (IsA(node, Query))
	{
		bool		r;

		w->depth++;
		w->levels = lcons(node, w->levels);
		r = query_tree_walker((Query *) node, recursive_walker, w, QTW_EXAMINE_RTES_BEFORE);
		w->levels = list_delete_first(w->levels);
		w->depth--;
		return r;
	}
	if (IsA(node, RangeTblEntry))
	{
		RangeTblEntry *rte = (RangeTblEntry *) node;

		if (rte->rtekind == RTE_RELATION)
			note_table(w, rte);
		else if (rte->rtekind == RTE_CTE && (int) rte->ctelevelsup >= w->depth &&
				 ((int) rte->ctelevelsup > w->depth || strcmp(rte->ctename, w->name) != 0))
			refuse("It reads another WITH query of an enclosing level.");
		return false;
	}
	if (IsA(node, Var))
	{
		Var		   *v = (Var *) node;

		Query	   *level;
		RangeTblEntry *rte;

		if ((int) v->varlevelsup >= w->depth)
			refuse("It reads columns of an enclosing query.");
		/* (the columns it reads of each table, wherever they are read) */
		level = list_nth(w->levels, v->varlevelsup);
		rte = rt_fetch(v->varno, level->rtable);
		if (rte->rtekind == RTE_RELATION)
		{
			if (v->varattno == InvalidAttrNumber)
				refuse("It reads a whole row of a table; name its columns.");
			if (v->varattno > 0)
			{
				w->var_rtes = lappend(w->var_rtes, rte);
				w->var_attnos = lappend_int(w->var_attnos, v->varattno);
			}
		}
		return false;
	}
	if (IsA(node, Aggref) && (int) ((Aggref *) node)->agglevelsup >= w->depth)
		refuse("It aggregates over an enclosing query.");
	if ((IsA(node, FuncExpr) && is_time_function(((FuncExpr *) node)->funcid)) ||
		is_time_value_function(node))
		refuse("It reads the current time.");
	return expression_tree_walker(node, recursive_walker, w);
}

/*
 * Type, typmod and collation of column attno of relid; false if it is
 * dropped (since the view's query was analyzed, for one it does not read).
 */
static bool
column_type(Oid relid, AttrNumber attno, Oid *type, int32 *typmod, Oid *coll)
{
	HeapTuple	tp = SearchSysCache2(ATTNUM, ObjectIdGetDatum(relid), Int16GetDatum(attno));
	Form_pg_attribute att;
	bool		live;

	*type = INT4OID;
	*typmod = -1;
	*coll = InvalidOid;
	if (!HeapTupleIsValid(tp))
		return false;
	att = (Form_pg_attribute) GETSTRUCT(tp);
	live = !att->attisdropped;
	*type = att->atttypid;
	*typmod = att->atttypmod;
	*coll = att->attcollation;
	ReleaseSysCache(tp);
	return live;
}

/* SELECT (no columns yet) FROM rte WHERE quals. */
static Query *
select_from(RangeTblEntry *rte, Node *quals)
{
	Query	   *q = makeNode(Query);
	RangeTblRef *rtr = makeNode(RangeTblRef);

	q->commandType = CMD_SELECT;
	q->querySource = QSRC_ORIGINAL;
	q->canSetTag = true;
	q->rtable = list_make1(rte);
	rtr->rtindex = 1;
	q->jointree = makeFromExpr(list_make1(rtr), quals);
	return q;
}

/*
 * Input i's rows, as rows of the wide shape: (i, NULLs of the columns
 * before its own, its columns, NULLs of those after).
 */
static RelOut *
plan_input(PlanCtx *ctx, RecursiveInput *in, int i, List *inputs, int nwide)
{
	Query	   *q = select_from(copyObject(in->rte), NULL);
	List	   *exprs = NIL;
	RelOut	   *from;
	ListCell   *lc;
	int			k = 0;

	/* SELECT <its columns> FROM the table */
	foreach(lc, in->cols)
	{
		AttrNumber	attno = lfirst_int(lc);
		Oid			type;
		int32		typmod;
		Oid			coll;

		(void) column_type(in->relid, attno, &type, &typmod, &coll);
		q->targetList = lappend(q->targetList,
								makeTargetEntry((Expr *) makeVar(1, attno, type, typmod, coll, 0),
												list_length(q->targetList) + 1,
												get_attname(in->relid, attno, false), false));
	}
	from = plan_query(ctx, q, NIL);

	/* the wide row */
	exprs = lappend(exprs, makeConst(INT4OID, -1, InvalidOid, sizeof(int32),
									 Int32GetDatum(i + 1), false, true));
	foreach(lc, inputs)
	{
		RecursiveInput *other = lfirst(lc);
		ListCell   *lcol;

		foreach(lcol, other->cols)
		{
			Oid			type;
			int32		typmod;
			Oid			coll;

			(void) column_type(other->relid, lfirst_int(lcol), &type, &typmod, &coll);
			if (other == in)
				exprs = lappend(exprs, makeVar(1, ++k, type, typmod, coll, 0));
			else
				exprs = lappend(exprs, makeNullConst(type, typmod, coll));
		}
	}
	Assert(list_length(exprs) == nwide);
	return project_cols(from, exprs, nwide, NIL, false);
}

/*
 * The subquery that stands for a reference of input i to its table:
 * SELECT <per column of the reference: its kept column or NULL> FROM
 * kept_rows WHERE src = i + 1.
 */
static Query *
input_subquery(RecursiveInput *in, int i, RangeTblEntry *ref, RangeTblEntry *kept)
{
	Query	   *q;
	ListCell   *lc;
	Expr	   *src;

	/* (kept_rows: ord, src, then the wide row's columns) */
	src = make_opclause(Int4EqualOperator, BOOLOID, false,
						(Expr *) makeVar(1, 2, INT4OID, -1, InvalidOid, 0),
						(Expr *) makeConst(INT4OID, -1, InvalidOid, sizeof(int32),
										   Int32GetDatum(i + 1), false, true),
						InvalidOid, InvalidOid);
	((OpExpr *) src)->opfuncid = get_opcode(Int4EqualOperator);
	q = select_from(copyObject(kept), (Node *) src);
	foreach(lc, ref->eref->colnames)
	{
		AttrNumber	attno = foreach_current_index(lc) + 1;
		const char *name = strVal(lfirst(lc));
		int			pos = -1;
		Expr	   *e;
		Oid			type;
		int32		typmod;
		Oid			coll;

		ListCell   *lk;

		foreach(lk, in->cols)
			if (lfirst_int(lk) == attno)
				pos = in->first + foreach_current_index(lk);
		if (name[0] == '\0' || !column_type(in->relid, attno, &type, &typmod, &coll))
			e = (Expr *) makeNullConst(INT4OID, -1, InvalidOid);	/* dropped */
		else
		{
			if (pos >= 0)
				e = (Expr *) makeVar(1, 3 + pos, type, typmod, coll, 0);
			else
				e = (Expr *) makeNullConst(type, typmod, coll);
		}
		q->targetList = lappend(q->targetList,
								makeTargetEntry(e, attno, pstrdup(name), false));
	}
	return q;
}

RelOut *
plan_recursive_with(PlanCtx *ctx, Query *q, CommonTableExpr *cte, int rtindex, List *quals)
{
	RecursiveWalk w;
	CommonTableExpr *copy = copyObject(cte);
	Query	   *top;
	RangeTblEntry *cte_rte = makeNode(RangeTblEntry);
	RangeTblEntry *kept;
	List	   *parts = NIL;
	List	   *vars = NIL;
	TupleDesc	wide;
	HsStateTable *rows;
	HsStateTable *shown;
	HsExec	   *e;
	RelOut	   *in;
	RelOut	   *out;
	ListCell   *lc,
			   *lt;
	Bitmapset  *used;
	RecordUses	ru;
	int			col;
	int			nwide = 1;

	if (!IsA(cte->ctequery, Query) || ((Query *) cte->ctequery)->commandType != CMD_SELECT)
		unsupported("data-modifying WITH queries", true);

	/*
	 * SEARCH and CYCLE clauses become columns the query computes (added to
	 * the WITH query's columns), as the rewriter makes them before Postgres
	 * plans a query
	 */
	if (copy->search_clause || copy->cycle_clause)
		copy = rewriteSearchAndCycle(copy);

	/* the tables it reads, and the columns of each */
	memset(&w, 0, sizeof(w));
	w.name = cte->ctename;
	(void) recursive_walker(copy->ctequery, &w);
	if (w.inputs == NIL)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("a streaming materialized view must read a table"),
				 errdetail("Its recursive WITH query \"%s\" reads none.", cte->ctename),
				 errhint("A series of numbers or dates joined with a table is generate_series() in FROM.")));
	forboth(lc, w.var_rtes, lt, w.var_attnos)
	{
		int			ref = list_index_of(w.refs, lfirst(lc));
		RecursiveInput *i;

		if (ref < 0)
			elog(ERROR, "recursive WITH query reads a table it does not list");
		i = list_nth(w.inputs, list_nth_int(w.ref_inputs, ref));
		i->attnos = bms_add_member(i->attnos, lfirst_int(lt));
	}
	foreach(lc, w.inputs)
	{
		RecursiveInput *i = lfirst(lc);
		int			a = -1;

		while ((a = bms_next_member(i->attnos, a)) >= 0)
			i->cols = lappend_int(i->cols, a);
		if (i->cols == NIL)
		{
			/* (no column is read: keep one, so that rows have a shape) */
			int			natts = list_length(i->rte->eref->colnames);

			for (a = 1; a <= natts && i->cols == NIL; a++)
				if (strVal(list_nth(i->rte->eref->colnames, a - 1))[0] != '\0')
					i->cols = list_make1_int(a);
			if (i->cols == NIL)
				ereport(ERROR,
						(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
						 errmsg("table \"%s\" has no columns", get_rel_name(i->relid))));
		}
		i->first = nwide - 1;
		nwide += list_length(i->cols);
	}

	/* every table's rows, in one stream */
	foreach(lc, w.inputs)
		parts = lappend(parts, plan_input(ctx, lfirst(lc), foreach_current_index(lc),
										  w.inputs, nwide));
	in = linitial(parts);
	if (list_length(parts) > 1)
	{
		HsExec	  **ports = palloc(sizeof(HsExec *) * list_length(parts));
		HsExec	   *u;

		note_operator(ctx, "Union");
		u = HsExecUnionCreate(in->desc, list_length(parts), ports);
		foreach(lc, parts)
			attach(lfirst(lc), ports[foreach_current_index(lc)]);
		in = relout_of(u, NIL);
	}
	wide = in->desc;
	check_kept_rows(wide, "recursive WITH query");

	/* the WITH query over the kept rows */
	kept = HsExecKeptRowsRte(wide);
	forboth(lc, w.refs, lt, w.ref_inputs)
	{
		RangeTblEntry *ref = lfirst(lc);
		int			i = lfirst_int(lt);

		rte_as_subquery(ref, input_subquery(list_nth(w.inputs, i), i, ref, kept));
	}
	copy->cterefcount = 1;
	cte_rte->rtekind = RTE_CTE;
	cte_rte->ctename = pstrdup(cte->ctename);
	cte_rte->ctelevelsup = 0;
	cte_rte->coltypes = list_copy(copy->ctecoltypes);
	cte_rte->coltypmods = list_copy(copy->ctecoltypmods);
	cte_rte->colcollations = list_copy(copy->ctecolcollations);
	cte_rte->eref = makeAlias(cte->ctename, copyObject(copy->ctecolnames));
	cte_rte->inFromCl = true;
	top = select_from(cte_rte, NULL);
	top->hasRecursive = true;
	top->cteList = list_make1(copy);

	/*
	 * Its columns the view uses (not a SEARCH or CYCLE clause's record
	 * columns it does not read: those could not be kept), at least one
	 */
	used = used_attnos(ctx, q, rtindex, NULL);
	memset(&ru, 0, sizeof(ru));
	ru.rtindex = rtindex;
	col = -1;
	while ((col = bms_next_member(used, col)) >= 0)
		if (anonymous_row_type(list_nth_oid(copy->ctecoltypes, col - 1)))
			ru.record_cols = bms_add_member(ru.record_cols, col);
	if (ru.record_cols != NULL)
	{
		(void) record_uses_walker((Node *) q->targetList, &ru);
		(void) record_uses_walker((Node *) q->jointree, &ru);
		(void) record_uses_walker(q->havingQual, &ru);
		(void) record_uses_walker((Node *) ctx->semi_quals, &ru);
		foreach(lc, q->rtable)
		{
			RangeTblEntry *rte = lfirst(lc);

			(void) record_uses_walker((Node *) rte->subquery, &ru);
			(void) record_uses_walker((Node *) rte->functions, &ru);
			(void) record_uses_walker((Node *) rte->values_lists, &ru);
		}
		used = bms_del_members(used, bms_difference(ru.record_cols, ru.bare));
	}
	if (bms_is_empty(used) && ru.exprs == NIL)
		used = bms_make_singleton(1);
	col = -1;
	while ((col = bms_next_member(used, col)) >= 0)
	{
		Oid			type = list_nth_oid(copy->ctecoltypes, col - 1);
		int32		typmod = list_nth_int(copy->ctecoltypmods, col - 1);
		Oid			coll = list_nth_oid(copy->ctecolcollations, col - 1);

		top->targetList = lappend(top->targetList,
								  makeTargetEntry((Expr *) makeVar(1, col, type, typmod, coll, 0),
												  list_length(top->targetList) + 1,
												  pstrdup(strVal(list_nth(copy->ctecolnames, col - 1))),
												  false));
		vars = lappend(vars, makeVar(rtindex, col, type, typmod, coll, 0));
	}
	foreach(lc, ru.exprs)
	{
		/* (its Vars of the reference read the query's one FROM item) */
		Node	   *e = copyObject(lfirst(lc));

		ChangeVarNodes(e, rtindex, 1, 0);
		top->targetList = lappend(top->targetList,
								  makeTargetEntry((Expr *) e, list_length(top->targetList) + 1,
												  psprintf("expr%d", foreach_current_index(lc) + 1),
												  false));
		vars = lappend(vars, lfirst(lc));
	}

	rows = next_state(ctx, "RecomputeQuery rows");
	shown = next_state(ctx, "RecomputeQuery shown rows");
	e = HsExecRecomputeQueryCreate(wide, top, rows, shown);
	check_kept_rows(e->out_desc, "recursive WITH query");
	note_operator(ctx, "RecomputeQuery (recursive WITH query %s over %d table%s, computed again whole)",
				  quote_identifier(cte->ctename), list_length(w.inputs),
				  list_length(w.inputs) == 1 ? "" : "s");
	attach(in, e);
	out = relout_of(e, vars);
	return apply_filter(out, quals);
}
