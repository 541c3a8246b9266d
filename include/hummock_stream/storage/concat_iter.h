/*-------------------------------------------------------------------------
 *
 * concat_iter.h
 *	  One iterator over a sorted run of SSTs whose key ranges do not overlap.
 *
 * A level below L0 (and most L0 sub-levels) is a run: its SSTs sorted by
 * smallest key, each SST's largest key below the next one's smallest.  A
 * read of such a run needs no merge: the concat iterator walks the SSTs
 * one after the other and opens each only when the walk reaches it (a seek
 * binary-searches the SSTs by largest key and opens one).  A scan over a
 * table that lives in one run therefore costs one SST iterator per row,
 * not a merge heap over every SST of the run.
 *
 * HsConcatIterCreate takes a reference on each HsSstInfo (the caller keeps
 * its own) and reads the SSTs through cache; at most one SST is held open
 * at a time.  HsSstRunIsSorted tells whether an array of SSTs is such a
 * run; callers merge the SSTs of any array that is not.
 *
 * include/hummock_stream/storage/concat_iter.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_STORAGE_CONCAT_ITER_H
#define HS_STORAGE_CONCAT_ITER_H

#include "hummock_stream/storage/iterator.h"
#include "hummock_stream/storage/sst_cache.h"
#include "hummock_stream/storage/sst_info.h"

/*
 * Are ssts[0 .. n) sorted by key with disjoint full-key ranges
 * (largest(i) < smallest(i + 1))?
 */
extern bool HsSstRunIsSorted(HsSstInfo *const *ssts, int n);

/*
 * An iterator over the run ssts[0 .. n) (HsSstRunIsSorted must hold; n >= 1).
 * The array is copied.
 */
extern HsIterator *HsConcatIterCreate(HsEnv *env, HsSstCache *cache,
									  HsSstInfo *const *ssts, int n);

#endif							/* HS_STORAGE_CONCAT_ITER_H */
