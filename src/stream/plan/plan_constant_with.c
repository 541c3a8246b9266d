/*-------------------------------------------------------------------------
 *
 * plan_constant_with.c
 *	  A recursive WITH query that reads no table, computed once when the
 *	  view is planned.
 *
 *		WITH RECURSIVE days(d) AS (SELECT date '2024-01-01'
 *								   UNION ALL
 *								   SELECT d + 1 FROM days WHERE d < '2024-12-31')
 *		SELECT d, count(o.id) FROM days LEFT JOIN orders o ON o.day = d GROUP BY d
 *
 * reads no table: its rows are a constant of the view.  The planner runs
 * it (Postgres's planner and executor, in the planning process: the
 * creator, or a worker loading the view, each with the view's recorded
 * settings) and the view reads it as the VALUES list of its rows (a
 * subquery of that shape: plan_join.c's function items), sorted by their
 * bytes, so that every planning makes the same list in the same order
 * (the rows' positions in it are part of the view's row keys).
 *
 * Only a query that reads nothing that could change is computed so: no
 * table at any depth, no column or WITH query of an enclosing query (a
 * LATERAL correlation), no other WITH query that was not inlined, no
 * volatile function, not the current time, no SEARCH or CYCLE clause.
 * Anything else is planned as a recursive WITH query over tables
 * (plan_recursive.c), which refuses what it cannot keep.  A query that
 * returns more than hummock_stream.recompute_max_rows rows (or
 * CONSTANT_MAX_ROWS), or more than CONSTANT_MAX_BYTES of them, is refused
 * with 54000, as one that never ends is.
 *
 * src/stream/plan/plan_constant_with.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "tcop/tcopprot.h"
#include "utils/datum.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"

#include "hummock_stream/stream/executor.h"

#include "plan_internal.h"

/* The most a constant WITH query may return: its rows become a VALUES list. */
#define CONSTANT_MAX_ROWS 1000000
#define CONSTANT_MAX_BYTES ((Size) 64 * 1024 * 1024)

typedef struct ConstantWalk
{
	const char *name;			/* the WITH query's own name */
	int			depth;			/* query levels below its WITH clause */
} ConstantWalk;

/* true: the WITH query reads something that is not a constant */
static bool
varying_walker(Node *node, ConstantWalk *w)
{
	if (node == NULL)
		return false;
	if (IsA(node, Query))
	{
		bool		r;

		w->depth++;
		r = query_tree_walker((Query *) node, varying_walker, w, QTW_EXAMINE_RTES_BEFORE);
		w->depth--;
		return r;
	}
	if (IsA(node, RangeTblEntry))
	{
		RangeTblEntry *rte = (RangeTblEntry *) node;

		if (rte->rtekind == RTE_RELATION || rte->rtekind == RTE_NAMEDTUPLESTORE)
			return true;
		/* another WITH query than itself, of its level or one above */
		return rte->rtekind == RTE_CTE && (int) rte->ctelevelsup >= w->depth &&
			((int) rte->ctelevelsup > w->depth || strcmp(rte->ctename, w->name) != 0);
	}
	if (IsA(node, Var))
		return (int) ((Var *) node)->varlevelsup >= w->depth;
	if (IsA(node, Aggref))
		return (int) ((Aggref *) node)->agglevelsup >= w->depth;
	if (IsA(node, GroupingFunc))
		return (int) ((GroupingFunc *) node)->agglevelsup >= w->depth;
	if (IsA(node, PlaceHolderVar))
		return (int) ((PlaceHolderVar *) node)->phlevelsup >= w->depth;
	if ((IsA(node, FuncExpr) && is_time_function(((FuncExpr *) node)->funcid)) ||
		is_time_value_function(node))
		return true;
	return expression_tree_walker(node, varying_walker, w);
}

/* SELECT <each column> FROM cte, with cte as its only WITH query. */
static Query *
select_all_of(CommonTableExpr *cte)
{
	Query	   *q = makeNode(Query);
	RangeTblEntry *rte = makeNode(RangeTblEntry);
	RangeTblRef *rtr = makeNode(RangeTblRef);
	CommonTableExpr *c = copyObject(cte);
	ListCell   *ln,
			   *lt,
			   *lm,
			   *lc;
	int			i = 0;

	c->cterefcount = 1;
	rte->rtekind = RTE_CTE;
	rte->ctename = pstrdup(c->ctename);
	rte->ctelevelsup = 0;
	rte->self_reference = false;
	rte->coltypes = list_copy(c->ctecoltypes);
	rte->coltypmods = list_copy(c->ctecoltypmods);
	rte->colcollations = list_copy(c->ctecolcollations);
	rte->eref = makeAlias(c->ctename, copyObject(c->ctecolnames));
	rte->inFromCl = true;
	q->commandType = CMD_SELECT;
	q->querySource = QSRC_ORIGINAL;
	q->canSetTag = true;
	q->cteList = list_make1(c);
	q->hasRecursive = true;
	q->rtable = list_make1(rte);
	rtr->rtindex = 1;
	q->jointree = makeFromExpr(list_make1(rtr), NULL);
	forfour(ln, c->ctecolnames, lt, c->ctecoltypes, lm, c->ctecoltypmods,
			lc, c->ctecolcollations)
	{
		i++;
		q->targetList = lappend(q->targetList,
								makeTargetEntry((Expr *) makeVar(1, i, lfirst_oid(lt),
																 lfirst_int(lm),
																 lfirst_oid(lc), 0),
												i, pstrdup(strVal(lfirst(ln))), false));
	}
	return q;
}

/* Canonical rows: memcmp of the bytes, then length (qsort comparator). */
static int
row_cmp(const void *a, const void *b)
{
	MinimalTuple x = *(MinimalTuple const *) a;
	MinimalTuple y = *(MinimalTuple const *) b;
	int			r = memcmp(x, y, Min(x->t_len, y->t_len));

	if (r != 0)
		return r;
	return (x->t_len > y->t_len) - (x->t_len < y->t_len);
}

/* The error of a constant WITH query (q: select_all_of) past its limit. */
static void
too_large(Query *q, const char *limit)
{
	ereport(ERROR,
			(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
			 errmsg("recursive WITH query \"%s\" of a streaming materialized view returns more than %s",
					linitial_node(RangeTblEntry, q->rtable)->ctename, limit),
			 errdetail("It reads no table, so its rows are computed when the view is planned and kept in its plan."),
			 errhint("Stop its recursion earlier, or join the table it should be read with.")));
}

/*
 * What receives the rows of a constant WITH query: each detoasted into a
 * MinimalTuple of its own (equal rows, equal bytes), stopping with an
 * error past the limits as soon as they are met.
 */
typedef struct ConstantReceiver
{
	DestReceiver pub;
	Query	   *q;				/* the query (for the error) */
	TupleDesc	desc;
	MinimalTuple *rows;
	int			n;
	int			cap;
	int			max_rows;
	Size		bytes;
	Datum	   *values;
	bool	   *nulls;
	MemoryContext cxt;			/* where the rows go */
	MemoryContext tmp;			/* per row */
} ConstantReceiver;

static bool
constant_receive(TupleTableSlot *slot, DestReceiver *self)
{
	ConstantReceiver *r = (ConstantReceiver *) self;
	TupleDesc	desc = r->desc;
	MemoryContext old;

	if (r->n >= r->max_rows)
		too_large(r->q, psprintf("%d rows", r->max_rows));
	MemoryContextReset(r->tmp);
	old = MemoryContextSwitchTo(r->tmp);
	slot_getallattrs(slot);
	for (int c = 0; c < desc->natts; c++)
	{
		r->nulls[c] = slot->tts_isnull[c];
		r->values[c] = slot->tts_values[c];
		if (!r->nulls[c] && TupleDescAttr(desc, c)->attlen == -1)
			r->values[c] = PointerGetDatum(PG_DETOAST_DATUM(r->values[c]));
	}
	MemoryContextSwitchTo(r->cxt);
	if (r->n == r->cap)
	{
		r->cap = Max(r->cap * 2, 64);
		r->rows = r->rows ? repalloc_huge(r->rows, sizeof(MinimalTuple) * r->cap) :
			palloc(sizeof(MinimalTuple) * r->cap);
	}
	r->rows[r->n] = heap_form_minimal_tuple(desc, r->values, r->nulls);
	r->bytes += r->rows[r->n++]->t_len;
	MemoryContextSwitchTo(old);
	if (r->bytes > CONSTANT_MAX_BYTES)
		too_large(r->q, "64 MB");
	return true;
}

static void
constant_startup(DestReceiver *self, int operation, TupleDesc typeinfo)
{
}

static void
constant_shutdown(DestReceiver *self)
{
}

static void
constant_destroy(DestReceiver *self)
{
}

/* Run q and return its rows, detoasted and sorted by their bytes. */
static MinimalTuple *
run_sorted(Query *q, TupleDesc desc, int max_rows, int *nrows)
{
	PlannedStmt *plan = pg_plan_query(q, NULL, 0, NULL);
	ConstantReceiver r;
	QueryDesc  *qd;
	bool		pushed = false;

	memset(&r, 0, sizeof(r));
	r.pub.receiveSlot = constant_receive;
	r.pub.rStartup = constant_startup;
	r.pub.rShutdown = constant_shutdown;
	r.pub.rDestroy = constant_destroy;
	r.pub.mydest = DestNone;
	r.q = q;
	r.desc = desc;
	r.max_rows = max_rows;
	r.values = palloc(sizeof(Datum) * Max(desc->natts, 1));
	r.nulls = palloc(sizeof(bool) * Max(desc->natts, 1));
	r.cxt = CurrentMemoryContext;
	r.tmp = AllocSetContextCreate(CurrentMemoryContext, "hummock_stream constant row",
								  ALLOCSET_DEFAULT_SIZES);
	if (!ActiveSnapshotSet())
	{
		PushActiveSnapshot(GetTransactionSnapshot());
		pushed = true;
	}
	qd = CreateQueryDesc(plan, "recursive WITH query of a streaming materialized view",
						 GetActiveSnapshot(), InvalidSnapshot, &r.pub, NULL, NULL, 0);
	ExecutorStart(qd, 0);
	ExecutorRun(qd, ForwardScanDirection, 0, true);
	ExecutorFinish(qd);
	ExecutorEnd(qd);
	FreeQueryDesc(qd);
	if (pushed)
		PopActiveSnapshot();
	MemoryContextDelete(r.tmp);
	pfree(r.values);
	pfree(r.nulls);
	if (r.n > 1)
		qsort(r.rows, r.n, sizeof(MinimalTuple), row_cmp);
	*nrows = r.n;
	return r.rows;
}

Query *
constant_recursive_with(CommonTableExpr *cte)
{
	ConstantWalk w = {cte->ctename, 0};
	Query	   *all;
	Query	   *values_query;
	RangeTblEntry *values;
	TupleDesc	desc;
	TupleTableSlot *slot;
	MinimalTuple *rows;
	int			nrows;

	if (!cte->cterecursive || !IsA(cte->ctequery, Query) ||
		((Query *) cte->ctequery)->commandType != CMD_SELECT ||
		cte->search_clause || cte->cycle_clause ||
		varying_walker(cte->ctequery, &w) ||
		contain_volatile_functions(cte->ctequery))
		return NULL;

	all = select_all_of(cte);
	desc = ExecTypeFromTL(all->targetList);
	rows = run_sorted(all, desc, Min(hs_recompute_max_rows, CONSTANT_MAX_ROWS), &nrows);

	/* SELECT <each column> FROM (VALUES <the rows>) AS name(columns) */
	values = makeNode(RangeTblEntry);
	values->rtekind = RTE_VALUES;
	values->coltypes = list_copy(cte->ctecoltypes);
	values->coltypmods = list_copy(cte->ctecoltypmods);
	values->colcollations = list_copy(cte->ctecolcollations);
	values->eref = makeAlias(cte->ctename, copyObject(cte->ctecolnames));
	values->inFromCl = true;
	slot = MakeSingleTupleTableSlot(desc, &TTSOpsMinimalTuple);
	for (int r = 0; r < nrows; r++)
	{
		List	   *row = NIL;

		ExecStoreMinimalTuple(rows[r], slot, false);
		slot_getallattrs(slot);
		for (int c = 0; c < desc->natts; c++)
		{
			Form_pg_attribute att = TupleDescAttr(desc, c);
			bool		isnull = slot->tts_isnull[c];

			row = lappend(row, makeConst(att->atttypid, att->atttypmod, att->attcollation,
										 att->attlen,
										 isnull ? (Datum) 0 :
										 datumCopy(slot->tts_values[c], att->attbyval,
												   att->attlen),
										 isnull, att->attbyval));
		}
		values->values_lists = lappend(values->values_lists, row);
	}
	ExecDropSingleTupleTableSlot(slot);
	for (int r = 0; r < nrows; r++)
		pfree(rows[r]);
	if (rows)
		pfree(rows);

	values_query = copyObject(all);
	values_query->cteList = NIL;
	values_query->hasRecursive = false;
	values_query->rtable = list_make1(values);
	return values_query;
}
