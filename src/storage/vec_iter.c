/*-------------------------------------------------------------------------
 *
 * vec_iter.c
 *	  Iterator over a sorted in-memory array of entries.
 *
 * The iterator is a position in [0, n]; n means "not valid".  Seek is a
 * binary search for the first entry whose full key is >= the target (a
 * lower bound), so among equal keys it lands on the first one.  The
 * iterator never fails: its status stays HS_OK.
 *
 * src/storage/vec_iter.c
 *
 *-------------------------------------------------------------------------
 */
#include "hummock_stream/storage/vec_iter.h"

typedef struct HsVecIter
{
	HsIterator	base;
	const HsVecEntry *entries;
	size_t		n;
	size_t		pos;			/* n when not valid */
	HsVecIterReleaseFn release;
	void	   *release_arg;
} HsVecIter;

/* Is the iterator on an entry? */
static bool
vec_iter_valid(HsIterator *it)
{
	HsVecIter  *vi = (HsVecIter *) it;

	return vi->pos < vi->n;
}

/* Positions at the first entry. */
static void
vec_iter_seek_to_first(HsIterator *it)
{
	HsVecIter  *vi = (HsVecIter *) it;

	vi->pos = 0;
}

/* Position at the first entry whose full key is >= target. */
static void
vec_iter_seek(HsIterator *it, HsSlice target)
{
	HsVecIter  *vi = (HsVecIter *) it;
	size_t		lo = 0;
	size_t		hi = vi->n;

	while (lo < hi)
	{
		size_t		mid = lo + (hi - lo) / 2;

		if (HsFullKeyCompare(vi->entries[mid].key, target) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	vi->pos = lo;
}

/* Moves to the next entry. */
static void
vec_iter_next(HsIterator *it)
{
	HsVecIter  *vi = (HsVecIter *) it;

	if (vi->pos < vi->n)
		vi->pos++;
}

/* Returns the current entry's full key. */
static HsSlice
vec_iter_key(HsIterator *it)
{
	HsVecIter  *vi = (HsVecIter *) it;

	return vi->entries[vi->pos].key;
}

/* Returns the current entry's value. */
static HsSlice
vec_iter_value(HsIterator *it)
{
	HsVecIter  *vi = (HsVecIter *) it;

	return vi->entries[vi->pos].value;
}

/* Calls the release callback and frees the iterator. */
static void
vec_iter_destroy(HsIterator *it)
{
	HsVecIter  *vi = (HsVecIter *) it;

	if (vi->release)
		vi->release(vi->release_arg);
	HsFree(it->env, vi);
}

static const HsIteratorOps vec_iter_ops = {
	.valid = vec_iter_valid,
	.seek_to_first = vec_iter_seek_to_first,
	.seek = vec_iter_seek,
	.next = vec_iter_next,
	.key = vec_iter_key,
	.value = vec_iter_value,
	.destroy = vec_iter_destroy,
};

/*
 * Create an iterator over a sorted entry array; see vec_iter.h for
 * ownership.  The iterator starts unpositioned (not valid).
 */
HsIterator *
HsVecIterCreate(HsEnv *env, const HsVecEntry *entries, size_t n,
				HsVecIterReleaseFn release, void *release_arg)
{
	HsVecIter  *vi = HsAlloc(env, sizeof(HsVecIter));

	vi->base.ops = &vec_iter_ops;
	vi->base.env = env;
	HsStatusClear(&vi->base.status);
	vi->entries = entries;
	vi->n = n;
	vi->pos = n;
	vi->release = release;
	vi->release_arg = release_arg;
	return &vi->base;
}
