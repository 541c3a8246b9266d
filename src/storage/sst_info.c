/*-------------------------------------------------------------------------
 *
 * sst_info.c
 *	  Building, comparing and encoding HsSstInfo values and arrays of them.
 *
 * The encodings of an SST info and of an SST list are documented in
 * sst_info.h; they are embedded in the version delta and version
 * checkpoint formats, which carry the checksum and the format version, so
 * this file encodes fields only.  Every SST list of those formats, and of
 * the change-log entries inside them, is encoded and decoded here, so the
 * bounds a decoder checks are the same wherever a list is read: a count
 * is checked against the bytes that remain before anything is allocated.
 *
 * src/storage/sst_info.c
 *
 *-------------------------------------------------------------------------
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "hummock_stream/storage/sst_info.h"

/* qsort comparator of table ids. */
static int
table_id_cmp(const void *a, const void *b)
{
	HsTableId	x = *(const HsTableId *) a;
	HsTableId	y = *(const HsTableId *) b;

	return (x > y) - (x < y);
}

typedef struct TablePair
{
	HsTableId	table_id;
	uint64_t	count;
} TablePair;

/* qsort comparator of (table id, count) pairs by table id. */
static int
table_pair_cmp(const void *a, const void *b)
{
	return table_id_cmp(&((const TablePair *) a)->table_id,
						&((const TablePair *) b)->table_id);
}

bool
HsSstInfoCreate(HsEnv *env, const HsSstInfoInit *init, HsSstInfo **out,
				HsStatus *st)
{
	HsSstInfo  *info;
	TablePair  *pairs = NULL;
	uint32_t	n = 0;
	uint32_t	i;

	*out = NULL;
	if (init->smallest_key.len < HS_MIN_FULL_KEY_LEN ||
		init->largest_key.len < HS_MIN_FULL_KEY_LEN)
	{
		HsStatusSet(st, HS_INVALID_ARGUMENT,
					"sst info key is shorter than a full key");
		return HsStatusDetail(st, "Object %" PRIu64 ": smallest key %zu bytes, largest key %zu bytes, minimum %d.",
							  init->object_id, init->smallest_key.len,
							  init->largest_key.len, HS_MIN_FULL_KEY_LEN);
	}
	if (HsFullKeyCompare(init->smallest_key, init->largest_key) > 0)
	{
		HsStatusSet(st, HS_INVALID_ARGUMENT,
					"sst info smallest key is greater than its largest key");
		return HsStatusDetail(st, "Object %" PRIu64 ".", init->object_id);
	}
	if (init->min_epoch > init->max_epoch)
	{
		HsStatusSet(st, HS_INVALID_ARGUMENT,
					"sst info min epoch is greater than its max epoch");
		return HsStatusDetail(st, "Object %" PRIu64 ": min epoch %" PRIu64 ", max epoch %" PRIu64 ".",
							  init->object_id, init->min_epoch,
							  init->max_epoch);
	}

	info = HsAllocZero(env, sizeof(HsSstInfo));
	info->env = env;
	info->refcount = 1;
	info->object_id = init->object_id;
	info->file_size = init->file_size;
	info->smallest_key_len = init->smallest_key.len;
	info->smallest_key = HsAlloc(env, init->smallest_key.len);
	memcpy(info->smallest_key, init->smallest_key.data, init->smallest_key.len);
	info->largest_key_len = init->largest_key.len;
	info->largest_key = HsAlloc(env, init->largest_key.len);
	memcpy(info->largest_key, init->largest_key.data, init->largest_key.len);
	info->min_epoch = init->min_epoch;
	info->max_epoch = init->max_epoch;
	info->entry_count = init->entry_count;
	info->raw_size = init->raw_size;
	info->stored_size = init->stored_size;

	/* sort the table list and merge duplicates */
	if (init->table_count > 0)
	{
		pairs = HsAlloc(env, sizeof(TablePair) * init->table_count);
		for (i = 0; i < init->table_count; i++)
		{
			pairs[i].table_id = init->table_ids[i];
			pairs[i].count = init->table_key_counts ?
				init->table_key_counts[i] : 0;
		}
		qsort(pairs, init->table_count, sizeof(TablePair), table_pair_cmp);
		for (i = 0; i < init->table_count; i++)
		{
			if (n > 0 && pairs[n - 1].table_id == pairs[i].table_id)
				pairs[n - 1].count += pairs[i].count;
			else
				pairs[n++] = pairs[i];
		}
	}
	info->table_count = n;
	info->table_ids = HsAlloc(env, sizeof(HsTableId) * (n ? n : 1));
	info->table_key_counts = HsAlloc(env, sizeof(uint64_t) * (n ? n : 1));
	for (i = 0; i < n; i++)
	{
		info->table_ids[i] = pairs[i].table_id;
		info->table_key_counts[i] = pairs[i].count;
	}
	if (pairs)
		HsFree(env, pairs);
	*out = info;
	return true;
}

bool
HsSstInfoFromMeta(HsEnv *env, uint64_t object_id, const HsSstMeta *meta,
				  HsSstInfo **out, HsStatus *st)
{
	HsSstInfoInit init;
	HsTableId  *ids;
	uint64_t   *counts;
	uint32_t	i;
	bool		ok;

	*out = NULL;
	if (meta->entry_count == 0 || meta->smallest_key == NULL)
	{
		HsStatusSet(st, HS_INVALID_ARGUMENT, "sst %" PRIu64 " is empty",
					object_id);
		return HsStatusDetail(st, "An SST without entries has no key range and cannot be part of a version.");
	}
	memset(&init, 0, sizeof(init));
	init.object_id = object_id;
	init.file_size = meta->file_size;
	init.smallest_key = HsSliceMake(meta->smallest_key, meta->smallest_key_len);
	init.largest_key = HsSliceMake(meta->largest_key, meta->largest_key_len);
	init.min_epoch = meta->min_epoch;
	init.max_epoch = meta->max_epoch;
	init.entry_count = meta->entry_count;
	init.raw_size = meta->raw_key_bytes + meta->raw_value_bytes;
	init.stored_size = meta->data_stored_size;
	init.table_count = meta->table_count;
	ids = HsAlloc(env, sizeof(HsTableId) * (meta->table_count + 1));
	counts = HsAlloc(env, sizeof(uint64_t) * (meta->table_count + 1));
	for (i = 0; i < meta->table_count; i++)
	{
		ids[i] = meta->tables[i].table_id;
		counts[i] = meta->tables[i].entry_count;
	}
	init.table_ids = ids;
	init.table_key_counts = counts;
	ok = HsSstInfoCreate(env, &init, out, st);
	HsFree(env, ids);
	HsFree(env, counts);
	return ok;
}

void
HsSstInfoUnref(HsSstInfo *info)
{
	HsEnv	   *env;

	if (info == NULL)
		return;
	if (--info->refcount > 0)
		return;
	env = info->env;
	HsFree(env, info->smallest_key);
	HsFree(env, info->largest_key);
	HsFree(env, info->table_ids);
	HsFree(env, info->table_key_counts);
	HsFree(env, info);
}

bool
HsSstInfoHasTable(const HsSstInfo *info, HsTableId table_id)
{
	return bsearch(&table_id, info->table_ids, info->table_count,
				   sizeof(HsTableId), table_id_cmp) != NULL;
}

bool
HsSstInfoMayOverlap(const HsSstInfo *info, HsTableId table_id,
					const HsSlice *lower, const HsSlice *upper)
{
	uint8_t		tbl[HS_TABLE_ID_LEN];
	HsSlice		lo;
	HsSlice		small = HsFullKeyTableKey(HsSstInfoSmallest(info));
	HsSlice		large = HsFullKeyTableKey(HsSstInfoLargest(info));

	if (!HsSstInfoHasTable(info, table_id))
		return false;
	/* the effective lower bound is at least the table's first key */
	HsPutBE32(tbl, table_id);
	lo = HsSliceMake(tbl, HS_TABLE_ID_LEN);
	if (lower && HsSliceCompare(*lower, lo) > 0)
		lo = *lower;
	if (HsSliceCompare(large, lo) < 0)
		return false;
	if (upper && HsSliceCompare(small, *upper) >= 0)
		return false;
	return true;
}

bool
HsSstInfoRangesOverlap(const HsSstInfo *a, const HsSstInfo *b)
{
	HsSlice		as = HsFullKeyTableKey(HsSstInfoSmallest(a));
	HsSlice		al = HsFullKeyTableKey(HsSstInfoLargest(a));
	HsSlice		bs = HsFullKeyTableKey(HsSstInfoSmallest(b));
	HsSlice		bl = HsFullKeyTableKey(HsSstInfoLargest(b));

	return HsSliceCompare(as, bl) <= 0 && HsSliceCompare(bs, al) <= 0;
}

void
HsSstInfoEncode(const HsSstInfo *info, HsBuf *buf)
{
	uint32_t	i;

	HsBufPutVarint64(buf, info->object_id);
	HsBufPutVarint64(buf, info->file_size);
	HsBufPutLengthPrefixed(buf, HsSstInfoSmallest(info));
	HsBufPutLengthPrefixed(buf, HsSstInfoLargest(info));
	HsBufPutVarint64(buf, info->min_epoch);
	HsBufPutVarint64(buf, info->max_epoch);
	HsBufPutVarint64(buf, info->entry_count);
	HsBufPutVarint64(buf, info->raw_size);
	HsBufPutVarint64(buf, info->stored_size);
	HsBufPutVarint32(buf, info->table_count);
	for (i = 0; i < info->table_count; i++)
	{
		HsBufPutVarint32(buf, info->table_ids[i]);
		HsBufPutVarint64(buf, info->table_key_counts[i]);
	}
}

bool
HsSstInfoDecode(HsEnv *env, HsCursor *c, const char *what_for,
				HsSstInfo **out, HsStatus *st)
{
	HsSstInfoInit init;
	HsTableId  *ids = NULL;
	uint64_t   *counts = NULL;
	uint32_t	i;
	bool		ok;
	HsStatus	inner;

	memset(&init, 0, sizeof(init));
	*out = NULL;
	if (!HsCursorGetVarint64(c, &init.object_id) ||
		!HsCursorGetVarint64(c, &init.file_size) ||
		!HsCursorGetLengthPrefixed(c, &init.smallest_key) ||
		!HsCursorGetLengthPrefixed(c, &init.largest_key) ||
		!HsCursorGetVarint64(c, &init.min_epoch) ||
		!HsCursorGetVarint64(c, &init.max_epoch) ||
		!HsCursorGetVarint64(c, &init.entry_count) ||
		!HsCursorGetVarint64(c, &init.raw_size) ||
		!HsCursorGetVarint64(c, &init.stored_size) ||
		!HsCursorGetVarint32(c, &init.table_count))
	{
		HsStatusSet(st, HS_CORRUPTION, "truncated sst info in %s", what_for);
		return HsStatusDetail(st, "The record ends inside an SST description.");
	}
	/* each table takes at least two bytes: bound the allocation */
	if ((uint64_t) init.table_count * 2 > HsCursorRemaining(c))
	{
		HsStatusSet(st, HS_CORRUPTION, "truncated sst info in %s", what_for);
		return HsStatusDetail(st, "Object %" PRIu64 " claims %u tables but only %zu bytes remain.",
							  init.object_id, init.table_count,
							  HsCursorRemaining(c));
	}
	if (init.table_count > 0)
	{
		ids = HsAlloc(env, sizeof(HsTableId) * init.table_count);
		counts = HsAlloc(env, sizeof(uint64_t) * init.table_count);
	}
	ok = true;
	for (i = 0; i < init.table_count && ok; i++)
	{
		uint32_t	id;

		ok = HsCursorGetVarint32(c, &id) &&
			HsCursorGetVarint64(c, &counts[i]);
		ids[i] = id;
		if (ok && i > 0 && ids[i] <= ids[i - 1])
		{
			HsStatusSet(st, HS_CORRUPTION,
						"unsorted table list in sst info in %s", what_for);
			HsStatusDetail(st, "Object %" PRIu64 ": table %u follows table %u.",
						   init.object_id, ids[i], ids[i - 1]);
			if (ids)
				HsFree(env, ids);
			if (counts)
				HsFree(env, counts);
			return false;
		}
	}
	if (!ok)
	{
		if (ids)
			HsFree(env, ids);
		if (counts)
			HsFree(env, counts);
		HsStatusSet(st, HS_CORRUPTION, "truncated sst info in %s", what_for);
		return HsStatusDetail(st, "Object %" PRIu64 ": the table list is cut short.",
							  init.object_id);
	}
	init.table_ids = ids;
	init.table_key_counts = counts;
	ok = HsSstInfoCreate(env, &init, out, &inner);
	if (ids)
		HsFree(env, ids);
	if (counts)
		HsFree(env, counts);
	if (!ok)
	{
		/* an inconsistent persisted value is corruption, not a bad call */
		return HsStatusWrap(st, HS_CORRUPTION, &inner, "invalid sst info in %s",
							what_for);
	}
	return true;
}

bool
HsSstInfoEqual(const HsSstInfo *a, const HsSstInfo *b)
{
	if (a->object_id != b->object_id || a->file_size != b->file_size ||
		a->min_epoch != b->min_epoch || a->max_epoch != b->max_epoch ||
		a->entry_count != b->entry_count || a->raw_size != b->raw_size ||
		a->stored_size != b->stored_size ||
		a->table_count != b->table_count)
		return false;
	if (HsSliceCompare(HsSstInfoSmallest(a), HsSstInfoSmallest(b)) != 0 ||
		HsSliceCompare(HsSstInfoLargest(a), HsSstInfoLargest(b)) != 0)
		return false;
	if (a->table_count > 0 &&
		(memcmp(a->table_ids, b->table_ids,
				sizeof(HsTableId) * a->table_count) != 0 ||
		 memcmp(a->table_key_counts, b->table_key_counts,
				sizeof(uint64_t) * a->table_count) != 0))
		return false;
	return true;
}

int
HsSstInfoCompareSmallest(const void *a, const void *b)
{
	const HsSstInfo *x = *(HsSstInfo *const *) a;
	const HsSstInfo *y = *(HsSstInfo *const *) b;
	int			r = HsFullKeyCompare(HsSstInfoSmallest(x), HsSstInfoSmallest(y));

	if (r != 0)
		return r;
	return (x->object_id > y->object_id) - (x->object_id < y->object_id);
}

/* ----------------------------------------------------------------
 *		SST arrays and the SST-list encoding
 * ----------------------------------------------------------------
 */
/* Returns a new array holding one more reference to each of ssts. */
HsSstInfo **
HsSstInfoArrayCopy(HsEnv *env, HsSstInfo *const *ssts, int n)
{
	HsSstInfo **dst = HsAlloc(env, sizeof(HsSstInfo *) * (n > 0 ? n : 1));
	int			i;

	for (i = 0; i < n; i++)
		dst[i] = HsSstInfoRef(ssts[i]);
	return dst;
}

/* Appends one more reference to each of src, growing *arr. */
void
HsSstInfoArrayAppend(HsEnv *env, HsSstInfo ***arr, int *n,
					 HsSstInfo *const *src, int n_src)
{
	int			i;

	if (n_src == 0)
		return;
	*arr = HsRealloc(env, *arr, sizeof(HsSstInfo *) * (*n + n_src));
	for (i = 0; i < n_src; i++)
		(*arr)[(*n)++] = HsSstInfoRef(src[i]);
}

/* Drops the array's references and frees it. */
void
HsSstInfoArrayFree(HsEnv *env, HsSstInfo **ssts, int n)
{
	int			i;

	for (i = 0; i < n; i++)
		HsSstInfoUnref(ssts[i]);
	if (ssts)
		HsFree(env, ssts);
}

/* Appends "n | n SST infos". */
void
HsSstInfoListEncode(HsSstInfo *const *ssts, int n, HsBuf *buf)
{
	int			i;

	HsBufPutVarint32(buf, (uint32_t) n);
	for (i = 0; i < n; i++)
		HsSstInfoEncode(ssts[i], buf);
}

/*
 * Decodes "n | n SST infos" into a fresh array, checking the count against
 * the remaining bytes before allocating.
 */
bool
HsSstInfoListDecode(HsEnv *env, HsCursor *c, const char *what_for,
					HsSstInfo ***out, int *n_out, HsStatus *st)
{
	uint32_t	n;
	uint32_t	i;
	HsSstInfo **arr;

	*out = NULL;
	*n_out = 0;
	if (!HsCursorGetVarint32(c, &n))
	{
		HsStatusSet(st, HS_CORRUPTION, "truncated sst list in %s", what_for);
		return HsStatusDetail(st, "The SST count is missing.");
	}
	/* bound the allocation by what the remaining bytes can hold */
	if ((uint64_t) n * HS_SST_INFO_MIN_ENCODED_LEN > HsCursorRemaining(c))
	{
		HsStatusSet(st, HS_CORRUPTION, "truncated sst list in %s", what_for);
		return HsStatusDetail(st, "The list claims %u SSTs of at least %d bytes each but only %zu bytes remain.",
							  n, HS_SST_INFO_MIN_ENCODED_LEN,
							  HsCursorRemaining(c));
	}
	if (n == 0)
		return true;
	arr = HsAlloc(env, sizeof(HsSstInfo *) * n);
	for (i = 0; i < n; i++)
	{
		if (!HsSstInfoDecode(env, c, what_for, &arr[i], st))
		{
			HsSstInfoArrayFree(env, arr, (int) i);
			return false;
		}
	}
	*out = arr;
	*n_out = (int) n;
	return true;
}
