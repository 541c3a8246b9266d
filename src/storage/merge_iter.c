/*-------------------------------------------------------------------------
 *
 * merge_iter.c
 *	  K-way merge of sorted iterators with a binary min-heap.
 *
 * Design notes
 *
 * The heap holds the indexes of the valid children, ordered by (current
 * full key, child index): the child index breaks ties so that, among equal
 * full keys, the lowest-indexed ("newest") child is at the root.  The
 * current entry of the merge is always the root's.  Each child's current
 * key is cached next to it, so heap comparisons never call through the
 * child's ops.
 *
 * Next advances only the root child and restores the heap with one
 * sift-down (O(log n) comparisons); it never rebuilds the heap.  Seeks
 * position every child and rebuild the heap bottom-up in O(n).
 *
 * Duplicate full keys across children are skipped in next.  If any heap
 * element has the same key as the root, then one of the root's two heap
 * children does too: along the heap path from the root to that element,
 * keys never decrease and never exceed the element's key, so they all
 * equal the root's.  After every change of the heap the merge therefore
 * notes the runner-up (the smaller of the root's heap children) and
 * whether the root's key is strictly below it.  Then next is one
 * comparison in the common case: the root child advances, and if its new
 * key is still below the runner-up's it stays the root (long runs of one
 * child, as when a small L0 merges into a large level, cost no sifts).
 * Only when the root's key has duplicates does next copy
 * the root's key aside (the root child's key bytes die when it moves) and
 * advance every other child that surfaces at the root with that same key.
 * A second copy inside the winning child itself is not skipped: it sorts
 * before the later children's copies (same key, lower index), so the loop
 * stops there and returns it.
 *
 * The same runner-up lets the merge lend its root child's block cursor
 * (iterator.h) when the root's key is unique: up to the runner-up's key
 * the root stays the root, so that key (or the child's own limit, if
 * smaller) is the borrower's limit.  Taking the position back is the tail
 * of next: the root child re-publishes and the root is fixed.
 *
 * src/storage/merge_iter.c
 *
 *-------------------------------------------------------------------------
 */
#include "hummock_stream/storage/block.h"
#include "hummock_stream/storage/merge_iter.h"

typedef struct HsMergeChild
{
	HsIterator *it;
	HsSlice		key;			/* it's current key while it is in the heap */
} HsMergeChild;

typedef struct HsMergeIter
{
	HsIterator	base;
	int			n;				/* number of children */
	HsMergeChild *children;
	int		   *heap;			/* child indexes; heap[0] is current */
	int			heap_len;		/* valid children; 0 = not valid */
	int			runner;			/* the smaller of heap[1], heap[2] (or -1) */
	bool		root_unique;	/* root key < runner's key */
	uint8_t    *saved;			/* copy of a key while skipping duplicates */
	size_t		saved_cap;
} HsMergeIter;

/* Does child a sort before child b?  Ties go to the lower index. */
static inline bool
merge_less(const HsMergeIter *mi, int a, int b)
{
	int			r = HsFullKeyCompare(mi->children[a].key, mi->children[b].key);

	if (r != 0)
		return r < 0;
	return a < b;
}

/* Restore the heap property below slot pos. */
static inline void
merge_sift_down(HsMergeIter *mi, int pos)
{
	int		   *heap = mi->heap;
	int			len = mi->heap_len;
	int			x = heap[pos];

	for (;;)
	{
		int			c = 2 * pos + 1;

		if (c >= len)
			break;
		if (c + 1 < len && merge_less(mi, heap[c + 1], heap[c]))
			c++;
		if (!merge_less(mi, heap[c], x))
			break;
		heap[pos] = heap[c];
		pos = c;
	}
	heap[pos] = x;
}

/*
 * After the heap changed: find the runner-up (the smaller of the root's
 * heap children) and whether the root's key is strictly below it, i.e.
 * no other child holds the root's key.
 */
static inline void
merge_find_runner(HsMergeIter *mi)
{
	int		   *heap = mi->heap;

	if (mi->heap_len < 2)
	{
		mi->runner = -1;
		mi->root_unique = true;
		return;
	}
	mi->runner = heap[1];
	if (mi->heap_len > 2 && merge_less(mi, heap[2], heap[1]))
		mi->runner = heap[2];
	mi->root_unique = HsFullKeyCompare(mi->children[heap[0]].key,
									   mi->children[mi->runner].key) < 0;
}

/* Record a child's error and make the merge invalid. */
static void
merge_fail(HsMergeIter *mi, HsIterator *child)
{
	mi->base.status = child->status;
	mi->heap_len = 0;
}

/*
 * Refresh the root child after it moved: re-cache its key and sift it
 * down, or drop it from the heap if it is exhausted.  Returns false if the
 * child failed.
 */
static inline bool
merge_fix_root(HsMergeIter *mi)
{
	HsMergeChild *c = &mi->children[mi->heap[0]];

	if (HsIterValid(c->it))
	{
		c->key = HsIterKey(c->it);
	}
	else
	{
		if (c->it->status.code != HS_OK)
		{
			merge_fail(mi, c->it);
			return false;
		}
		mi->heap[0] = mi->heap[--mi->heap_len];
	}
	if (mi->heap_len > 1)
		merge_sift_down(mi, 0);
	merge_find_runner(mi);
	return true;
}

/* After every child was positioned: build the heap of the valid ones. */
static void
merge_build_heap(HsMergeIter *mi)
{
	mi->heap_len = 0;
	for (int i = 0; i < mi->n; i++)
	{
		HsMergeChild *c = &mi->children[i];

		if (HsIterValid(c->it))
		{
			c->key = HsIterKey(c->it);
			mi->heap[mi->heap_len++] = i;
		}
		else if (c->it->status.code != HS_OK)
		{
			merge_fail(mi, c->it);
			return;
		}
	}
	for (int pos = mi->heap_len / 2 - 1; pos >= 0; pos--)
		merge_sift_down(mi, pos);
	merge_find_runner(mi);
}

/* Publish the root child's entry as the merge's (or none). */
static inline void
merge_publish(HsMergeIter *mi)
{
	if (mi->heap_len > 0)
	{
		HsMergeChild *c = &mi->children[mi->heap[0]];

		HsIterPublish(&mi->base, true, c->key, HsIterValue(c->it));
	}
	else
		HsIterPublish(&mi->base, false, HsSliceMake(NULL, 0),
					  HsSliceMake(NULL, 0));
}

/* Positions every child at its first entry and rebuilds the heap. */
static void
merge_seek_to_first(HsIterator *it)
{
	HsMergeIter *mi = (HsMergeIter *) it;

	if (it->status.code != HS_OK)
		return;
	for (int i = 0; i < mi->n; i++)
		HsIterSeekToFirst(mi->children[i].it);
	merge_build_heap(mi);
	merge_publish(mi);
}

/* Seeks every child to target and rebuilds the heap. */
static void
merge_seek(HsIterator *it, HsSlice target)
{
	HsMergeIter *mi = (HsMergeIter *) it;

	if (it->status.code != HS_OK)
		return;
	for (int i = 0; i < mi->n; i++)
		HsIterSeek(mi->children[i].it, target);
	merge_build_heap(mi);
	merge_publish(mi);
}

/* Moves the root child past the current entry and restores the heap. */
static void
merge_advance(HsMergeIter *mi)
{
	HsIterator *it = &mi->base;
	HsSlice		saved;
	int			winner;

	if (mi->heap_len == 0)
		return;

	/*
	 * Fast path: no other child holds the current key.  If the root
	 * child's next key is still below the runner-up's, the root stays
	 * the root: one comparison, no sift.
	 */
	if (mi->root_unique)
	{
		HsMergeChild *c = &mi->children[mi->heap[0]];

		HsIterNext(c->it);
		if (mi->runner >= 0 && HsIterValid(c->it))
		{
			c->key = HsIterKey(c->it);
			if (HsFullKeyCompare(c->key, mi->children[mi->runner].key) < 0)
				return;
		}
		merge_fix_root(mi);
		return;
	}

	/* Save the current key, then skip it in every child that has it. */
	saved = mi->children[mi->heap[0]].key;
	if (saved.len > mi->saved_cap)
	{
		mi->saved_cap = saved.len * 2;
		mi->saved = HsRealloc(it->env, mi->saved, mi->saved_cap);
	}
	memcpy(mi->saved, saved.data, saved.len);
	saved.data = mi->saved;

	winner = mi->heap[0];
	HsIterNext(mi->children[winner].it);
	if (!merge_fix_root(mi))
		return;
	while (mi->heap_len > 0 && mi->heap[0] != winner &&
		   HsFullKeyCompare(mi->children[mi->heap[0]].key, saved) == 0)
	{
		HsIterNext(mi->children[mi->heap[0]].it);
		if (!merge_fix_root(mi))
			return;
	}
}

/* Moves to the next entry of the merge. */
static void
merge_next(HsIterator *it)
{
	HsMergeIter *mi = (HsMergeIter *) it;

	merge_advance(mi);
	merge_publish(mi);
}

/* Lend the root child's cursor while no other child holds its key. */
static HsBlockIter *
merge_cursor(HsIterator *it, HsSlice *limit)
{
	HsMergeIter *mi = (HsMergeIter *) it;
	HsBlockIter  *bi;
	HsSlice		child_limit;

	if (mi->heap_len == 0 || !mi->root_unique)
		return NULL;
	bi = HsIterBorrow(mi->children[mi->heap[0]].it, &child_limit);
	if (bi == NULL)
		return NULL;
	*limit = child_limit;
	if (mi->runner >= 0)
	{
		HsSlice		r = mi->children[mi->runner].key;

		if (child_limit.data == NULL || HsFullKeyCompare(r, child_limit) < 0)
			*limit = r;
	}
	return bi;
}

/* Takes the position back from a borrower of the root child's cursor. */
static void
merge_resync(HsIterator *it)
{
	HsMergeIter *mi = (HsMergeIter *) it;
	HsMergeChild *c = &mi->children[mi->heap[0]];

	c->it->ops->resync(c->it);
	if (mi->runner >= 0 && HsIterValid(c->it))
	{
		c->key = HsIterKey(c->it);
		if (HsFullKeyCompare(c->key, mi->children[mi->runner].key) < 0)
		{
			merge_publish(mi);
			return;
		}
	}
	merge_fix_root(mi);
	merge_publish(mi);
}

/* Destroys every child and the merge. */
static void
merge_destroy(HsIterator *it)
{
	HsMergeIter *mi = (HsMergeIter *) it;

	for (int i = 0; i < mi->n; i++)
		HsIterDestroy(mi->children[i].it);
	if (mi->saved)
		HsFree(it->env, mi->saved);
	HsFree(it->env, mi->children);
	HsFree(it->env, mi->heap);
	HsFree(it->env, mi);
}

/* valid, key and value are published (iterator.h) */
static const HsIteratorOps merge_iter_ops = {
	.seek_to_first = merge_seek_to_first,
	.seek = merge_seek,
	.next = merge_next,
	.destroy = merge_destroy,
	.cursor = merge_cursor,
	.resync = merge_resync,
};

/*
 * Create a merge of children[0 .. n), newest first; see merge_iter.h.
 */
HsIterator *
HsMergeIterCreate(HsEnv *env, HsIterator **children, int n)
{
	HsMergeIter *mi;

	if (n == 1)
		return children[0];

	mi = HsAlloc(env, sizeof(HsMergeIter));
	mi->base.ops = &merge_iter_ops;
	mi->base.env = env;
	HsStatusClear(&mi->base.status);
	mi->n = n;
	/* allocate at least one slot so that n == 0 needs no special case */
	mi->children = HsAlloc(env, sizeof(HsMergeChild) * (n > 0 ? n : 1));
	mi->heap = HsAlloc(env, sizeof(int) * (n > 0 ? n : 1));
	for (int i = 0; i < n; i++)
	{
		mi->children[i].it = children[i];
		mi->children[i].key = HsSliceMake(NULL, 0);
	}
	mi->heap_len = 0;
	mi->base.cur_valid = false;
	mi->saved = NULL;
	mi->saved_cap = 0;
	return &mi->base;
}
