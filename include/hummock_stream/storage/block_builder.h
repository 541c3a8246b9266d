/*-------------------------------------------------------------------------
 *
 * block_builder.h
 *	  Builds the contents of one SST block (data or index block).
 *
 * Block contents (persisted; never change):
 *
 *	   entry 0 | entry 1 | ... | entry n-1 | restart[0] ... restart[r-1] | r
 *
 *	   entry      = shared     varint32   bytes shared with the previous key
 *	                non_shared varint32   bytes of key that follow
 *	                value_len  varint32
 *	                key delta  non_shared bytes
 *	                value      value_len bytes
 *	   restart[i] = u32 LE    offset of an entry whose shared is 0
 *	   r          = u32 LE    number of restarts, at least 1
 *
 * Every restart_interval-th entry is a restart point: it stores its whole
 * key (shared = 0) and its offset goes into the restart array, so a reader
 * can binary-search the restart keys and then scan at most
 * restart_interval entries.  restart[0] is always 0.  An empty block is
 * the single restart 0 and the count 1 (8 bytes).
 *
 * Keys are full keys (key.h) added in strictly increasing HsFullKeyCompare
 * order; the builder does not check the order (HsSstBuilderAdd does).
 *
 * Aligned payloads (data blocks, HsBlockBuilderAlignPayloads): a value is a
 * kind byte and a payload (key.h), and a reader can use a payload in
 * place, without copying it, only if it is aligned: the table access
 * method hands rows (MinimalTuples) to the executor straight from the
 * block.  So the builder places every payload at a multiple of
 * HS_BLOCK_PAYLOAD_ALIGN from the start of the block (blocks are
 * decompressed into aligned buffers).  It does so with what the format
 * already allows: it shares fewer key bytes with the previous key (shared
 * may be anything up to the common prefix), and where that is not enough
 * (a restart entry shares nothing) it writes the value_len and non_shared
 * varints with redundant continuation bytes (0x80 groups), which every
 * varint decoder reads as the same number.  Readers need not know.
 *
 * On disk a block is followed by its trailer (compression kind, raw
 * length, CRC); see sst_format.h.
 *
 * include/hummock_stream/storage/block_builder.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_STORAGE_BLOCK_BUILDER_H
#define HS_STORAGE_BLOCK_BUILDER_H

#include "hummock_stream/storage/coding.h"

#define HS_BLOCK_DEFAULT_RESTART_INTERVAL	16
#define HS_BLOCK_PAYLOAD_ALIGN	8

typedef struct HsBlockBuilder
{
	uint32_t	restart_interval;
	uint32_t	counter;		/* entries since the last restart */
	uint32_t	num_entries;
	HsBuf		buf;			/* entries (then the trailer on finish) */
	HsBuf		restarts;		/* u32 LE restart offsets */
	HsBuf		last_key;
	bool		finished;
	bool		align_payloads; /* see "Aligned payloads" above */
} HsBlockBuilder;

/* restart_interval 0 means HS_BLOCK_DEFAULT_RESTART_INTERVAL. */
extern void HsBlockBuilderInit(HsBlockBuilder *b, HsEnv *env,
							 uint32_t restart_interval);
extern void HsBlockBuilderDestroy(HsBlockBuilder *b);

/* Place every value's payload (after its kind byte) aligned; see above. */
static inline void
HsBlockBuilderAlignPayloads(HsBlockBuilder *b, bool on)
{
	b->align_payloads = on;
}

/* Forget the entries (keeping the memory) to build the next block. */
extern void HsBlockBuilderReset(HsBlockBuilder *b);

/*
 * Append an entry.  key must sort after the previous key; the caller also
 * guarantees key.len and value.len fit in 32 bits.
 */
extern void HsBlockBuilderAdd(HsBlockBuilder *b, HsSlice key, HsSlice value);

/* Append the restart array and count; the slice lives until Reset. */
extern HsSlice HsBlockBuilderFinish(HsBlockBuilder *b);

/* Size the block would have if finished now. */
static inline size_t
HsBlockBuilderCurrentSize(const HsBlockBuilder *b)
{
	return b->buf.len + b->restarts.len + 4;
}

/* Has nothing been added since the last reset? */
static inline bool
HsBlockBuilderEmpty(const HsBlockBuilder *b)
{
	return b->num_entries == 0;
}

/* Returns the last key added. */
static inline HsSlice
HsBlockBuilderLastKey(const HsBlockBuilder *b)
{
	return HsBufSlice(&b->last_key);
}

#endif							/* HS_STORAGE_BLOCK_BUILDER_H */
