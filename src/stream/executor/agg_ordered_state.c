/*-------------------------------------------------------------------------
 *
 * agg_ordered_state.c
 *	  The ordered state of the streaming hash aggregation: per group, call
 *	  and value, how many inputs have that value, for min/max and for
 *	  DISTINCT calls.
 *
 *	min/max(x)	the current extreme is an accumulator (agg_accumulators.c);
 *				behind it, (group, call, value) -> how many rows have that
 *				value.  When the last row holding the extreme goes, the
 *				next one is the first entry of the group's range (max uses
 *				the descending encoding, so its first entry is the
 *				largest), read at the flush (AggMinMaxRescan).
 *	DISTINCT	count(DISTINCT x), sum(DISTINCT x), avg(DISTINCT x): per
 *				(group, call, value) the number of inputs with that value;
 *				the accumulator sees a value when its count goes 0 -> 1
 *				and loses it at 1 -> 0.
 *
 * Rows of the min/max state table (persisted): key = the group's key (the
 * memcmp encoding of its key columns) | call number (1 byte) |
 * memcmp(value), descending for max; value = a stored row (stored_row.c)
 * of (value, count int8).  Equal values, such as numeric 1.0 and 1.00, share
 * a row, whose value is the one stored for the first of them.
 *
 * src/stream/executor/agg_ordered_state.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "utils/memutils.h"

#include "hummock_stream/row/memcmp_key.h"
#include "hummock_stream/row/stored_row.h"

#include "agg_internal.h"

void
AggValueCountsInit(AggValueCounts *vc, HsStateTable *table, int callno,
				   const HsAggCall *call)
{
	vc->table = table;
	vc->desc = CreateTemplateTupleDesc(2);
	TupleDescInitEntry(vc->desc, 1, NULL, call->argtype, -1, 0);
	TupleDescInitEntry(vc->desc, 2, NULL, INT8OID, -1, 0);
	vc->callno = (uint8) callno;
	vc->argtype = call->argtype;
	vc->descending = call->kind == HS_AGG_MAX;
}

/*
 * Add sign to the count of value *v of the call in group.  Returns the
 * count before; when the row existed, *v becomes the value stored for it
 * (in memory of the current context).  key gets the row's key; *prefix_len
 * the length of its group | call part.
 */
static int64
value_count_apply(const AggValueCounts *vc, const HsBytesKey *group, Datum *v, int sign,
				  StringInfo key, int *prefix_len)
{
	StringInfoData val;
	int64		count = 0;
	Datum		mv[2];
	bool		mn[2] = {false, false};

	resetStringInfo(key);
	appendBinaryStringInfo(key, group->data, group->len);
	appendBinaryStringInfo(key, (const char *) &vc->callno, 1);
	*prefix_len = key->len;
	HsMemcmpEncode(key, *v, false, vc->argtype, vc->descending);
	initStringInfo(&val);
	if (HsStateTableGet(vc->table, key->data, key->len, &val))
	{
		HsStoredRowDeform(vc->desc, val.data, mv, mn);
		count = DatumGetInt64(mv[1]);
		*v = mv[0];				/* in val, which lives until the context resets */
	}
	if (count + sign < 0)
		return count;			/* nothing to take back (never expected) */
	if (count + sign == 0)
		HsStateTableDelete(vc->table, key->data, key->len, val.data, val.len);
	else
	{
		MinimalTuple mt;

		mv[0] = *v;
		mv[1] = Int64GetDatum(count + sign);
		mn[0] = mn[1] = false;
		mt = HsStoredRowForm(vc->desc, mv, mn);
		HsStateTablePut(vc->table, key->data, key->len,
						count > 0 ? val.data : NULL, val.len,
						(char *) mt, mt->t_len);
		pfree(mt);
	}
	return count;
}

/* Set acc->val to v (a copy in group_cxt) with encoding key. */
static void
set_extreme(const AggValueCounts *vc, AggAcc *acc, Datum v, const char *key, int keylen,
			MemoryContext group_cxt)
{
	MemoryContext old = MemoryContextSwitchTo(group_cxt);

	acc->val = copy_att_datum(v, TupleDescAttr(vc->desc, 0));
	acc->val_null = false;
	acc->val_key = palloc(keylen);
	memcpy(acc->val_key, key, keylen);
	acc->val_key_len = keylen;
	MemoryContextSwitchTo(old);
}

void
AggMinMaxApply(const AggValueCounts *vc, const HsBytesKey *group, AggAcc *acc, Datum v,
			   int sign, MemoryContext group_cxt)
{
	StringInfoData key;
	int			prefix_len;
	int64		count;

	initStringInfo(&key);
	count = value_count_apply(vc, group, &v, sign, &key, &prefix_len);
	if (count + sign <= 0)
	{
		/* the current extreme's last row went: find the next one later */
		if (!acc->val_null && acc->val_key_len == key.len - prefix_len &&
			memcmp(acc->val_key, key.data + prefix_len, acc->val_key_len) == 0)
			acc->rescan = true;
	}
	else if (sign > 0 &&
			 (acc->val_null ||
			  memcmp(key.data + prefix_len, acc->val_key,
					 Min(acc->val_key_len, key.len - prefix_len)) < 0))
	{
		/* encodings are prefix-free: memcmp over the shorter length decides */
		set_extreme(vc, acc, v, key.data + prefix_len, key.len - prefix_len, group_cxt);
	}
	pfree(key.data);
}

void
AggMinMaxRescan(const AggValueCounts *vc, const HsBytesKey *group, AggAcc *acc,
				MemoryContext group_cxt)
{
	StringInfoData prefix,
				key,
				val;

	acc->rescan = false;
	acc->val_null = true;
	if (acc->count == 0)
		return;
	initStringInfo(&prefix);
	initStringInfo(&key);
	initStringInfo(&val);
	appendBinaryStringInfo(&prefix, group->data, group->len);
	appendBinaryStringInfo(&prefix, (const char *) &vc->callno, 1);
	if (HsStateTableFirstWithPrefix(vc->table, prefix.data, prefix.len, &key, &val))
	{
		Datum		mv[2];
		bool		mn[2];

		HsStoredRowDeform(vc->desc, val.data, mv, mn);
		set_extreme(vc, acc, mv[0], key.data + prefix.len, key.len - prefix.len, group_cxt);
	}
	else
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("min/max state of a streaming aggregation has no value for a group with %lld inputs",
						(long long) acc->count)));
	pfree(prefix.data);
	pfree(key.data);
	pfree(val.data);
}

bool
AggDistinctApply(const AggValueCounts *vc, const HsBytesKey *group, Datum *v, int sign)
{
	StringInfoData key;
	int			prefix_len;
	int64		count;

	initStringInfo(&key);
	count = value_count_apply(vc, group, v, sign, &key, &prefix_len);
	pfree(key.data);
	if (count + sign < 0)
		return false;
	return (count == 0) != (count + sign == 0);
}
