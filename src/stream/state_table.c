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

/*
 * The answer of the data not yet in the version (this epoch's memtable,
 * then the shared buffer's sealed, spilled and synced epochs, which a
 * filter of their keys lets a get skip; in_buffer false: the caller knows
 * the buffer holds no version of the key): false if none of it knows the
 * key; else *found says whether it is there, its row in *buf.
 */
static bool
unsynced_get(HsStateTable *t, HsSlice k, bool in_buffer, bool *found, HsBuf *buf)
{
	HsStreamStore *s = t->store;
	HsKeyOp		op;
	bool		resolved = false;
	HsStatus	st;

	/* (an empty memtable is not asked: a get would build its hash index) */
	if (t->memtable && HsMemtableKeyCount(t->memtable) > 0 &&
		HsMemtableGet(t->memtable, k, &op))
	{
		*found = op.kind == HS_KEY_OP_INSERT || op.kind == HS_KEY_OP_UPDATE;
		if (*found)
			HsBufAssign(buf, op.new_value.data, op.new_value.len);
		return true;
	}
	if (in_buffer)
		HS_CHECK(HsSharedBufferGet(s->shared_buffer, s->cache, t->table_id, k, HS_EPOCH_MAX,
								   &resolved, found, buf, &st), &st);
	return resolved;
}

bool
HsStateTableGet(HsStateTable *t, const char *key, int keylen, StringInfo value)
{
	HsStreamStore *s = t->store;
	HsSlice		k = HsSliceMake(key, keylen);
	bool		found;
	HsBuf		buf;
	HsStatus	st;

	resetStringInfo(value);
	HsBufInit(&buf, s->env);
	/* point reads: bloom filters skip the SSTs without the key */
	if (!unsynced_get(t, k, true, &found, &buf))
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

/* A multi-get key's answer from the unsynced data: an offset, or these. */
#define MULTI_GET_ASK_VERSION (-1)
#define MULTI_GET_ABSENT (-2)

/* Keep keys[i]'s row for found(): its offset in rows and its length. */
static void
keep_row(StringInfo rows, int *answer, int *answer_len, int i,
		 const uint8 *data, size_t len)
{
	answer[i] = rows->len;
	answer_len[i] = (int) len;
	appendBinaryStringInfo(rows, (const char *) data, (int) len);
}

/*
 * Two passes.  The unsynced data answers each key first, through its hash
 * indexes and key filter: a forward pass over it would merge every epoch
 * not yet committed (a backfill's whole first state, twenty epochs and
 * more), while a key none of them holds costs a filter probe (all keys'
 * probes made in one pass that prefetches).  Then one
 * iterator over the version (its sorted runs: a step per key where the
 * keys lie dense) answers the rest, and found() sees all keys in order.
 */
void
HsStateTableMultiGet(HsStateTable *t, const HsSlice *keys, int n,
					 HsStateTableFound found, void *arg)
{
	HsStreamStore *s = t->store;
	int		   *answer;			/* per key: offset in rows, or ASK_VERSION/ABSENT */
	int		   *answer_len;
	bool	   *in_buffer;		/* may the shared buffer hold the key? */
	StringInfoData rows;		/* the rows the unsynced data holds */
	HsBuf		buf;
	int			first_ask = -1;
	int			last_ask = -1;
	int			i;
	HsStatus	st;

	if (n <= 0)
		return;
	answer = palloc(sizeof(int) * n);
	answer_len = palloc(sizeof(int) * n);
	in_buffer = palloc(sizeof(bool) * n);
	HsSharedBufferMayHold(s->shared_buffer, s->cache, t->table_id, keys, n, in_buffer);
	initStringInfo(&rows);
	HsBufInit(&buf, s->env);
	for (i = 0; i < n; i++)
	{
		bool		present;

		answer[i] = MULTI_GET_ASK_VERSION;
		if (!unsynced_get(t, keys[i], in_buffer[i], &present, &buf))
		{
			if (first_ask < 0)
				first_ask = i;
			last_ask = i;
			continue;
		}
		answer[i] = MULTI_GET_ABSENT;
		if (present)
			keep_row(&rows, answer, answer_len, i, buf.data, buf.len);
	}

	if (first_ask >= 0)
	{
		HsIterator *it;
		HsSlice		lower = keys[first_ask];
		HsSlice		upper;
		uint8	   *tk_buf;
		size_t		maxlen = 0;
		int			asked = 0;
		bool		ended = false;	/* nothing at or after the iterator */
		bool		point_gets = false;

		for (i = first_ask; i <= last_ask; i++)
			maxlen = Max(maxlen, keys[i].len);
		/* [first, last || 0x00): the last key is the largest in range */
		upper.len = keys[last_ask].len + 1;
		upper.data = palloc(upper.len);
		memcpy((uint8 *) upper.data, keys[last_ask].data, keys[last_ask].len);
		((uint8 *) upper.data)[upper.len - 1] = 0;
		HS_CHECK(HsVersionTableIterator(s->version, s->cache, t->table_id, HS_EPOCH_MAX,
										&lower, &upper, NULL, &it, &st), &st);
		tk_buf = palloc(maxlen + HS_TABLE_ID_LEN);
		for (i = first_ask; i <= last_ask && !ended; i++)
		{
			HsSlice		k = keys[i];
			int			steps = 0;
			int			cmp = -1;

			if (answer[i] != MULTI_GET_ASK_VERSION)
				continue;
			if (asked > 0 && asked % MULTI_GET_CHECK_KEYS == 0 &&
				HsUserIterWork(it) > (uint64) asked * MULTI_GET_MAX_WORK)
			{
				point_gets = true;	/* cheaper from here */
				break;
			}
			if (asked > 0)
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
			asked++;
			if (asked == 1 || (HsIterValid(it) && cmp < 0))
			{
				HsIterSeek(it, HsTableKeyMake(tk_buf, t->table_id, k));
				cmp = HsIterValid(it) ?
					HsSliceCompare(HsFullKeyUserKey(HsIterKey(it)), k) : 1;
			}
			answer[i] = MULTI_GET_ABSENT;
			if (!HsIterValid(it))
				ended = true;	/* the rest asked are absent */
			else if (cmp == 0)
			{
				HsSlice		row = HsUserIterRow(it);

				keep_row(&rows, answer, answer_len, i, row.data, row.len);
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
		for (; i <= last_ask; i++)
		{
			bool		present = false;

			if (answer[i] != MULTI_GET_ASK_VERSION)
				continue;
			answer[i] = MULTI_GET_ABSENT;
			if (point_gets)
				HS_CHECK(HsVersionGet(s->version, s->cache, t->table_id, keys[i],
									  HS_EPOCH_MAX, &present, &buf, &st), &st);
			if (present)
				keep_row(&rows, answer, answer_len, i, buf.data, buf.len);
		}
	}
	HsBufFree(&buf);

	for (i = 0; i < n; i++)
		if (answer[i] >= 0)
			found(i, rows.data + answer[i], answer_len[i], arg);
	pfree(rows.data);
	pfree(answer);
	pfree(answer_len);
	pfree(in_buffer);
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

/* Steps a prefix scan takes forward before it seeks to the next prefix. */
#define SCAN_PREFIXES_MAX_STEPS 16

/*
 * One iterator over [prefixes[0], the successor of prefixes[n-1]) answers
 * every prefix in turn.  It only moves forward: where it stands before the
 * next prefix it steps a few times, then seeks; where it already stands
 * past the prefix (the prefix is absent, and so is everything up to the
 * key it stands on) there is nothing to read.  So a batch of absent
 * prefixes beyond a table's last key costs one seek, and prefixes close
 * together cost steps, where a scan per prefix builds an iterator over
 * every SST its range overlaps, each time.
 */
/* HsStateTableScanPrefixes, or with first_only its first entry each. */
static void
scan_prefixes(HsStateTable *t, const HsSlice *prefixes, int n, bool first_only,
			  HsStateTablePrefixVisit visit, void *arg)
{
	HsIterator *it;
	HsSlice		upper;
	bool		bounded;
	uint8	   *tk_buf;
	size_t		max_len = 0;
	HsStatus	st;

	if (n <= 0)
		return;
	for (int i = 0; i < n; i++)
		max_len = Max(max_len, prefixes[i].len);
	tk_buf = palloc(max_len + HS_TABLE_ID_LEN);
	bounded = prefix_upper((const char *) prefixes[n - 1].data,
						   (int) prefixes[n - 1].len, &upper);
	it = table_iterator(t, prefixes[0], bounded ? &upper : NULL);
	for (int i = 0; i < n; i++)
	{
		HsSlice		p = prefixes[i];
		int			steps = 0;
		int			cmp = -1;

		Assert(i == 0 || HsSliceCompare(prefixes[i - 1], p) < 0);
		if (i > 0)
		{
			if (!HsIterValid(it))
				break;			/* the rest are absent */
			while ((cmp = HsSliceCompare(HsFullKeyUserKey(HsIterKey(it)), p)) < 0 &&
				   steps++ < SCAN_PREFIXES_MAX_STEPS)
			{
				HsIterNext(it);
				if (!HsIterValid(it))
					break;
			}
			if (!HsIterValid(it))
				break;
		}
		if (cmp < 0)
			HsIterSeek(it, HsTableKeyMake(tk_buf, t->table_id, p));
		for (; HsIterValid(it); HsIterNext(it))
		{
			HsSlice		uk = HsFullKeyUserKey(HsIterKey(it));
			HsSlice		row;

			if (uk.len < p.len || memcmp(uk.data, p.data, p.len) != 0)
				break;
			row = HsUserIterRow(it);
			visit(i, (const char *) uk.data, (int) uk.len,
				  (const char *) row.data, (int) row.len, arg);
			if (first_only)
				break;
		}
	}
	if (!HsIterStatus(it, &st))
	{
		HsIterDestroy(it);
		HsStatusReport(ERROR, &st);
	}
	HsIterDestroy(it);
	pfree(tk_buf);
	if (bounded)
		pfree((void *) upper.data);
}

void
HsStateTableScanPrefixes(HsStateTable *t, const HsSlice *prefixes, int n,
						 HsStateTablePrefixVisit visit, void *arg)
{
	scan_prefixes(t, prefixes, n, false, visit, arg);
}

void
HsStateTableFirstWithPrefixes(HsStateTable *t, const HsSlice *prefixes, int n,
							  HsStateTablePrefixVisit visit, void *arg)
{
	scan_prefixes(t, prefixes, n, true, visit, arg);
}

/* After a write: hand a memtable that grew too large to the job. */
static inline void
check_full(HsStateTable *t)
{
	HsStreamStore *s = t->store;

	if (s->memtable_full_bytes != 0 && t->memtable != NULL &&
		HsMemtableMemoryUsage(t->memtable) >= s->memtable_full_bytes)
		s->memtable_full(t, s->memtable_full_arg);
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
	check_full(t);
}

void
HsStateTableDelete(HsStateTable *t, const char *key, int keylen,
				   const char *old_value, int old_len)
{
	HsStatus	st;

	if (!HsMemtableDelete(current_memtable(t), HsSliceMake(key, keylen),
						  HsSliceMake(old_value, old_len), &st))
		HsStatusReport(ERROR, &st);
	check_full(t);
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
HsStateTableSealAs(HsStateTable *t, HsEpoch epoch)
{
	Assert(epoch <= t->store->epoch);
	if (t->memtable)
		HsMemtableSetEpoch(t->memtable, epoch);
	HsStateTableSeal(t);
}

size_t
HsStateTableUnsealedBytes(const HsStateTable *t)
{
	return t->memtable ? HsMemtableMemoryUsage(t->memtable) : 0;
}

void
HsStateTableDiscard(HsStateTable *t)
{
	if (t->memtable)
		HsMemtableDestroy(t->memtable);
	t->memtable = NULL;
}
