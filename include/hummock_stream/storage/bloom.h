/*-------------------------------------------------------------------------
 *
 * bloom.h
 *	  The bloom filter of an SST: "may this file hold table key K?"
 *
 * One filter per SST over the *table keys* (table_id | user key: the full
 * key without its epoch), so a point get at any epoch consults it before
 * touching the index or a data block.
 *
 * It is a cache-line-blocked bloom filter: the first hash half picks one
 * 64-byte line, and all probes of the key fall in that line, so a lookup
 * costs one cache miss however many probes it makes.  Inside the line the
 * probes use double hashing: bit_i = top 9 bits of (a + i * d) for two
 * 32-bit values a, d derived from the 64-bit HsHash64 of the key.
 *
 * Filter block contents (persisted; never change):
 *
 *		lines   64 * L bytes   (L >= 1; bit b of a line is byte b/8, bit b%8)
 *		probes  u8             (1..30)
 *		kind    u8             HS_BLOOM_KIND_BLOCKED (1)
 *
 * The hash seed and the probe sequence are part of the format.  With 10
 * bits per key (6 probes) the false positive rate is about 1%.
 *
 * include/hummock_stream/storage/bloom.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_STORAGE_BLOOM_H
#define HS_STORAGE_BLOOM_H

#include "hummock_stream/storage/coding.h"
#include "hummock_stream/storage/hash.h"
#include "hummock_stream/storage/status.h"

#define HS_BLOOM_KIND_BLOCKED		1	/* never change */
#define HS_BLOOM_HASH_SEED			UINT64_C(0x6873626C6F6F6D31)	/* never change */
#define HS_BLOOM_LINE_BYTES			64
#define HS_BLOOM_MAX_PROBES			30
#define HS_BLOOM_DEFAULT_BITS_PER_KEY	10

/* The filter hash of a table key. */
static inline uint64_t
HsBloomHash(HsSlice table_key)
{
	return HsHash64(table_key.data, table_key.len, HS_BLOOM_HASH_SEED);
}

/* Number of probes used for a bits-per-key budget. */
extern int	HsBloomProbesForBitsPerKey(uint32_t bits_per_key);

/* ----------------------------------------------------------------
 *		building
 * ----------------------------------------------------------------
 */
typedef struct HsBloomBuilder
{
	HsEnv	   *env;
	uint32_t	bits_per_key;
	uint64_t   *hashes;
	size_t		num_hashes;
	size_t		cap;
} HsBloomBuilder;

extern void HsBloomBuilderInit(HsBloomBuilder *b, HsEnv *env,
							 uint32_t bits_per_key);
extern void HsBloomBuilderDestroy(HsBloomBuilder *b);
extern void HsBloomBuilderGrow(HsBloomBuilder *b);

/* Add one key by its HsBloomHash (callers add each table key once). */
static inline void
HsBloomBuilderAddHash(HsBloomBuilder *b, uint64_t h)
{
	if (b->num_hashes == b->cap)
		HsBloomBuilderGrow(b);
	b->hashes[b->num_hashes++] = h;
}

/* Append the filter block contents for the keys added so far to out. */
extern void HsBloomBuilderFinish(HsBloomBuilder *b, HsBuf *out);

/* ----------------------------------------------------------------
 *		querying
 * ----------------------------------------------------------------
 */
typedef struct HsBloomFilter
{
	const uint8_t *lines;
	uint32_t	num_lines;
	uint32_t	num_probes;
} HsBloomFilter;

/* Validate filter block contents (HS_CORRUPTION if malformed). */
extern bool HsBloomFilterParse(HsBloomFilter *f, HsSlice contents,
							 const char *path, uint64_t file_offset,
							 HsStatus *st);

/* The line and the probe sequence of a hash (shared by both sides). */
static inline uint32_t
HsBloomLineOf(uint64_t h, uint32_t num_lines)
{
	return (uint32_t) (((h >> 32) * (uint64_t) num_lines) >> 32);
}

/* Returns the probe step derived from a key hash. */
static inline uint32_t
HsBloomDeltaOf(uint64_t h)
{
	return (uint32_t) ((h * UINT64_C(0x9E3779B97F4A7C15)) >> 32) | 1;
}

/* False means the key is certainly absent. */
static inline bool
HsBloomFilterMayContainHash(const HsBloomFilter *f, uint64_t h)
{
	const uint8_t *line = f->lines +
		(size_t) HsBloomLineOf(h, f->num_lines) * HS_BLOOM_LINE_BYTES;
	uint32_t	a = (uint32_t) h;
	uint32_t	d = HsBloomDeltaOf(h);

	for (uint32_t i = 0; i < f->num_probes; i++)
	{
		uint32_t	bit = a >> 23;

		if ((line[bit >> 3] & (1u << (bit & 7))) == 0)
			return false;
		a += d;
	}
	return true;
}

/* Could the filter hold table_key? (false: certainly not) */
static inline bool
HsBloomFilterMayContain(const HsBloomFilter *f, HsSlice table_key)
{
	return HsBloomFilterMayContainHash(f, HsBloomHash(table_key));
}

#endif							/* HS_STORAGE_BLOOM_H */
