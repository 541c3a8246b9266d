/*-------------------------------------------------------------------------
 *
 * user_iter.h
 *	  The snapshot view of a full-key iterator: one visible row per key.
 *
 * The user iterator sits on an iterator over full keys (normally a merge
 * iterator over the LSM tree) and turns the multi-version stream into what
 * a read at epoch E sees: for each table key (table_id | user key) only its
 * newest version with epoch <= E, and nothing at all if that version is a
 * tombstone.  Versions newer than E and all older versions are skipped.
 *
 * Interface differences from the generic HsIterator contract:
 *	- seek takes a *table key* (table_id | user key, no epoch) and positions
 *	  at the first visible table key >= it;
 *	- key returns the full key of the visible version (use HsFullKeyTableKey,
 *	  HsFullKeyUserKey, HsFullKeyEpoch on it);
 *	- value returns the value of that version, whose kind byte is always
 *	  HS_VALUE_PUT; HsUserIterRow returns the row bytes after it.
 *
 * Bounds: an optional inclusive lower and exclusive upper table key.  Seeks
 * are clamped to the lower bound and the iteration stops at the first
 * table key >= the upper bound, so a scan of one table never reads into
 * the next one (HsUserIterCreateForTable sets both).
 *
 * Ownership: the user iterator takes ownership of the inner iterator
 * (destroying it destroys the inner one) and copies the bounds.
 *
 * Errors: an inner error becomes the user iterator's status; a key
 * shorter than HS_MIN_FULL_KEY_LEN, an empty value or an unknown value
 * kind is reported as HS_CORRUPTION.  Errors are sticky.
 *
 * include/hummock_stream/storage/user_iter.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_STORAGE_USER_ITER_H
#define HS_STORAGE_USER_ITER_H

#include "hummock_stream/storage/iterator.h"

/*
 * Create a user iterator reading inner at read_epoch.  lower and upper are
 * table keys, or NULL for no bound.  Never fails.
 */
extern HsIterator *HsUserIterCreate(HsEnv *env, HsIterator *inner,
									HsEpoch read_epoch, const HsSlice *lower,
									const HsSlice *upper);

/* A user iterator bounded to the table keys of one table. */
extern HsIterator *HsUserIterCreateForTable(HsEnv *env, HsIterator *inner,
											HsEpoch read_epoch,
											HsTableId table_id);

/*
 * Page mode (what heap scans do per page): values[0] = the current
 * entry's value, then the values of the following visible rows as long as
 * they come from the same block through a borrowed cursor (iterator.h),
 * up to max.  Returns how many (0 if the iterator is not valid); the
 * values stay valid until the iterator next moves.  Afterwards the
 * iterator stands on the last row returned, but only its value is still
 * known: the caller's next call must be next, seek or destroy.  it must
 * be a user iterator.
 */
extern int	HsUserIterFill(HsIterator *it, HsSlice *values, int max);

/*
 * How much the user iterator it has read so far: the inner entries it
 * stepped over (hidden versions and tombstones included), a seek counted
 * as several.  A caller that steps from key to key can tell from it when
 * the keys lie among so many hidden entries that point reads, which skip
 * them through bloom filters, are cheaper.
 */
extern uint64_t HsUserIterWork(HsIterator *it);

/* The row bytes of the current visible version (its value after the kind). */
static inline HsSlice
HsUserIterRow(HsIterator *it)
{
	HsSlice		v = HsIterValue(it);

	return HsSliceMake(v.data + 1, v.len - 1);
}

#endif							/* HS_STORAGE_USER_ITER_H */
