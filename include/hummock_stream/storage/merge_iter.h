/*-------------------------------------------------------------------------
 *
 * merge_iter.h
 *	  K-way merge of sorted iterators.
 *
 * The merge iterator yields the union of its children's entries in full-key
 * order.  It is how a read sees the whole LSM tree: one child per L0
 * sub-level (or SST) and one per deeper level.
 *
 * Earlier children are newer.  When several children hold an identical
 * full key (same table key *and* same epoch), the entry of the child with
 * the lowest index is returned and the copies in later children are
 * skipped.  Callers therefore pass children newest first (L0 sub-levels
 * newest first, then L1, L2, ...), so that a rewrite of an epoch's data
 * in a newer run shadows the older copy.  Within one child, equal full
 * keys are all returned, in the child's order.
 *
 * Ownership: the merge iterator takes ownership of every child iterator
 * (destroying the merge destroys them), but not of the children array,
 * which it copies.  With n == 1 it returns children[0] itself.
 *
 * Seek targets: the target must not point into memory the merge or its
 * children own (such as a key the merge returned), because each child's
 * seek may overwrite its key buffer before the next child reads the
 * target; copy such a key first.
 *
 * Errors: when a child becomes invalid with a non-OK status, the merge
 * copies that status into its own and becomes invalid; errors are sticky
 * (later seeks do nothing).
 *
 * include/hummock_stream/storage/merge_iter.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_STORAGE_MERGE_ITER_H
#define HS_STORAGE_MERGE_ITER_H

#include "hummock_stream/storage/iterator.h"

/*
 * Create a merge of children[0 .. n), newest first.  Never fails; n may be
 * 0 (an always-empty iterator).
 */
extern HsIterator *HsMergeIterCreate(HsEnv *env, HsIterator **children,
									 int n);

#endif							/* HS_STORAGE_MERGE_ITER_H */
