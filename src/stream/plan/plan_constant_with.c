/*-------------------------------------------------------------------------
 *
 * plan_constant_with.c
 *	  What reads no table, computed when the view is planned: recursive
 *	  WITH queries, subqueries, and FROM items of outer joins.
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
 * Subqueries that read no table are constants the same way: an
 * uncorrelated EXISTS, scalar subquery or x op ANY/ALL (one column) over a
 * query that reads nothing that may change is computed when the view is
 * planned and becomes true/false, the value, or x op ANY/ALL (ARRAY[the
 * values]) (fold_constant_sublinks), so `WHERE status IN (SELECT
 * unnest(...))` filters rows as `IN (...)` does.
 *
 * A FROM item that reads no table (a function, a VALUES list, a subquery)
 * on either side of an outer join with tables is a constant input of the
 * job (plan_constant_input): its rows, computed so and numbered after the
 * sort (the number is their key), are a leaf without a table that the
 * backfill pushes once; the join keeps them as it keeps a table's rows,
 * so `calendar LEFT JOIN facts` shows the days without facts.
 *
 * A view whose whole query reads nothing that could change (`SELECT 1`, a
 * VALUES list, an aggregate over generate_series) is one such constant
 * input, and nothing else (plan_constant_query): a job with no source,
 * whose rows the creation computes and pushes once and which never
 * changes after (a view over it reads it as it reads any view).
 *
 * src/stream/plan/plan_constant_with.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "parser/parse_relation.h"
#include "parser/parsetree.h"
#include "rewrite/rewriteManip.h"
#include "tcop/tcopprot.h"
#include "utils/datum.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"

#include "hummock_stream/stream/executor.h"
#include "hummock_stream/stream/view_settings.h"

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

/* Column c of the row in slot (deformed; desc: its rows') as a Const. */
static Const *
slot_const(TupleTableSlot *slot, TupleDesc desc, int c)
{
	Form_pg_attribute att = TupleDescAttr(desc, c);
	bool		isnull = slot->tts_isnull[c];

	return makeConst(att->atttypid, att->atttypmod, att->attcollation, att->attlen,
					 isnull ? (Datum) 0 :
					 datumCopy(slot->tts_values[c], att->attbyval, att->attlen),
					 isnull, att->attbyval);
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

/* The error of a constant query (what: "recursive WITH query ...") past a limit. */
static void
too_large(const char *what, const char *limit)
{
	ereport(ERROR,
			(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
			 errmsg("%s of a streaming materialized view returns more than %s", what, limit),
			 errdetail("It reads no table, so its rows are computed when the view is planned and kept in its plan."),
			 errhint("Return fewer rows, or join the table it should be read with.")));
}

/*
 * What receives the rows of a constant WITH query: each detoasted into a
 * MinimalTuple of its own (equal rows, equal bytes), stopping with an
 * error past the limits as soon as they are met.
 */
typedef struct ConstantReceiver
{
	DestReceiver pub;
	const char *what;			/* the query, for the error */
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
		too_large(r->what, psprintf("%d rows", r->max_rows));
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
		too_large(r->what, "64 MB");
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

/*
 * A VALUES list without rows (what an empty constant WITH query becomes;
 * the parser makes none, and Postgres's executor cannot run one) as the
 * subquery SELECT NULL::<type>, ... WHERE false, in place.
 */
static bool
fill_empty_values_walker(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, RangeTblEntry))
	{
		RangeTblEntry *rte = (RangeTblEntry *) node;

		if (rte->rtekind == RTE_VALUES && rte->values_lists == NIL)
		{
			Query	   *none = makeNode(Query);
			ListCell   *lt,
					   *lm,
					   *lc;
			int			i = 0;

			none->commandType = CMD_SELECT;
			none->querySource = QSRC_ORIGINAL;
			none->jointree = makeFromExpr(NIL, (Node *) makeBoolConst(false, false));
			forthree(lt, rte->coltypes, lm, rte->coltypmods, lc, rte->colcollations)
			{
				i++;
				none->targetList =
					lappend(none->targetList,
							makeTargetEntry((Expr *) makeNullConst(lfirst_oid(lt), lfirst_int(lm),
																   lfirst_oid(lc)),
											i, psprintf("c%d", i), false));
			}
			rte->rtekind = RTE_SUBQUERY;
			rte->subquery = none;
			rte->coltypes = rte->coltypmods = rte->colcollations = NIL;
		}
		return false;
	}
	if (IsA(node, Query))
		return query_tree_walker((Query *) node, fill_empty_values_walker, context,
								 QTW_EXAMINE_RTES_BEFORE);
	return expression_tree_walker(node, fill_empty_values_walker, context);
}

/* Run q and return its rows, detoasted and sorted by their bytes. */
/*
 * Plan and run constant query q (a copy: its empty VALUES lists filled)
 * into dest, at most count rows (0: all); returns how many it produced.
 */
static uint64
run_constant_query(Query *q, DestReceiver *dest, uint64 count)
{
	PlannedStmt *plan;
	QueryDesc  *qd;
	bool		pushed = false;
	uint64		processed;

	q = copyObject(q);
	(void) fill_empty_values_walker((Node *) q, NULL);
	plan = pg_plan_query(q, NULL, 0, NULL);
	if (!ActiveSnapshotSet())
	{
		PushActiveSnapshot(GetTransactionSnapshot());
		pushed = true;
	}
	qd = CreateQueryDesc(plan, "constant of a streaming materialized view",
						 GetActiveSnapshot(), InvalidSnapshot, dest, NULL, NULL, 0);
	ExecutorStart(qd, 0);
	ExecutorRun(qd, ForwardScanDirection, count, true);
	processed = qd->estate->es_processed;
	ExecutorFinish(qd);
	ExecutorEnd(qd);
	FreeQueryDesc(qd);
	if (pushed)
		PopActiveSnapshot();
	return processed;
}

static MinimalTuple *
run_sorted(Query *q, TupleDesc desc, int max_rows, const char *what, int *nrows)
{
	ConstantReceiver r;

	memset(&r, 0, sizeof(r));
	r.pub.receiveSlot = constant_receive;
	r.pub.rStartup = constant_startup;
	r.pub.rShutdown = constant_shutdown;
	r.pub.rDestroy = constant_destroy;
	r.pub.mydest = DestNone;
	r.what = what;
	r.desc = desc;
	r.max_rows = max_rows;
	r.values = palloc(sizeof(Datum) * Max(desc->natts, 1));
	r.nulls = palloc(sizeof(bool) * Max(desc->natts, 1));
	r.cxt = CurrentMemoryContext;
	r.tmp = AllocSetContextCreate(CurrentMemoryContext, "hummock_stream constant row",
								  ALLOCSET_DEFAULT_SIZES);
	(void) run_constant_query(q, &r.pub, 0);
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
	rows = run_sorted(all, desc, Min(hs_recompute_max_rows, CONSTANT_MAX_ROWS),
					  psprintf("recursive WITH query \"%s\"", cte->ctename), &nrows);

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
			row = lappend(row, slot_const(slot, desc, c));
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

/* ---------------------------------------------------------------------
 * Subqueries that read no table
 * ---------------------------------------------------------------------
 */

/* The value of column 0 of a constant row as a Const (desc: its rows'). */
static Const *
row_const(TupleTableSlot *slot, TupleDesc desc, MinimalTuple row)
{
	ExecStoreMinimalTuple(row, slot, false);
	slot_getallattrs(slot);
	return slot_const(slot, desc, 0);
}

/* Is sub (a sublink's query) a constant: uncorrelated, reading no table? */
static bool
constant_subquery(Query *sub)
{
	ConstantWalk w = {"", 0};

	return sub->commandType == CMD_SELECT && sub->utilityStmt == NULL &&
		!varying_walker((Node *) sub, &w) &&
		!contain_volatile_functions((Node *) sub);
}

/*
 * The most rows of a constant subquery an ANY/ALL test over several
 * columns is expanded over (a condition per row, evaluated one by one).
 */
#define CONSTANT_MAX_EXPANDED_ROWS 10000

typedef struct SublinkColumns
{
	Const	  **columns;		/* a row of the sublink's query */
	int			n;
} SublinkColumns;

/* A sublink's Params (PARAM_SUBLINK n: column n of its query) replaced. */
static Node *
sublink_params_mutator(Node *node, SublinkColumns *row)
{
	if (node == NULL)
		return NULL;
	if (IsA(node, Param) && ((Param *) node)->paramkind == PARAM_SUBLINK)
	{
		int			c = ((Param *) node)->paramid - 1;

		if (c < 0 || c >= row->n)
			elog(ERROR, "sublink parameter %d out of range", c + 1);
		return (Node *) copyObject(row->columns[c]);
	}
	return expression_tree_mutator(node, sublink_params_mutator, row);
}

/*
 * (x, y) op ANY/ALL (rows): the test with each row's values, ORed (ANY)
 * or ANDed (ALL), which is what SQL defines them as, NULLs included; no
 * row: false (ANY) or true (ALL).
 */
static Node *
test_over_rows(SubLink *sl, TupleTableSlot *slot, TupleDesc desc, MinimalTuple *rows,
			   int nrows)
{
	SublinkColumns row = {palloc(sizeof(Const *) * Max(desc->natts, 1)), desc->natts};
	List	   *tests = NIL;

	for (int r = 0; r < nrows; r++)
	{
		ExecStoreMinimalTuple(rows[r], slot, false);
		slot_getallattrs(slot);
		for (int c = 0; c < desc->natts; c++)
			row.columns[c] = slot_const(slot, desc, c);
		tests = lappend(tests, sublink_params_mutator(copyObject(sl->testexpr), &row));
	}
	pfree(row.columns);
	if (tests == NIL)
		return makeBoolConst(sl->subLinkType == ALL_SUBLINK, false);
	if (list_length(tests) == 1)
		return linitial(tests);
	return (Node *) makeBoolExpr(sl->subLinkType == ANY_SUBLINK ? OR_EXPR : AND_EXPR,
								 tests, -1);
}

/*
 * A sublink over a constant subquery, computed: EXISTS as true or false,
 * a scalar subquery as its value (NULL without rows; more than one row is
 * Postgres's 21000), x op ANY/ALL (...) over one column as x op ANY/ALL
 * (ARRAY[its values]), which has the same NULL semantics, and other
 * ANY/ALL tests ((a, b) IN (VALUES ...)) as the test of each row, ORed or
 * ANDed (test_over_rows).  NULL: left as it is (another kind).
 */
static Node *
fold_sublink(SubLink *sl)
{
	Query	   *sub = copyObject(castNode(Query, sl->subselect));
	OpExpr	   *op = NULL;
	Oid			array_type = InvalidOid;
	TupleDesc	desc;
	TupleTableSlot *slot;
	MinimalTuple *rows;
	int			nrows;
	Node	   *result;
	bool		by_rows = false;

	if (sl->subLinkType == ANY_SUBLINK || sl->subLinkType == ALL_SUBLINK)
	{
		/* x op $1: one column, x not reading the subquery */
		if (checkExprHasSubLink(sl->testexpr))
			return NULL;
		if (IsA(sl->testexpr, OpExpr))
			op = (OpExpr *) sl->testexpr;
		if (op == NULL || list_length(op->args) != 2 || !IsA(lsecond(op->args), Param) ||
			((Param *) lsecond(op->args))->paramkind != PARAM_SUBLINK ||
			op->opretset)
			by_rows = true;
		else
		{
			array_type = get_array_type(((Param *) lsecond(op->args))->paramtype);
			by_rows = !OidIsValid(array_type);
		}
	}
	else if (sl->subLinkType != EXISTS_SUBLINK && sl->subLinkType != EXPR_SUBLINK)
		return NULL;
	if (!constant_subquery(sub))
		return NULL;

	sub->canSetTag = true;
	desc = ExecCleanTypeFromTL(sub->targetList);
	rows = run_sorted(sub, desc,
					  sl->subLinkType == EXISTS_SUBLINK ? 1 :
					  sl->subLinkType == EXPR_SUBLINK ? 2 :
					  by_rows ? CONSTANT_MAX_EXPANDED_ROWS :
					  Min(hs_recompute_max_rows, CONSTANT_MAX_ROWS),
					  "subquery", &nrows);
	slot = MakeSingleTupleTableSlot(desc, &TTSOpsMinimalTuple);
	if (sl->subLinkType == EXISTS_SUBLINK)
		result = makeBoolConst(nrows > 0, false);
	else if (sl->subLinkType == EXPR_SUBLINK)
	{
		Form_pg_attribute att = TupleDescAttr(desc, 0);

		if (nrows > 1)
			ereport(ERROR,
					(errcode(ERRCODE_CARDINALITY_VIOLATION),
					 errmsg("more than one row returned by a subquery used as an expression")));
		result = nrows == 0 ?
			(Node *) makeNullConst(att->atttypid, att->atttypmod, att->attcollation) :
			(Node *) row_const(slot, desc, rows[0]);
	}
	else if (by_rows)
		result = test_over_rows(sl, slot, desc, rows, nrows);
	else
	{
		ScalarArrayOpExpr *saop = makeNode(ScalarArrayOpExpr);
		ArrayExpr  *arr = makeNode(ArrayExpr);
		Param	   *p = lsecond(op->args);

		arr->array_typeid = array_type;
		arr->array_collid = p->paramcollid;
		arr->element_typeid = p->paramtype;
		arr->multidims = false;
		arr->location = -1;
		for (int r = 0; r < nrows; r++)
			arr->elements = lappend(arr->elements, row_const(slot, desc, rows[r]));
		saop->opno = op->opno;
		saop->opfuncid = op->opfuncid;
		saop->useOr = sl->subLinkType == ANY_SUBLINK;
		saop->inputcollid = op->inputcollid;
		saop->args = list_make2(copyObject(linitial(op->args)), arr);
		saop->location = -1;
		result = (Node *) saop;
	}
	ExecDropSingleTupleTableSlot(slot);
	return result;
}

static Node *
fold_mutator(Node *node, void *context)
{
	if (node == NULL)
		return NULL;
	if (IsA(node, SubLink))
	{
		SubLink    *sl = (SubLink *) node;
		Node	   *folded = fold_sublink(sl);

		if (folded)
			return folded;
	}
	if (IsA(node, Query))
		return (Node *) query_tree_mutator((Query *) node, fold_mutator, context, 0);
	return expression_tree_mutator(node, fold_mutator, context);
}

void
fold_constant_sublinks(Query *q)
{
	Query	   *folded = query_tree_mutator(q, fold_mutator, NULL, 0);

	/* (in place: the caller's Query; a hasSubLinks left true is harmless) */
	memcpy(q, folded, sizeof(Query));
}

/* ---------------------------------------------------------------------
 * FROM items that read no table, on the preserved side of an outer join
 * ---------------------------------------------------------------------
 */

Query *
constant_from_item(Query *q, Node *jt)
{
	RangeTblEntry *rte;
	ConstantWalk w = {"", 0};
	Query	   *item;
	List	   *names;
	List	   *vars;
	ListCell   *ln;
	ListCell   *lv;
	RangeTblRef *rtr;

	if (!IsA(jt, RangeTblRef))
		return NULL;
	rte = rt_fetch(((RangeTblRef *) jt)->rtindex, q->rtable);
	if (rte->rtekind == RTE_SUBQUERY)
	{
		if (!constant_subquery(rte->subquery))
			return NULL;
		item = copyObject(rte->subquery);
		item->canSetTag = true;
		return item;
	}
	if (rte->rtekind != RTE_FUNCTION && rte->rtekind != RTE_VALUES)
		return NULL;
	/* (depth 0: a Var of q's level is a LATERAL reference) */
	if (varying_walker((Node *) rte->functions, &w) ||
		varying_walker((Node *) rte->values_lists, &w) ||
		contain_volatile_functions((Node *) rte->functions) ||
		contain_volatile_functions((Node *) rte->values_lists))
		return NULL;

	/* SELECT <each column> FROM <the item> */
	item = makeNode(Query);
	item->commandType = CMD_SELECT;
	item->querySource = QSRC_ORIGINAL;
	item->canSetTag = true;
	rte = copyObject(rte);
	rte->lateral = false;
	item->rtable = list_make1(rte);
	rtr = makeNode(RangeTblRef);
	rtr->rtindex = 1;
	item->jointree = makeFromExpr(list_make1(rtr), NULL);
	expandRTE(rte, 1, 0, -1, false, &names, &vars);
	forboth(ln, names, lv, vars)
		item->targetList = lappend(item->targetList,
								   makeTargetEntry(lfirst(lv), list_length(item->targetList) + 1,
												   pstrdup(strVal(lfirst(ln))), false));
	item->hasTargetSRFs = false;
	return item;
}

bool
constant_has_rows(Query *item, int64 n)
{
	return run_constant_query(item, None_Receiver, (uint64) n) >= (uint64) n;
}

/*
 * The rows of item sorted by their bytes, each with its position after
 * them (1, 2, ...): tuples of ldesc, desc's columns and an int8.
 */
static MinimalTuple *
numbered_rows(Query *item, TupleDesc desc, TupleDesc ldesc, const char *what, int *nrows)
{
	MinimalTuple *rows = run_sorted(item, desc, Min(hs_recompute_max_rows, CONSTANT_MAX_ROWS),
									what, nrows);
	Datum	   *values = palloc(sizeof(Datum) * ldesc->natts);
	bool	   *nulls = palloc(sizeof(bool) * ldesc->natts);
	TupleTableSlot *slot = MakeSingleTupleTableSlot(desc, &TTSOpsMinimalTuple);

	for (int r = 0; r < *nrows; r++)
	{
		MinimalTuple t;

		ExecStoreMinimalTuple(rows[r], slot, false);
		slot_getallattrs(slot);
		memcpy(values, slot->tts_values, sizeof(Datum) * desc->natts);
		memcpy(nulls, slot->tts_isnull, sizeof(bool) * desc->natts);
		values[desc->natts] = Int64GetDatum(r + 1);
		nulls[desc->natts] = false;
		t = heap_form_minimal_tuple(ldesc, values, nulls);
		ExecClearTuple(slot);
		pfree(rows[r]);
		rows[r] = t;
	}
	ExecDropSingleTupleTableSlot(slot);
	pfree(values);
	pfree(nulls);
	return rows;
}

/*
 * The numbered rows of the constants computed in this transaction: a
 * creation plans the view's query more than once (its dry planning, then
 * the job's plans), and each would run the constant, sort and number its
 * rows again.  Keyed by the query, the settings the view records and the
 * user it runs as; reset with the transaction (its memory is a child of
 * the transaction's).  A planning gets its own copy of the rows, which
 * live as long as its plan.
 */
typedef struct CachedConstant
{
	char	   *key;
	MinimalTuple *rows;
	int			nrows;
} CachedConstant;

static List *constant_cache = NIL;
static MemoryContext constant_cache_cxt = NULL;

static void
constant_cache_gone(void *arg)
{
	constant_cache = NIL;
	constant_cache_cxt = NULL;
}

static MinimalTuple *
copy_rows(MinimalTuple *rows, int nrows)
{
	MinimalTuple *out = palloc(sizeof(MinimalTuple) * Max(nrows, 1));

	for (int r = 0; r < nrows; r++)
		out[r] = heap_copy_minimal_tuple(rows[r]);
	return out;
}

static MinimalTuple *
cached_numbered_rows(Query *item, TupleDesc desc, TupleDesc ldesc, const char *what,
					 int *nrows)
{
	StringInfoData key;
	ListCell   *lc;
	CachedConstant *c;
	MinimalTuple *rows;
	MemoryContext old;

	initStringInfo(&key);
	appendStringInfo(&key, "%u ", GetUserId());
	foreach(lc, HsViewSettingsCapture())
		appendStringInfo(&key, "%s ", (char *) lfirst(lc));
	appendStringInfoString(&key, nodeToString(item));
	foreach(lc, constant_cache)
	{
		c = lfirst(lc);
		if (strcmp(c->key, key.data) == 0)
		{
			pfree(key.data);
			*nrows = c->nrows;
			return copy_rows(c->rows, c->nrows);
		}
	}

	rows = numbered_rows(item, desc, ldesc, what, nrows);
	if (constant_cache_cxt == NULL)
	{
		MemoryContextCallback *cb;

		constant_cache_cxt = AllocSetContextCreate(TopTransactionContext,
												   "hummock_stream constants",
												   ALLOCSET_DEFAULT_SIZES);
		cb = MemoryContextAlloc(constant_cache_cxt, sizeof(MemoryContextCallback));
		cb->func = constant_cache_gone;
		cb->arg = NULL;
		MemoryContextRegisterResetCallback(constant_cache_cxt, cb);
	}
	old = MemoryContextSwitchTo(constant_cache_cxt);
	c = palloc(sizeof(CachedConstant));
	c->key = pstrdup(key.data);
	c->rows = copy_rows(rows, *nrows);
	c->nrows = *nrows;
	constant_cache = lappend(constant_cache, c);
	MemoryContextSwitchTo(old);
	pfree(key.data);
	return rows;
}

/*
 * The rows of item (a query that reads nothing that may change), computed
 * now, sorted and numbered, as a leaf of the job.  rtindex: the FROM item
 * of the enclosing query they stand for (0: none, the view's whole query);
 * name: the operator's, what: the error's.
 */
static RelOut *
constant_leaf(PlanCtx *ctx, const char *name, const char *what, Query *item, int rtindex)
{
	TupleDesc	desc = ExecCleanTypeFromTL(item->targetList);
	TupleDesc	ldesc = CreateTemplateTupleDesc(desc->natts + 1);
	MinimalTuple *rows;
	int			nrows;
	List	   *tl = NIL;
	List	   *vars = NIL;
	HsStreamLeaf *leaf;
	HsExec	   *e;
	RelOut	   *out;
	ListCell   *lc;
	int			col = 0;

	/* its columns, then the row's position among the sorted rows: the key */
	for (int c = 0; c < desc->natts; c++)
		TupleDescCopyEntry(ldesc, c + 1, desc, c + 1);
	TupleDescInitEntry(ldesc, desc->natts + 1, "position", INT8OID, -1, 0);
	if (ctx->constant_rows)
		rows = cached_numbered_rows(item, desc, ldesc, what, &nrows);
	else
	{
		rows = NULL;			/* (a job loaded from its state: never pushed) */
		nrows = 0;
	}

	/* every column; the query's Vars name the item's visible ones */
	foreach(lc, item->targetList)
	{
		TargetEntry *te = lfirst_node(TargetEntry, lc);

		if (te->resjunk)
			continue;
		tl = lappend(tl, var_tle(ldesc, col, col + 1));
		vars = lappend(vars, rtindex == 0 ? NULL :
					   makeVar(rtindex, te->resno, exprType((Node *) te->expr),
							   exprTypmod((Node *) te->expr),
							   exprCollation((Node *) te->expr), 0));
		col++;
	}
	tl = lappend(tl, var_tle(ldesc, col, col + 1));
	vars = lappend(vars, NULL);
	e = HsExecProjectCreate(ldesc, NIL, tl);
	out = relout_of(e, vars);
	out->has_ukey = true;
	out->ukey = list_make1_int(col);
	out->constant = true;
	note_operator(ctx, "Constant %s (%d row%s)", name, nrows, nrows == 1 ? "" : "s");

	leaf = palloc0(sizeof(HsStreamLeaf));
	leaf->relid = InvalidOid;
	leaf->entry = e;
	leaf->const_desc = ldesc;
	leaf->n_const_rows = nrows;
	leaf->const_rows = rows;
	ctx->leaves = lappend(ctx->leaves, leaf);
	return out;
}

RelOut *
plan_constant_input(PlanCtx *ctx, Query *q, int rtindex, Query *item)
{
	const char *name = rt_fetch(rtindex, q->rtable)->eref->aliasname;

	return constant_leaf(ctx, name, psprintf("FROM item \"%s\"", name), item, rtindex);
}

/* ---------------------------------------------------------------------
 * A view whose whole query reads no table
 * ---------------------------------------------------------------------
 */

bool
query_is_constant(Query *q)
{
	return constant_subquery(q);
}

RelOut *
plan_constant_query(PlanCtx *ctx, Query *q)
{
	Query	   *item = copyObject(q);

	item->canSetTag = true;
	return constant_leaf(ctx, "query", "the query", item, 0);
}
