/*-------------------------------------------------------------------------
 *
 * exec_over_window.c
 *	  Streaming window functions: rank(), lag(), sum() OVER (...), ...,
 *	  computed again by Postgres's own WindowAgg for every partition an
 *	  epoch touches.
 *
 * Every input row belongs to one partition (the memcmp encoding of its
 * PARTITION BY values; all the window functions of a query level share
 * them).  The executor keeps
 *
 *	rows	(persisted) key = partition | canonical bytes of the row
 *			(HsCanonicalTuple), value = how many input rows are that row
 *			(int64, as the count of a counted row);
 *	shown	(persisted) key = partition | canonical bytes of an output
 *			row (the input columns, then one column per function), value
 *			= how many copies of it the view was given.
 *
 * A pushed row updates its partition's rows at once and marks the
 * partition touched.  At the flush, all touched partitions are computed
 * again in one query, planned once when the executor is built:
 *
 *		SELECT ord, <input columns>, f1 OVER w1, f2 OVER w2, ...
 *		  FROM rows WINDOW w1 AS (PARTITION BY ord ORDER BY ...), ...
 *
 * over an ephemeral named relation of each touched partition's ordinal and
 * rows (each as many times as it is counted; ord stands for the original
 * PARTITION BY, which each ordinal is one value of), each function the
 * view's own WindowFunc and each window its own ORDER BY and frame, read
 * from the relation's columns.  The partition's new output rows are
 * compared with what it showed: the rows it showed and no longer shows
 * are emitted as deletes, the new ones as inserts (every partition's
 * deletes before any insert: a row may move between partitions), and
 * shown is updated.
 * A partition's rows in its ORDER BY order tie as Postgres's do: functions
 * whose result depends on the order of tied rows (row_number() over a
 * non-unique ORDER BY) may number them otherwise than a query would.
 *
 * Cost: an epoch reads and computes again every partition it touches, its
 * rows and what it showed; a window without PARTITION BY is one partition.
 *
 * src/stream/executor/exec_over_window.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "tcop/tcopprot.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"
#include "utils/tuplestore.h"

#include "hummock_stream/row/memcmp_key.h"
#include "hummock_stream/row/stored_row.h"
#include "hummock_stream/stream/bytes_key_hash.h"
#include "hummock_stream/stream/executor.h"

#include "rows_query.h"

/* The name of the ephemeral relation of the rows in the query. */
#define ROWS_ENR_NAME "hummock_stream_partition_rows"

typedef struct OverWindowExec
{
	HsExec		exec;			/* exec.out: virtual; exec.row_cxt: per row */
	TupleDesc	in_desc;
	int			nfuncs;
	ExprContext *econtext;
	List	   *partition_states;	/* ExprState: PARTITION BY values */
	HsStateTable *rows;
	HsStateTable *shown;
	TupleDesc	enr_desc;		/* (ord int4, input columns...) */
	PlannedStmt *plan;
	MemoryContext touched_cxt;	/* the touched partitions of the epoch */
	HTAB	   *touched;		/* HsBytesKey: partition keys */
	List	   *touched_list;	/* HsBytesKey *, in order */
	StringInfoData key;
} OverWindowExec;

/* ---------------------------------------------------------------------
 * The query
 * ---------------------------------------------------------------------
 */

/*
 * Plan SELECT ord, <input columns>, funcs... FROM rows WINDOW ... : funcs
 * are WindowFuncs and windows WindowClauses over the relation's columns
 * (Var varno 1, attno 2.. for the input columns; attno 1 is ord), their
 * ORDER BY given as sort expressions (orders: a List per window of
 * SortGroupClause copies whose tleSortGroupRef index order_exprs).
 */
static PlannedStmt *
plan_windows(OverWindowExec *w, List *funcs, List *windows, List *order_exprs)
{
	Query	   *q = HsRowsQuery(ROWS_ENR_NAME, w->enr_desc);
	List	   *tlist = NIL;
	ListCell   *lc;
	SortGroupClause *by_ord;
	int			resno = 0;
	Index		ord_ref = list_length(order_exprs) + 1;

	q->hasWindowFuncs = true;

	/* ord and the input columns */
	for (int c = 0; c < w->enr_desc->natts; c++)
	{
		Form_pg_attribute att = TupleDescAttr(w->enr_desc, c);
		TargetEntry *tle = makeTargetEntry((Expr *) makeVar(1, c + 1, att->atttypid,
															att->atttypmod,
															att->attcollation, 0),
										   ++resno, NULL, false);

		if (c == 0)
			tle->ressortgroupref = ord_ref;
		tlist = lappend(tlist, tle);
	}
	/* the functions */
	foreach(lc, funcs)
		tlist = lappend(tlist, makeTargetEntry((Expr *) copyObject(lfirst(lc)), ++resno,
											   NULL, false));
	/* the ORDER BY expressions, as the windows' sort keys (refs 1..n) */
	for (int k = 0; k < list_length(order_exprs); k++)
	{
		TargetEntry *tle = makeTargetEntry((Expr *) copyObject(list_nth(order_exprs, k)),
										   ++resno, NULL, true);

		tle->ressortgroupref = k + 1;
		tlist = lappend(tlist, tle);
	}
	q->targetList = tlist;

	by_ord = HsRowsByOrdinal(ord_ref);
	foreach(lc, windows)
	{
		WindowClause *wc = copyObject(lfirst(lc));

		wc->partitionClause = list_make1(copyObject(by_ord));
		q->windowClause = lappend(q->windowClause, wc);
	}
	return pg_plan_query(q, "hummock_stream: recompute window functions", 0, NULL);
}

/* ---------------------------------------------------------------------
 * Rows and what was shown
 * ---------------------------------------------------------------------
 */

/* Add sign to the count of entry prefix | bytes in table. */
static void
count_apply(OverWindowExec *w, HsStateTable *table, const HsBytesKey *prefix,
			const char *bytes, int len, int64 delta)
{
	StringInfoData old;
	int64		count = 0;
	int64		now;

	resetStringInfo(&w->key);
	appendBinaryStringInfo(&w->key, prefix->data, prefix->len);
	appendBinaryStringInfo(&w->key, bytes, len);
	initStringInfo(&old);
	if (HsStateTableGet(table, w->key.data, w->key.len, &old))
		count = HsCountedRowCount(old.data);
	now = count + delta;
	if (now < 0)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("a streaming window was asked to remove a row its partition does not hold")));
	if (now == 0)
		HsStateTableDelete(table, w->key.data, w->key.len, old.data, old.len);
	else
		HsStateTablePut(table, w->key.data, w->key.len, count > 0 ? old.data : NULL, old.len,
						(const char *) &now, (int) sizeof(now));
	pfree(old.data);
}

static void
over_window_push(HsExec *self, TupleTableSlot *row, int sign)
{
	OverWindowExec *w = (OverWindowExec *) self;
	MemoryContext old;
	StringInfoData part;
	HsBytesKey	pk;
	MinimalTuple mt;
	bool		found;
	ListCell   *lc;

	MemoryContextReset(w->exec.row_cxt);
	old = MemoryContextSwitchTo(w->exec.row_cxt);
	slot_getallattrs(row);
	ResetExprContext(w->econtext);
	w->econtext->ecxt_scantuple = row;
	initStringInfo(&part);
	foreach(lc, w->partition_states)
	{
		ExprState  *es = lfirst(lc);
		bool		isnull;
		Datum		d = ExecEvalExpr(es, w->econtext, &isnull);

		HsMemcmpEncode(&part, d, isnull, exprType((Node *) es->expr), false);
	}
	pk.data = part.data;
	pk.len = part.len;
	mt = HsCanonicalTuple(w->in_desc, row->tts_values, row->tts_isnull);
	count_apply(w, w->rows, &pk, (const char *) mt, mt->t_len, sign);

	/* the partition is computed again at the flush */
	(void) hash_search(w->touched, &pk, HASH_FIND, &found);
	if (!found)
	{
		HsBytesKey *k;

		MemoryContextSwitchTo(w->touched_cxt);
		k = palloc(sizeof(HsBytesKey));
		k->data = palloc(pk.len + 1);
		memcpy(k->data, pk.data, pk.len);
		k->len = pk.len;
		(void) hash_search(w->touched, k, HASH_ENTER, NULL);
		w->touched_list = lappend(w->touched_list, k);
	}
	MemoryContextSwitchTo(old);
}

/* Scan state: a partition's rows into the relation, or its shown rows. */
typedef struct Visit
{
	OverWindowExec *w;
	int			prefix_len;
	int32		ord;
	Tuplestorestate *ts;		/* rows: into the relation */
	Datum	   *values;
	bool	   *nulls;
	HTAB	   *counts;			/* shown: bytes -> count */
} Visit;

typedef struct CountEntry
{
	HsBytesKey	key;			/* row bytes (hash key: must be first) */
	int64		count;
} CountEntry;

static bool
visit_row(const char *key, int keylen, const char *value, int vlen, void *arg)
{
	Visit	   *v = arg;

	HsRowsPut(v->ts, v->w->enr_desc, v->ord, v->w->in_desc, key + v->prefix_len,
			  keylen - v->prefix_len, HsCountedRowCount(value), v->values, v->nulls);
	return true;
}

static bool
visit_shown(const char *key, int keylen, const char *value, int vlen, void *arg)
{
	Visit	   *v = arg;
	HsBytesKey	k;
	CountEntry *e;
	bool		found;

	k.data = palloc(keylen - v->prefix_len + 1);
	memcpy(k.data, key + v->prefix_len, keylen - v->prefix_len);
	k.len = keylen - v->prefix_len;
	e = hash_search(v->counts, &k, HASH_ENTER, &found);
	if (!found)
		e->count = 0;
	e->count += HsCountedRowCount(value);
	return true;
}

/* ---------------------------------------------------------------------
 * The flush
 * ---------------------------------------------------------------------
 */

/* Collects the output rows of the query, per partition ordinal. */
typedef struct WindowReceiver
{
	DestReceiver pub;
	OverWindowExec *w;
	HTAB	  **counts;			/* per ordinal: output row bytes -> count */
	int			n;
	MemoryContext cxt;			/* where the bytes are kept */
} WindowReceiver;

static bool
window_receive(TupleTableSlot *slot, DestReceiver *self)
{
	WindowReceiver *r = (WindowReceiver *) self;
	TupleDesc	out = r->w->exec.out_desc;
	Datum	   *values;
	bool	   *nulls;
	MinimalTuple mt;
	HsBytesKey	k;
	CountEntry *e;
	bool		found;
	int			ord;

	MemoryContext old = MemoryContextSwitchTo(r->cxt);

	slot_getallattrs(slot);
	ord = DatumGetInt32(slot->tts_values[0]);
	if (ord < 0 || ord >= r->n)
		elog(ERROR, "recomputed window row for unknown partition %d", ord);
	/* the output row: input columns, then the functions (without ord) */
	values = palloc(sizeof(Datum) * out->natts);
	nulls = palloc(sizeof(bool) * out->natts);
	for (int c = 0; c < out->natts; c++)
	{
		values[c] = slot->tts_values[c + 1];
		nulls[c] = slot->tts_isnull[c + 1];
	}
	mt = HsCanonicalTuple(out, values, nulls);
	k.data = (char *) mt;
	k.len = mt->t_len;
	e = hash_search(r->counts[ord], &k, HASH_ENTER, &found);
	if (!found)
		e->count = 0;
	e->count++;
	MemoryContextSwitchTo(old);
	return true;
}

/* An output row's bytes (a canonical MinimalTuple) as a row, emitted. */
static void
emit_row(OverWindowExec *w, const HsBytesKey *bytes, int64 count, int sign)
{
	TupleTableSlot *out = w->exec.out;
	MinimalTuple copy;

	ExecClearTuple(out);
	copy = HsStoredRowCopyDeform(w->exec.out_desc, bytes->data, bytes->len,
								 out->tts_values, out->tts_isnull);
	ExecStoreVirtualTuple(out);
	for (int64 i = 0; i < count; i++)
		HsExecEmit(&w->exec, out, sign);
	pfree(copy);
}

static HTAB *
count_table(const char *name, MemoryContext cxt)
{
	return HsBytesKeyHashCreate(name, sizeof(CountEntry), 64, cxt);
}

static void
over_window_flush(HsExec *self)
{
	OverWindowExec *w = (OverWindowExec *) self;
	int			n = list_length(w->touched_list);
	MemoryContext cxt;
	MemoryContext old;
	Tuplestorestate *ts;
	Visit		v;
	HTAB	  **fresh;
	HTAB	  **shown;
	WindowReceiver rr;
	ListCell   *lc;
	int			i;

	if (n == 0)
	{
		HsExecFlush(self->downstream);
		return;
	}
	cxt = AllocSetContextCreate(CurrentMemoryContext, "hummock_stream window flush",
								ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(cxt);

	/* every touched partition's rows, in one relation */
	ts = tuplestore_begin_heap(false, false, work_mem);
	memset(&v, 0, sizeof(v));
	v.w = w;
	v.ts = ts;
	v.values = palloc(sizeof(Datum) * w->enr_desc->natts);
	v.nulls = palloc(sizeof(bool) * w->enr_desc->natts);
	i = 0;
	foreach(lc, w->touched_list)
	{
		HsBytesKey *pk = lfirst(lc);

		v.prefix_len = pk->len;
		v.ord = i++;
		HsStateTableScanPrefix(w->rows, pk->data, pk->len, visit_row, &v);
	}

	/* their new output rows */
	fresh = palloc(sizeof(HTAB *) * n);
	for (i = 0; i < n; i++)
		fresh[i] = count_table("hummock_stream window rows", cxt);
	memset(&rr, 0, sizeof(rr));
	HsRowsReceiverInit(&rr.pub, window_receive);
	rr.w = w;
	rr.counts = fresh;
	rr.n = n;
	rr.cxt = cxt;
	HsRowsQueryRun(w->plan, "hummock_stream: recompute window functions", ROWS_ENR_NAME,
				   w->enr_desc, ts, &rr.pub);
	tuplestore_end(ts);

	/*
	 * Per partition: what it showed against what it shows now.  All the
	 * deletes of all partitions go first: a row keyed by the view's key
	 * may move from one partition to another.
	 */
	shown = palloc(sizeof(HTAB *) * n);
	i = 0;
	foreach(lc, w->touched_list)
	{
		HsBytesKey *pk = lfirst(lc);
		HASH_SEQ_STATUS status;
		CountEntry *e;

		shown[i] = count_table("hummock_stream window shown", cxt);
		v.prefix_len = pk->len;
		v.counts = shown[i];
		HsStateTableScanPrefix(w->shown, pk->data, pk->len, visit_shown, &v);
		hash_seq_init(&status, shown[i]);
		while ((e = hash_seq_search(&status)) != NULL)
		{
			CountEntry *f = hash_search(fresh[i], &e->key, HASH_FIND, NULL);
			int64		gone = e->count - (f ? f->count : 0);

			if (gone > 0)
			{
				emit_row(w, &e->key, gone, -1);
				count_apply(w, w->shown, pk, e->key.data, e->key.len, -gone);
			}
		}
		i++;
	}
	i = 0;
	foreach(lc, w->touched_list)
	{
		HsBytesKey *pk = lfirst(lc);
		HASH_SEQ_STATUS status;
		CountEntry *e;

		hash_seq_init(&status, fresh[i]);
		while ((e = hash_seq_search(&status)) != NULL)
		{
			CountEntry *o = hash_search(shown[i], &e->key, HASH_FIND, NULL);
			int64		added = e->count - (o ? o->count : 0);

			if (added > 0)
			{
				emit_row(w, &e->key, added, +1);
				count_apply(w, w->shown, pk, e->key.data, e->key.len, added);
			}
		}
		i++;
	}
	MemoryContextSwitchTo(old);
	MemoryContextDelete(cxt);

	MemoryContextReset(w->touched_cxt);
	w->touched = HsBytesKeyHashCreate("hummock_stream window partitions", sizeof(HsBytesKey),
									  64, w->touched_cxt);
	w->touched_list = NIL;
	HsExecFlush(self->downstream);
}

static const HsExecMethods over_window_methods = {
	.name = "OverWindow",
	.push = over_window_push,
	.flush = over_window_flush,
	.out_ops = &TTSOpsVirtual,
	.row_context = "hummock_stream window row",
};

HsExec *
HsExecOverWindowCreate(TupleDesc in_desc, List *partition_exprs, List *funcs,
					   List *windows, List *order_exprs,
					   HsStateTable *rows, HsStateTable *shown)
{
	int			natts = in_desc->natts;
	int			nfuncs = list_length(funcs);
	TupleDesc	out = CreateTemplateTupleDesc(natts + nfuncs);
	OverWindowExec *w;
	ListCell   *lc;
	int			k = 0;

	for (int c = 0; c < natts; c++)
		TupleDescCopyEntry(out, c + 1, in_desc, c + 1);
	foreach(lc, funcs)
	{
		WindowFunc *f = lfirst(lc);

		TupleDescInitEntry(out, natts + k + 1, NULL, f->wintype, -1, 0);
		TupleDescInitEntryCollation(out, natts + k + 1, f->wincollid);
		k++;
	}
	w = HsExecCreate(sizeof(OverWindowExec), &over_window_methods, out);
	w->in_desc = in_desc;
	w->nfuncs = nfuncs;
	w->rows = rows;
	w->shown = shown;
	w->econtext = CreateStandaloneExprContext();
	foreach(lc, partition_exprs)
		w->partition_states = lappend(w->partition_states, ExecInitExpr(lfirst(lc), NULL));
	w->enr_desc = CreateTemplateTupleDesc(natts + 1);
	TupleDescInitEntry(w->enr_desc, 1, "ord", INT4OID, -1, 0);
	for (int c = 0; c < natts; c++)
	{
		Form_pg_attribute att = TupleDescAttr(in_desc, c);
		char		name[32];

		snprintf(name, sizeof(name), "c%d", c + 1);
		TupleDescInitEntry(w->enr_desc, c + 2, name, att->atttypid, att->atttypmod, 0);
		TupleDescInitEntryCollation(w->enr_desc, c + 2, att->attcollation);
	}
	w->plan = plan_windows(w, funcs, windows, order_exprs);
	w->touched_cxt = AllocSetContextCreate(CurrentMemoryContext, "hummock_stream window partitions",
										   ALLOCSET_DEFAULT_SIZES);
	w->touched = HsBytesKeyHashCreate("hummock_stream window partitions", sizeof(HsBytesKey),
									  64, w->touched_cxt);
	initStringInfo(&w->key);
	return &w->exec;
}
