/*-------------------------------------------------------------------------
 *
 * block.h
 *	  Reading SST blocks: validation and the block iterator.
 *
 * A Block is a validated view of block contents (format in
 * block_builder.h) that someone else owns: a reader's buffer or a block
 * cache entry.  HsBlockParse checks the restart array once (count in range,
 * first restart 0, offsets strictly increasing and inside the entry area),
 * so the binary search can trust it.
 *
 * HsBlockIter walks the entries.  It decodes each entry with bounds checks
 * (varints inside the entry area, shared <= previous key length, key delta
 * and value inside the entry area, key at least HS_MIN_FULL_KEY_LEN bytes)
 * and turns any violation into HS_CORRUPTION in the status it was given,
 * becoming invalid.  Keys are rebuilt in a reused buffer, values are
 * slices of the block: no allocation per entry.  Keys are full keys and
 * seeks use HsFullKeyCompare.
 *
 * HsBlockIter is the hot-path struct used inside the SST reader; when an
 * HsIterator is wanted (tests, tools), HsBlockNewIterator wraps one.
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
extern bool HsBlockParse(Block *blk, HsSlice contents, const char *path,
					   uint64_t file_offset, HsStatus *st);

/* Returns the offset of restart point i in the entry bytes. */
static inline uint32_t
HsBlockRestartOffset(const Block *blk, uint32_t i)
{
	return HsGetLE32(blk->data + blk->restarts_offset + 4 * (size_t) i);
}

/*
 * Decode the entry header at p, not reading at or past limit.  Returns the
 * start of the key delta, or NULL if the header is malformed or the key
 * delta and value do not fit before limit.
 */
static inline const uint8_t *
HsBlockDecodeEntry(const uint8_t *p, const uint8_t *limit, uint32_t *shared,
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

typedef struct HsBlockIter
{
	const uint8_t *data;
	uint32_t	restarts_offset;
	uint32_t	num_restarts;
	uint32_t	next;			/* offset of the entry after the current */
	bool		valid;
	HsBuf		key;			/* the current key */
	const uint8_t *value;
	uint32_t	value_len;
	uint32_t	delta_len;		/* bytes of the key delta (non-shared) */
	/*
	 * Set by the owner when no table key has two entries in the block (an
	 * SST whose properties count as many distinct table keys as entries):
	 * scans then need not tell versions apart.  Kept across resets.
	 */
	bool		unique_keys;
	/* error reporting */
	HsStatus   *status;			/* where errors go (never NULL) */
	const char *path;
	uint64_t	file_offset;	/* of the block, for messages */
} HsBlockIter;

/*
 * Prepare an iterator; its key buffer is allocated lazily and kept across
 * HsBlockIterReset calls.  status must outlive the iterator.
 */
extern void HsBlockIterInit(HsBlockIter *it, HsEnv *env, HsStatus *status);
extern void HsBlockIterDestroy(HsBlockIter *it);

/* Point the iterator at a (parsed) block; it is invalid until a seek. */
static inline void
HsBlockIterReset(HsBlockIter *it, const Block *blk, const char *path,
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

extern void HsBlockIterSeekToFirst(HsBlockIter *it);
/* Position at the first entry with key >= target (a full key). */
extern void HsBlockIterSeek(HsBlockIter *it, HsSlice target);
/* Make the iterator invalid with HS_CORRUPTION about the entry at off. */
extern void HsBlockIterFail(HsBlockIter *it, uint32_t off, const char *why);

/*
 * Where a new key, whose bytes from shared on are the delta d, first
 * differs from the old key within the table key [0, tk_end): tk_end if
 * the table keys are equal.  Compares in words; a word may run past the
 * bytes it compares (masked off), which stays inside the old key because
 * its epoch follows the table key, and inside the block because the
 * restart array follows the entries.
 */
static HS_ALWAYS_INLINE size_t
HsBlockKeyDeltaDiffersAt(const uint8_t *d, size_t shared,
					   const uint8_t *old_key, size_t tk_end)
{
	for (size_t i = shared; i < tk_end; i += 8)
	{
		uint64_t	x = HsGetLE64(d + (i - shared)) ^ HsGetLE64(old_key + i);

		if (tk_end - i < 8)
			x &= (((uint64_t) 1) << (8 * (tk_end - i))) - 1;
		if (x != 0)
			return i + HsLowestSetByte64(x);	/* lowest byte: first in memory */
	}
	return tk_end;
}

/*
 * Copy a key delta of at most 16 bytes as two words to dst, which must
 * have room for 16; the caller makes sure the 16 bytes read at d end
 * within the block (the first restart offset follows the entries).
 */
static HS_ALWAYS_INLINE void
HsBlockKeyDeltaCopy16(uint8_t *dst, const uint8_t *d)
{
	uint64_t	w0 = HsGetLE64(d);
	uint64_t	w1 = HsGetLE64(d + 8);

	HsPutLE64(dst, w0);
	HsPutLE64(dst + 8, w1);
}

/*
 * The epoch of an entry whose value starts at value, whose key delta had
 * delta_len bytes and whose rebuilt key is key[0, key_len): read from the
 * block when the delta holds it (the usual case), not from the key buffer
 * just written, so that a scan does not load across its fresh stores.
 */
static inline HsEpoch
HsBlockEntryEpoch(const uint8_t *value, uint32_t delta_len,
				const uint8_t *key, size_t key_len)
{
	const uint8_t *e = delta_len >= HS_EPOCH_LEN ?
		value - HS_EPOCH_LEN : key + key_len - HS_EPOCH_LEN;

	return ~HsGetBE64(e);
}

/*
 * Step to the next entry; -1 if there is none (the end of the block) or it
 * is malformed (HS_CORRUPTION in the status), the iterator then invalid.
 * With same_key (a constant in every caller) also say whether the new
 * entry is another version of the one stepped from, the same table key
 * with another epoch suffix: 1 yes, 0 no (0 always without same_key).
 *
 * A scan calls this once per entry, so it decodes the entry header once,
 * compares the key delta against the old key in words before overwriting
 * it (HsBlockKeyDeltaDiffersAt), and copies a short key delta as two words
 * (HsBlockKeyDeltaCopy16) when the key buffer has room and the 16 bytes
 * read end within the first restart offset (every non-empty block has one
 * after its entries).
 */
static HS_ALWAYS_INLINE int
HsBlockIterStep(HsBlockIter *it, bool same_key)
{
	uint32_t	off = it->next;
	const uint8_t *limit = it->data + it->restarts_offset;
	const uint8_t *p;
	uint32_t	shared,
				non_shared,
				value_len;
	int			same = 0;

	if (off >= it->restarts_offset)
	{
		it->valid = false;
		return -1;
	}
	p = HsBlockDecodeEntry(it->data + off, limit, &shared, &non_shared, &value_len);
	if (p == NULL)
	{
		HsBlockIterFail(it, off, "truncated or overlong entry");
		return -1;
	}
	if (shared > it->key.len)
	{
		HsBlockIterFail(it, off, "shared prefix longer than the previous key");
		return -1;
	}
	if ((uint64_t) shared + non_shared < HS_MIN_FULL_KEY_LEN)
	{
		HsBlockIterFail(it, off, "key shorter than a full key");
		return -1;
	}
	if (same_key && (size_t) shared + non_shared == it->key.len)
	{
		size_t		tk_end = it->key.len - HS_EPOCH_LEN;

		same = HsBlockKeyDeltaDiffersAt(p, shared, it->key.data, tk_end) == tk_end;
	}
	if (non_shared <= 16 && it->key.cap >= (size_t) shared + 16 &&
		p + 16 <= limit + 4)
	{
		HsBlockKeyDeltaCopy16(it->key.data + shared, p);
		it->key.len = shared + non_shared;
	}
	else
	{
		it->key.len = shared;
		HsBufAppend(&it->key, p, non_shared);
	}
	it->value = p + non_shared;
	it->value_len = value_len;
	it->delta_len = non_shared;
	it->next = (uint32_t) (it->value + value_len - it->data);
	it->valid = true;
	return same;
}

/* Step to the next entry (invalid at the end of the block). */
static HS_ALWAYS_INLINE void
HsBlockIterNext(HsBlockIter *it)
{
	(void) HsBlockIterStep(it, false);
}

/*
 * Step to the next entry: 1 if it is another version of the current
 * entry's table key, 0 if not, -1 at the end of the block or on a
 * malformed entry (see HsBlockIterStep).
 */
static HS_ALWAYS_INLINE int
HsBlockIterNextSameTableKey(HsBlockIter *it)
{
	return HsBlockIterStep(it, true);
}

/* Is there an entry after the current one in this block? */
static inline bool
HsBlockIterHasNext(const HsBlockIter *it)
{
	return it->next < it->restarts_offset;
}

/* Is the cursor on an entry? */
static inline bool
HsBlockIterValid(const HsBlockIter *it)
{
	return it->valid;
}

/* Returns the current entry's full key. */
static inline HsSlice
HsBlockIterKey(const HsBlockIter *it)
{
	return HsSliceMake(it->key.data, it->key.len);
}

/* Returns the current entry's value. */
static inline HsSlice
HsBlockIterValue(const HsBlockIter *it)
{
	return HsSliceMake(it->value, it->value_len);
}

/*
 * An HsIterator over a block.  The iterator copies nothing: contents must
 * stay alive and unchanged until it is destroyed.  If contents is not a
 * valid block, the iterator is invalid and its status says why.
 */
extern HsIterator *HsBlockNewIterator(HsEnv *env, HsSlice contents,
									const char *path, uint64_t file_offset);

#endif							/* HS_STORAGE_BLOCK_H */
