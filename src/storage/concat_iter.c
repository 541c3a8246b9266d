/*-------------------------------------------------------------------------
 *
 * concat_iter.c
 *	  Iterator over a sorted run of non-overlapping SSTs.
 *
 * Design notes
 *
 * The iterator is (current SST index, that SST's iterator).  Moving past
 * the end of one SST opens the next one and positions it at its first
 * entry; an SST whose entries all lie outside the walk (an empty iterator)
 * is skipped the same way.  The run is ordered, so the entries come out in
 * full-key order without comparisons between SSTs.
 *
 * A seek finds the first SST whose largest full key is >= the target (a
 * binary search over the run's key ranges, no I/O) and seeks inside it;
 * if that SST has nothing >= target (only possible when its index and
 * blocks disagree with its recorded range) the walk continues with the
 * next SST.
 *
 * The current SST's iterator comes from the sst cache (holding the
 * reader until the walk leaves the SST, so a long scan pins one reader;
 * and known to the cache's iterator hooks, which destroy it if an error
 * abandons the walk: sst_cache.h).
 * Errors of an SST iterator become the concat iterator's (sticky) status.
 *
 * src/storage/concat_iter.c
 *
 *-------------------------------------------------------------------------
 */
#include "hummock_stream/storage/block.h"
#include "hummock_stream/storage/concat_iter.h"
#include "hummock_stream/storage/sst_reader.h"

typedef struct HsConcatIter
{
	HsIterator	base;
	HsSstCache *cache;
	HsSstInfo **ssts;			/* referenced */
	int			n;
	int			cur;			/* index of the open SST, or n */
	HsIterator *inner;			/* iterator of ssts[cur] */
} HsConcatIter;

bool
HsSstRunIsSorted(HsSstInfo *const *ssts, int n)
{
	for (int i = 0; i + 1 < n; i++)
		if (HsFullKeyCompare(HsSstInfoLargest(ssts[i]),
							 HsSstInfoSmallest(ssts[i + 1])) >= 0)
			return false;
	return true;
}

/* Close the open SST, if any. */
static void
concat_close(HsConcatIter *ci)
{
	if (ci->inner)
		HsIterDestroy(ci->inner);
	ci->inner = NULL;
	ci->cur = ci->n;
}

/* Open ssts[i]; false (iterator invalid, maybe failed) if that fails. */
static bool
concat_open(HsConcatIter *ci, int i)
{
	concat_close(ci);
	if (i >= ci->n || ci->base.status.code != HS_OK)
		return false;
	if (!HsSstCacheNewIterator(ci->cache, ci->ssts[i]->object_id, &ci->inner,
							   &ci->base.status))
	{
		ci->inner = NULL;
		return false;
	}
	ci->cur = i;
	return true;
}

/*
 * While the open SST's iterator is exhausted, move on to the next SST's
 * first entry.  Takes over a failed SST's status.
 */
static void
concat_skip_exhausted(HsConcatIter *ci)
{
	while (ci->inner && !HsIterValid(ci->inner))
	{
		if (ci->inner->status.code != HS_OK)
		{
			ci->base.status = ci->inner->status;
			concat_close(ci);
			return;
		}
		if (!concat_open(ci, ci->cur + 1))
			return;
		HsIterSeekToFirst(ci->inner);
	}
}

/* Publish the open SST's entry as ours (or none). */
static inline void
concat_publish(HsConcatIter *ci)
{
	if (ci->inner)
		HsIterPublish(&ci->base, HsIterValid(ci->inner), HsIterKey(ci->inner),
					  HsIterValue(ci->inner));
	else
		HsIterPublish(&ci->base, false, HsSliceMake(NULL, 0),
					  HsSliceMake(NULL, 0));
}

/* Positions at the first entry of the first SST that has one. */
static void
concat_seek_to_first(HsIterator *it)
{
	HsConcatIter *ci = (HsConcatIter *) it;

	if (concat_open(ci, 0))
	{
		HsIterSeekToFirst(ci->inner);
		concat_skip_exhausted(ci);
	}
	concat_publish(ci);
}

/* Opens the first SST whose largest key is >= target and seeks in it. */
static void
concat_seek(HsIterator *it, HsSlice target)
{
	HsConcatIter *ci = (HsConcatIter *) it;
	int			lo = 0;
	int			hi = ci->n;

	/* first SST whose largest key is >= target */
	while (lo < hi)
	{
		int			mid = lo + (hi - lo) / 2;

		if (HsFullKeyCompare(HsSstInfoLargest(ci->ssts[mid]), target) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* seek inside that SST, opening it unless it is the open one */
	if ((lo == ci->cur && ci->inner != NULL) || concat_open(ci, lo))
		HsIterSeek(ci->inner, target);
	concat_skip_exhausted(ci);
	concat_publish(ci);
}

/* Moves to the next entry, opening the next SST at the end of one. */
static void
concat_next(HsIterator *it)
{
	HsConcatIter *ci = (HsConcatIter *) it;

	HsIterNext(ci->inner);
	if (!HsIterValid(ci->inner))
		concat_skip_exhausted(ci);
	concat_publish(ci);
}

/* The open SST's iterator lends its block cursor. */
static HsBlockIter *
concat_cursor(HsIterator *it, HsSlice *limit)
{
	HsConcatIter *ci = (HsConcatIter *) it;

	return ci->inner ? HsIterBorrow(ci->inner, limit) : NULL;
}

/* Takes the position back from a borrower of the open SST's cursor. */
static void
concat_resync(HsIterator *it)
{
	HsConcatIter *ci = (HsConcatIter *) it;

	ci->inner->ops->resync(ci->inner);
	if (!HsIterValid(ci->inner))
		concat_skip_exhausted(ci);
	concat_publish(ci);
}

/* Closes the open SST and drops the SST references. */
static void
concat_destroy(HsIterator *it)
{
	HsConcatIter *ci = (HsConcatIter *) it;

	concat_close(ci);
	HsSstInfoArrayFree(it->env, ci->ssts, ci->n);
	HsFree(it->env, ci);
}

/* valid, key and value are published (iterator.h) */
static const HsIteratorOps concat_iter_ops = {
	.seek_to_first = concat_seek_to_first,
	.seek = concat_seek,
	.next = concat_next,
	.destroy = concat_destroy,
	.cursor = concat_cursor,
	.resync = concat_resync,
};

HsIterator *
HsConcatIterCreate(HsEnv *env, HsSstCache *cache, HsSstInfo *const *ssts,
				   int n)
{
	HsConcatIter *ci = HsAllocZero(env, sizeof(HsConcatIter));

	ci->base.ops = &concat_iter_ops;
	ci->base.env = env;
	HsStatusClear(&ci->base.status);
	ci->cache = cache;
	ci->n = n;
	ci->ssts = HsSstInfoArrayCopy(env, ssts, n);
	ci->cur = n;
	return &ci->base;
}
