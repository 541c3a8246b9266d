/*-------------------------------------------------------------------------
 *
 * version_read.h
 *	  Reading a table from a hummock version at an epoch.
 *
 * A read of table T at epoch E sees, for each user key, the newest version
 * with epoch <= E among every SST of the version that may hold the key:
 * L0 sub-levels newest first, then L1, L2, ...  SSTs are pruned by their
 * table list and key range.  Readers come from an HsSstCache; an object
 * the version references that is missing or damaged is HS_CORRUPTION
 * naming the object.
 *
 * Ranges are user-key ranges [lower, upper) of the table; NULL means
 * unbounded on that side.
 *
 * Reads below the table's safe epoch are refused (HsVersionCheckReadEpoch):
 * compaction may have dropped the versions they need; so are reads of a
 * dropped table.  A table the version does not know yet reads as empty
 * (its data may still be in the shared buffer).
 *
 * include/hummock_stream/storage/version_read.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_STORAGE_VERSION_READ_H
#define HS_STORAGE_VERSION_READ_H

#include "hummock_stream/storage/coding.h"
#include "hummock_stream/storage/sst_cache.h"
#include "hummock_stream/storage/version.h"

/*
 * All raw entries (every version, tombstones included) of the SSTs that
 * may hold keys of table_id in [lower, upper): a merge iterator, newest
 * sources first.  The entries are not filtered to the range; put a user
 * iterator (or a bounds check) on top.
 */
extern bool HsVersionNewRawIterator(const HsVersion *v, HsSstCache *cache,
									HsTableId table_id, const HsSlice *lower,
									const HsSlice *upper, HsIterator **out,
									HsStatus *st);

/*
 * The rows of table_id at read_epoch in [lower, upper), one per key, in
 * key order: a user iterator (user_iter.h: seek takes a table key; use
 * HsUserIterRow for the row bytes).  newer (may be NULL) is merged in as
 * a source newer than the version, e.g. the shared buffer's and the
 * memtable's iterators; the result takes ownership of it.
 */
extern bool HsVersionTableIterator(const HsVersion *v, HsSstCache *cache,
								   HsTableId table_id, HsEpoch read_epoch,
								   const HsSlice *lower, const HsSlice *upper,
								   HsIterator *newer, HsIterator **out,
								   HsStatus *st);

/*
 * Point read: the newest version of user_key with epoch <= read_epoch.
 * *found is false if there is none or it is a tombstone; otherwise row
 * (reset first) holds the row bytes.
 */
extern bool HsVersionGet(const HsVersion *v, HsSstCache *cache,
						 HsTableId table_id, HsSlice user_key,
						 HsEpoch read_epoch, bool *found, HsBuf *row,
						 HsStatus *st);

/*
 * Build the table key (table id | user key) of user_key in buf, which
 * must have room for user_key.len + 4 bytes.
 */
extern HsSlice HsTableKeyMake(uint8_t *buf, HsTableId table_id,
							  HsSlice user_key);

/*
 * Set buf to the table key that ends the user-key range [..., upper) of
 * table_id (upper NULL: the first key of the next table).  false, buf
 * empty, if the range has no end (table UINT32_MAX and no upper).
 */
extern bool HsTableKeyRangeEnd(HsBuf *buf, HsTableId table_id,
							   const HsSlice *upper);

/* The table-key bounds of a user-key range [lower, upper) of a table. */
typedef struct HsTableBounds
{
	HsBuf		lo_buf;
	HsBuf		hi_buf;
	HsSlice		lo;				/* table key of lower (or of the table's start) */
	HsSlice		hi;				/* valid if has_hi */
	bool		has_hi;
} HsTableBounds;

/* lower/upper are user keys or NULL (unbounded). */
extern void HsTableBoundsInit(HsTableBounds *b, HsEnv *env, HsTableId table_id,
							  const HsSlice *lower, const HsSlice *upper);
extern void HsTableBoundsFree(HsTableBounds *b);

#endif							/* HS_STORAGE_VERSION_READ_H */
