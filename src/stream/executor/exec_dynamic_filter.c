/*-------------------------------------------------------------------------
 *
 * exec_dynamic_filter.c
 *	  A filter whose bound moves with time: the temporal filters of a
 *	  view (WHERE ts > now() - interval '1 hour').
 *
 * The condition is "key op bound": key an expression of the input row,
 * op one of < <= > >= of its type's default btree order, bound an
 * expression of the current time alone.  A view at epoch E equals its
 * query run with now() = E's time (HsEpochToTimestamp): every epoch's
 * rows are filtered with the bound of that epoch, and when the epoch's
 * time moves the bound, the rows whose key lies between the old and the
 * new bound pass from one side to the other and are emitted (inserted or
 * deleted) at that epoch.  So a row leaves the view when its time has
 * passed even though no one wrote it, as in RisingWave's dynamic filter.
 *
 * State table (one per filter):
 *   0x00                                -> int64 TimestampTz: a time
 *                                          whose bound the rows shown
 *                                          passed
 *   0x01 | memcmp(key) | canonical row  -> counted row (count, stored row)
 * Rows whose key is NULL never pass and are not kept, nor are rows for
 * which the filter's bypass condition holds (the other arguments of an
 * OR: WHERE status = 'open' OR ts > now() - interval '1 day'), which pass
 * at once whatever the time.  The keys are in
 * the key type's order, so the rows a bound change flips are one range
 * scan between the two bounds; each is compared with both (the range
 * holds the rows equal to a bound, which only one of them may pass).
 *
 * When the epoch changes (the first row or flush of an epoch, read from
 * the state table's store) the bound is moved before anything else.  The
 * time is written only at an epoch that flips rows or keeps a new row:
 * in the epochs between, no kept row lies between the stored time's bound
 * and the current one, so both show the same rows, and a view whose rows
 * do not change writes nothing (a time written every epoch made an SST
 * file per epoch per filter, most of an idle worker's cost).  The
 * bound is evaluated by Postgres (with the view's recorded settings: the
 * TimeZone of current_date) from an expression whose time functions were
 * replaced by parameter 1 (timestamptz).
 *
 * src/stream/executor/exec_dynamic_filter.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/stratnum.h"
#include "catalog/pg_type.h"
#include "executor/executor.h"
#include "nodes/params.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"

#include "hummock_stream/meta/epoch.h"
#include "hummock_stream/row/memcmp_key.h"
#include "hummock_stream/row/stored_row.h"
#include "hummock_stream/stream/executor.h"

#define KEY_APPLIED 0x00
#define KEY_ROW 0x01

typedef struct DynamicFilterExec
{
	HsExec		exec;			/* exec.row_cxt: one row's work */
	TupleDesc	in_desc;
	HsStateTable *rows;
	Oid			key_type;
	int			strategy;		/* BTLessStrategyNumber .. BTGreaterStrategyNumber */
	ExprState  *key;			/* over the input row */
	ExprState  *bypass;			/* NULL, or: rows for which it holds pass */
	ExprContext *econtext;
	Expr	   *bound_expr;		/* parameter 1: the time */
	ParamListInfo params;
	ExprState  *bound;

	/* the bound the shown rows passed (loaded lazily) */
	bool		loaded;
	HsEpoch		epoch;			/* the epoch it was checked for */
	bool		has_applied;	/* is there an applied time? */
	TimestampTz applied;
	bool		has_stored;		/* and one in the state table? */
	TimestampTz stored;			/* (its bound shows the same rows) */
	StringInfoData bound_bytes; /* its encoding; len 0: NULL (none pass) */
	MemoryContext cxt;			/* bound_bytes's */
} DynamicFilterExec;

/* The encoding of the bound at time t (empty: NULL, nothing passes). */
static void
eval_bound(DynamicFilterExec *f, TimestampTz t, StringInfo out)
{
	Datum		v;
	bool		isnull;

	resetStringInfo(out);
	f->params->params[0].value = TimestampTzGetDatum(t);
	f->params->params[0].isnull = false;
	ResetExprContext(f->econtext);
	v = ExecEvalExprSwitchContext(f->bound, f->econtext, &isnull);
	if (!isnull)
		HsMemcmpEncode(out, v, false, f->key_type, false);
}

/*
 * Does a key (its encoding at data, followed by anything) pass bound
 * (an encoding; empty: NULL)?  Encodings are prefix-free, so comparing
 * the bound's length of bytes orders the two values.
 */
static bool
passes(DynamicFilterExec *f, const char *data, int len, StringInfo bound)
{
	int			c;

	if (bound->len == 0)
		return false;
	c = memcmp(data, bound->data, Min(len, bound->len));
	switch (f->strategy)
	{
		case BTLessStrategyNumber:
			return c < 0;
		case BTLessEqualStrategyNumber:
			return c <= 0;
		case BTGreaterEqualStrategyNumber:
			return c >= 0;
		case BTGreaterStrategyNumber:
			return c > 0;
	}
	return false;
}

typedef struct FlipScan
{
	DynamicFilterExec *f;
	StringInfo	old_bound;
	StringInfo	new_bound;
	Datum	   *values;
	bool	   *nulls;
	int64		flipped;		/* rows emitted */
} FlipScan;

/* A row between the two bounds: emitted if it passes one and not the other. */
static bool
flip_row(const char *key, int keylen, const char *value, int vlen, void *arg)
{
	FlipScan   *s = arg;
	DynamicFilterExec *f = s->f;
	bool		was = passes(f, key + 1, keylen - 1, s->old_bound);
	bool		is = passes(f, key + 1, keylen - 1, s->new_bound);
	TupleTableSlot *out = f->exec.out;
	MinimalTuple copy;

	if (was == is)
		return true;
	s->flipped++;
	copy = HsStoredRowCopyDeform(f->in_desc, HsCountedRowTuple(value),
								 HsCountedRowTupleLen(vlen), s->values, s->nulls);
	ExecClearTuple(out);
	memcpy(out->tts_values, s->values, sizeof(Datum) * f->in_desc->natts);
	memcpy(out->tts_isnull, s->nulls, sizeof(bool) * f->in_desc->natts);
	ExecStoreVirtualTuple(out);
	HsExecEmit(&f->exec, out,
			   (int) (is ? HsCountedRowCount(value) : -HsCountedRowCount(value)));
	pfree(copy);
	return true;
}

/* The first key after every key that starts with buf's bytes, in place. */
static void
successor(StringInfo buf)
{
	while (buf->len > 0 && (uint8) buf->data[buf->len - 1] == 0xff)
		buf->len--;
	Assert(buf->len > 0);		/* (it starts with KEY_ROW) */
	buf->data[buf->len - 1]++;
}

/*
 * Emit the rows that pass one of the bounds and not the other: those with
 * keys from the lower bound through the higher one (with a NULL bound, all
 * those the other passes).  Returns how many rows it emitted.
 */
static int64
flip_between(DynamicFilterExec *f, StringInfo old_bound, StringInfo new_bound)
{
	bool		upward = f->strategy == BTGreaterStrategyNumber ||
		f->strategy == BTGreaterEqualStrategyNumber;
	StringInfoData lo;
	StringInfoData hi;
	FlipScan	s = {f, old_bound, new_bound, NULL, NULL, 0};

	if (old_bound->len == 0 && new_bound->len == 0)
		return 0;
	initStringInfo(&lo);
	initStringInfo(&hi);
	appendStringInfoChar(&lo, KEY_ROW);
	appendStringInfoChar(&hi, KEY_ROW);
	if (old_bound->len > 0 && new_bound->len > 0)
	{
		bool		old_lower = memcmp(old_bound->data, new_bound->data,
									   Min(old_bound->len, new_bound->len)) < 0;

		appendBinaryStringInfo(&lo, (old_lower ? old_bound : new_bound)->data,
							   (old_lower ? old_bound : new_bound)->len);
		appendBinaryStringInfo(&hi, (old_lower ? new_bound : old_bound)->data,
							   (old_lower ? new_bound : old_bound)->len);
	}
	else
	{
		StringInfo	b = old_bound->len > 0 ? old_bound : new_bound;

		if (upward)				/* from the bound on */
			appendBinaryStringInfo(&lo, b->data, b->len);
		else					/* up to the bound */
			appendBinaryStringInfo(&hi, b->data, b->len);
	}
	successor(&hi);
	s.values = palloc(sizeof(Datum) * f->in_desc->natts);
	s.nulls = palloc(sizeof(bool) * f->in_desc->natts);
	HsStateTableScanRange(f->rows, lo.data, lo.len, hi.data, hi.len, flip_row, &s);
	pfree(lo.data);
	pfree(hi.data);
	pfree(s.values);
	pfree(s.nulls);
	return s.flipped;
}

/* Write the applied time, unless the state table has it. */
static void
store_applied(DynamicFilterExec *f)
{
	char		k = KEY_APPLIED;

	if (!f->has_applied || (f->has_stored && f->stored == f->applied))
		return;
	HsStateTablePut(f->rows, &k, 1, f->has_stored ? (char *) &f->stored : NULL,
					f->has_stored ? sizeof(TimestampTz) : 0,
					(char *) &f->applied, sizeof(TimestampTz));
	f->stored = f->applied;
	f->has_stored = true;
}

/* Move the bound to the current epoch's time, once per epoch. */
static void
at_epoch(DynamicFilterExec *f)
{
	HsEpoch		e = f->rows->store->epoch;
	TimestampTz now;
	MemoryContext old;

	if (f->loaded && f->epoch == e)
		return;
	now = HsEpochToTimestamp(e);
	old = MemoryContextSwitchTo(f->cxt);
	if (!f->loaded)
	{
		StringInfoData v;
		char		k = KEY_APPLIED;

		initStringInfo(&v);
		f->has_applied = HsStateTableGet(f->rows, &k, 1, &v);
		if (f->has_applied)
		{
			memcpy(&f->applied, v.data, sizeof(TimestampTz));
			eval_bound(f, f->applied, &f->bound_bytes);
		}
		f->has_stored = f->has_applied;
		f->stored = f->applied;
		pfree(v.data);
		f->loaded = true;
	}
	if (!f->has_applied || f->applied != now)
	{
		StringInfoData nb;
		int64		flipped = 0;

		initStringInfo(&nb);
		eval_bound(f, now, &nb);
		if (f->has_applied)
			flipped = flip_between(f, &f->bound_bytes, &nb);
		pfree(f->bound_bytes.data);
		f->bound_bytes = nb;
		f->applied = now;
		f->has_applied = true;
		if (flipped > 0)
			store_applied(f);
	}
	f->epoch = e;
	MemoryContextSwitchTo(old);
}

static void
dynamic_filter_push(HsExec *self, TupleTableSlot *row, int sign)
{
	DynamicFilterExec *f = (DynamicFilterExec *) self;
	MemoryContext old;
	Datum		kv;
	bool		knull;
	StringInfoData key;
	StringInfoData cur;
	MinimalTuple mt;
	int64		count = 0;
	bool		found;

	at_epoch(f);
	MemoryContextReset(f->exec.row_cxt);
	old = MemoryContextSwitchTo(f->exec.row_cxt);
	slot_getallattrs(row);
	ResetExprContext(f->econtext);
	f->econtext->ecxt_scantuple = row;
	if (f->bypass && ExecQual(f->bypass, f->econtext))
	{
		/* passes whatever the time: not kept (its delete comes here too) */
		MemoryContextSwitchTo(old);
		HsExecEmit(&f->exec, row, sign);
		return;
	}
	kv = ExecEvalExprSwitchContext(f->key, f->econtext, &knull);
	if (knull)
	{
		/* never passes: not kept */
		MemoryContextSwitchTo(old);
		return;
	}
	store_applied(f);			/* (the rows kept change) */
	initStringInfo(&key);
	appendStringInfoChar(&key, KEY_ROW);
	HsMemcmpEncode(&key, kv, false, f->key_type, false);
	mt = HsCanonicalTuple(f->in_desc, row->tts_values, row->tts_isnull);
	appendBinaryStringInfo(&key, (char *) mt, mt->t_len);
	initStringInfo(&cur);
	found = HsStateTableGet(f->rows, key.data, key.len, &cur);
	if (found)
		count = HsCountedRowCount(cur.data);
	count += sign;
	if (count < 0)
		elog(ERROR, "streaming dynamic filter: a row was deleted that was never inserted");
	if (count == 0)
		HsStateTableDelete(f->rows, key.data, key.len, cur.data, cur.len);
	else
	{
		int			vlen;
		char	   *val = HsCountedRowForm(count, mt, &vlen);

		HsStateTablePut(f->rows, key.data, key.len, found ? cur.data : NULL, cur.len,
						val, vlen);
	}
	MemoryContextSwitchTo(old);
	if (passes(f, key.data + 1, key.len - 1, &f->bound_bytes))
		HsExecEmit(&f->exec, row, sign);
}

static void
dynamic_filter_flush(HsExec *self)
{
	DynamicFilterExec *f = (DynamicFilterExec *) self;

	at_epoch(f);				/* an epoch without rows moves the bound too */
	HsExecFlush(self->downstream);
}

static void
dynamic_filter_reset(HsExec *self)
{
	DynamicFilterExec *f = (DynamicFilterExec *) self;

	/* unsealed writes are gone: read the applied time again */
	f->loaded = false;
	f->has_applied = false;
	f->has_stored = false;
	resetStringInfo(&f->bound_bytes);
}

static const HsExecMethods dynamic_filter_methods = {
	.name = "DynamicFilter",
	.push = dynamic_filter_push,
	.flush = dynamic_filter_flush,
	.reset = dynamic_filter_reset,
	.out_ops = &TTSOpsVirtual,
	.row_context = "hummock_stream dynamic filter row",
};

HsExec *
HsExecDynamicFilterCreate(TupleDesc in_desc, Expr *key, Oid key_type, int strategy,
						  Expr *bound, Expr *bypass, HsStateTable *rows)
{
	DynamicFilterExec *f = HsExecCreate(sizeof(DynamicFilterExec), &dynamic_filter_methods,
										in_desc);

	f->in_desc = in_desc;
	f->rows = rows;
	f->key_type = key_type;
	f->strategy = strategy;
	f->econtext = CreateStandaloneExprContext();
	f->key = ExecInitExpr(key, NULL);
	f->bypass = bypass ? ExecInitQual(list_make1(bypass), NULL) : NULL;
	f->bound_expr = bound;
	f->params = makeParamList(1);
	f->params->params[0].ptype = TIMESTAMPTZOID;
	f->params->params[0].pflags = PARAM_FLAG_CONST;
	f->params->params[0].isnull = true;
	f->bound = ExecInitExprWithParams(bound, f->params);
	f->econtext->ecxt_param_list_info = f->params;	/* (read at evaluation) */
	f->cxt = CurrentMemoryContext;
	initStringInfo(&f->bound_bytes);
	return &f->exec;
}
