/*-------------------------------------------------------------------------
 *
 * iterator.h
 *	  The iterator interface every hummock storage iterator implements.
 *
 * An iterator walks entries (full key, value) in full-key order
 * (HsFullKeyCompare: table key ascending, epoch descending).  Iterators
 * compose: an SST iterator is a two-level walk over block iterators, the
 * merge iterator is a heap of child iterators, the user iterator sits on a
 * merge iterator and hides old versions and tombstones.
 *
 * Usage (LevelDB style):
 *
 *		for (HsIterSeekToFirst(it); HsIterValid(it); HsIterNext(it))
 *			use(HsIterKey(it), HsIterValue(it));
 *		if (!HsIterStatus(it, &st))
 *			report(&st);
 *		HsIterDestroy(it);
 *
 * Key and value slices stay valid until the next call that moves the
 * iterator.
 *
 * Published entries: an iterator on a hot read path may leave valid, key
 * and value NULL in its ops and instead keep cur_valid, cur_key and
 * cur_value in its base up to date after every call that moves it
 * (HsIterPublish).  The accessors below then read those fields instead of
 * calling through ops; a scan asks for the current entry several times
 * per row at every level of its iterator stack, so this removes most of
 * its indirect calls.  An iterator that hits an error becomes invalid and keeps the
 * error in its status; callers must check the status after a loop ends.
 *
 * Lent block cursors: a scan spends most of its time stepping from one
 * entry of a block to the next, and every level of the stack (SST, concat,
 * merge) would otherwise take part in each step.  An iterator whose
 * current entry lies in a decoded block may lend out that block's
 * HsBlockIter (ops->cursor, optional): the borrower steps it with
 * HsBlockIterNext directly, for as long as it stays valid and its key is
 * below the limit the lender sets (a merge sets the next child's key: up
 * to there no other child has an entry, so the merge has nothing to do).
 * Meanwhile the lender's own state is stale.  Before any other call on
 * the lender (destroy excepted) the borrower hands the position back with
 * ops->resync: the lender then stands on the cursor's entry (the borrower
 * may have stopped on an entry at or past the limit), or, if the cursor
 * ran off its block, on the entry after the block.  See HsIterBorrow.
 *
 * include/hummock_stream/storage/iterator.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_STORAGE_ITERATOR_H
#define HS_STORAGE_ITERATOR_H

#include "hummock_stream/storage/env.h"
#include "hummock_stream/storage/key.h"

typedef struct HsIterator HsIterator;

typedef struct HsIteratorOps
{
	bool		(*valid) (HsIterator *it);
	void		(*seek_to_first) (HsIterator *it);
	/* Position at the first entry whose full key is >= target. */
	void		(*seek) (HsIterator *it, HsSlice target_full_key);
	void		(*next) (HsIterator *it);
	HsSlice		(*key) (HsIterator *it);	/* full key */
	HsSlice		(*value) (HsIterator *it);	/* kind byte + payload */
	void		(*destroy) (HsIterator *it);

	/*
	 * Optional (see "Lent block cursors" above).  cursor returns the
	 * HsBlockIter standing on the current entry, or NULL if it cannot lend
	 * one now; *limit is the full key the borrower must stop before
	 * (data NULL: no limit).  resync takes the position back.
	 */
	struct HsBlockIter *(*cursor) (HsIterator *it, HsSlice *limit);
	void		(*resync) (HsIterator *it);
} HsIteratorOps;

/*
 * Embed as the first member of every concrete iterator.
 */
struct HsIterator
{
	const HsIteratorOps *ops;
	HsEnv	   *env;
	HsStatus	status;			/* HS_OK until an error */

	/* the current entry, for iterators whose ops publish it (see above) */
	bool		cur_valid;
	HsSlice		cur_key;
	HsSlice		cur_value;
};

/* Publish the current entry (iterators with published entries only). */
static inline void
HsIterPublish(HsIterator *it, bool valid, HsSlice key, HsSlice value)
{
	it->cur_valid = valid && it->status.code == HS_OK;
	it->cur_key = key;
	it->cur_value = value;
}

/* Is the iterator on an entry? */
static inline bool
HsIterValid(HsIterator *it)
{
	return it->ops->valid ? it->ops->valid(it) : it->cur_valid;
}

/* Positions at the first entry. */
static inline void
HsIterSeekToFirst(HsIterator *it)
{
	it->ops->seek_to_first(it);
}

/* Positions at the first entry whose full key is >= target. */
static inline void
HsIterSeek(HsIterator *it, HsSlice target)
{
	it->ops->seek(it, target);
}

/* Moves to the next entry. */
static inline void
HsIterNext(HsIterator *it)
{
	it->ops->next(it);
}

/* Returns the current full key. */
static inline HsSlice
HsIterKey(HsIterator *it)
{
	return it->ops->key ? it->ops->key(it) : it->cur_key;
}

/* Returns the current value (kind byte + payload). */
static inline HsSlice
HsIterValue(HsIterator *it)
{
	return it->ops->value ? it->ops->value(it) : it->cur_value;
}

/*
 * Borrow it's block cursor if it has one to lend (it must be valid);
 * NULL otherwise.
 */
static inline struct HsBlockIter *
HsIterBorrow(HsIterator *it, HsSlice *limit)
{
	return it->ops->cursor ? it->ops->cursor(it, limit) : NULL;
}

/* Copy the iterator's status out; returns true if it is OK. */
static inline bool
HsIterStatus(HsIterator *it, HsStatus *st)
{
	*st = it->status;
	return it->status.code == HS_OK;
}

/* Destroys the iterator (NULL is fine). */
static inline void
HsIterDestroy(HsIterator *it)
{
	if (it)
		it->ops->destroy(it);
}

#endif							/* HS_STORAGE_ITERATOR_H */
