/*-------------------------------------------------------------------------
 *
 * state_table.c
 *	  Key-value state of a streaming operator (see state_table.h).
 *
 * src/stream/state_table.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "hummock_stream/pg/env_pg.h"
#include "hummock_stream/storage/merge_iter.h"
#include "hummock_stream/storage/user_iter.h"
#include "hummock_stream/storage/version_read.h"
#include "hummock_stream/stream/state_table.h"

void
HsStateTableInit(HsStateTable *t, HsStreamStore *store, HsTableId table_id,
				 bool log_old_values)
{
	t->store = store;
	t->table_id = table_id;
	t->log_old_values = log_old_values;
	t->memtable = NULL;
}

static HsMemtable *
current_memtable(HsStateTable *t)
{
	if (t->memtable == NULL)
		t->memtable = HsMemtableCreate(t->store->env, t->table_id, t->store->epoch,
									   t->log_old_values, false);
	else
		Assert(HsMemtableEpoch(t->memtable) == t->store->epoch);
	return t->memtable;
}

/*
 * A user iterator over the table now, bounded to [lower, upper) user keys
 * (upper NULL: unbounded).
 */
static HsIterator *
table_iterator(HsStateTable *t, HsSlice lower, const HsSlice *upper)
{
	HsStreamStore *s = t->store;
	HsIterator *newer[2];
	int			n = 0;
	HsIterator *it;
	HsStatus	st;

	if (t->memtable)
		newer[n++] = HsMemtableNewIterator(t->memtable, HS_MEMTABLE_NEW_VALUES);
	if (!HsSharedBufferNewIterator(s->shared_buffer, s->cache, t->table_id,
								   HS_EPOCH_MAX, &lower, upper, &newer[n], &st))
	{
		while (n > 0)
			HsIterDestroy(newer[--n]);
		HsStatusReport(ERROR, &st);
	}
	n++;
	HS_CHECK(HsVersionTableIterator(s->version, s->cache, t->table_id, HS_EPOCH_MAX,
									&lower, upper, HsMergeIterCreate(s->env, newer, n),
									&it, &st), &st);
	return it;
}

/*
 * The first user key after every key that starts with prefix (palloc'd in
 * *out): the prefix without its trailing 0xff bytes, last byte plus one.
 * False if there is none (the prefix is empty or all 0xff).  Scans end
 * there: a scan that stopped only at the first visible key past the prefix
 * would read on through whatever deleted keys follow it (a join side after
 * a large delete: every probe read all of them).
 */
static bool
prefix_upper(const char *prefix, int prefixlen, HsSlice *out)
{
	int			n = prefixlen;
	uint8	   *buf;

	while (n > 0 && (uint8) prefix[n - 1] == 0xff)
		n--;
	if (n == 0)
		return false;
	buf = palloc(n);
	memcpy(buf, prefix, n);
	buf[n - 1]++;
	*out = HsSliceMake(buf, n);
	return true;
}

/* The table key (table id | user key) of a user key, palloc'd. */
static HsSlice
table_key(HsStateTable *t, const char *key, int keylen)
{
	uint8	   *buf = palloc(keylen + 4);

	return HsTableKeyMake(buf, t->table_id, HsSliceMake(key, keylen));
}

bool
HsStateTableGet(HsStateTable *t, const char *key, int keylen, StringInfo value)
{
	HsStreamStore *s = t->store;
	HsSlice		k = HsSliceMake(key, keylen);
	HsKeyOp		op;
	bool		resolved;
	bool		found;
	HsBuf		buf;
	HsStatus	st;

	resetStringInfo(value);
	if (t->memtable && HsMemtableGet(t->memtable, k, &op))
	{
		if (op.kind == HS_KEY_OP_INSERT || op.kind == HS_KEY_OP_UPDATE)
		{
			appendBinaryStringInfo(value, (const char *) op.new_value.data,
								   (int) op.new_value.len);
			return true;
		}
		return false;
	}
	/* point reads: bloom filters skip the SSTs without the key */
	HsBufInit(&buf, s->env);
	HS_CHECK(HsSharedBufferGet(s->shared_buffer, s->cache, t->table_id, k, HS_EPOCH_MAX,
							   &resolved, &found, &buf, &st), &st);
	if (!resolved)
		HS_CHECK(HsVersionGet(s->version, s->cache, t->table_id, k, HS_EPOCH_MAX,
							  &found, &buf, &st), &st);
	if (found)
		appendBinaryStringInfo(value, (const char *) buf.data, (int) buf.len);
	HsBufFree(&buf);
	return found;
}

bool
HsStateTableFirstWithPrefix(HsStateTable *t, const char *prefix, int prefixlen,
							StringInfo key, StringInfo value)
{
	HsIterator *it;
	HsSlice		tk;
	HsStatus	st;
	bool		found = false;
	HsSlice		upper;
	bool		bounded = prefix_upper(prefix, prefixlen, &upper);

	resetStringInfo(key);
	resetStringInfo(value);
	it = table_iterator(t, HsSliceMake(prefix, prefixlen), bounded ? &upper : NULL);
	tk = table_key(t, prefix, prefixlen);
	HsIterSeek(it, tk);
	if (HsIterValid(it))
	{
		HsSlice		uk = HsFullKeyUserKey(HsIterKey(it));

		if (uk.len >= (size_t) prefixlen && memcmp(uk.data, prefix, prefixlen) == 0)
		{
			HsSlice		row = HsUserIterRow(it);

			appendBinaryStringInfo(key, (const char *) uk.data, (int) uk.len);
			appendBinaryStringInfo(value, (const char *) row.data, (int) row.len);
			found = true;
		}
	}
	if (!HsIterStatus(it, &st))
	{
		HsIterDestroy(it);
		HsStatusReport(ERROR, &st);
	}
	HsIterDestroy(it);
	pfree((void *) tk.data);
	if (bounded)
		pfree((void *) upper.data);
	return found;
}

/* Steps a multi-get takes forward before it seeks to the next key instead. */
#define MULTI_GET_MAX_STEPS 64

/*
 * Every this many keys a multi-get checks what its iterator read per key:
 * above MULTI_GET_MAX_WORK (sparse keys needing seeks, or keys among many
 * deleted entries or old versions), the rest are point gets.
 */
#define MULTI_GET_CHECK_KEYS 256
#define MULTI_GET_MAX_WORK 48

void
HsStateTableMultiGet(HsStateTable *t, const HsSlice *keys, int n,
					 HsStateTableFound found, void *arg)
{
	HsIterator *it;
	HsStatus	st;
	HsSlice		upper;
	uint8	   *tk_buf;
	int			i;
	size_t		maxlen = 0;
	StringInfoData value;

	if (n <= 0)
		return;
	for (i = 0; i < n; i++)
		maxlen = Max(maxlen, keys[i].len);
	/* [keys[0], keys[n-1] || 0x00): the last key is the largest in range */
	upper.len = keys[n - 1].len + 1;
	upper.data = palloc(upper.len);
	memcpy((uint8 *) upper.data, keys[n - 1].data, keys[n - 1].len);
	((uint8 *) upper.data)[upper.len - 1] = 0;
	it = table_iterator(t, keys[0], &upper);
	tk_buf = palloc(maxlen + HS_TABLE_ID_LEN);
	for (i = 0; i < n; i++)
	{
		HsSlice		k = keys[i];
		int			steps = 0;
		int			cmp = -1;

		if (i > 0 && i % MULTI_GET_CHECK_KEYS == 0 &&
			HsUserIterWork(it) > (uint64) i * MULTI_GET_MAX_WORK)
			break;				/* cheaper by point gets from here */
		if (i > 0 && HsIterValid(it))
		{
			/* step forward while the iterator stands before k, a few times */
			while ((cmp = HsSliceCompare(HsFullKeyUserKey(HsIterKey(it)), k)) < 0 &&
				   steps < MULTI_GET_MAX_STEPS)
			{
				HsIterNext(it);
				steps++;
				if (!HsIterValid(it))
					break;
			}
		}
		if (i == 0 || (HsIterValid(it) && cmp < 0))
		{
			HsIterSeek(it, HsTableKeyMake(tk_buf, t->table_id, k));
			cmp = HsIterValid(it) ?
				HsSliceCompare(HsFullKeyUserKey(HsIterKey(it)), k) : 1;
		}
		if (!HsIterValid(it))
		{
			i = n;				/* nothing at or after k: the rest are absent */
			break;
		}
		if (cmp == 0)
		{
			HsSlice		row = HsUserIterRow(it);

			found(i, (const char *) row.data, (int) row.len, arg);
		}
	}
	if (!HsIterStatus(it, &st))
	{
		HsIterDestroy(it);
		HsStatusReport(ERROR, &st);
	}
	HsIterDestroy(it);
	pfree(tk_buf);
	pfree((void *) upper.data);
	if (i < n)
	{
		initStringInfo(&value);
		for (; i < n; i++)
			if (HsStateTableGet(t, (const char *) keys[i].data, (int) keys[i].len, &value))
				found(i, value.data, value.len, arg);
		pfree(value.data);
	}
}

void
HsStateTableScanRange(HsStateTable *t, const char *lower, int lowerlen,
					  const char *upper, int upperlen, HsStateTableVisit visit, void *arg)
{
	HsIterator *it;
	HsSlice		tk;
	HsStatus	st;
	HsSlice		up = HsSliceMake(upper, upperlen);

	it = table_iterator(t, HsSliceMake(lower, lowerlen), upper ? &up : NULL);
	tk = table_key(t, lower, lowerlen);
	for (HsIterSeek(it, tk); HsIterValid(it); HsIterNext(it))
	{
		HsSlice		uk = HsFullKeyUserKey(HsIterKey(it));
		HsSlice		row;

		if (upper && HsSliceCompare(uk, up) >= 0)
			break;
		row = HsUserIterRow(it);
		if (!visit((const char *) uk.data, (int) uk.len,
				   (const char *) row.data, (int) row.len, arg))
			break;
	}
	if (!HsIterStatus(it, &st))
	{
		HsIterDestroy(it);
		HsStatusReport(ERROR, &st);
	}
	HsIterDestroy(it);
	pfree((void *) tk.data);
}

void
HsStateTableScanPrefix(HsStateTable *t, const char *prefix, int prefixlen,
					   HsStateTableVisit visit, void *arg)
{
	HsSlice		upper;

	/* the keys that start with prefix: [prefix, its successor) */
	if (prefix_upper(prefix, prefixlen, &upper))
	{
		HsStateTableScanRange(t, prefix, prefixlen, (const char *) upper.data,
							  (int) upper.len, visit, arg);
		pfree((void *) upper.data);
	}
	else
		HsStateTableScanRange(t, prefix, prefixlen, NULL, 0, visit, arg);
}

void
HsStateTablePut(HsStateTable *t, const char *key, int keylen,
				const char *old_value, int old_len,
				const char *new_value, int new_len)
{
	HsMemtable *mt = current_memtable(t);
	HsStatus	st;
	bool		ok;

	if (old_value)
		ok = HsMemtableUpdate(mt, HsSliceMake(key, keylen),
							  HsSliceMake(old_value, old_len),
							  HsSliceMake(new_value, new_len), &st);
	else
		ok = HsMemtableInsert(mt, HsSliceMake(key, keylen),
							  HsSliceMake(new_value, new_len), &st);
	if (!ok)
		HsStatusReport(ERROR, &st);
}

void
HsStateTableDelete(HsStateTable *t, const char *key, int keylen,
				   const char *old_value, int old_len)
{
	HsStatus	st;

	if (!HsMemtableDelete(current_memtable(t), HsSliceMake(key, keylen),
						  HsSliceMake(old_value, old_len), &st))
		HsStatusReport(ERROR, &st);
}

void
HsStateTableSeal(HsStateTable *t)
{
	HsStatus	st;
	HsMemtable *mt = t->memtable;

	if (mt == NULL)
		return;
	t->memtable = NULL;
	HS_CHECK(HsSharedBufferSeal(t->store->shared_buffer, mt, &st), &st);
}

void
HsStateTableDiscard(HsStateTable *t)
{
	if (t->memtable)
		HsMemtableDestroy(t->memtable);
	t->memtable = NULL;
}
