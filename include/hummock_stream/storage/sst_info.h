/*-------------------------------------------------------------------------
 *
 * sst_info.h
 *	  What a hummock version records about one SST object.
 *
 * An HsSstInfo is the version's view of an SST: which object holds it, how
 * big it is, which full-key range and which epochs it covers, and which
 * tables have keys in it.  The read path prunes SSTs with the key range,
 * compaction sizes levels with file_size, GC collects object ids and the
 * introspection functions show the rest.
 *
 * Design notes:
 *	- An HsSstInfo is immutable once built and reference counted.  Versions
 *	  are copy-on-write: applying a delta copies the arrays of pointers and
 *	  takes one more reference on every SST, so a version with thousands of
 *	  SSTs costs no key copies per delta.  The count is not atomic: a version
 *	  and the SST infos it references belong to one process.
 *	- The smallest and largest keys are full keys (table id | user key |
 *	  ~epoch) and are owned copies.
 *	- table_ids is sorted ascending and unique; table_key_counts[i] is the
 *	  number of entries of table_ids[i] (all versions, tombstones included).
 *
 * Encoding (persisted as part of version deltas and version checkpoints;
 * field order never changes, new fields need a new record tag in the
 * enclosing format):
 *
 *		object_id			varint64
 *		file_size			varint64
 *		smallest_key		varint32 length | bytes
 *		largest_key			varint32 length | bytes
 *		min_epoch			varint64
 *		max_epoch			varint64
 *		entry_count			varint64
 *		raw_size			varint64	(keys + values before compression)
 *		stored_size			varint64	(data blocks as written)
 *		table_count			varint32
 *		table_count times:	table_id varint32 | key_count varint64
 *
 * so an SST info takes at least HS_SST_INFO_MIN_ENCODED_LEN bytes (eight
 * varints of one byte or more, two length-prefixed full keys of at least
 * HS_MIN_FULL_KEY_LEN bytes).  An
 * SST list, as the delta and checkpoint formats and change-log entries
 * embed it, is
 *
 *		n					varint32
 *		n times:			SST info
 *
 * In memory a list is an array of n owned references ("SST array"): built
 * with HsSstInfoArrayCopy and HsSstInfoArrayAppend, freed with
 * HsSstInfoArrayFree.
 *
 * include/hummock_stream/storage/sst_info.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_STORAGE_SST_INFO_H
#define HS_STORAGE_SST_INFO_H

#include "hummock_stream/storage/coding.h"
#include "hummock_stream/storage/env.h"
#include "hummock_stream/storage/key.h"
#include "hummock_stream/storage/sst_builder.h"

typedef struct HsSstInfo
{
	uint64_t	object_id;
	uint64_t	file_size;
	uint8_t    *smallest_key;	/* full key, owned */
	size_t		smallest_key_len;
	uint8_t    *largest_key;	/* full key, owned */
	size_t		largest_key_len;
	HsEpoch		min_epoch;
	HsEpoch		max_epoch;
	uint64_t	entry_count;
	uint64_t	raw_size;
	uint64_t	stored_size;
	uint32_t	table_count;
	HsTableId  *table_ids;		/* sorted, unique, owned */
	uint64_t   *table_key_counts;	/* parallel to table_ids, owned */

	/* private */
	HsEnv	   *env;
	int			refcount;
} HsSstInfo;

/* Everything needed to build an HsSstInfo; copied by HsSstInfoCreate. */
typedef struct HsSstInfoInit
{
	uint64_t	object_id;
	uint64_t	file_size;
	HsSlice		smallest_key;
	HsSlice		largest_key;
	HsEpoch		min_epoch;
	HsEpoch		max_epoch;
	uint64_t	entry_count;
	uint64_t	raw_size;
	uint64_t	stored_size;
	uint32_t	table_count;
	const HsTableId *table_ids;	/* need not be sorted; duplicates merge */
	const uint64_t *table_key_counts;	/* may be NULL: all zero */
} HsSstInfoInit;

/*
 * Build an SST info with one reference.  Fails with HS_INVALID_ARGUMENT if a
 * key is shorter than a full key, smallest > largest, or min_epoch >
 * max_epoch.
 */
extern bool HsSstInfoCreate(HsEnv *env, const HsSstInfoInit *init,
							HsSstInfo **out, HsStatus *st);

/*
 * The SST info of object_id from what HsSstBuilderFinish reported: key range,
 * epochs, counts, per-table entry counts, raw size (key + value bytes) and
 * stored size (data blocks with trailers).  An empty SST has no key range
 * and is refused (HS_INVALID_ARGUMENT): never commit one.
 */
extern bool HsSstInfoFromMeta(HsEnv *env, uint64_t object_id,
							  const HsSstMeta *meta, HsSstInfo **out,
							  HsStatus *st);

/* Takes one more reference to info and returns it. */
static inline HsSstInfo *
HsSstInfoRef(HsSstInfo *info)
{
	info->refcount++;
	return info;
}

/* Drop one reference; frees the info at zero.  NULL is ignored. */
extern void HsSstInfoUnref(HsSstInfo *info);

/* Returns the smallest full key. */
static inline HsSlice
HsSstInfoSmallest(const HsSstInfo *info)
{
	return HsSliceMake(info->smallest_key, info->smallest_key_len);
}

/* Returns the largest full key. */
static inline HsSlice
HsSstInfoLargest(const HsSstInfo *info)
{
	return HsSliceMake(info->largest_key, info->largest_key_len);
}

/* Does the SST hold any key of table_id? */
extern bool HsSstInfoHasTable(const HsSstInfo *info, HsTableId table_id);

/*
 * Could the SST hold a key of table_id whose table key (table id | user
 * key) lies in [lower, upper)?  lower/upper are table keys or NULL for
 * unbounded; the answer is from the key range and table list only.
 */
extern bool HsSstInfoMayOverlap(const HsSstInfo *info, HsTableId table_id,
								const HsSlice *lower, const HsSlice *upper);

/* Do the user-key ranges (table keys) of two SSTs intersect? */
extern bool HsSstInfoRangesOverlap(const HsSstInfo *a, const HsSstInfo *b);

/* Append the encoding documented above. */
extern void HsSstInfoEncode(const HsSstInfo *info, HsBuf *buf);

/*
 * Decode one SST info from the cursor.  A truncated or inconsistent
 * encoding is HS_CORRUPTION with what_for naming the enclosing record.
 */
extern bool HsSstInfoDecode(HsEnv *env, HsCursor *c, const char *what_for,
							HsSstInfo **out, HsStatus *st);

/* ---- SST arrays and the SST-list encoding ---- */

#define HS_SST_INFO_MIN_ENCODED_LEN (8 + 2 * (1 + HS_MIN_FULL_KEY_LEN))

/* A new array (at least one slot) with one more reference to each of ssts. */
extern HsSstInfo **HsSstInfoArrayCopy(HsEnv *env, HsSstInfo *const *ssts,
									  int n);

/* Append one more reference to each of src to *arr of *n (grown). */
extern void HsSstInfoArrayAppend(HsEnv *env, HsSstInfo ***arr, int *n,
								 HsSstInfo *const *src, int n_src);

/* Drop a reference to each of the n SSTs and free the array (NULL is fine). */
extern void HsSstInfoArrayFree(HsEnv *env, HsSstInfo **ssts, int n);

/* Append the SST-list encoding of ssts (documented above). */
extern void HsSstInfoListEncode(HsSstInfo *const *ssts, int n, HsBuf *buf);

/*
 * Decode an SST list from the cursor into a fresh array of n references
 * (NULL if n is 0; free with HsSstInfoArrayFree).  A missing count, a
 * count the remaining bytes cannot hold (checked before anything is
 * allocated) and a bad element are HS_CORRUPTION with what_for naming the
 * enclosing record; on failure nothing is left allocated.
 */
extern bool HsSstInfoListDecode(HsEnv *env, HsCursor *c, const char *what_for,
								HsSstInfo ***out, int *n_out, HsStatus *st);

/* Field-by-field equality (tests and consistency checks). */
extern bool HsSstInfoEqual(const HsSstInfo *a, const HsSstInfo *b);

/*
 * Compare by smallest key, then by object id: the order of SSTs inside a
 * non-overlapping level.  For qsort over HsSstInfo *.
 */
extern int	HsSstInfoCompareSmallest(const void *a, const void *b);

#endif							/* HS_STORAGE_SST_INFO_H */
