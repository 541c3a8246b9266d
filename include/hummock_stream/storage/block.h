/*-------------------------------------------------------------------------
 *
 * block.h
 *	  Reading SST blocks: validation and the block iterator.
 *
 * A Block is a validated view of block contents (format in
 * block_builder.h) that someone else owns: a reader's buffer or a block
 * cache entry.  BlockParse checks the restart array once (count in range,
 * first restart 0, offsets strictly increasing and inside the entry area),
 * so the binary search can trust it.
 *
 * BlockIter walks the entries.  It decodes each entry with bounds checks
 * (varints inside the entry area, shared <= previous key length, key delta
 * and value inside the entry area, key at least HS_MIN_FULL_KEY_LEN bytes)
 * and turns any violation into HS_CORRUPTION in the status it was given,
 * becoming invalid.  Keys are rebuilt in a reused buffer, values are
 * slices of the block: no allocation per entry.  Keys are full keys and
 * seeks use HsFullKeyCompare.
 *
 * BlockIter is the hot-path struct used inside the SST reader; when an
 * HsIterator is wanted (tests, tools), BlockNewIterator wraps one.
 *
 * include/hummock_stream/storage/block.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_STORAGE_BLOCK_H
#define HS_STORAGE_BLOCK_H

#include "hummock_stream/storage/coding.h"
#include "hummock_stream/storage/iterator.h"

typedef struct Block
{
	const uint8_t *data;
	uint32_t	size;
	uint32_t	restarts_offset;	/* end of the entries */
	uint32_t	num_restarts;
} Block;

/*
 * Validate contents as a block and fill blk.  path and file_offset only
 * label errors (HS_CORRUPTION).
 */
extern bool BlockParse(Block *blk, HsSlice contents, const char *path,
					   uint64_t file_offset, HsStatus *st);

static inline uint32_t
BlockRestartOffset(const Block *blk, uint32_t i)
{
	return HsGetLE32(blk->data + blk->restarts_offset + 4 * (size_t) i);
}

/*
 * Decode the entry header at p, not reading at or past limit.  Returns the
 * start of the key delta, or NULL if the header is malformed or the key
 * delta and value do not fit before limit.
 */
static inline const uint8_t *
BlockDecodeEntry(const uint8_t *p, const uint8_t *limit, uint32_t *shared,
				 uint32_t *non_shared, uint32_t *value_len)
{
	if (limit - p < 3)
		return NULL;
	*shared = p[0];
	*non_shared = p[1];
	*value_len = p[2];
	if ((*shared | *non_shared | *value_len) < 128)
		p += 3;
	else
	{
		if ((p = HsDecodeVarint32(p, limit, shared)) == NULL ||
			(p = HsDecodeVarint32(p, limit, non_shared)) == NULL ||
			(p = HsDecodeVarint32(p, limit, value_len)) == NULL)
			return NULL;
	}
	if ((uint64_t) (limit - p) < (uint64_t) *non_shared + *value_len)
		return NULL;
	return p;
}

typedef struct BlockIter
{
	const uint8_t *data;
	uint32_t	restarts_offset;
	uint32_t	num_restarts;
	uint32_t	next;			/* offset of the entry after the current */
	bool		valid;
	HsBuf		key;			/* the current key */
	const uint8_t *value;
	uint32_t	value_len;
	/* error reporting */
	HsStatus   *status;			/* where errors go (never NULL) */
	const char *path;
	uint64_t	file_offset;	/* of the block, for messages */
} BlockIter;

/*
 * Prepare an iterator; its key buffer is allocated lazily and kept across
 * BlockIterReset calls.  status must outlive the iterator.
 */
extern void BlockIterInit(BlockIter *it, HsEnv *env, HsStatus *status);
extern void BlockIterDestroy(BlockIter *it);

/* Point the iterator at a (parsed) block; it is invalid until a seek. */
static inline void
BlockIterReset(BlockIter *it, const Block *blk, const char *path,
			   uint64_t file_offset)
{
	it->data = blk->data;
	it->restarts_offset = blk->restarts_offset;
	it->num_restarts = blk->num_restarts;
	it->next = 0;
	it->valid = false;
	it->key.len = 0;
	it->path = path;
	it->file_offset = file_offset;
}

extern void BlockIterSeekToFirst(BlockIter *it);
/* Position at the first entry with key >= target (a full key). */
extern void BlockIterSeek(BlockIter *it, HsSlice target);
extern void BlockIterNext(BlockIter *it);

static inline bool
BlockIterValid(const BlockIter *it)
{
	return it->valid;
}

static inline HsSlice
BlockIterKey(const BlockIter *it)
{
	return HsSliceMake(it->key.data, it->key.len);
}

static inline HsSlice
BlockIterValue(const BlockIter *it)
{
	return HsSliceMake(it->value, it->value_len);
}

/*
 * An HsIterator over a block.  The iterator copies nothing: contents must
 * stay alive and unchanged until it is destroyed.  If contents is not a
 * valid block, the iterator is invalid and its status says why.
 */
extern HsIterator *BlockNewIterator(HsEnv *env, HsSlice contents,
									const char *path, uint64_t file_offset);

#endif							/* HS_STORAGE_BLOCK_H */
