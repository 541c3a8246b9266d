/*-------------------------------------------------------------------------
 *
 * block.c
 *	  Block validation and the block iterator.
 *
 * Seek is a binary search over the restart keys (which are stored whole,
 * so they are compared in place without copying) for the last restart
 * whose key is < target, followed by a linear scan of at most one restart
 * interval.  Every decoded entry is checked against the block bounds; a
 * malformed entry makes the iterator invalid with HS_CORRUPTION.
 *
 * src/storage/block.c
 *
 *-------------------------------------------------------------------------
 */
#include <inttypes.h>
#include <stdio.h>

#include "hummock_stream/storage/block.h"

/* ----------------------------------------------------------------
 *		validation
 * ----------------------------------------------------------------
 */

bool
HsBlockParse(Block *blk, HsSlice contents, const char *path,
		   uint64_t file_offset, HsStatus *st)
{
	char		expected[96];
	char		actual[96];
	uint32_t	n;
	uint32_t	prev = 0;

	if (contents.len < 4 || contents.len > UINT32_MAX)
	{
		snprintf(actual, sizeof(actual), "%zu bytes", contents.len);
		return HsStatusCorruption(st, path, file_offset,
								  "block too short for its restart count",
								  "at least 4 bytes", actual);
	}
	n = HsGetLE32(contents.data + contents.len - 4);
	if (n == 0 || n > (contents.len - 4) / 4)
	{
		snprintf(expected, sizeof(expected), "between 1 and %zu restarts",
				 (contents.len - 4) / 4);
		snprintf(actual, sizeof(actual), "%" PRIu32, n);
		return HsStatusCorruption(st, path, file_offset,
								  "block restart count out of range",
								  expected, actual);
	}
	blk->data = contents.data;
	blk->size = (uint32_t) contents.len;
	blk->num_restarts = n;
	blk->restarts_offset = (uint32_t) (contents.len - 4 - 4 * (size_t) n);

	for (uint32_t i = 0; i < n; i++)
	{
		uint32_t	off = HsBlockRestartOffset(blk, i);
		bool		ok;

		if (i == 0)
			ok = (off == 0);
		else
			ok = (off > prev && off < blk->restarts_offset);
		/* a non-empty block has its first restart inside the entries */
		if (i == 0 && blk->restarts_offset == 0)
			ok = ok && n == 1;
		if (!ok)
		{
			if (i == 0)
				snprintf(expected, sizeof(expected), "0");
			else
				snprintf(expected, sizeof(expected),
						 "an offset in (%" PRIu32 ", %" PRIu32 ")",
						 prev, blk->restarts_offset);
			snprintf(actual, sizeof(actual), "restart %" PRIu32 " at %" PRIu32,
					 i, off);
			return HsStatusCorruption(st, path, file_offset,
									  "block restart offset out of range",
									  expected, actual);
		}
		prev = off;
	}
	return true;
}

/* ----------------------------------------------------------------
 *		HsBlockIter
 * ----------------------------------------------------------------
 */

void
HsBlockIterInit(HsBlockIter *it, HsEnv *env, HsStatus *status)
{
	memset(it, 0, sizeof(*it));
	HsBufInit(&it->key, env);
	it->status = status;
}

void
HsBlockIterDestroy(HsBlockIter *it)
{
	HsBufFree(&it->key);
}

/* Record a malformed entry at block offset off; the iterator goes invalid. */
void
HsBlockIterFail(HsBlockIter *it, uint32_t off, const char *why)
{
	char		expected[96];
	char		actual[160];

	snprintf(expected, sizeof(expected),
			 "a well-formed entry in the %" PRIu32 " entry bytes",
			 it->restarts_offset);
	snprintf(actual, sizeof(actual), "%s at block offset %" PRIu32, why, off);
	it->valid = false;
	it->next = it->restarts_offset;
	if (it->status->code == HS_OK)
		HsStatusCorruption(it->status, it->path, it->file_offset,
						   "malformed block entry", expected, actual);
}

/* Positions the cursor on the block's first entry. */
void
HsBlockIterSeekToFirst(HsBlockIter *it)
{
	it->next = 0;
	it->key.len = 0;
	HsBlockIterNext(it);
}

void
HsBlockIterSeek(HsBlockIter *it, HsSlice target)
{
	uint32_t	left = 0;
	uint32_t	right = it->num_restarts - 1;
	const uint8_t *limit = it->data + it->restarts_offset;
	Block		blk;

	if (it->restarts_offset == 0)
	{
		it->valid = false;		/* empty block */
		return;
	}
	blk.data = it->data;
	blk.restarts_offset = it->restarts_offset;

	/* the last restart whose key is < target (or restart 0) */
	while (left < right)
	{
		uint32_t	mid = left + (right - left + 1) / 2;
		uint32_t	off = HsBlockRestartOffset(&blk, mid);
		uint32_t	shared,
					non_shared,
					value_len;
		const uint8_t *p;

		p = HsBlockDecodeEntry(it->data + off, limit, &shared, &non_shared,
							 &value_len);
		if (p == NULL || shared != 0 || non_shared < HS_MIN_FULL_KEY_LEN)
		{
			HsBlockIterFail(it, off, p == NULL ?
							   "truncated or overlong restart entry" :
							   shared != 0 ?
							   "restart entry with a shared prefix" :
							   "key shorter than a full key");
			return;
		}
		if (HsFullKeyCompare(HsSliceMake(p, non_shared), target) < 0)
			left = mid;
		else
			right = mid - 1;
	}

	it->next = HsBlockRestartOffset(&blk, left);
	it->key.len = 0;
	for (;;)
	{
		HsBlockIterNext(it);
		if (!it->valid)
			return;
		if (HsFullKeyCompare(HsBlockIterKey(it), target) >= 0)
			return;
	}
}

/* ----------------------------------------------------------------
 *		HsIterator wrapper
 * ----------------------------------------------------------------
 */

typedef struct HsBlockIterator
{
	HsIterator	base;
	Block		block;
	bool		parsed;
	HsBlockIter	bi;
} HsBlockIterator;

/* Is the iterator on an entry of a block that parsed? */
static bool
blockit_valid(HsIterator *it)
{
	HsBlockIterator *b = (HsBlockIterator *) it;

	return b->parsed && b->bi.valid;
}

/* Positions at the block's first entry (nothing if it did not parse). */
static void
blockit_seek_to_first(HsIterator *it)
{
	HsBlockIterator *b = (HsBlockIterator *) it;

	if (b->parsed && it->status.code == HS_OK)
		HsBlockIterSeekToFirst(&b->bi);
}

/* Positions at the first entry >= target, which must be a full key. */
static void
blockit_seek(HsIterator *it, HsSlice target)
{
	HsBlockIterator *b = (HsBlockIterator *) it;

	if (target.len < HS_MIN_FULL_KEY_LEN && it->status.code == HS_OK)
	{
		HsStatusSet(&it->status, HS_INVALID_ARGUMENT,
					"seek target of %zu bytes is not a full key", target.len);
		b->bi.valid = false;
		return;
	}
	if (b->parsed && it->status.code == HS_OK)
		HsBlockIterSeek(&b->bi, target);
}

/* Moves to the next entry. */
static void
blockit_next(HsIterator *it)
{
	HsBlockIterator *b = (HsBlockIterator *) it;

	HsBlockIterNext(&b->bi);
}

/* Returns the current entry's full key. */
static HsSlice
blockit_key(HsIterator *it)
{
	return HsBlockIterKey(&((HsBlockIterator *) it)->bi);
}

/* Returns the current entry's value. */
static HsSlice
blockit_value(HsIterator *it)
{
	return HsBlockIterValue(&((HsBlockIterator *) it)->bi);
}

/* Frees the iterator (the block contents belong to the caller). */
static void
blockit_destroy(HsIterator *it)
{
	HsBlockIterator *b = (HsBlockIterator *) it;

	HsBlockIterDestroy(&b->bi);
	HsFree(it->env, b);
}

static const HsIteratorOps block_iterator_ops = {
	.valid = blockit_valid,
	.seek_to_first = blockit_seek_to_first,
	.seek = blockit_seek,
	.next = blockit_next,
	.key = blockit_key,
	.value = blockit_value,
	.destroy = blockit_destroy,
};

HsIterator *
HsBlockNewIterator(HsEnv *env, HsSlice contents, const char *path,
				 uint64_t file_offset)
{
	HsBlockIterator *b = HsAllocZero(env, sizeof(HsBlockIterator));

	b->base.ops = &block_iterator_ops;
	b->base.env = env;
	HsStatusClear(&b->base.status);
	HsBlockIterInit(&b->bi, env, &b->base.status);
	b->parsed = HsBlockParse(&b->block, contents, path, file_offset,
						   &b->base.status);
	if (b->parsed)
		HsBlockIterReset(&b->bi, &b->block, path, file_offset);
	return &b->base;
}
