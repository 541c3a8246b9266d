/*-------------------------------------------------------------------------
 *
 * exec_hash_agg.c
 *	  Streaming hash aggregation with retractable state: the executor
 *	  (groups, their cache, the flush).
 *
 * Every group is identified by the memcmp encoding of its key columns and
 * has, per aggregate call, accumulators that can take rows back out
 * (agg_accumulators.c), plus the group's row count: a group exists while
 * it has rows.  Min/max and DISTINCT calls also keep per (group, call,
 * value) how many inputs have the value, in the min/max state table
 * (agg_ordered_state.c).  Any other call (RECOMPUTE) is computed again by
 * Postgres, from the group's kept rows, for every group an epoch touches
 * (agg_recompute.c): at a flush, all touched groups in one query.  A call
 * with FILTER leaves out the rows whose filter column is not true.  A
 * call of an aggregate with moving-aggregate support (MOVING) keeps its
 * moving transition state instead, and its group's kept rows only to
 * rebuild that state when its inverse function cannot take a row out
 * (agg_moving.c).
 *
 * Changes to a group are applied as rows arrive; at the end of the epoch
 * each touched group emits the delete of its output row as it was before
 * the epoch (if it had one and it changed) and the insert of the new one,
 * and writes its state row (or deletes it when the group has no rows).
 * Without group keys there is always exactly one group and one output
 * row, as Postgres returns for an aggregate over no rows; its state row
 * stays at zero rows.
 *
 * State row format (persisted): a stored row (stored_row.c) of the "state
 * descriptor": the group's key columns, its row count (int8), then per
 * call the AGG_STATE_COLS_PER_CALL columns of its accumulators, documented
 * in agg_accumulators.c.  Key: the group's key.
 *
 * Memory: groups are cached in a hash table; when it holds more than
 * hummock_stream.agg_cache_groups groups (or 64 MB) after a flush, it is
 * emptied (every group is clean then; the next touch reloads it from the
 * state table).
 *
 * src/stream/executor/exec_hash_agg.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "executor/tuptable.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"

#include "hummock_stream/row/memcmp_key.h"
#include "hummock_stream/row/stored_row.h"
#include "hummock_stream/stream/bytes_key_hash.h"
#include "hummock_stream/stream/executor.h"

#include "agg_internal.h"

int			hs_agg_cache_groups = 100000;

/* Bytes the group cache may hold before it is emptied after a flush. */
#define AGG_CACHE_MAX_BYTES ((Size) 64 * 1024 * 1024)

typedef HsBytesKey GroupKey;

typedef struct AggGroup
{
	GroupKey	key;			/* hash key: must be first */
	Datum	   *keyvals;
	bool	   *keynulls;
	int64		rows;
	AggAcc	   *acc;
	bool		dirty;
	char	   *stored;			/* state row as stored, or NULL */
	int			stored_len;
	bool		had_output;		/* output row before this epoch */
	Datum	   *before;
	bool	   *before_null;
	struct AggGroup *next_dirty;
} AggGroup;

typedef struct HashAggExec
{
	HsExec		exec;			/* exec.out: virtual; exec.row_cxt: per row */
	TupleDesc	in_desc;
	int			nkeys;
	int			ncalls;
	HsAggCall  *calls;
	AggSumOps  *sums;			/* per call */
	AggValueCounts *vcs;		/* per min/max or DISTINCT call */
	AggPendingCounts pending;	/* their changes not yet in the table */
	AggRecompute *recompute;	/* kept rows of RECOMPUTE and MOVING calls,
								 * or NULL */
	AggMoving  *movings;		/* per call: MOVING calls' functions */
	TupleDesc	state_desc;
	HsStateTable *state;
	bool		always_one_group;
	FmgrInfo   *identity;		/* HsExecHashAggIdentifyRows: the send
								 * functions of the key columns whose
								 * encoding folds values, or NULL */
	int			nrowkey;		/* HsExecHashAggKeepValuesByRow: the input */
	int		   *rowkey_cols;	/* rows' unique key columns, or 0 */
	MemoryContext group_cxt;	/* groups and their datums */
	HTAB	   *groups;
	AggGroup   *dirty;
	StringInfoData buf;
	StringInfoData buf2;
	StringInfoData rowkey;		/* the pushed row's unique key, encoded */
} HashAggExec;

/* ---------------------------------------------------------------------
 * Groups
 * ---------------------------------------------------------------------
 */

static void
create_groups(HashAggExec *a)
{
	MemoryContextReset(a->group_cxt);
	a->groups = HsBytesKeyHashCreate("hummock_stream aggregation groups", sizeof(AggGroup),
									 1024, a->group_cxt);
	a->dirty = NULL;
}

/* The output values of group g as its accumulators say now. */
static void
group_output(HashAggExec *a, AggGroup *g, Datum *values, bool *nulls)
{
	for (int k = 0; k < a->nkeys; k++)
	{
		values[k] = g->keyvals[k];
		nulls[k] = g->keynulls[k];
	}
	for (int i = 0; i < a->ncalls; i++)
	{
		int			c = a->nkeys + i;

		if (a->calls[i].kind == HS_AGG_MOVING)
			values[c] = AggMovingResult(&a->movings[i], &g->acc[i], &nulls[c]);
		else
			values[c] = AggAccResult(&a->calls[i], &a->sums[i], &g->acc[i], g->rows,
									 &nulls[c]);
	}
}

/* Encode the state row of g into a->buf. */
static void
encode_state(HashAggExec *a, AggGroup *g)
{
	int			natts = a->state_desc->natts;
	Datum	   *values = palloc(sizeof(Datum) * natts);
	bool	   *nulls = palloc0(sizeof(bool) * natts);
	int			c = 0;

	for (int k = 0; k < a->nkeys; k++, c++)
	{
		values[c] = g->keyvals[k];
		nulls[c] = g->keynulls[k];
	}
	values[c++] = Int64GetDatum(g->rows);
	for (int i = 0; i < a->ncalls; i++)
	{
		AggAccEncode(&g->acc[i], &values[c], &nulls[c]);
		c += AGG_STATE_COLS_PER_CALL;
	}
	HsStoredRowFormInto(&a->buf, a->state_desc, values, nulls);
	pfree(values);
	pfree(nulls);
}

/* Find or load the group of key (in a->buf2); values are the input row. */
static AggGroup *
lookup_group(HashAggExec *a, TupleTableSlot *row)
{
	GroupKey	k;
	AggGroup   *g;
	bool		found;
	MemoryContext old;
	StringInfoData stored;

	k.data = a->buf2.data;
	k.len = a->buf2.len;
	g = hash_search(a->groups, &k, HASH_ENTER, &found);
	if (found)
		return g;

	old = MemoryContextSwitchTo(a->group_cxt);
	g->key.data = palloc(k.len + 1);
	memcpy(g->key.data, k.data, k.len);
	g->key.len = k.len;
	g->keyvals = palloc0(sizeof(Datum) * Max(a->nkeys, 1));
	g->keynulls = palloc0(sizeof(bool) * Max(a->nkeys, 1));
	g->acc = palloc0(sizeof(AggAcc) * Max(a->ncalls, 1));
	g->before = palloc0(sizeof(Datum) * (a->nkeys + a->ncalls + 1));
	g->before_null = palloc0(sizeof(bool) * (a->nkeys + a->ncalls + 1));
	g->dirty = false;
	g->stored = NULL;
	g->rows = 0;
	for (int i = 0; i < a->ncalls; i++)
		AggAccInit(&g->acc[i]);
	MemoryContextSwitchTo(old);

	initStringInfo(&stored);
	if (HsStateTableGet(a->state, k.data, k.len, &stored))
	{
		int			natts = a->state_desc->natts;
		Datum	   *values = palloc(sizeof(Datum) * natts);
		bool	   *nulls = palloc(sizeof(bool) * natts);
		int			c = 0;

		HsStoredRowDeform(a->state_desc, stored.data, values, nulls);
		old = MemoryContextSwitchTo(a->group_cxt);
		g->stored = palloc(stored.len);
		memcpy(g->stored, stored.data, stored.len);
		g->stored_len = stored.len;
		for (int kk = 0; kk < a->nkeys; kk++, c++)
		{
			g->keynulls[kk] = nulls[c];
			g->keyvals[kk] = nulls[c] ? (Datum) 0 :
				copy_att_datum(values[c], TupleDescAttr(a->in_desc, kk));
		}
		g->rows = DatumGetInt64(values[c++]);
		for (int i = 0; i < a->ncalls; i++)
		{
			AggAccDecode(&g->acc[i], &a->calls[i], &a->sums[i], a->vcs[i].identity_send,
						 &values[c], &nulls[c], a->group_cxt);
			c += AGG_STATE_COLS_PER_CALL;
		}
		MemoryContextSwitchTo(old);
		pfree(values);
		pfree(nulls);
	}
	else
	{
		/* a new group: its key values come from the row */
		for (int i = 0; i < a->ncalls; i++)
			if (a->calls[i].kind == HS_AGG_MOVING)
				AggMovingReset(&a->movings[i], &g->acc[i], a->group_cxt);
		old = MemoryContextSwitchTo(a->group_cxt);
		for (int kk = 0; kk < a->nkeys; kk++)
		{
			bool		isnull;
			Datum		d = slot_getattr(row, kk + 1, &isnull);

			g->keynulls[kk] = isnull;
			g->keyvals[kk] = isnull ? (Datum) 0 :
				copy_att_datum(d, TupleDescAttr(a->in_desc, kk));
		}
		MemoryContextSwitchTo(old);
	}
	pfree(stored.data);
	return g;
}

/* First change of g in this epoch: remember its output before. */
static void
touch_group(HashAggExec *a, AggGroup *g)
{
	MemoryContext old;

	if (g->dirty)
		return;
	g->dirty = true;
	g->next_dirty = a->dirty;
	a->dirty = g;
	/* without GROUP BY the one row exists once its state row does */
	g->had_output = a->always_one_group ? g->stored != NULL : g->rows > 0;
	if (!g->had_output)
		return;
	old = MemoryContextSwitchTo(a->group_cxt);
	group_output(a, g, g->before, g->before_null);
	/* avg's value is computed: keep a copy the accumulators cannot free */
	for (int i = 0; i < a->ncalls; i++)
	{
		int			c = a->nkeys + i;

		if (!g->before_null[c] && !TupleDescAttr(a->exec.out_desc, c)->attbyval)
			g->before[c] = copy_att_datum(g->before[c], TupleDescAttr(a->exec.out_desc, c));
	}
	MemoryContextSwitchTo(old);
}

/* Add (sign > 0) or take out the input v of call i to its accumulators acc. */
static void
acc_add(HashAggExec *a, int i, AggAcc *acc, Datum v, int sign)
{
	acc->count += sign;
	switch (a->calls[i].kind)
	{
		case HS_AGG_SUM:
		case HS_AGG_AVG:
			AggAccAddSum(acc, &a->sums[i], a->calls[i].argtype, v, sign, a->group_cxt);
			break;
		case HS_AGG_BOOL_AND:
		case HS_AGG_BOOL_OR:
			if (DatumGetBool(v))
				acc->ntrue += sign;
			break;
		default:
			break;
	}
}

/* AggDistinctChanged: a DISTINCT call's value joined or left a group. */
static void
distinct_changed(void *arg, int callno, AggAcc *acc, Datum v, int sign)
{
	acc_add((HashAggExec *) arg, callno, acc, v, sign);
}

static void
hash_agg_push(HsExec *self, TupleTableSlot *row, int sign)
{
	HashAggExec *a = (HashAggExec *) self;
	AggGroup   *g;
	MemoryContext old;
	TupleTableSlot *kept_row = NULL;

	MemoryContextReset(a->exec.row_cxt);
	old = MemoryContextSwitchTo(a->exec.row_cxt);
	slot_getallattrs(row);

	resetStringInfo(&a->buf2);
	for (int k = 0; k < a->nkeys; k++)
		HsMemcmpEncode(&a->buf2, row->tts_values[k], row->tts_isnull[k],
					   TupleDescAttr(a->in_desc, k)->atttypid, false);
	for (int k = 0; a->identity && k < a->nkeys; k++)
		HsMemcmpAppendIdentity(&a->buf2, row->tts_values[k], row->tts_isnull[k],
							   &a->identity[k]);
	g = lookup_group(a, row);
	touch_group(a, g);
	g->rows += sign;
	resetStringInfo(&a->rowkey);
	for (int k = 0; k < a->nrowkey; k++)
	{
		int			c = a->rowkey_cols[k];

		HsMemcmpEncode(&a->rowkey, row->tts_values[c], row->tts_isnull[c],
					   TupleDescAttr(a->in_desc, c)->atttypid, false);
	}

	for (int i = 0; i < a->ncalls; i++)
	{
		HsAggCall  *call = &a->calls[i];
		AggAcc	   *acc = &g->acc[i];
		Datum		v;

		if (call->kind == HS_AGG_COUNT_STAR || call->kind == HS_AGG_RECOMPUTE)
			continue;
		if (call->kind == HS_AGG_MOVING)
		{
			if (kept_row == NULL)
				kept_row = AggRecomputeRowSlot(a->recompute, row);
			AggMovingApply(&a->movings[i], acc, kept_row, sign, a->group_cxt);
			continue;
		}
		if (call->filter >= 0 &&
			(row->tts_isnull[call->filter] || !DatumGetBool(row->tts_values[call->filter])))
			continue;
		if (row->tts_isnull[call->arg])
			continue;
		v = row->tts_values[call->arg];
		if (call->distinct)
		{
			/* the accumulator sees the value when its count leaves or reaches 0 */
			AggValueCountsAdd(&a->pending, &a->vcs[i], &g->key, acc, v, sign,
							  HsSliceMake(a->rowkey.data, a->rowkey.len), a->group_cxt);
			continue;
		}
		acc_add(a, i, acc, v, sign);
		if (call->kind == HS_AGG_MIN || call->kind == HS_AGG_MAX)
			AggValueCountsAdd(&a->pending, &a->vcs[i], &g->key, acc, v, sign,
							  HsSliceMake(a->rowkey.data, a->rowkey.len), a->group_cxt);
	}
	if (a->recompute)
		AggRecomputeApply(a->recompute, &g->key, row, sign);
	MemoryContextSwitchTo(old);
	if (AggPendingFull(&a->pending))
		AggPendingApply(&a->pending, distinct_changed, a, a->group_cxt);
}

typedef struct RebuildArg
{
	AggMoving  *m;
	AggAcc	   *acc;
	MemoryContext group_cxt;
} RebuildArg;

static void
rebuild_add_kept(void *arg, TupleTableSlot *rows_slot, int64 count)
{
	RebuildArg *rb = arg;

	AggMovingAddKept(rb->m, rb->acc, rows_slot, count, rb->group_cxt);
}

/*
 * Rebuild the moving states an inverse transition function could not
 * take a row out of, from their groups' kept rows (agg_moving.c).
 */
static void
rebuild_lost_states(HashAggExec *a)
{
	for (AggGroup *g = a->dirty; g != NULL; g = g->next_dirty)
		for (int i = 0; i < a->ncalls; i++)
		{
			RebuildArg	rb;

			if (a->calls[i].kind != HS_AGG_MOVING || !g->acc[i].rescan)
				continue;
			rb.m = &a->movings[i];
			rb.acc = &g->acc[i];
			rb.group_cxt = a->group_cxt;
			AggMovingReset(rb.m, rb.acc, a->group_cxt);
			if (g->rows > 0 || a->always_one_group)
			{
				MemoryContext old;

				MemoryContextReset(a->exec.row_cxt);
				old = MemoryContextSwitchTo(a->exec.row_cxt);
				AggRecomputeScanGroup(a->recompute, &g->key, rebuild_add_kept, &rb);
				MemoryContextSwitchTo(old);
			}
		}
}

/* Find again the min/max extremes of dirty groups whose extreme went. */
static void
rescan_extremes(HashAggExec *a)
{
	AggRescan  *rescans = NULL;
	int			n = 0;
	int			cap = 0;

	for (AggGroup *g = a->dirty; g != NULL; g = g->next_dirty)
		for (int i = 0; i < a->ncalls; i++)
			if (g->acc[i].rescan)
			{
				if (n == cap)
				{
					cap = Max(cap * 2, 64);
					rescans = rescans ? repalloc_huge(rescans, sizeof(AggRescan) * cap) :
						palloc(sizeof(AggRescan) * cap);
				}
				rescans[n].vc = &a->vcs[i];
				rescans[n].group = &g->key;
				rescans[n++].acc = &g->acc[i];
			}
	if (n > 0)
	{
		AggMinMaxRescanAll(rescans, n, a->group_cxt);
		pfree(rescans);
	}
}

/*
 * Recompute the RECOMPUTE calls of every dirty group that has rows (or is
 * the one group without GROUP BY), in one query.
 */
static void
recompute_dirty(HashAggExec *a)
{
	AggRecompute *r = a->recompute;
	int			n = 0;
	int			max = 0;
	AggGroup   *g;
	AggGroup  **groups;
	const HsBytesKey **keys;
	Datum	   *results;
	bool	   *nulls;
	MemoryContext old;

	for (g = a->dirty; g != NULL; g = g->next_dirty)
		max++;
	if (max == 0)
		return;
	MemoryContextReset(a->exec.row_cxt);
	old = MemoryContextSwitchTo(a->exec.row_cxt);
	groups = palloc(sizeof(AggGroup *) * max);
	keys = palloc(sizeof(HsBytesKey *) * max);
	for (g = a->dirty; g != NULL; g = g->next_dirty)
		if (g->rows > 0 || a->always_one_group)
		{
			groups[n] = g;
			keys[n++] = &g->key;
		}
	if (n > 0)
	{
		results = palloc(sizeof(Datum) * n * r->ncalls);
		nulls = palloc(sizeof(bool) * n * r->ncalls);
		/* the values live with their groups */
		MemoryContextSwitchTo(a->group_cxt);
		AggRecomputeRun(r, keys, n, results, nulls);
		for (int i = 0; i < n; i++)
			for (int k = 0; k < r->ncalls; k++)
			{
				AggAcc	   *acc = &groups[i]->acc[r->callno[k]];

				acc->val = results[i * r->ncalls + k];
				acc->val_null = nulls[i * r->ncalls + k];
			}
	}
	MemoryContextSwitchTo(old);
}

static bool
outputs_equal(HashAggExec *a, Datum *v1, bool *n1, Datum *v2, bool *n2)
{
	TupleDesc	d = a->exec.out_desc;

	for (int c = 0; c < d->natts; c++)
	{
		Form_pg_attribute att = TupleDescAttr(d, c);

		if (n1[c] != n2[c])
			return false;
		if (!n1[c] && !datumIsEqual(v1[c], v2[c], att->attbyval, att->attlen))
			return false;
	}
	return true;
}

static void
emit(HashAggExec *a, Datum *values, bool *nulls, int sign)
{
	TupleTableSlot *out = a->exec.out;

	ExecClearTuple(out);
	memcpy(out->tts_values, values, sizeof(Datum) * out->tts_tupleDescriptor->natts);
	memcpy(out->tts_isnull, nulls, sizeof(bool) * out->tts_tupleDescriptor->natts);
	ExecStoreVirtualTuple(out);
	HsExecEmit(&a->exec, out, sign);
}

static void
hash_agg_flush(HsExec *self)
{
	HashAggExec *a = (HashAggExec *) self;
	int			natts = self->out_desc->natts;
	Datum	   *values = palloc(sizeof(Datum) * natts);
	bool	   *nulls = palloc(sizeof(bool) * natts);
	AggGroup   *g;
	MemoryContext old;

	if (a->always_one_group)
	{
		/* the first epoch emits the row even if no input arrived */
		MemoryContextReset(a->exec.row_cxt);
		old = MemoryContextSwitchTo(a->exec.row_cxt);
		resetStringInfo(&a->buf2);
		g = lookup_group(a, NULL);
		if (g->stored == NULL)
			touch_group(a, g);
		MemoryContextSwitchTo(old);
	}
	AggPendingApply(&a->pending, distinct_changed, a, a->group_cxt);
	if (a->recompute && a->recompute->ncalls > 0)
		recompute_dirty(a);
	if (a->movings)
		rebuild_lost_states(a);
	rescan_extremes(a);
	for (g = a->dirty; g != NULL; g = g->next_dirty)
	{
		bool		exists;

		MemoryContextReset(a->exec.row_cxt);
		old = MemoryContextSwitchTo(a->exec.row_cxt);
		exists = g->rows > 0 || a->always_one_group;
		if (exists)
			group_output(a, g, values, nulls);
		if (g->had_output && exists &&
			outputs_equal(a, g->before, g->before_null, values, nulls))
			;					/* nothing visible changed */
		else
		{
			if (g->had_output)
				emit(a, g->before, g->before_null, -1);
			if (exists)
				emit(a, values, nulls, +1);
		}

		/* the state row (kept at zero rows without GROUP BY: the row stays) */
		if (g->rows == 0 && !a->always_one_group)
		{
			if (g->stored)
			{
				HsStateTableDelete(a->state, g->key.data, g->key.len, g->stored, g->stored_len);
				pfree(g->stored);
			}
			g->stored = NULL;
		}
		else
		{
			encode_state(a, g);
			HsStateTablePut(a->state, g->key.data, g->key.len,
							g->stored, g->stored_len, a->buf.data, a->buf.len);
			MemoryContextSwitchTo(a->group_cxt);
			if (g->stored)
				pfree(g->stored);	/* the group's row of the last epoch */
			g->stored = palloc(a->buf.len);
			memcpy(g->stored, a->buf.data, a->buf.len);
			g->stored_len = a->buf.len;
		}
		g->dirty = false;
		MemoryContextSwitchTo(old);
	}
	a->dirty = NULL;
	pfree(values);
	pfree(nulls);
	/* bound the cache (all groups are clean now) */
	if (hash_get_num_entries(a->groups) > hs_agg_cache_groups ||
		MemoryContextMemAllocated(a->group_cxt, true) > AGG_CACHE_MAX_BYTES)
		create_groups(a);
	HsExecFlush(self->downstream);
}

static void
hash_agg_reset(HsExec *self)
{
	HashAggExec *a = (HashAggExec *) self;

	AggPendingDiscard(&a->pending);
	create_groups(a);
}

static const HsExecMethods hash_agg_methods = {
	.name = "HashAgg",
	.push = hash_agg_push,
	.flush = hash_agg_flush,
	.reset = hash_agg_reset,
	.out_ops = &TTSOpsVirtual,
	.row_context = "hummock_stream agg row",
};

HsExec *
HsExecHashAggCreate(TupleDesc in_desc, int nkeys, HsAggCall *calls, int ncalls,
					const HsAggKeptRows *kept, HsStateTable *state, HsStateTable *minmax,
					bool always_one_group)
{
	HashAggExec *a;
	AggSumOps  *sums = palloc0(sizeof(AggSumOps) * Max(ncalls, 1));
	TupleDesc	out = CreateTemplateTupleDesc(nkeys + ncalls);
	TupleDesc	state_desc;
	int			c;

	for (int k = 0; k < nkeys; k++)
		TupleDescCopyEntry(out, k + 1, in_desc, k + 1);
	state_desc = CreateTemplateTupleDesc(nkeys + 1 + AGG_STATE_COLS_PER_CALL * ncalls);
	for (int k = 0; k < nkeys; k++)
		TupleDescCopyEntry(state_desc, k + 1, in_desc, k + 1);
	c = nkeys + 1;
	TupleDescInitEntry(state_desc, c++, "rows", INT8OID, -1, 0);
	for (int i = 0; i < ncalls; i++)
	{
		HsAggCall  *call = &calls[i];

		if ((call->kind == HS_AGG_SUM || call->kind == HS_AGG_AVG) &&
			!AggSumOpsFor(call->kind, call->argtype, call->exact_float_sum, &sums[i]))
			elog(ERROR, "unsupported streaming aggregate argument type %u", call->argtype);
		TupleDescInitEntry(out, nkeys + i + 1, NULL, call->restype, -1, 0);
		/* min and max return a value of their argument, under its collation */
		if ((call->kind == HS_AGG_MIN || call->kind == HS_AGG_MAX) && call->arg >= 0 &&
			call->restype == TupleDescAttr(in_desc, call->arg)->atttypid)
			TupleDescInitEntryCollation(out, nkeys + i + 1,
										TupleDescAttr(in_desc, call->arg)->attcollation);
		AggAccDescribe(state_desc, c, call, &sums[i]);
		c += AGG_STATE_COLS_PER_CALL;
	}

	a = HsExecCreate(sizeof(HashAggExec), &hash_agg_methods, out);
	a->in_desc = in_desc;
	a->nkeys = nkeys;
	a->ncalls = ncalls;
	a->calls = calls;
	a->sums = sums;
	a->state_desc = state_desc;
	a->state = state;
	a->always_one_group = always_one_group;
	a->vcs = palloc0(sizeof(AggValueCounts) * Max(ncalls, 1));
	for (int i = 0; i < ncalls; i++)
		if (calls[i].kind == HS_AGG_MIN || calls[i].kind == HS_AGG_MAX || calls[i].distinct)
			AggValueCountsInit(&a->vcs[i], minmax, i, &calls[i], false);
	for (int i = 0; i < ncalls; i++)
		if ((calls[i].kind == HS_AGG_RECOMPUTE || calls[i].kind == HS_AGG_MOVING) &&
			a->recompute == NULL)
		{
			if (minmax == NULL || kept == NULL)
				elog(ERROR, "a recomputed aggregate call needs kept rows and their state table");
			a->recompute = palloc0(sizeof(AggRecompute));
			AggRecomputeInit(a->recompute, minmax, in_desc, kept, calls, ncalls,
							 !always_one_group);
		}
	for (int i = 0; i < ncalls; i++)
		if (calls[i].kind == HS_AGG_MOVING)
		{
			if (a->movings == NULL)
				a->movings = palloc0(sizeof(AggMoving) * ncalls);
			AggMovingInit(&a->movings[i], &calls[i]);
		}
	a->group_cxt = AllocSetContextCreate(CurrentMemoryContext, "hummock_stream agg groups",
										 ALLOCSET_DEFAULT_SIZES);
	AggPendingInit(&a->pending, CurrentMemoryContext);
	initStringInfo(&a->buf);
	initStringInfo(&a->buf2);
	initStringInfo(&a->rowkey);
	create_groups(a);
	return &a->exec;
}

void
HsExecHashAggKeepValuesByRow(HsExec *agg, int nrowkey, const int *rowkey_cols)
{
	HashAggExec *a = (HashAggExec *) agg;

	Assert(nrowkey > 0);
	a->nrowkey = nrowkey;
	a->rowkey_cols = palloc(sizeof(int) * nrowkey);
	memcpy(a->rowkey_cols, rowkey_cols, sizeof(int) * nrowkey);
	for (int i = 0; i < a->ncalls; i++)
		if ((a->calls[i].kind == HS_AGG_MIN || a->calls[i].kind == HS_AGG_MAX) &&
			!a->calls[i].distinct)
			AggValueCountsInit(&a->vcs[i], a->vcs[i].table, i, &a->calls[i], true);
}

void
HsExecHashAggIdentifyRows(HsExec *agg)
{
	HashAggExec *a = (HashAggExec *) agg;

	a->identity = HsMemcmpIdentitySends(a->in_desc, a->nkeys);
}
