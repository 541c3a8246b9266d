/*-------------------------------------------------------------------------
 *
 * vec_iter.h
 *	  An iterator over a sorted in-memory array of (full key, value) entries.
 *
 * The vector iterator is the simplest HsIterator: a cursor over an array
 * that the caller has already sorted by HsFullKeyCompare.  Tests use it to
 * feed the merge and user iterators; a sealed memtable can hand its sorted
 * entries to the read path through it.
 *
 * Ownership: the iterator borrows the entry array and the key and value
 * bytes it points to; they must stay unchanged until the iterator is
 * destroyed.  If the caller passes a release callback, the iterator calls
 * it exactly once, from HsIterDestroy, so that the owner of the entries
 * (a test, a memtable pin) can free or unpin them at that point.  The
 * iterator itself is allocated from the env and freed by HsIterDestroy.
 *
 * include/hummock_stream/storage/vec_iter.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_STORAGE_VEC_ITER_H
#define HS_STORAGE_VEC_ITER_H

#include "hummock_stream/storage/iterator.h"

/* One entry: a full key and a value (kind byte + payload). */
typedef struct HsVecEntry
{
	HsSlice		key;
	HsSlice		value;
} HsVecEntry;

/* Called once when the iterator is destroyed; may be NULL. */
typedef void (*HsVecIterReleaseFn) (void *arg);

/*
 * Create an iterator over entries[0 .. n).  The entries must be in
 * non-decreasing HsFullKeyCompare order (equal full keys are allowed and
 * are returned in array order).  Never fails.
 */
extern HsIterator *HsVecIterCreate(HsEnv *env, const HsVecEntry *entries,
								   size_t n, HsVecIterReleaseFn release,
								   void *release_arg);

#endif							/* HS_STORAGE_VEC_ITER_H */
