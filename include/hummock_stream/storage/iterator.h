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
 * iterator.  An iterator that hits an error becomes invalid and keeps the
 * error in its status; callers must check the status after a loop ends.
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
} HsIteratorOps;

/*
 * Embed as the first member of every concrete iterator.
 */
struct HsIterator
{
	const HsIteratorOps *ops;
	HsEnv	   *env;
	HsStatus	status;			/* HS_OK until an error */
};

static inline bool
HsIterValid(HsIterator *it)
{
	return it->ops->valid(it);
}

static inline void
HsIterSeekToFirst(HsIterator *it)
{
	it->ops->seek_to_first(it);
}

static inline void
HsIterSeek(HsIterator *it, HsSlice target)
{
	it->ops->seek(it, target);
}

static inline void
HsIterNext(HsIterator *it)
{
	it->ops->next(it);
}

static inline HsSlice
HsIterKey(HsIterator *it)
{
	return it->ops->key(it);
}

static inline HsSlice
HsIterValue(HsIterator *it)
{
	return it->ops->value(it);
}

/* Copy the iterator's status out; returns true if it is OK. */
static inline bool
HsIterStatus(HsIterator *it, HsStatus *st)
{
	*st = it->status;
	return it->status.code == HS_OK;
}

static inline void
HsIterDestroy(HsIterator *it)
{
	if (it)
		it->ops->destroy(it);
}

#endif							/* HS_STORAGE_ITERATOR_H */
