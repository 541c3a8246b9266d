/*-------------------------------------------------------------------------
 *
 * change_log.h
 *	  iter_log: the net change of a table's keys over an epoch range.
 *
 * HsIterLog(version, cache, table, e1, e2, range) reads the table's change
 * log (version.h) and yields, in user-key order, the net change of every
 * key over the epochs (e1, e2]:
 *
 *	- newest = the newest new-value version of the key with epoch in range,
 *	  oldest = the epoch of the oldest such version;
 *	- old = the old-value entry of the key at exactly that oldest epoch;
 *
 *		newest		old			emitted
 *		------		---			-------
 *		Delete		present		Delete(old)
 *		Put			present		UpdateDelete(old), then UpdateInsert(new)
 *		Put			absent		Insert(new)
 *		Delete		absent		nothing (inserted and deleted in range)
 *
 * (RisingWave's iter_log rules, notes §2.8.)  The range must lie inside
 * what the log covers: e1 >= the log's start epoch and e2 <= its newest
 * checkpoint epoch, else HS_INVALID_ARGUMENT: the caller waits for the
 * table's commit first, and a range below the retention is gone.
 *
 * The op codes match RisingWave's stream-chunk ops.
 *
 * include/hummock_stream/storage/change_log.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_STORAGE_CHANGE_LOG_H
#define HS_STORAGE_CHANGE_LOG_H

#include "hummock_stream/storage/sst_cache.h"
#include "hummock_stream/storage/version.h"

typedef enum HsChangeOp
{
	HS_CHANGE_INSERT = 1,
	HS_CHANGE_DELETE = 2,
	HS_CHANGE_UPDATE_INSERT = 3,
	HS_CHANGE_UPDATE_DELETE = 4
} HsChangeOp;

typedef struct HsChangeLogIter HsChangeLogIter;

/*
 * Start iterating the net changes of table_id over (e1, e2] for user keys
 * in [lower, upper) (NULL: unbounded).  The iterator is positioned at the
 * first change.  The version must stay referenced while it is used.
 */
extern bool HsIterLog(const HsVersion *v, HsSstCache *cache,
					  HsTableId table_id, HsEpoch e1, HsEpoch e2,
					  const HsSlice *lower, const HsSlice *upper,
					  HsChangeLogIter **out, HsStatus *st);

extern bool HsChangeLogIterValid(HsChangeLogIter *it);
extern void HsChangeLogIterNext(HsChangeLogIter *it);
extern HsChangeOp HsChangeLogIterOp(HsChangeLogIter *it);
extern HsSlice HsChangeLogIterUserKey(HsChangeLogIter *it);
extern HsSlice HsChangeLogIterRow(HsChangeLogIter *it);
/* Check after the loop: false with the error if reading failed. */
extern bool HsChangeLogIterStatus(HsChangeLogIter *it, HsStatus *st);
extern void HsChangeLogIterDestroy(HsChangeLogIter *it);

extern const char *HsChangeOpName(HsChangeOp op);

#endif							/* HS_STORAGE_CHANGE_LOG_H */
