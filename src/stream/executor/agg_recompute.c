/*-------------------------------------------------------------------------
 *
 * agg_recompute.c
 *	  Aggregate calls the streaming aggregation cannot take rows back out
 *	  of (array_agg, string_agg, jsonb_agg, bit_xor, stddev, corr,
 *	  percentile_cont, mode, user-defined aggregates, calls with an ORDER
 *	  BY or a DISTINCT it does not handle itself): each group keeps the
 *	  multiset of its input rows, and every group an epoch touches is
 *	  aggregated again, from those rows, by Postgres's own Agg node.
 *
 * Kept rows (persisted), in the aggregation's min/max state table:
 *
 *	key   = the group's key (memcmp encoding of its key columns)
 *			| KEPT_ROWS_MARK (one byte, 0xFF: never a call number)
 *			| the canonical bytes of the kept row (HsCanonicalTuple of the
 *			  kept columns, HsAggKeptRows)
 *	value = how many input rows have it (int64, as the count of a counted
 *			row: stored_row.h)
 *
 * So equal rows share one entry, and a group's rows are one prefix.
 *
 * Recomputing: one query per aggregation, planned once when the executor
 * is built,
 *
 *		SELECT ord, call1, call2, ... FROM rows GROUP BY ord
 *
 * (SELECT call1, ... FROM rows without group keys: one row even over no
 * rows, as Postgres aggregates an empty table), where rows is an
 * ephemeral named relation (a tuplestore, as a trigger's transition
 * table) of (ord int4, kept columns...): for every touched group its
 * ordinal and each kept row as many times as it is counted.  Each call is
 * the view's own Aggref whose arguments, FILTER and ORDER BY expressions
 * are replaced by columns of rows, so FILTER, DISTINCT, ORDER BY, direct
 * arguments and the transition and final functions are Postgres's, with
 * its privilege checks.  A group's rows come in the order of their bytes:
 * an aggregate whose result depends on the order of its input and that
 * has no ORDER BY (array_agg(x), string_agg(x, ',')) shows them in that
 * order, a valid order for the query, not always the one a scan of the
 * source would give.
 *
 * Cost: a touched group's kept rows are read and aggregated again at every
 * epoch that touches it, so an epoch costs in proportion to the sizes of
 * the groups it touches (docs/SQL.md).
 *
 * src/stream/executor/agg_recompute.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "catalog/pg_type.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/parsenodes.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "tcop/dest.h"
#include "tcop/tcopprot.h"
#include "utils/memutils.h"
#include "utils/tuplestore.h"

#include "hummock_stream/row/memcmp_key.h"
#include "hummock_stream/row/stored_row.h"

#include "agg_internal.h"
#include "rows_query.h"

#define KEPT_ROWS_MARK 0xFF

/* The name of the ephemeral relation of kept rows in the recompute query. */
#define ROWS_ENR_NAME "hummock_stream_group_rows"

/* ---------------------------------------------------------------------
 * The recompute query
 * ---------------------------------------------------------------------
 */

/*
 * Plan the recompute query of the RECOMPUTE calls among calls[0..ncalls):
 * their Aggrefs read the kept rows as columns 2.. of the relation (varno
 * 1); column 1 is the group's ordinal.
 */
static PlannedStmt *
plan_recompute(AggRecompute *r, const HsAggCall *calls, int ncalls)
{
	Query	   *q = HsRowsQuery(ROWS_ENR_NAME, r->enr_desc);
	List	   *tlist = NIL;

	q->hasAggs = true;
	if (r->grouped)
	{
		TargetEntry *ord = makeTargetEntry((Expr *) makeVar(1, 1, INT4OID, -1, InvalidOid, 0),
										   1, pstrdup("ord"), false);

		ord->ressortgroupref = 1;
		q->groupClause = list_make1(HsRowsByOrdinal(1));
		tlist = lappend(tlist, ord);
	}
	for (int i = 0; i < ncalls; i++)
		if (calls[i].kind == HS_AGG_RECOMPUTE)
			tlist = lappend(tlist, makeTargetEntry((Expr *) copyObject(calls[i].aggref),
												   list_length(tlist) + 1, NULL, false));
	q->targetList = tlist;
	return pg_plan_query(q, "hummock_stream: recompute aggregates", 0, NULL);
}

void
AggRecomputeInit(AggRecompute *r, HsStateTable *table, TupleDesc in_desc,
				 const HsAggKeptRows *kept, const HsAggCall *calls, int ncalls,
				 bool grouped)
{
	r->table = table;
	r->grouped = grouped;
	r->ncols = kept->ncols;
	r->cols = palloc(sizeof(int) * Max(kept->ncols, 1));
	memcpy(r->cols, kept->cols, sizeof(int) * kept->ncols);
	r->kept_desc = CreateTemplateTupleDesc(kept->ncols);
	r->enr_desc = CreateTemplateTupleDesc(kept->ncols + 1);
	TupleDescInitEntry(r->enr_desc, 1, "ord", INT4OID, -1, 0);
	for (int c = 0; c < kept->ncols; c++)
	{
		Form_pg_attribute att = TupleDescAttr(in_desc, kept->cols[c]);
		char		name[32];

		snprintf(name, sizeof(name), "c%d", c + 1);
		TupleDescInitEntry(r->kept_desc, c + 1, name, att->atttypid, att->atttypmod, 0);
		TupleDescInitEntryCollation(r->kept_desc, c + 1, att->attcollation);
		TupleDescInitEntry(r->enr_desc, c + 2, name, att->atttypid, att->atttypmod, 0);
		TupleDescInitEntryCollation(r->enr_desc, c + 2, att->attcollation);
	}
	r->ncalls = 0;
	r->callno = palloc(sizeof(int) * Max(ncalls, 1));
	for (int i = 0; i < ncalls; i++)
		if (calls[i].kind == HS_AGG_RECOMPUTE)
			r->callno[r->ncalls++] = i;
	/* (kept rows for MOVING calls only: nothing to recompute) */
	r->plan = r->ncalls > 0 ? plan_recompute(r, calls, ncalls) : NULL;
	r->rows_slot = MakeSingleTupleTableSlot(r->enr_desc, &TTSOpsVirtual);
	initStringInfo(&r->key);
}

/* ---------------------------------------------------------------------
 * Kept rows
 * ---------------------------------------------------------------------
 */

/* r->key = group | mark: the prefix of the group's kept rows. */
static void
kept_prefix(AggRecompute *r, const HsBytesKey *group)
{
	uint8		mark = KEPT_ROWS_MARK;

	resetStringInfo(&r->key);
	appendBinaryStringInfo(&r->key, group->data, group->len);
	appendBinaryStringInfo(&r->key, (const char *) &mark, 1);
}

void
AggRecomputeApply(AggRecompute *r, const HsBytesKey *group, TupleTableSlot *row, int sign)
{
	Datum	   *values = palloc(sizeof(Datum) * Max(r->ncols, 1));
	bool	   *nulls = palloc(sizeof(bool) * Max(r->ncols, 1));
	MinimalTuple mt;

	for (int c = 0; c < r->ncols; c++)
	{
		values[c] = row->tts_values[r->cols[c]];
		nulls[c] = row->tts_isnull[r->cols[c]];
	}
	mt = HsCanonicalTuple(r->kept_desc, values, nulls);
	kept_prefix(r, group);
	appendBinaryStringInfo(&r->key, (const char *) mt, mt->t_len);

	HsRowsCountAdd(r->table, r->key.data, r->key.len, sign, "aggregation");
	pfree(mt);
	pfree(values);
	pfree(nulls);
}

TupleTableSlot *
AggRecomputeRowSlot(AggRecompute *r, TupleTableSlot *row)
{
	TupleTableSlot *s = r->rows_slot;

	ExecClearTuple(s);
	s->tts_values[0] = Int32GetDatum(0);
	s->tts_isnull[0] = false;
	for (int c = 0; c < r->ncols; c++)
	{
		s->tts_values[c + 1] = row->tts_values[r->cols[c]];
		s->tts_isnull[c + 1] = row->tts_isnull[r->cols[c]];
	}
	return ExecStoreVirtualTuple(s);
}

typedef struct KeptScan
{
	AggRecompute *r;
	int			prefix_len;
	AggKeptRowFn fn;
	void	   *arg;
} KeptScan;

static bool
scan_group_row(const char *key, int keylen, const char *value, int vlen, void *arg)
{
	KeptScan   *st = arg;
	TupleTableSlot *s = st->r->rows_slot;
	MinimalTuple copy;

	ExecClearTuple(s);
	copy = HsStoredRowCopyDeform(st->r->kept_desc, key + st->prefix_len,
								 keylen - st->prefix_len, s->tts_values + 1, s->tts_isnull + 1);
	s->tts_values[0] = Int32GetDatum(0);
	s->tts_isnull[0] = false;
	ExecStoreVirtualTuple(s);
	st->fn(st->arg, s, HsCountedRowCount(value));
	ExecClearTuple(s);
	pfree(copy);
	return true;
}

void
AggRecomputeScanGroup(AggRecompute *r, const HsBytesKey *group, AggKeptRowFn fn, void *arg)
{
	KeptScan	st;

	kept_prefix(r, group);
	st.r = r;
	st.prefix_len = r->key.len;
	st.fn = fn;
	st.arg = arg;
	HsStateTableScanPrefix(r->table, r->key.data, r->key.len, scan_group_row, &st);
}

/* Adds the kept rows of a group (its ordinal ord) to the tuplestore. */
typedef struct FillState
{
	AggRecompute *r;
	Tuplestorestate *ts;
	int			prefix_len;
	int32		ord;
	Datum	   *values;			/* enr_desc->natts */
	bool	   *nulls;
} FillState;

static bool
fill_group_row(const char *key, int keylen, const char *value, int vlen, void *arg)
{
	FillState  *f = arg;

	HsRowsPut(f->ts, f->r->enr_desc, f->ord, f->r->kept_desc, key + f->prefix_len,
			  keylen - f->prefix_len, HsCountedRowCount(value), f->values, f->nulls);
	return true;
}

/* ---------------------------------------------------------------------
 * Running the query
 * ---------------------------------------------------------------------
 */

/* A DestReceiver that stores each result row's values by its ordinal. */
typedef struct ResultReceiver
{
	DestReceiver pub;
	AggRecompute *r;
	int			ngroups;
	Datum	   *results;
	bool	   *nulls;
	MemoryContext cxt;			/* where result values are copied */
} ResultReceiver;

static bool
result_receive(TupleTableSlot *slot, DestReceiver *self)
{
	ResultReceiver *rr = (ResultReceiver *) self;
	int			first = rr->r->grouped ? 1 : 0;
	int			ord = 0;
	MemoryContext old;

	slot_getallattrs(slot);
	if (rr->r->grouped)
		ord = DatumGetInt32(slot->tts_values[0]);
	if (ord < 0 || ord >= rr->ngroups)
		elog(ERROR, "recomputed aggregate row for unknown group %d", ord);
	old = MemoryContextSwitchTo(rr->cxt);
	for (int k = 0; k < rr->r->ncalls; k++)
	{
		Form_pg_attribute att = TupleDescAttr(slot->tts_tupleDescriptor, first + k);
		int			at = ord * rr->r->ncalls + k;

		rr->nulls[at] = slot->tts_isnull[first + k];
		rr->results[at] = rr->nulls[at] ? (Datum) 0 :
			datumCopy(slot->tts_values[first + k], att->attbyval, att->attlen);
	}
	MemoryContextSwitchTo(old);
	return true;
}

void
AggRecomputeRun(AggRecompute *r, const HsBytesKey *const *groups, int ngroups,
				Datum *results, bool *nulls)
{
	MemoryContext cxt = AllocSetContextCreate(CurrentMemoryContext,
											  "hummock_stream recompute",
											  ALLOCSET_DEFAULT_SIZES);
	MemoryContext caller = MemoryContextSwitchTo(cxt);
	Tuplestorestate *ts = tuplestore_begin_heap(false, false, work_mem);
	FillState	f;
	ResultReceiver rr;

	Assert(r->grouped || ngroups == 1);
	/* a group without rows shows what Postgres shows over no rows */
	for (int i = 0; i < ngroups * r->ncalls; i++)
	{
		results[i] = (Datum) 0;
		nulls[i] = true;
	}

	f.r = r;
	f.ts = ts;
	f.values = palloc(sizeof(Datum) * r->enr_desc->natts);
	f.nulls = palloc(sizeof(bool) * r->enr_desc->natts);
	for (int g = 0; g < ngroups; g++)
	{
		kept_prefix(r, groups[g]);
		f.prefix_len = r->key.len;
		f.ord = g;
		HsStateTableScanPrefix(r->table, r->key.data, r->key.len, fill_group_row, &f);
	}

	memset(&rr, 0, sizeof(rr));
	HsRowsReceiverInit(&rr.pub, result_receive);
	rr.r = r;
	rr.ngroups = ngroups;
	rr.results = results;
	rr.nulls = nulls;
	rr.cxt = caller;
	HsRowsQueryRun(r->plan, "hummock_stream: recompute aggregates", ROWS_ENR_NAME,
				   r->enr_desc, ts, &rr.pub);

	tuplestore_end(ts);
	MemoryContextSwitchTo(caller);
	MemoryContextDelete(cxt);
}
