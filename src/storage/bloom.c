/*-------------------------------------------------------------------------
 *
 * bloom.c
 *	  Building and validating cache-line-blocked bloom filters.
 *
 * The builder keeps the 64-bit hash of every table key (8 bytes a key)
 * and sizes the filter at the end, when the key count is known:
 * L = ceil(keys * bits_per_key / 512) lines.  The format is documented in
 * bloom.h.
 *
 * src/storage/bloom.c
 *
 *-------------------------------------------------------------------------
 */
#include <inttypes.h>
#include <stdio.h>

#include "hummock_stream/storage/bloom.h"

#define BLOOM_PREFETCH_AHEAD	16

int
HsBloomProbesForBitsPerKey(uint32_t bits_per_key)
{
	/* about ln 2 * bits per key, rounded down (blocked filters like fewer) */
	int			k = (int) ((uint64_t) bits_per_key * 69 / 100);

	if (k < 1)
		k = 1;
	if (k > HS_BLOOM_MAX_PROBES)
		k = HS_BLOOM_MAX_PROBES;
	return k;
}

/* Initializes an empty builder (0 bits per key: the default). */
void
HsBloomBuilderInit(HsBloomBuilder *b, HsEnv *env, uint32_t bits_per_key)
{
	b->env = env;
	b->bits_per_key = bits_per_key ? bits_per_key :
		HS_BLOOM_DEFAULT_BITS_PER_KEY;
	b->hashes = NULL;
	b->num_hashes = 0;
	b->cap = 0;
}

/* Frees the builder's key hashes. */
void
HsBloomBuilderDestroy(HsBloomBuilder *b)
{
	if (b->hashes)
		HsFree(b->env, b->hashes);
	b->hashes = NULL;
	b->num_hashes = b->cap = 0;
}

/* Doubles the room for key hashes (1024 at first). */
void
HsBloomBuilderGrow(HsBloomBuilder *b)
{
	size_t		cap = b->cap ? b->cap * 2 : 1024;

	if (b->hashes == NULL)
		b->hashes = HsAlloc(b->env, cap * sizeof(uint64_t));
	else
		b->hashes = HsRealloc(b->env, b->hashes, cap * sizeof(uint64_t));
	b->cap = cap;
}

void
HsBloomBuilderFinish(HsBloomBuilder *b, HsBuf *out)
{
	uint64_t	bits = (uint64_t) b->num_hashes * b->bits_per_key;
	uint64_t	lines64 = (bits + 8 * HS_BLOOM_LINE_BYTES - 1) /
		(8 * HS_BLOOM_LINE_BYTES);
	uint32_t	num_lines;
	int			probes = HsBloomProbesForBitsPerKey(b->bits_per_key);
	uint8_t    *base;

	if (lines64 < 1)
		lines64 = 1;
	if (lines64 > UINT32_MAX / HS_BLOOM_LINE_BYTES)
		lines64 = UINT32_MAX / HS_BLOOM_LINE_BYTES;
	num_lines = (uint32_t) lines64;

	HsBufReserve(out, (size_t) num_lines * HS_BLOOM_LINE_BYTES + 2);
	base = out->data + out->len;
	memset(base, 0, (size_t) num_lines * HS_BLOOM_LINE_BYTES);

	/*
	 * Setting bits is one cache miss per key in a large filter; prefetch
	 * the line of the key a few iterations ahead so the misses overlap.
	 */
	for (size_t k = 0; k < b->num_hashes; k++)
	{
		uint64_t	h = b->hashes[k];
		uint8_t    *line = base +
			(size_t) HsBloomLineOf(h, num_lines) * HS_BLOOM_LINE_BYTES;
		uint32_t	a = (uint32_t) h;
		uint32_t	d = HsBloomDeltaOf(h);

		if (k + BLOOM_PREFETCH_AHEAD < b->num_hashes)
			__builtin_prefetch(base + (size_t) HsBloomLineOf(b->hashes[k + BLOOM_PREFETCH_AHEAD],
														   num_lines) * HS_BLOOM_LINE_BYTES, 1);

		for (int i = 0; i < probes; i++)
		{
			uint32_t	bit = a >> 23;

			line[bit >> 3] |= (uint8_t) (1u << (bit & 7));
			a += d;
		}
	}
	out->len += (size_t) num_lines * HS_BLOOM_LINE_BYTES;
	HsBufPutByte(out, (uint8_t) probes);
	HsBufPutByte(out, HS_BLOOM_KIND_BLOCKED);
}

bool
HsBloomFilterParse(HsBloomFilter *f, HsSlice contents, const char *path,
				 uint64_t file_offset, HsStatus *st)
{
	char		expected[96];
	char		actual[96];
	size_t		nbytes;
	uint8_t		probes;
	uint8_t		kind;

	if (contents.len < HS_BLOOM_LINE_BYTES + 2 ||
		(contents.len - 2) % HS_BLOOM_LINE_BYTES != 0 ||
		(contents.len - 2) / HS_BLOOM_LINE_BYTES > UINT32_MAX)
	{
		snprintf(actual, sizeof(actual), "%zu bytes", contents.len);
		return HsStatusCorruption(st, path, file_offset,
								  "bloom filter has an invalid size",
								  "64 * lines + 2 bytes", actual);
	}
	nbytes = contents.len - 2;
	probes = contents.data[nbytes];
	kind = contents.data[nbytes + 1];
	if (kind != HS_BLOOM_KIND_BLOCKED)
	{
		snprintf(expected, sizeof(expected), "%d", HS_BLOOM_KIND_BLOCKED);
		snprintf(actual, sizeof(actual), "%u", kind);
		return HsStatusCorruption(st, path, file_offset,
								  "unknown bloom filter kind", expected, actual);
	}
	if (probes < 1 || probes > HS_BLOOM_MAX_PROBES)
	{
		snprintf(expected, sizeof(expected), "1 to %d", HS_BLOOM_MAX_PROBES);
		snprintf(actual, sizeof(actual), "%u", probes);
		return HsStatusCorruption(st, path, file_offset,
								  "bloom filter probe count out of range",
								  expected, actual);
	}
	f->lines = contents.data;
	f->num_lines = (uint32_t) (nbytes / HS_BLOOM_LINE_BYTES);
	f->num_probes = probes;
	return true;
}
